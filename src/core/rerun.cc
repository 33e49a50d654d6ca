#include "core/rerun.h"

#include <fmt/core.h>

namespace opsweep {

RerunDecision DecideRerun(const std::optional<StoredJob>& stored, const JobKey& current, RetryFailed retry) {
  if (!stored) return {true, "no stored result"};
  if (stored->job_key != current.digest) {
    std::string fields;
    for (const auto& f : ChangedKeyFields(stored->key_fields_json, current.fields_json)) {
      if (!fields.empty()) fields += ", ";
      fields += f;
    }
    if (fields.empty()) fields = "key digest";
    return {true, fmt::format("the stored result is stale: {} changed", fields)};
  }
  if (IsEngineStatus(stored->status)) {
    if (stored->attempts < 2) {
      return {true, fmt::format("the stored {} is retried once (attempt {} of 2)", StatusId(stored->status), stored->attempts + 1)};
    }
    if (retry == RetryFailed::yes) {
      return {true, fmt::format("the stored {} is re-run because of --retry-failed", StatusId(stored->status))};
    }
    return {false, fmt::format("the stored {} is current and was already retried ({} attempts); --retry-failed re-runs it",
                               StatusId(stored->status), stored->attempts)};
  }
  return {false, fmt::format("the stored result ({}) is current", StatusId(stored->status))};
}

int NextAttempts(const std::optional<StoredJob>& stored, const JobKey& current, Status new_status) {
  if (!IsEngineStatus(new_status)) return 0;
  if (stored && stored->job_key == current.digest && IsEngineStatus(stored->status)) return stored->attempts + 1;
  return 1;
}

}  // namespace opsweep
