// `opsweep run`: options and the wiring of the real worker pool, database, clock and terminal.
// Exit status (cli/exit_status.h): 0 every planned job has a record (whatever its status); 1 the
// run stopped at the restart cap (the jobs that finished are kept); 2 bad input or usage: a bad
// option (including an unknown path or group, known only once a worker said hello), a database
// that is refused, a registry that cannot be loaded, a worker that cannot start or get ready, a
// result that cannot be stored; 130 interrupted (SIGINT or SIGTERM; finished results are kept).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/exit_status.h"
#include "cli/run_setup.h"
#include "cli/verbs.h"
#include "core/plan.h"
#include "exec/clock.h"
#include "exec/posix_worker_pool.h"
#include "exec/result_store.h"
#include "exec/run_session.h"
#include "exec/supervisor.h"
#include "exec/terminal.h"
#include "store/results_db.h"
#include "util/machine.h"
#include "util/read_file.h"

namespace opsweep::cli {

namespace {

namespace fs = std::filesystem;

struct RunOptions {
  // Numbers are taken as text and parsed here, so that a bad value gets our one-line error.
  std::string jobs_text, threads_text, timeout_text, startup_timeout_text, memory_limit_text, max_restarts_text;
  CaseSource source;
  std::vector<std::string> paths;
  std::vector<std::string> only;
  std::vector<std::string> groups;
  int jobs = 0;
  int threads = 1;
  double timeout_s = 600;
  double startup_timeout_s = 120;
  std::string db = ".opsweep/results.db";
  std::string shard;
  std::string python;
  std::string library;
  std::vector<std::string> opsets;
  std::vector<std::string> durations_from;
  long long memory_limit_mb = 0;
  int max_restarts = 50;
  bool retry_failed = false;
  bool force = false;
  bool exact = false;
  bool dry_run = false;
  bool explain = false;
};

int Error(int code, const std::string& message) {
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  fmt::print(stderr, "opsweep run: error: {}\n", line);
  return code;
}

// The command line as a JSON list, for runs.argv.
std::string ArgvJson() {
  std::string all, err;
  if (!ReadFile("/proc/self/cmdline", &all, &err)) all.clear();  // no command line: runs.argv is []
  nlohmann::json list = nlohmann::json::array();
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i] == '\0') {
      list.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  }
  return list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool ParseNumber(const std::string& flag, const std::string& text, double min, double* out, std::string* err) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v >= min) || v > 1e12) {
    *err = fmt::format("{} '{}': expected a number >= {:g}", flag, text, min);
    return false;
  }
  *out = v;
  return true;
}

bool ParseCount(const std::string& flag, const std::string& text, long long min, long long* out, std::string* err) {
  double v = 0;
  if (!ParseNumber(flag, text, static_cast<double>(min), &v, err)) return false;
  if (v != static_cast<double>(static_cast<long long>(v))) {
    *err = fmt::format("{} '{}': expected a whole number >= {}", flag, text, min);
    return false;
  }
  *out = static_cast<long long>(v);
  return true;
}

