#include "exec/run_session.h"

#include <fmt/core.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/job_key.h"
#include "core/schedule.h"
#include "exec/progress.h"
#include "exec/run_plan.h"

namespace opsweep {

namespace {

struct PendingJob {
  std::string case_name;
  std::string path;
  std::string pace;  // its group in the progress ETA: the path, apart for derived expectations
  JobKey key;
  std::optional<StoredJob> stored;
  RerunDecision decision;
  double expected_s = 0;
};

class StoringObserver : public RunObserver {
 public:
  StoringObserver(ResultStore* store, Clock* clock, Progress* progress, const std::vector<PendingJob>* jobs,
                  long long run_id)
      : store_(store), clock_(clock), progress_(progress), jobs_(jobs), run_id_(run_id) {}

  bool OnOutcome(const JobOutcome& outcome, std::string* err) override {
    const PendingJob& job = (*jobs_)[outcome.job];
    StoredResult r;
    r.case_name = job.case_name;
    r.path = job.path;
    r.job_key = job.key.digest;
    r.key_fields_json = job.key.fields_json;
    r.status = std::string(StatusId(outcome.status));
    r.record_json = outcome.record_json;
    r.duration_s = outcome.duration_s;
    r.attempts = NextAttempts(job.stored, job.decision, outcome.status);
    r.run_id = run_id_;
    r.finished = clock_->UtcIso();
    if (!store_->PutResult(r, err)) return false;
    progress_->OnOutcome(outcome.status, job.expected_s, job.pace, outcome.duration_s);
    return true;
  }
  void OnTick() override { progress_->Tick(); }

