// One `opsweep run` from the first worker's hello to the finished run: plan the jobs, decide which
// stored results are current (exec/run_plan.h; a dry run stops here, having written nothing), record the run, hand the rest to the supervisor longest first, store
// each outcome as it arrives (committed at once, so a kill -9 loses only jobs in flight) and
// finish the run. Wiring of real processes, database and terminal happens in cli/verb_run.cc.
#pragma once
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "core/plan.h"
#include "core/rerun.h"
#include "exec/clock.h"
#include "exec/result_store.h"
#include "exec/supervisor.h"
#include "exec/terminal.h"

namespace opsweep {

class Progress;

enum class DryRun { no, yes };  // --dry-run: plan and print, probe nothing, write nothing

struct RunRequest {
  PlanRequest plan;  // plan.paths empty = every path the worker offers
  RetryFailed retry = RetryFailed::no;
  DryRun dry_run = DryRun::no;
  // --explain: called with each line of ExplainLines (exec/run_plan.h), before any job starts.
  std::function<void(const std::string&)> explain;
  std::string argv_json;        // the command line, for runs.argv
  std::string registries_json;  // the registry files, for runs.registries_json
  std::string setup_note;       // appended to the "N jobs to run" line (e.g. "4 workers x 2 threads")
  // Durations of the same cases in another survey (--durations-from): (case, path, seconds), the
  // expected duration of a job this database has not measured (core/schedule.h rule 1b).
  std::vector<std::tuple<std::string, std::string, double>> prior_durations;
};

struct RunSummary {
  size_t planned = 0;
  size_t reused = 0;
  size_t to_run = 0;
  int restarts = 0;
  int recycled = 0;  // workers replaced between jobs for their memory
};

class RunSession {
 public:
  RunSession(Supervisor* supervisor, ResultStore* store, Clock* clock, Terminal* terminal)
      : supervisor_(supervisor), store_(store), clock_(clock), terminal_(terminal) {}

  // Returns how the run ended; *err is one line when it failed.
  RunEnd Execute(const RunRequest& request, RunSummary* summary, std::string* err);

 private:
  // Runs the jobs, the observer storing each outcome as it arrives, and finishes the run
  // (runs.finished) however it ended.
  RunEnd RunJobs(const std::vector<SupervisedJob>& jobs, RunObserver* observer, Progress* progress, long long run_id,
                 RunSummary* summary, std::string* err);

  Supervisor* supervisor_;
  ResultStore* store_;
  Clock* clock_;
  Terminal* terminal_;
};

}  // namespace opsweep