// The options, parsed and checked before anything starts (a bad one costs nothing): counts and
// durations into `o`, the selection into *plan, --opset into *opsets, --durations-from into *prior.
bool ParseRunOptions(RunOptions* o, PlanRequest* plan, std::string* opsets, std::vector<PriorDuration>* prior,
                     std::string* err) {
  long long count = 0;
  if (!o->jobs_text.empty()) {
    if (!ParseCount("-j", o->jobs_text, 1, &count, err)) return false;
    o->jobs = static_cast<int>(std::min(count, 4096LL));
  }
  if (!o->threads_text.empty()) {
    if (!ParseCount("--threads", o->threads_text, 1, &count, err)) return false;
    o->threads = static_cast<int>(std::min(count, 1024LL));
  }
  if (!o->timeout_text.empty() && !ParseNumber("--timeout", o->timeout_text, 0.001, &o->timeout_s, err)) return false;
  if (!o->startup_timeout_text.empty() &&
      !ParseNumber("--startup-timeout", o->startup_timeout_text, 0.001, &o->startup_timeout_s, err)) {
    return false;
  }
  if (!o->memory_limit_text.empty() && !ParseCount("--memory-limit", o->memory_limit_text, 1, &o->memory_limit_mb, err)) {
    return false;
  }
  if (!o->max_restarts_text.empty()) {
    if (!ParseCount("--max-restarts", o->max_restarts_text, 0, &count, err)) return false;
    o->max_restarts = static_cast<int>(std::min(count, 1000000LL));
  }
  if (!o->shard.empty() && !ParseShard(o->shard, &plan->shard, err)) return false;
  if (!o->opsets.empty() && !ParseOpsets(o->opsets, opsets, err)) return false;
  for (const auto& p : o->paths) {
    if (p.empty()) {
      *err = "--paths: empty path name";
      return false;
    }
    if (std::find(plan->paths.begin(), plan->paths.end(), p) == plan->paths.end()) plan->paths.push_back(p);
  }
  plan->only = o->only;
  plan->only_exact = o->exact;
  if (o->exact && o->only.empty()) {
    *err = "--exact needs --only NAME (the whole case names to select)";
    return false;
  }
  plan->machine = ThisMachine();
  plan->groups = o->groups;
  for (const auto& g : plan->groups) {
    if (g.empty()) {
      *err = "--groups: empty group name";
      return false;
    }
  }
  for (const auto& file : o->durations_from) {
    if (!ReadPriorDurations(file, prior, err)) return false;
  }
  return true;
}

// The database, before any worker starts (a refused file costs nothing): opened, with its folder
// created; a dry run reads it if it exists and creates nothing (an empty store when there is none).
bool OpenStore(const fs::path& db_path, DryRun dry_run, ResultsDb* db, std::unique_ptr<ResultStore>* store,
               std::string* err) {
  std::error_code ec;
  if (dry_run == DryRun::yes) {
    if (!fs::exists(db_path, ec)) {
      *store = std::make_unique<EmptyResultStore>();
      return true;
    }
    if (!db->Open(db_path.string(), OpenMode::read_only, err)) return false;
    *store = std::make_unique<DbResultStore>(db);
    return true;
  }
  fs::create_directories(db_path.parent_path(), ec);
  if (ec) {
    *err = fmt::format("cannot create {}: {}", db_path.parent_path().string(), ec.message());
    return false;
  }
  if (!db->Open(db_path.string(), OpenMode::read_write_create, err)) return false;
  *store = std::make_unique<DbResultStore>(db);
  return true;
}

// How the workers start: the program, its registries and options, its logs and caches beside the
// database, and its environment.
WorkerCommand MakeWorkerCommand(const RunOptions& o, const std::string& python, const std::vector<std::string>& registries,
                                const fs::path& db_path, const std::string& opsets, int threads, long long memory_limit) {
  WorkerCommand command;
  command.program = WorkerProgram(python);
  command.registries = registries;
  command.threads = threads;
  command.library = o.library;
  command.index_cache = (db_path.parent_path() / "index-cache.json").string();
  command.opsets = opsets;
  // A dry run's worker logs apart from a run's: a dry run beside a running survey (to see what is left) must not
  // interleave its worker's output with the survey's worker of the same slot.
  const fs::path logs = db_path.parent_path() / "logs";
  command.log_dir = (o.dry_run ? logs / "dry-run" : logs).string();
  command.env = {{"OMP_NUM_THREADS", std::to_string(threads)},
                 {"MKL_NUM_THREADS", std::to_string(threads)},
                 {"TORCHINDUCTOR_CACHE_DIR", (db_path.parent_path() / "inductor-cache").string()},
                 {"PYTHONUNBUFFERED", "1"},
                 // the limit on each worker's process group, so that the harness can keep what it
                 // starts beside the worker (the ONNX runtime host) inside it
                 {"OPSWEEP_MEMORY_LIMIT_MIB", std::to_string(memory_limit / (1024 * 1024))}};
  return command;
}

