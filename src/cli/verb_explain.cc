// `opsweep explain CASE [--path P]`: a case's stored records, each with its reason and whether it
// is current, and when it is not, the sentences that say why (the same ones `opsweep run
// --dry-run --explain` prints: exec/run_plan.h plans both).
//
// Whether a record is current depends on today's inventory (the case's fingerprint) and today's
// library (its index): one worker starts for them and runs no job. With --offline no worker starts:
// the stored record and its stored key fields are shown, currency is not judged.
// Exit status: 0 shown; 2 bad input (no such case, an unreadable database, a worker that cannot
// start).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "classify/classifier.h"
#include "classify/rules.h"
#include "cli/exit_status.h"
#include "cli/run_setup.h"
#include "cli/verbs.h"
#include "exec/clock.h"
#include "exec/posix_worker_pool.h"
#include "exec/run_plan.h"
#include "exec/supervisor.h"
#include "store/results_db.h"
#include "util/json_fields.h"
#include "util/machine.h"

namespace opsweep::cli {

namespace {

namespace fs = std::filesystem;

struct ExplainOptions {
  std::string case_name;
  std::string path;
  std::string db = ".opsweep/results.db";
  CaseSource source;
  std::string python;
  std::string library;
  std::vector<std::string> opsets;
  bool offline = false;
  bool exact = false;  // accepted for symmetry with run: the name is always whole
  bool deps = false;
};

int Error(int code, const std::string& message) {
  fmt::print(stderr, "opsweep explain: error: {}\n", message);
  return code;
}

std::string FirstLine(std::string text, size_t limit = 200) {
  if (auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

// What the rules say about an outcome that is not supported: "id (title)", with its cause.
std::string ReasonOf(const Classifier& classifier, const std::string& path, const nlohmann::json& record) {
  auto status = ParseStatus(Str(record, "status"));
  if (!status) return "unknown status";
  if (IsSupported(*status)) return "none (supported)";
  const nlohmann::json& error = record.value("error", nlohmann::json(nullptr));
  std::string step = Str(record, "step"), detail = Str(record, "detail");
  std::string type = error.is_object() ? Str(error, "type") : "", message = error.is_object() ? Str(error, "message") : "";
  std::string chain = error.is_object() ? Str(error, "chain") : "";
  Classification c = classifier.Classify(ClassifyInput{path, step, status, detail, type, message, chain});
  if (!c.rule) return "unclassified (no rule matches its error)";
  return fmt::format("{} ({}): {}", c.rule->id, c.rule->title, c.rule->cause);
}

// Starts one worker for today's hello, inventory and index.
// `db_opsets`: the database's opsets (OpsetsOfDatabase), used when --opset is not given.
bool AskWorker(const ExplainOptions& o, const fs::path& db_path, const std::string& db_opsets, HelloMessage* hello,
               std::vector<CaseEntry>* inventory, LibraryIndex* index, std::string* err) {
  std::string python = ResolvePython(o.python);
  std::vector<std::string> registries;
  if (!ResolveRegistries(python, o.source, &registries, err)) return false;
  WorkerCommand command;
  command.program = WorkerProgram(python);
  command.registries = registries;
  command.library = o.library;
  command.opsets = db_opsets;
  if (!o.opsets.empty() && !ParseOpsets(o.opsets, &command.opsets, err)) return false;
  command.index_cache = (db_path.parent_path() / "index-cache.json").string();
  command.log_dir = (db_path.parent_path() / "logs" / "explain").string();  // apart from a running survey's
  // the opsets describe stored results: the worker does not refuse one its onnxruntime cannot load
  command.env = {{"OMP_NUM_THREADS", "1"}, {"PYTHONUNBUFFERED", "1"}, {"OPSWEEP_OPSETS_AS_STORED", "1"}};
  SystemClock clock;
  PosixWorkerPool pool(command, 1);
  Supervisor supervisor(&pool, &clock, SupervisorOptions{});
  RunEnd end = supervisor.Open(hello, inventory, index, err);
  supervisor.Stop();
  if (end == RunEnd::interrupted) *err = "interrupted";
  return end == RunEnd::completed;
}

// The stored result of one path: its status, detail, error, reason, what it depends on (each name
// with --deps), the machine it was measured on and its key.
void PrintStored(const StoredResult& r, const std::string& path, const std::vector<RunInfo>& runs,
                 const Classifier& classifier, bool list_deps) {
  nlohmann::json record = nlohmann::json::parse(r.record_json, nullptr, false);
  fmt::print("  stored:  {}{}, measured {} (run {}) in {:.1f} s{}\n", r.status,
             record.is_object() && !Str(record, "step").empty() ? " at step " + Str(record, "step") : "", r.finished,
             r.run_id, r.duration_s, r.attempts ? fmt::format(", {} crash/timeout attempts", r.attempts) : "");
  if (record.is_object()) {
    if (!Str(record, "detail").empty()) fmt::print("  detail:  {}\n", FirstLine(Str(record, "detail")));
    const nlohmann::json& error = record.value("error", nlohmann::json(nullptr));
    if (error.is_object() && !Str(error, "message").empty()) {
      fmt::print("  error:   {}: {}\n", Str(error, "type"), FirstLine(Str(error, "message")));
    }
    fmt::print("  reason:  {}\n", ReasonOf(classifier, path, record));
    const nlohmann::json& deps = record.value("deps", nlohmann::json(nullptr));
    if (deps.is_object() && deps.contains("functions") && deps.contains("modules")) {
      fmt::print("  depends: {} library functions, module-level code of {} files{}\n", deps["functions"].size(),
                 deps["modules"].size(), list_deps ? ":" : " (--deps lists them)");
      if (list_deps) {
        for (const auto& [name, d] : deps["functions"].items()) fmt::print("           {}\n", name);
        for (const auto& [name, d] : deps["modules"].items()) fmt::print("           {} (module level)\n", name);
      }
    } else {
      fmt::print("  depends: the whole library (the record lists no dependencies)\n");
    }
  } else {
    fmt::print("  record:  unreadable\n");
  }
  for (const RunInfo& run : runs) {
    if (run.id != r.run_id) continue;
    if (std::string machine = MachineText(run.machine_json); !machine.empty()) fmt::print("  machine: {}\n", machine);
  }
  fmt::print("  key:     {}\n", r.key_fields_json);
}

int Explain(const ExplainOptions& o) {
  std::string err;
  fs::path db_path = fs::absolute(o.db).lexically_normal();
  std::vector<StoredResult> results;
  std::vector<RunInfo> runs;
  std::vector<CaseIdentity> identities;
  std::string db_opsets;
  std::error_code ec;
  if (fs::exists(db_path, ec)) {
    ResultsDb db;
    if (!db.Open(db_path.string(), OpenMode::read_only, &err) || !db.LoadResults(&results, &err) ||
        !db.LoadRuns(&runs, &err) || !db.LoadIdentities(&identities, &err)) {
      return Error(kExitBadInput, err);
    }
    std::string note;
    if (o.opsets.empty() && !OpsetsOfDatabase(db, &db_opsets, &note, &err)) return Error(kExitBadInput, err);
  } else {
    // Not an error (a case can be explained before its first run), but a mistyped --db would
    // otherwise read as "no result" for every path without a word about why.
    fmt::print(stderr, "opsweep explain: note: no database at {} (--db): nothing is stored there yet, so every job below is new\n",
               o.db);
  }
  std::map<std::string, const StoredResult*> stored;  // by path, this case only
  for (const StoredResult& r : results) {
    if (r.case_name == o.case_name) stored[r.path] = &r;
  }

  RuleSet rules;
  if (!LoadRules(EmbeddedRuleSources(), &rules, &err)) return Error(kExitBadInput, err);
  Classifier classifier(rules);

  RunPlan plan;
  bool judged = false;
  bool in_registries = false;
  if (!o.offline) {
    HelloMessage hello;
    std::vector<CaseEntry> inventory;
    LibraryIndex index;
    if (!AskWorker(o, db_path, db_opsets, &hello, &inventory, &index, &err)) return Error(kExitBadInput, err);
    for (const CaseEntry& c : inventory) in_registries |= c.name == o.case_name;
    if (in_registries) {
      PlanRequest request;
      request.only = {o.case_name};
      request.only_exact = true;
      request.machine = ThisMachine();
      if (!o.path.empty()) request.paths = {o.path};
      if (!BuildRunPlan(hello, inventory, index, IndexStoredJobs(results, runs, MigrationMarks(hello.paths), identities), request, RetryFailed::no, &plan,
                        &err)) {
        return Error(kExitBadInput, err);
      }
      judged = true;
    }
  }
  if (!in_registries && stored.empty()) {
    return Error(kExitBadInput, fmt::format("no case named '{}' in {}", o.case_name,
                                            o.offline ? "the database" : "the registries or the database"));
  }
  if (!o.offline && !in_registries) {
    fmt::print("{}: not in the registries any more; its stored results are kept but never current\n", o.case_name);
  }

  std::vector<std::string> paths;
  if (!o.path.empty()) {
    paths = {o.path};
  } else if (judged) {
    paths = plan.paths;
  } else {
    for (const auto& [p, r] : stored) paths.push_back(p);
  }
  for (const std::string& path : paths) {
    fmt::print("{} [{}]\n", o.case_name, path);
    auto it = stored.find(path);
    if (it == stored.end()) {
      fmt::print("  stored:  no result\n");
    } else {
      PrintStored(*it->second, path, runs, classifier, o.deps);
    }
    if (!judged) {
      fmt::print("  current: {}\n", o.offline ? "not judged (--offline: no worker for today's cases and library)"
                                              : "no (the case is not in the registries)");
      continue;
    }
    for (const PlannedDecision& d : plan.jobs) {
      if (d.job.case_name != o.case_name || d.job.path != path) continue;
      if (!d.decision.run) {
        fmt::print("  current: yes ({})\n", d.decision.Why());
      } else {
        fmt::print("  current: no, it runs again: {}\n", RerunCauseLabel(d.decision.cause));
        for (const std::string& reason : d.decision.reasons) fmt::print("           {}\n", reason);
      }
    }
  }
  return kExitDone;
}

}  // namespace

void RegisterExplain(CLI::App& app, int* status) {
  auto opts = std::make_shared<ExplainOptions>();
  auto* cmd = app.add_subcommand("explain", "A case's stored results, their reasons, and whether (and why not) they are current");
  cmd->add_option("case", opts->case_name, "The case's name")->required();
  cmd->add_option("--path", opts->path, "Only this path (default: every path)");
  cmd->add_option("--db", opts->db, "Results database (default .opsweep/results.db)");
  AddCaseSourceOptions(cmd, &opts->source);
  cmd->add_option("--python", opts->python, "Python for the worker (default as for opsweep run)");
  cmd->add_option("--library", opts->library, "Top-level package of the surveyed library (default: from the targets)");
  cmd->add_option("--opset", opts->opsets, "ONNX opsets as the survey's run gave them (part of the onnx jobs' keys; default: those of the database's onnx results)")
      ->delimiter(',');
  cmd->add_flag("--exact", opts->exact,
                "The case name is a whole name, as with `run --only NAME --exact` (explain never takes a prefix: "
                "`explain op` leaves op[variant] out either way)");
  cmd->add_flag("--offline", opts->offline, "Start no worker: show the stored records and keys, without judging currency");
  cmd->add_flag("--deps", opts->deps, "List every library function and module the record depends on");
  cmd->footer("Environment: OPSWEEP_PYTHON, OPSWEEP_WORKER_CMD (as for opsweep run).");
  cmd->callback([opts, status] { *status = Explain(*opts); });
}

}  // namespace opsweep::cli
