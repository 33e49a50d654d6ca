// The plan of one `opsweep run` once the first worker has spoken: every planned job with its key,
// its stored result and the decision whether it runs (core/rerun.h), the counts by cause for the
// plan line, and the sentences `--explain` prints. `opsweep run`, `opsweep run --dry-run` and
// `opsweep explain` all plan through here, so they can never disagree.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/case_entry.h"
#include "core/library_index.h"
#include "core/plan.h"
#include "core/rerun.h"
#include "exec/protocol.h"
#include "store/results_db.h"

namespace opsweep {

struct PlannedDecision {
  PlannedJob job;
  JobKey key;
  std::optional<StoredJob> stored;
  RerunDecision decision;
};

struct RunPlan {
  std::vector<PlannedDecision> jobs;  // in plan order (cases in inventory order, then paths)
  std::vector<std::string> paths;     // the requested paths
  size_t to_run = 0;
  size_t current = 0;
  std::map<RerunCause, size_t> by_cause;  // the jobs that run, by the first cause of each
  size_t case_changed_elsewhere = 0;      // of by_cause[case_changed]: measured on another machine
  size_t cases = 0;  // the cases --only and --groups select (every shard's): the plan line's "from N cases"
};

// What the stored results say, indexed for planning: each (case, path)'s StoredJob (with its
// record's deps, its run's library fingerprint, which of the harness migrations' `marks`
// (MigrationMarks of the hello's paths) its record's text contains, and the recipes and machines
// its case fingerprint is known to come from). Rows whose status this build does not know are left
// out: such a job runs again.
std::map<std::pair<std::string, std::string>, StoredJob> IndexStoredJobs(const std::vector<StoredResult>& results,
                                                                         const std::vector<RunInfo>& runs,
                                                                         const std::vector<std::string>& marks = {},
                                                                         const std::vector<CaseIdentity>& identities = {});

// Plans `request` (paths empty = every path of the hello) over the inventory. Fails (one line) on a
// request the worker cannot serve: an unknown path, or an --only / --groups that matches nothing.
bool BuildRunPlan(const HelloMessage& hello, const std::vector<CaseEntry>& inventory, const LibraryIndex& index,
                  const std::map<std::pair<std::string, std::string>, StoredJob>& stored, PlanRequest request,
                  RetryFailed retry, RunPlan* out, std::string* err);

// The stored rows of the plan's current jobs whose records list their functions with digests of
// lines (measured before index version 4), their record_json rewritten with the index's token
// digests (ReencodeLineDigests, core/library_index.h; the record's other fields and their order
// unchanged). A record that already holds token digests is passed over without being parsed.
std::vector<const StoredResult*> ReencodeCurrentRecords(std::vector<StoredResult>* rows, const RunPlan& plan,
                                                        const LibraryIndex& index);

// "6,084 jobs planned (from 2,028 cases x 3 paths): 24 to run: 20 library code changed, 4 new;
// 6,060 current" (", shard 2/4" after the paths when sharded); "12 case changed (12 measured on
// another machine)" when their results were measured on a CPU other than this one.
std::string PlanSummary(const RunPlan& plan, size_t cases, const ShardSpec& shard);

// One line per job that runs: "rgb_to_grayscale onnx: lib/color/gray.py:rgb_to_grayscale changed";
// then one line per migration those lines name, with its why and its job count ("migration ID (N
// jobs): WHY"), so a paragraph-long why is not repeated on every job line.
std::vector<std::string> ExplainLines(const RunPlan& plan);

// 6084 -> "6,084".
std::string CountText(size_t n);

}  // namespace opsweep