RunRequest MakeRunRequest(const RunOptions& o, const PlanRequest& plan, const std::vector<std::string>& registries,
                          std::vector<PriorDuration> prior, int workers, int threads, long long memory_limit) {
  RunRequest request;
  request.plan = plan;
  request.retry = o.force ? RetryFailed::everything : o.retry_failed ? RetryFailed::yes : RetryFailed::no;
  request.dry_run = o.dry_run ? DryRun::yes : DryRun::no;
  if (o.explain) request.explain = [](const std::string& line) { fmt::print("{}\n", line); };
  request.argv_json = ArgvJson();
  request.registries_json = nlohmann::json(registries).dump();
  request.setup_note = fmt::format("up to {} worker{} x {} thread{}, timeout {:g} s, memory limit {} MiB per worker",
                                   workers, workers == 1 ? "" : "s", threads, threads == 1 ? "" : "s", o.timeout_s,
                                   memory_limit / (1024 * 1024));
  for (auto& d : prior) request.prior_durations.emplace_back(std::move(d.case_name), std::move(d.path), d.seconds);
  return request;
}

// The exit status of a run that ended so (the header's convention), with its error line.
int ExitStatusOf(RunEnd end, const std::string& err) {
  switch (end) {
    case RunEnd::completed: return kExitDone;
    case RunEnd::interrupted: return kExitInterrupted;
    case RunEnd::stopped: return Error(kExitFindings, err);
    case RunEnd::bad_request:
    case RunEnd::failed: return Error(kExitBadInput, err);
  }
  return kExitBadInput;
}

int Run(RunOptions o) {
  PlanRequest plan;
  std::string opsets, err;
  std::vector<PriorDuration> prior;
  if (!ParseRunOptions(&o, &plan, &opsets, &prior, &err)) return Error(kExitBadInput, err);
  const DryRun dry_run = o.dry_run ? DryRun::yes : DryRun::no;
  // The inventory and the index only on a dry run: no job runs.
  const int workers = dry_run == DryRun::yes ? 1 : o.jobs > 0 ? o.jobs : AvailableCores();
  // One torch thread a worker unless asked: a case's inputs are built when its registry loads, and some
  // CPU kernels round differently with more threads (bilinear interpolate by 1 ulp), which would change
  // those cases' fingerprints, and their jobs' keys, with -j or the machine's core count.
  const int threads = o.threads;

  std::string python = ResolvePython(o.python);
  std::vector<std::string> registries;
  if (!ResolveRegistries(python, o.source, &registries, &err)) return Error(kExitBadInput, err);
  const fs::path db_path = fs::absolute(o.db).lexically_normal();
  ResultsDb db;
  std::unique_ptr<ResultStore> store;
  if (!OpenStore(db_path, dry_run, &db, &store, &err)) return Error(kExitBadInput, err);
  if (o.opsets.empty() && db.is_open()) {
    std::string note;
    if (!OpsetsOfDatabase(db, &opsets, &note, &err)) return Error(kExitBadInput, err);
    if (!note.empty()) fmt::print(stderr, "opsweep run: {}\n", note);
  }
  const long long memory_limit =
      o.memory_limit_mb > 0 ? o.memory_limit_mb * 1024 * 1024
                            : static_cast<long long>(0.75 * static_cast<double>(TotalMemoryBytes()) / workers);

  SupervisorOptions sup;
  sup.job_timeout_s = o.timeout_s;
  sup.startup_timeout_s = o.startup_timeout_s;
  sup.memory_limit_bytes = memory_limit;
  sup.max_restarts = o.max_restarts;
  SystemClock clock;
  StderrTerminal terminal;
  PosixWorkerPool pool(MakeWorkerCommand(o, python, registries, db_path, opsets, threads, memory_limit), workers);
  Supervisor supervisor(&pool, &clock, sup);
  RunSession session(&supervisor, store.get(), &clock, &terminal);
  RunSummary summary;
  RunEnd end = session.Execute(MakeRunRequest(o, plan, registries, std::move(prior), workers, threads, memory_limit),
                               &summary, &err);
  return ExitStatusOf(end, err);
}

}  // namespace

