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

  std::vector<StoredResult> stored_rows;
  std::vector<RunInfo> stored_runs;
  std::vector<CaseIdentity> identities;
  if (!store_->LoadResults(&stored_rows, err) || !store_->LoadRuns(&stored_runs, err) ||
      !store_->LoadIdentities(&identities, err)) {
    return fail(*err);
  }
  RunPlan plan;
  if (!BuildRunPlan(hello, inventory, index,
                    IndexStoredJobs(stored_rows, stored_runs, MigrationMarks(hello.paths), identities), request.plan,
                    request.retry, &plan, err)) {
    fail(*err);
    return RunEnd::bad_request;
  }
  PlanRequest plan_request = request.plan;
  plan_request.paths = plan.paths;
  DurationModel durations;
  for (const PathSpec& path : hello.paths) {
    if (path.expected_seconds) durations.SetDefault(path.id, *path.expected_seconds);
  }
  for (const auto& r : stored_rows) durations.Add(r.case_name, r.path, r.duration_s);
  for (const auto& [case_name, path, seconds] : request.prior_durations) durations.AddPrior(case_name, path, seconds);
  // Current records measured before index version 4 take the token digests of their unchanged
  // functions (the same deps; afterwards a comment in them re-probes nothing). Not on a dry run.
  if (request.dry_run == DryRun::no) {
    std::vector<const StoredResult*> reencoded = ReencodeCurrentRecords(&stored_rows, plan, index);
    if (!reencoded.empty()) {
      if (!store_->RewriteRecords(reencoded, err)) return fail(*err);
      terminal_->Write(fmt::format("opsweep run: {} current record{} now list their functions by token digests "
                                   "(index version 4; measured with digests of lines)\n",
                                   CountText(reencoded.size()), reencoded.size() == 1 ? "" : "s"));
    }
  }
  std::vector<StoredResult>().swap(stored_rows);  // the records' text is not needed past the plan

  std::vector<PendingJob> pending;
  std::vector<double> expected;
  for (PlannedDecision& d : plan.jobs) {
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
  std::vector<PendingJob> ordered;
  std::vector<SupervisedJob> jobs;
  for (size_t i : LongestFirst(expected)) {
    jobs.push_back(SupervisedJob{pending[i].case_name, pending[i].path});
    ordered.push_back(std::move(pending[i]));
  }
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

  RunInfo info;
  info.started = clock_->UtcIso();
  info.argv = request.argv_json;
  info.shard = plan_request.shard.ToString();
  info.env_json = hello.env_json;
  info.harness = hello.harness;
  info.registries_json = request.registries_json;
  info.paths_json = RequestedPathsJson(hello, plan_request.paths);
  info.machine_json = plan_request.machine;
  long long run_id = 0;
  if (!store_->BeginRun(info, &run_id, err)) return fail(*err);
  std::vector<InventoryCase> cases;
  cases.reserve(inventory.size());
  for (const auto& c : inventory) cases.push_back(InventoryCase{c.name, c.group, c.registry, c.fingerprint, c.info_json, run_id});
  if (!store_->ReplaceInventory(cases, err)) return fail(*err);

  terminal_->Write(fmt::format("opsweep run: {}{}\n", plan_line,
                               request.setup_note.empty() ? "" : "; " + request.setup_note));

  double expected_total = 0;
  for (double e : expected) expected_total += e;
  Progress progress(terminal_, clock_, jobs.size(), summary->reused, expected_total);
  progress.SetWorkers(std::min<int>(supervisor_->slots(), static_cast<int>(std::max<size_t>(jobs.size(), 1))));
  for (const PendingJob& job : ordered) progress.Expect(job.pace, job.expected_s);
  StoringObserver observer(store_, clock_, &progress, &ordered, run_id);
  std::string run_err;
  end = supervisor_->Run(jobs, &observer, &run_err);
  if (end == RunEnd::completed) supervisor_->Stop();
  summary->restarts = supervisor_->restarts();
  summary->recycled = supervisor_->recycled();
  std::string finish_err;
  bool finished = store_->FinishRun(run_id, clock_->UtcIso(), &finish_err);
  std::string workers;
  if (summary->restarts > 0) workers = fmt::format("workers lost {}", summary->restarts);
  if (summary->recycled > 0) {
    workers += fmt::format("{}replaced {} between jobs to free memory", workers.empty() ? "workers " : ", ",
                           summary->recycled);
  }
  progress.Finish(end == RunEnd::completed ? "" : end == RunEnd::interrupted ? "interrupted" : "stopped", workers);
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
