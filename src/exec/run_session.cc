#include "exec/run_session.h"

#include <fmt/core.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/job_key.h"
#include "core/schedule.h"
#include "exec/progress.h"

namespace opsweep {

namespace {

struct PendingJob {
  std::string case_name;
  std::string path;
  JobKey key;
  std::optional<StoredJob> stored;
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
    r.attempts = NextAttempts(job.stored, job.key, outcome.status);
    r.run_id = run_id_;
    r.finished = clock_->UtcIso();
    if (!store_->PutResult(r, err)) return false;
    progress_->OnOutcome(outcome.status, job.expected_s);
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
  RunEnd end = supervisor_->Open(&hello, &inventory, err);
  if (end != RunEnd::completed) return end;
  auto fail = [&](const std::string& message) {
    supervisor_->Stop();
    *err = message;
    return RunEnd::failed;
  };

  KeyEnvironment env;
  if (!KeyEnvironmentFromHello(hello.env_json, &env, err)) return fail(*err);
  PlanRequest plan_request = request.plan;
  if (plan_request.paths.empty()) plan_request.paths = hello.path_ids();
  std::vector<PlannedJob> plan;
  if (!BuildPlan(inventory, hello.path_ids(), plan_request, &plan, err)) {
    fail(*err);
    return RunEnd::bad_request;
  }

  std::vector<StoredResult> stored_rows;
  if (!store_->LoadResults(&stored_rows, err)) return fail(*err);
  std::map<std::pair<std::string, std::string>, StoredJob> stored;
  DurationModel durations;
  for (const PathSpec& path : hello.paths) {
    if (path.expected_seconds) durations.SetDefault(path.id, *path.expected_seconds);
  }
  for (const auto& r : stored_rows) {
    durations.Add(r.case_name, r.path, r.duration_s);
    // A row whose status this build does not know is not a result to reuse: the job runs again.
    if (auto status = ParseStatus(r.status)) {
      stored[{r.case_name, r.path}] = StoredJob{r.job_key, r.key_fields_json, *status, r.attempts, r.duration_s};
    }
  }

  std::vector<PendingJob> pending;
  std::vector<double> expected;
  for (const PlannedJob& p : plan) {
    const PathSpec& path = *FindPath(hello.paths, p.path);  // BuildPlan refused unknown paths
    PendingJob job{p.case_name, p.path, ComputeJobKey(inventory[p.case_index].fingerprint, path, env), std::nullopt};
    auto it = stored.find({p.case_name, p.path});
    if (it != stored.end()) job.stored = it->second;
    if (!DecideRerun(job.stored, job.key, request.retry).run) {
      ++summary->reused;
      continue;
    }
    job.expected_s = durations.Expected(p.case_name, p.path);
    expected.push_back(job.expected_s);
    pending.push_back(std::move(job));
  }
  std::vector<PendingJob> ordered;
  std::vector<SupervisedJob> jobs;
  for (size_t i : LongestFirst(expected)) {
    jobs.push_back(SupervisedJob{pending[i].case_name, pending[i].path});
    ordered.push_back(std::move(pending[i]));
  }
  summary->planned = plan.size();

  RunInfo info;
  info.started = clock_->UtcIso();
  info.argv = request.argv_json;
  info.shard = plan_request.shard.ToString();
  info.env_json = hello.env_json;
  info.harness = hello.harness;
  info.registries_json = request.registries_json;
  info.paths_json = RequestedPathsJson(hello, plan_request.paths);
  long long run_id = 0;
  if (!store_->BeginRun(info, &run_id, err)) return fail(*err);
  std::vector<InventoryCase> cases;
  cases.reserve(inventory.size());
  for (const auto& c : inventory) cases.push_back(InventoryCase{c.name, c.group, c.registry, c.fingerprint, c.info_json, run_id});
  if (!store_->ReplaceInventory(cases, err)) return fail(*err);

  terminal_->Write(fmt::format("opsweep run: {} jobs planned (from {} cases x {} paths{}): {} to run, {} current{}\n",
                               plan.size(), inventory.size(), plan_request.paths.size(),
                               plan_request.shard.count > 1 ? ", shard " + plan_request.shard.ToString() : "",
                               jobs.size(), summary->reused,
                               request.setup_note.empty() ? "" : "; " + request.setup_note));

  double expected_total = 0;
  for (double e : expected) expected_total += e;
  Progress progress(terminal_, clock_, jobs.size(), summary->reused, expected_total);
  StoringObserver observer(store_, clock_, &progress, &ordered, run_id);
  std::string run_err;
  end = supervisor_->Run(jobs, &observer, &run_err);
  if (end == RunEnd::completed) supervisor_->Stop();
  summary->restarts = supervisor_->restarts();
  std::string finish_err;
  bool finished = store_->FinishRun(run_id, clock_->UtcIso(), &finish_err);
  progress.Finish(end == RunEnd::completed ? "" : end == RunEnd::interrupted ? "interrupted" : "stopped");
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