void RegisterRun(CLI::App& app, int* status) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Probe every case through every path, in warm workers, into the results database");
  AddCaseSourceOptions(cmd, &opts->source);
  cmd->add_option("--paths", opts->paths, "Capture paths, comma-separated (default: every path the worker offers)")
      ->delimiter(',');
  cmd->add_option("--only", opts->only, "Only cases whose name is or starts with this (repeatable)");
  cmd->add_flag("--exact", opts->exact,
                "--only names whole cases, not prefixes (--only op --exact leaves op[variant] out)");
  cmd->add_option("--groups", opts->groups, "Only cases in these groups or below them (repeatable, comma-separated)")
      ->delimiter(',');
  cmd->add_option("-j,--jobs", opts->jobs_text, "Workers (default: one per core)");
  cmd->add_option("--threads", opts->threads_text,
                  "torch threads per worker (default 1; more changes the inputs, and so the keys, of cases whose "
                  "inputs come from thread-sensitive kernels)");
  cmd->add_option("--timeout", opts->timeout_text, "Seconds a job may take before its worker is killed (default 600); the onnx sub-verdicts stop in time to keep the path's verdict");
  cmd->add_option("--startup-timeout", opts->startup_timeout_text,
                  "Seconds a worker may take to say hello and list its cases (default 120)");
  cmd->add_option("--db", opts->db, "Results database (default .opsweep/results.db; logs/ and inductor-cache/ go beside it)");
  cmd->add_option("--shard", opts->shard, "Run only shard I of N (1-based), e.g. 2/8");
  cmd->add_option("--python", opts->python, "Python for the workers (default $OPSWEEP_PYTHON, else the one beside opsweep, else python3)");
  cmd->add_option("--library", opts->library,
                  "Top-level package of the surveyed library (default: the package most case targets come from)");
  cmd->add_option("--opset", opts->opsets,
                  "ONNX opsets of the onnx path, comma-separated (default: those the database's onnx results were measured "
                  "with, else 18; 18 is always measured, each other opset is a sub-verdict of its own)")
      ->delimiter(',');
  cmd->add_option("--durations-from", opts->durations_from,
                  "A snapshot timings file (snapshot.timings.json) of another survey of the same cases: the expected "
                  "duration of each job this database has not measured, for the order (longest first) and the ETA "
                  "(repeatable; the first file naming a job wins)");
  cmd->add_option("--memory-limit", opts->memory_limit_text, "MiB per worker process group (default 75% of RAM / workers)");
  cmd->add_option("--max-restarts", opts->max_restarts_text,
                  "Workers that may be lost (crash, timeout, poison) before the run stops (default 50)");
  cmd->add_flag("--retry-failed", opts->retry_failed, "Re-run stored crash/timeout results even after their retry");
  cmd->add_flag("--force", opts->force,
                "Re-probe the selected jobs even when their stored results are current (choose them with --only, "
                "--groups, --paths or --shard; without them, every job)");
  cmd->add_flag("--dry-run", opts->dry_run,
                "Plan and print, probe nothing and write nothing (one worker starts, for the cases and the library index)");
  cmd->add_flag("--explain", opts->explain, "Print, on stdout, why each job that runs runs (one line per job, then each migration's why once)");
  cmd->footer(
      "Environment: OPSWEEP_PYTHON (the workers' Python), OPSWEEP_WORKER_CMD (replaces 'PYTHON -m opsweep.worker', "
      "split on whitespace; for fake workers in tests and benchmarks).");
  cmd->callback([opts, status] { *status = Run(*opts); });
}

}  // namespace opsweep::cli