 private:
  ResultStore* store_;
  Clock* clock_;
  Progress* progress_;
  const std::vector<PendingJob>* jobs_;
  long long run_id_;
};

// runs.paths_json: the descriptions of the requested paths, in the requested order, each as the
// worker's hello gave it.
std::string RequestedPathsJson(const HelloMessage& hello, const std::vector<std::string>& requested) {
  std::string out = "[";
  for (const std::string& id : requested) {
    for (size_t i = 0; i < hello.paths.size(); ++i) {
      if (hello.paths[i].id != id) continue;
      if (out.size() > 1) out += ",";
      out += hello.paths_json[i];
    }
  }
  return out + "]";
}

// What the store holds before the run: its results, runs and case identities.
struct StoredState {
  std::vector<StoredResult> results;
  std::vector<RunInfo> runs;
  std::vector<CaseIdentity> identities;
};

bool LoadStored(ResultStore* store, StoredState* out, std::string* err) {
  return store->LoadResults(&out->results, err) && store->LoadRuns(&out->runs, err) &&
         store->LoadIdentities(&out->identities, err);
}

// The expected duration of every job (core/schedule.h): the paths' defaults, this database's
// measurements, and those of another survey (--durations-from).
DurationModel ExpectedDurations(const HelloMessage& hello, const std::vector<StoredResult>& stored,
                                const std::vector<std::tuple<std::string, std::string, double>>& prior) {
  DurationModel durations;
  for (const PathSpec& path : hello.paths) {
    if (path.expected_seconds) durations.SetDefault(path.id, *path.expected_seconds);
  }
  for (const auto& r : stored) durations.Add(r.case_name, r.path, r.duration_s);
  for (const auto& [case_name, path, seconds] : prior) durations.AddPrior(case_name, path, seconds);
  return durations;
}

// Current records measured before index version 4 take the token digests of their unchanged
// functions (the same deps; afterwards a comment in them re-probes nothing), rewritten in the store.
bool ReencodeOldRecords(ResultStore* store, Terminal* terminal, std::vector<StoredResult>* stored, const RunPlan& plan,
                        const LibraryIndex& index, std::string* err) {
  std::vector<const StoredResult*> reencoded = ReencodeCurrentRecords(stored, plan, index);
  if (reencoded.empty()) return true;
  if (!store->RewriteRecords(reencoded, err)) return false;
  terminal->Write(fmt::format("opsweep run: {} current record{} now list their functions by token digests "
                              "(index version 4; measured with digests of lines)\n",
                              CountText(reencoded.size()), reencoded.size() == 1 ? "" : "s"));
  return true;
}

// The jobs to run, longest expected first, and the sum of their expectations (in plan order).
struct JobQueue {
  std::vector<PendingJob> pending;
  std::vector<SupervisedJob> jobs;  // the same jobs, as the supervisor takes them
  double expected_total = 0;
};

JobQueue QueueLongestFirst(const RunPlan& plan, const DurationModel& durations) {
  std::vector<PendingJob> pending;
  std::vector<double> expected;
  for (const PlannedDecision& d : plan.jobs) {
    if (!d.decision.run) continue;
    // Progress paces each kind of expectation apart (exec/progress.h).
    const char* source = durations.Measured(d.job.case_name, d.job.path)    ? ""
                         : durations.FromPrior(d.job.case_name, d.job.path) ? " (other survey)"
                                                                            : " (derived)";
    PendingJob job{d.job.case_name, d.job.path, d.job.path + source,
                   d.key, d.stored, d.decision, durations.Expected(d.job.case_name, d.job.path)};
    expected.push_back(job.expected_s);
    pending.push_back(std::move(job));
  }
  JobQueue queue;
  for (double e : expected) queue.expected_total += e;
  for (size_t i : LongestFirst(expected)) {
    queue.jobs.push_back(SupervisedJob{pending[i].case_name, pending[i].path});
    queue.pending.push_back(std::move(pending[i]));
  }
  return queue;
}

// The run's row (runs.*) and the inventory it measures, before any job starts.
bool RecordRun(ResultStore* store, Clock* clock, const RunRequest& request, const PlanRequest& plan_request,
               const HelloMessage& hello, const std::vector<CaseEntry>& inventory, long long* run_id,
               std::string* err) {
  RunInfo info;
  info.started = clock->UtcIso();
  info.argv = request.argv_json;
  info.shard = plan_request.shard.ToString();
  info.env_json = hello.env_json;
  info.harness = hello.harness;
  info.registries_json = request.registries_json;
  info.paths_json = RequestedPathsJson(hello, plan_request.paths);
  info.machine_json = plan_request.machine;
  if (!store->BeginRun(info, run_id, err)) return false;
  std::vector<InventoryCase> cases;
  cases.reserve(inventory.size());
  for (const auto& c : inventory) {
    cases.push_back(InventoryCase{c.name, c.group, c.registry, c.fingerprint, c.info_json, *run_id});
  }
  return store->ReplaceInventory(cases, err);
}

// The end of the progress line about workers: "workers lost 2, replaced 1 between jobs to free memory".
std::string WorkersNote(const RunSummary& summary) {
  std::string workers;
  if (summary.restarts > 0) workers = fmt::format("workers lost {}", summary.restarts);
  if (summary.recycled > 0) {
    workers += fmt::format("{}replaced {} between jobs to free memory", workers.empty() ? "workers " : ", ",
                           summary.recycled);
  }
  return workers;
}

}  // namespace

RunEnd RunSession::Execute(const RunRequest& request, RunSummary* summary, std::string* err) {
  *summary = RunSummary{};
  HelloMessage hello;
  std::vector<CaseEntry> inventory;
  LibraryIndex index;
  RunEnd end = supervisor_->Open(&hello, &inventory, &index, err);
  if (end != RunEnd::completed) return end;
  auto fail = [&](const std::string& message) {
    supervisor_->Stop();
    *err = message;
    return RunEnd::failed;
  };

  StoredState stored;
  if (!LoadStored(store_, &stored, err)) return fail(*err);
  RunPlan plan;
  if (!BuildRunPlan(hello, inventory, index,
                    IndexStoredJobs(stored.results, stored.runs, MigrationMarks(hello.paths), stored.identities),
                    request.plan, request.retry, &plan, err)) {
    fail(*err);
    return RunEnd::bad_request;
  }
  PlanRequest plan_request = request.plan;
  plan_request.paths = plan.paths;
  const DurationModel durations = ExpectedDurations(hello, stored.results, request.prior_durations);
  if (request.dry_run == DryRun::no && !ReencodeOldRecords(store_, terminal_, &stored.results, plan, index, err)) {
    return fail(*err);
  }
  std::vector<StoredResult>().swap(stored.results);  // the records' text is not needed past the plan
  JobQueue queue = QueueLongestFirst(plan, durations);
  summary->planned = plan.jobs.size();
  summary->reused = plan.current;
  summary->to_run = plan.to_run;

  const std::string plan_line = PlanSummary(plan, plan.cases, plan_request.shard);
  if (request.explain) {
    for (const std::string& line : ExplainLines(plan)) request.explain(line);
  }
  if (request.dry_run == DryRun::yes) {
    supervisor_->Stop();
    terminal_->Write(fmt::format("opsweep run: {} (dry run: nothing probed, no result written)\n", plan_line));
    return RunEnd::completed;
  }
  long long run_id = 0;
  if (!RecordRun(store_, clock_, request, plan_request, hello, inventory, &run_id, err)) return fail(*err);
  terminal_->Write(fmt::format("opsweep run: {}{}\n", plan_line,
                               request.setup_note.empty() ? "" : "; " + request.setup_note));
  Progress progress(terminal_, clock_, queue.jobs.size(), summary->reused, queue.expected_total);
  progress.SetWorkers(std::min<int>(supervisor_->slots(), static_cast<int>(std::max<size_t>(queue.jobs.size(), 1))));
  for (const PendingJob& job : queue.pending) progress.Expect(job.pace, job.expected_s);
  StoringObserver observer(store_, clock_, &progress, &queue.pending, run_id);
  return RunJobs(queue.jobs, &observer, &progress, run_id, summary, err);
}

RunEnd RunSession::RunJobs(const std::vector<SupervisedJob>& jobs, RunObserver* observer, Progress* progress,
                           long long run_id, RunSummary* summary, std::string* err) {
  std::string run_err;
  RunEnd end = supervisor_->Run(jobs, observer, &run_err);
  if (end == RunEnd::completed) supervisor_->Stop();
  summary->restarts = supervisor_->restarts();
  summary->recycled = supervisor_->recycled();
  std::string finish_err;
  bool finished = store_->FinishRun(run_id, clock_->UtcIso(), &finish_err);
  progress->Finish(end == RunEnd::completed ? "" : end == RunEnd::interrupted ? "interrupted" : "stopped",
                   WorkersNote(*summary));
  if (end == RunEnd::failed || end == RunEnd::stopped) {
    *err = run_err;
    return end;
  }
  if (!finished) {
    *err = finish_err;
    return RunEnd::failed;
  }
  return end;
}

}  // namespace opsweep
