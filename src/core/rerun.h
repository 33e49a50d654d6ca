// Whether a planned job runs or reuses its stored result, with the sentence that says why. A stored result is reused when its job key equals
// the current one, except that crash and timeout are retried once: `attempts` counts consecutive
// crash/timeout outcomes under the same key, and one with attempts < 2 runs again.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/job_key.h"
#include "core/status.h"

namespace opsweep {

enum class RetryFailed { no, yes };  // --retry-failed: re-run crash/timeout whatever their attempts

// What the decision needs of a stored result.
struct StoredJob {
  std::string job_key;
  std::string key_fields_json;
  Status status = Status::ok;
  int attempts = 0;
  double duration_s = 0;
};

struct RerunDecision {
  bool run = true;
  std::string why;  // one sentence
};

RerunDecision DecideRerun(const std::optional<StoredJob>& stored, const JobKey& current, RetryFailed retry);

// `attempts` to store with a new outcome: 0 unless crash/timeout; then one more than the stored
// value when the stored result has the same key and was itself a crash/timeout, else 1.
int NextAttempts(const std::optional<StoredJob>& stored, const JobKey& current, Status new_status);

}  // namespace opsweep
