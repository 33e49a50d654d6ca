#include "exec/run_plan.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "util/machine.h"

namespace opsweep {

std::string CountText(size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::map<std::pair<std::string, std::string>, StoredJob> IndexStoredJobs(const std::vector<StoredResult>& results,
                                                                         const std::vector<RunInfo>& runs,
                                                                         const std::vector<std::string>& marks,
                                                                         const std::vector<CaseIdentity>& identities) {
  auto shared = std::make_shared<std::map<std::string, std::vector<std::pair<std::string, std::string>>>>();
  auto& by_fingerprint = *shared;
  for (const CaseIdentity& id : identities) by_fingerprint[id.fingerprint].emplace_back(id.recipe, MachineText(id.machine_json));
  std::map<long long, std::string> fingerprints, machines;
  for (const RunInfo& run : runs) {
    nlohmann::json env = nlohmann::json::parse(run.env_json, nullptr, false);
    fingerprints[run.id] = env.is_object() ? LibraryFingerprint(env) : "";
    machines[run.id] = MachineText(run.machine_json);
  }
  std::map<std::pair<std::string, std::string>, StoredJob> out;
  for (const StoredResult& r : results) {
    auto status = ParseStatus(r.status);
    if (!status) continue;
    StoredJob job{r.job_key, r.key_fields_json, *status, r.attempts, r.duration_s, "", ""};
    nlohmann::json record = nlohmann::json::parse(r.record_json, nullptr, false);
    if (record.is_object()) {
      auto deps = record.find("deps");
      if (deps != record.end() && !deps->is_null()) job.deps_json = deps->dump();
    }
    if (auto it = fingerprints.find(r.run_id); it != fingerprints.end()) job.library_fingerprint = it->second;
    if (auto it = machines.find(r.run_id); it != machines.end()) job.machine = it->second;
    for (const std::string& mark : marks) {
      if (r.record_json.find(mark) != std::string::npos) job.record_marks.push_back(mark);
    }
    if (!by_fingerprint.empty()) {
      auto fields = nlohmann::json::parse(r.key_fields_json, nullptr, false);
      if (fields.is_object() && fields.contains("case") && fields["case"].is_string()) {
        if (auto it = by_fingerprint.find(fields["case"].get<std::string>()); it != by_fingerprint.end()) {
          job.case_identities = it->second;
        }
      }
      job.identities = shared;
    }
    out[{r.case_name, r.path}] = std::move(job);
  }
  return out;
}

namespace {

size_t CountCases(const std::vector<PlannedJob>& jobs) {
  std::vector<size_t> seen;
  for (const PlannedJob& j : jobs) seen.push_back(j.case_index);
  std::sort(seen.begin(), seen.end());
  return static_cast<size_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
}

}  // namespace

bool BuildRunPlan(const HelloMessage& hello, const std::vector<CaseEntry>& inventory, const LibraryIndex& index,
                  const std::map<std::pair<std::string, std::string>, StoredJob>& stored, PlanRequest request,
                  RetryFailed retry, RunPlan* out, std::string* err) {
  *out = RunPlan{};
  KeyEnvironment env;
  if (!KeyEnvironmentFromHello(hello.env_json, &env, err)) return false;
  if (request.paths.empty()) request.paths = hello.path_ids();
  std::vector<PlannedJob> planned;
  if (!BuildPlan(inventory, hello.path_ids(), request, &planned, err)) return false;
  out->paths = request.paths;
  if (request.shard.count > 1) {  // the cases of the whole selection, not of this shard's jobs
    PlanRequest whole = request;
    whole.shard = ShardSpec{};
    std::vector<PlannedJob> all;
    if (!BuildPlan(inventory, hello.path_ids(), whole, &all, err)) return false;
    out->cases = CountCases(all);
  } else {
    out->cases = CountCases(planned);
  }
  LibraryState library{&index, env.library_fingerprint, MachineText(request.machine)};
  for (PlannedJob& p : planned) {
    const PathSpec& path = *FindPath(hello.paths, p.path);  // BuildPlan refused unknown paths
    PlannedDecision d{p, ComputeJobKey(inventory[p.case_index].fingerprint, path, env), std::nullopt, {}};
    if (auto it = stored.find({p.case_name, p.path}); it != stored.end()) d.stored = it->second;
    d.decision = DecideRerun(d.stored, d.key, library, retry, &path, inventory[p.case_index].recipe);
    if (d.stored) std::string().swap(d.stored->deps_json);  // decided: the plan keeps no deps
    if (d.decision.run) {
      ++out->to_run;
      ++out->by_cause[d.decision.cause];
      if (d.decision.other_machine) ++out->case_changed_elsewhere;
    } else {
      ++out->current;
    }
    out->jobs.push_back(std::move(d));
  }
  return true;
}

std::vector<const StoredResult*> ReencodeCurrentRecords(std::vector<StoredResult>* rows, const RunPlan& plan,
                                                        const LibraryIndex& index) {
  std::vector<const StoredResult*> out;
  if (!index.known || index.line_functions.empty()) return out;
  std::set<std::pair<std::string_view, std::string_view>> current;
  for (const PlannedDecision& d : plan.jobs) {
    if (!d.decision.run && d.stored) current.emplace(d.job.case_name, d.job.path);
  }
  for (StoredResult& row : *rows) {
    // a record whose functions carry token digests holds "t: (cheap to rule out without parsing)
    if (row.record_json.find("\"t:") != std::string::npos) continue;
    if (!current.count({row.case_name, row.path})) continue;
    auto record = nlohmann::ordered_json::parse(row.record_json, nullptr, /*allow_exceptions=*/false);
    if (!record.is_object()) continue;
    auto deps = record.find("deps");
    if (deps == record.end() || !ReencodeLineDigests(&*deps, index)) continue;
    row.record_json = record.dump();
    out.push_back(&row);
  }
  return out;
}

std::string PlanSummary(const RunPlan& plan, size_t cases, const ShardSpec& shard) {
  std::string causes;
  for (const auto& [cause, n] : plan.by_cause) {  // in the order of RerunCause
    causes += causes.empty() ? ": " : ", ";
    causes += fmt::format("{} {}", CountText(n), RerunCauseLabel(cause));
    if (cause == RerunCause::case_changed && plan.case_changed_elsewhere > 0) {
      causes += fmt::format(" ({} measured on another machine)", CountText(plan.case_changed_elsewhere));
    }
  }
  const auto s = [](size_t n) { return n == 1 ? "" : "s"; };
  return fmt::format("{} job{} planned (from {} case{} x {} path{}{}): {} to run{}; {} current", CountText(plan.jobs.size()),
                     s(plan.jobs.size()), CountText(cases), s(cases), plan.paths.size(), s(plan.paths.size()),
                     shard.count > 1 ? ", shard " + shard.ToString() : "", CountText(plan.to_run), causes,
                     CountText(plan.current));
}

std::vector<std::string> ExplainLines(const RunPlan& plan) {
  std::vector<std::string> out;
  // A migration's why is said once, after the jobs it re-runs (it is a paragraph; a refresh after
  // one re-runs many jobs for it), in the order the jobs first name them, with their count.
  std::vector<std::pair<const RerunDecision*, size_t>> migrations;
  for (const PlannedDecision& d : plan.jobs) {
    if (!d.decision.run) continue;
    out.push_back(fmt::format("{} {}: {}", d.job.case_name, d.job.path, d.decision.Why(3, false)));
    if (d.decision.migration_id.empty()) continue;
    auto same = [&](const auto& m) { return m.first->migration_id == d.decision.migration_id; };
    auto it = std::find_if(migrations.begin(), migrations.end(), same);
    if (it == migrations.end()) {
      migrations.emplace_back(&d.decision, 1);
    } else {
      ++it->second;
    }
  }
  for (const auto& [decision, jobs] : migrations) {
    out.push_back(fmt::format("migration {} ({} job{}): {}", decision->migration_id, jobs, jobs == 1 ? "" : "s",
                              decision->migration_why));
  }
  return out;
}

}  // namespace opsweep
