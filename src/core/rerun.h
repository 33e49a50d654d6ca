// Whether a planned job runs or reuses its stored result, with its cause and the sentences that say
// why (the same sentences `opsweep explain` and `opsweep run --dry-run --explain` show).
//
// A stored result is current when
// 1. its job key equals the current one (the case, the path's harness and env fields, the library's
//    name: core/job_key.h), and
// 2. the library code it depends on is unchanged: every function and module of its record's `deps`
//    still has the digest it had (core/library_index.h). A record without deps (crash, timeout, a
//    recording the worker could not trust) or a run without an index (no library, an old worker)
//    falls back to the whole library: the fingerprint of the run that measured it must equal the
//    current one.
// Crash and timeout are retried once even when current: `attempts` counts consecutive crash/timeout
// outcomes of a current job, and one with attempts < 2 runs again.
#pragma once
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job_key.h"
#include "core/library_index.h"
#include "core/path_spec.h"
#include "core/status.h"

namespace opsweep {

// --retry-failed (yes): re-run crash/timeout whatever their attempts; --force (everything): that, and
// every other current result too (the jobs the run's selection holds).
enum class RetryFailed { no, yes, everything };

// Why a job runs, counted by kind on the plan line. Never persisted.
enum class RerunCause {
  current,              // it does not run
  new_result,           // no stored result
  case_changed,         // the case's fingerprint
  library_changed,      // another surveyed library (its name)
  harness_changed,      // the path's harness code
  environment_changed,  // one of the path's env fields (torch, onnxruntime, ...)
  code_changed,         // library code the result depends on
  retry,                // a current crash/timeout, retried once
  retry_failed,         // --retry-failed (or --force, for a crash/timeout)
  forced,               // --force: current, re-probed because asked
};

// The plan line's words for a cause: "new", "case changed", "library changed", "harness changed",
// "environment changed", "library code changed", "retried", "--retry-failed", "--force"; "current".
std::string_view RerunCauseLabel(RerunCause cause);

// What the decision needs of a stored result.
struct StoredJob {
  std::string job_key;
  std::string key_fields_json;
  Status status = Status::ok;
  int attempts = 0;
  double duration_s = 0;
  // record.deps as JSON text ("" when the record has none). Parsed only when a decision needs it,
  // one record at a time: a full survey's deps are ~180 MB of text, ~8 times that as parsed JSON.
  std::string deps_json;
  std::string library_fingerprint;  // hello.env.library.fingerprint of the run that measured it
  std::string machine;              // MachineText (util/machine.h) of the run that measured it; "" = unknown
  // The marks of the harness migrations (core/path_spec.h) that its record's text contains.
  std::vector<std::string> record_marks;
  // Where its case fingerprint is known to come from: (recipe, MachineText of the machine that
  // computed it), from the database's case identities (store/results_db.h).
  std::vector<std::pair<std::string, std::string>> case_identities;
  // Every case identity the database holds, by fingerprint (shared by the jobs of one plan; may be
  // null): the recipes under which this machine computed the fingerprint it computes now.
  std::shared_ptr<const std::map<std::string, std::vector<std::pair<std::string, std::string>>>> identities;
};

// The current state of the library: the first worker's index and hello.
struct LibraryState {
  const LibraryIndex* index = nullptr;  // null or !known: only fingerprints are compared
  std::string fingerprint;
  std::string machine;  // MachineText (util/machine.h) of this machine; "" = unknown
};

struct RerunDecision {
  bool run = true;
  RerunCause cause = RerunCause::new_result;
  std::vector<std::string> reasons;  // one sentence each, most telling first; at least one
  // The case changed, and its stored result was measured on another machine than this one (both
  // known): the second reason says so ("it was measured on another machine (A; this one: B), where
  // inputs computed in float32 can round differently").
  bool other_machine = false;
  // A migration re-runs the result (cause harness_changed): its id and its why, which the sentence
  // that names it carries in parentheses ("migration ID (WHY) re-runs the results whose record
  // says 'MARK', as this one does").
  std::string migration_id, migration_why;
  // The reasons joined: up to `limit` of them, then "and N more". With `migration_why` false the
  // migration's sentence leaves out its why (`opsweep run --explain` says each why once, after
  // the jobs, instead of on every job line).
  std::string Why(size_t limit = 3, bool migration_why = true) const;
};

// `path` (optional) is the job's path description: a stored result whose key differs from the
// current one in the harness digest alone stands when the path's migrations carry it over (a chain
// from its digest to the current one, and none of the chain's marks in its record); it is then
// judged like a result with the current key, and its "current" sentence names the migrations.
// `recipe` (optional) is the current case's recipe (core/case_entry.h): a stored result whose case
// fingerprint alone differs (or it and a carried harness digest) stands when its fingerprint is
// known to come from this recipe on another machine than this one: the same case, its float32
// inputs rounded by another CPU (docs/formats.md section 4.2). It also stands when the stored
// fingerprint came from an earlier recipe on another machine and this machine computed, under that
// earlier recipe, the very fingerprint it computes now: the sources changed since (an edit of the
// library changes every recipe) without changing this case's inputs here, so the other machine's
// result is still of this case.
RerunDecision DecideRerun(const std::optional<StoredJob>& stored, const JobKey& current, const LibraryState& library,
                          RetryFailed retry, const PathSpec* path = nullptr, std::string_view recipe = {});

// One sentence per key field that differs between two key_fields_json objects: "the case changed
// (its target, inputs or options)", "the harness code of path onnx changed", "onnxruntime 1.32.0 ->
// 1.33.0", "the surveyed library changed (lib -> otherlib)"; and the cause of the first of them.
std::vector<std::string> KeyFieldSentences(const std::string& old_fields_json, const std::string& new_fields_json,
                                           RerunCause* cause);

// `attempts` to store with a new outcome: 0 unless crash/timeout; then one more than the stored
// value when the job ran as a retry of a current crash/timeout, else 1.
int NextAttempts(const std::optional<StoredJob>& stored, const RerunDecision& decision, Status new_status);

}  // namespace opsweep
