// `opsweep harvest LIBRARY -o DIR`: cases from the library's own runnable examples (docs/harvest.md).
//
// Five steps, in a scratch folder (--work DIR keeps it; by default a temporary folder, removed):
// the plan (python -m opsweep.harvest.plan: the public operators, one unit per docstring with
// examples and per test file of --tests), the examples run under the recorder in supervised
// workers (python -m opsweep.harvest.worker --mode record), the draft registries
// (python -m opsweep.harvest.assemble draft), the checks of every draft case in supervised workers
// (--mode check), and the suite as it ships (assemble final), whose summary is printed. The engine
// owns time: every unit's deadline restarts at each step (an example, a test, a check), and a unit
// past it, over the memory limit or whose worker dies costs that unit only (exec/unit_runner.h).
//
// Exit status (cli/exit_status.h): 0 the suite is written (whatever the examples did); 2 bad input
// (the library cannot be imported, a worker cannot get ready, an output cannot be written);
// 130 interrupted.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/capture.h"
#include "cli/exit_status.h"
#include "cli/harvest_report.h"
#include "cli/run_setup.h"
#include "cli/verbs.h"
#include "exec/clock.h"
#include "exec/posix_worker_pool.h"
#include "exec/progress.h"
#include "exec/terminal.h"
#include "exec/unit_runner.h"

namespace opsweep::cli {

namespace {

namespace fs = std::filesystem;

struct HarvestOptions {
  std::string library;
  std::string out;
  std::string python;
  std::string tests;
  std::string work;
  double timeout_s = 60;
  double startup_timeout_s = 300;
  int max_variants = 3;
  double max_tensor_mib = 1;
  int jobs = 0;
  long long memory_limit_mb = 0;
  bool json = false;
};

int Error(int code, const std::string& message) {
  fmt::print(stderr, "opsweep harvest: error: {}\n", message);
  return code;
}

// Asks the harness one question (plan, assemble) and parses its one JSON answer.
bool AskHarness(const std::vector<std::string>& argv, nlohmann::json* answer, std::string* err) {
  std::string out;
  int code = 0;
  if (!RunAndCapture(argv, Stderr::pass_through, &out, &code, err)) return false;
  *answer = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (answer->is_discarded() || !answer->is_object()) {
    *err = fmt::format("{} gave no answer (exit {}); is opsweep installed for '{}'?", argv.size() > 2 ? argv[2] : "the harness",
                       code, argv[0]);
    return false;
  }
  if (answer->contains("error")) {
    *err = (*answer)["error"].get<std::string>();
    return false;
  }
  return true;
}

// Writes every unit's payload, events and end to the phase's JSON-lines file (read by assemble)
// and counts the ends on the progress line. A resumed unit's end is counted once, by the unit
// that went on from it.
class PhaseLog : public UnitObserver {
 public:
  PhaseLog(const fs::path& path, Progress* progress) : out_(path, std::ios::trunc), progress_(progress) {}
  bool ok() const { return static_cast<bool>(out_); }

  bool OnQueued(size_t unit, const std::string& payload, long long resumes, std::string* err) override {
    nlohmann::json line = {{"unit", unit}, {"payload", nlohmann::json::parse(payload)}};
    if (resumes >= 0) line["resumes"] = resumes;
    return Write(line, err);
  }
  bool OnEvent(size_t unit, const std::string& event, std::string* err) override {
    return Write({{"unit", unit}, {"event", nlohmann::json::parse(event)}}, err);
  }
  bool OnEnd(const UnitOutcome& o, std::string* err) override {
    nlohmann::json line = {{"unit", o.unit}, {"end", std::string(UnitEndId(o.end))}, {"where", o.where}, {"detail", o.detail}};
    line["step"] = nlohmann::json::parse(o.step_json, nullptr, false);
    if (o.resumed_as < 0) {
      progress_->OnOutcome(o.end == UnitEnd::done      ? Status::ok
                           : o.end == UnitEnd::timeout ? Status::timeout
                                                       : Status::crash,
                           0, "", o.seconds);
    }
    return Write(line, err);
  }
  void OnTick() override { progress_->Tick(); }

 private:
  bool Write(const nlohmann::json& line, std::string* err) {
    out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out_.flush();
    if (!out_) {
      *err = "cannot write the harvest's scratch files";
      return false;
    }
    return true;
  }
  std::ofstream out_;
  Progress* progress_;
};

struct Phase {
  std::string name;                  // "record" | "check"
  std::vector<std::string> program;  // the worker command before its protocol arguments
  std::vector<std::string> registries;
  std::vector<std::string> units;    // payloads (compact JSON)
};

// Runs one phase's units in supervised workers; returns an exit status (kExitDone when it completed).
int RunPhase(const HarvestOptions& o, const fs::path& work, const Phase& phase, int workers, long long memory_limit,
             std::string* err) {
  WorkerCommand command;
  command.program = phase.program;
  command.registries = phase.registries;
  command.threads = 1;
  command.library = o.library;
  command.log_dir = (work / "logs" / phase.name).string();
  command.env = {{"OMP_NUM_THREADS", "1"},
                 {"MKL_NUM_THREADS", "1"},
                 {"PYTHONUNBUFFERED", "1"},
                 {"MPLBACKEND", "Agg"},  // examples that plot draw nowhere
                 {"HF_HUB_OFFLINE", "1"},  // examples that download fail at once instead of waiting
                 {"TRANSFORMERS_OFFLINE", "1"},
                 {"OPSWEEP_MEMORY_LIMIT_MIB", std::to_string(memory_limit / (1024 * 1024))}};
  UnitRunnerOptions options;
  options.step_timeout_s = o.timeout_s;
  options.startup_timeout_s = o.startup_timeout_s;
  options.memory_limit_bytes = memory_limit;

  SystemClock clock;
  StderrTerminal terminal;
  const int slots = std::max(1, std::min<int>(workers, static_cast<int>(std::max<size_t>(phase.units.size(), 1))));
  PosixWorkerPool pool(command, slots);
  Progress progress(&terminal, &clock, phase.units.size(), 0);
  progress.SetWorkers(slots);
  progress.SetPrefix("opsweep harvest");
  PhaseLog log(work / (phase.name + ".jsonl"), &progress);
  if (!log.ok()) {
    *err = fmt::format("cannot write {}", (work / (phase.name + ".jsonl")).string());
    return kExitBadInput;
  }
  fmt::print(stderr, "opsweep harvest: {} {} unit{} on {} worker{}, {:g} s per step\n",
             phase.name == "record" ? "running examples:" : "checking cases:", phase.units.size(),
             phase.units.size() == 1 ? "" : "s", slots, slots == 1 ? "" : "s", o.timeout_s);
  UnitRunner runner(&pool, &clock, options);
  const UnitRunEnd end = runner.Run(phase.units, &log, err);
  progress.Finish(end == UnitRunEnd::completed ? "" : end == UnitRunEnd::interrupted ? "interrupted" : "stopped",
                  runner.lost() > 0 ? fmt::format("workers lost {}", runner.lost()) : "");
  switch (end) {
    case UnitRunEnd::completed: return kExitDone;
    case UnitRunEnd::interrupted: *err = "interrupted"; return kExitInterrupted;
    case UnitRunEnd::failed: return kExitBadInput;
  }
  return kExitBadInput;
}

int Harvest(const HarvestOptions& o) {
  if (o.timeout_s <= 0) return Error(kExitBadInput, "--timeout must be > 0");
  if (o.max_variants < 1) return Error(kExitBadInput, "--max-variants must be >= 1");
  std::error_code ec;
  if (!o.tests.empty() && !fs::is_directory(o.tests, ec)) return Error(kExitBadInput, fmt::format("--tests {}: not a folder", o.tests));
  const std::string python = ResolvePython(o.python);
  const int workers = o.jobs > 0 ? o.jobs : AvailableCores();
  const long long memory_limit = o.memory_limit_mb > 0
                                     ? o.memory_limit_mb * 1024 * 1024
                                     : static_cast<long long>(0.75 * static_cast<double>(TotalMemoryBytes()) / workers);
  const fs::path out = fs::absolute(o.out).lexically_normal();

  // The scratch folder: --work DIR (kept), else a temporary one (removed at the end).
  fs::path work;
  bool remove_work = false;
  if (!o.work.empty()) {
    work = fs::absolute(o.work).lexically_normal();
    fs::remove_all(work / "tensors", ec);
    fs::remove_all(work / "draft", ec);
    fs::create_directories(work, ec);
  } else {
    std::string pattern = (fs::temp_directory_path(ec) / "opsweep-harvest-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return Error(kExitBadInput, "cannot create a scratch folder");
    work = pattern;
    remove_work = true;
  }
  struct Cleanup {
    fs::path path;
    bool active;
    ~Cleanup() {
      std::error_code e;
      if (active) fs::remove_all(path, e);
    }
  } cleanup{work, remove_work};

  SystemClock clock;
  const double started = clock.Now();
  std::string err;

  // 1. the plan
  std::vector<std::string> plan_argv = {python, "-m", "opsweep.harvest.plan", "--library", o.library, "--scratch", work.string()};
  if (!o.tests.empty()) {
    plan_argv.push_back("--tests");
    plan_argv.push_back(fs::absolute(o.tests).lexically_normal().string());
  }
  nlohmann::json plan;
  if (!AskHarness(plan_argv, &plan, &err)) return Error(kExitBadInput, err);
  Phase record{"record", {python, "-m", "opsweep.harvest.worker", "--mode", "record", "--scratch", work.string(),
                          "--max-variants", std::to_string(o.max_variants), "--max-tensor-mib",
                          fmt::format("{:g}", o.max_tensor_mib)}, {}, {}};
  for (const auto& unit : plan["units"]) record.units.push_back(unit.dump());
  fmt::print(stderr, "opsweep harvest: {}: {} public operators, {} units\n", o.library, plan["operators"].size(),
             record.units.size());

  // 2. the examples, recorded
  int status = RunPhase(o, work, record, workers, memory_limit, &err);
  if (status != kExitDone) return Error(status, err);
  const double recorded = clock.Now();

  // 3. the draft registries
  nlohmann::json draft;
  if (!AskHarness({python, "-m", "opsweep.harvest.assemble", "draft", "--scratch", work.string(), "--max-variants",
                   std::to_string(o.max_variants)},
                  &draft, &err)) {
    return Error(kExitBadInput, err);
  }

  // 4. the checks
  Phase check{"check", {python, "-m", "opsweep.harvest.worker", "--mode", "check", "--scratch", work.string()}, {}, {}};
  for (const auto& r : draft["registries"]) check.registries.push_back(r.get<std::string>());
  for (const auto& name : draft["cases"]) {
    check.units.push_back(nlohmann::json({{"kind", "check"}, {"case", name}}).dump());
  }
  if (!check.units.empty()) {
    status = RunPhase(o, work, check, workers, memory_limit, &err);
    if (status != kExitDone) return Error(status, err);
  }

  // 5. the suite
  nlohmann::json summary;
  if (!AskHarness({python, "-m", "opsweep.harvest.assemble", "final", "--scratch", work.string(), "-o", out.string()},
                  &summary, &err)) {
    return Error(kExitBadInput, err);
  }
  const double finished = clock.Now();
  if (o.json) {
    fmt::print("{}\n", summary.dump(2));
  } else {
    fmt::print("{}", FormatHarvest(summary, o.out));
  }
  fmt::print(stderr, "opsweep harvest: {} (examples {}, checks {})\n", FormatDuration(finished - started),
             FormatDuration(recorded - started), FormatDuration(finished - recorded));
  return kExitDone;
}

}  // namespace

void RegisterHarvest(CLI::App& app, int* status) {
  auto opts = std::make_shared<HarvestOptions>();
  auto* cmd = app.add_subcommand(
      "harvest", "Turn a library's own runnable examples (docstring >>> blocks, or its tests) into a suite of cases");
  cmd->add_option("library", opts->library, "Top-level package of the library")->required();
  cmd->add_option("-o,--out", opts->out, "Folder of the harvested suite (registries, harvest.pt, harvest.json)")->required();
  cmd->add_option("--python", opts->python,
                  "Python of the library's environment (default $OPSWEEP_PYTHON, else the one beside opsweep, else python3)");
  cmd->add_option("--timeout", opts->timeout_s, "Seconds one example (one test, one check) may take before its worker is killed (default 60)");
  cmd->add_option("--startup-timeout", opts->startup_timeout_s, "Seconds a worker may take to import the library (default 300)");
  cmd->add_option("--max-variants", opts->max_variants, "Cases per public callable and source, at most (default 3)");
  cmd->add_option("--max-tensor-mib", opts->max_tensor_mib,
                  "MiB of tensors a case may hold (inputs and baked constants; default 1): a call over it gives no case")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--tests", opts->tests, "Also record the calls that this folder's tests make (a pytest run, one file a unit)");
  cmd->add_option("-j,--jobs", opts->jobs, "Workers (default: one per core)")->check(CLI::Range(1, 4096));
  cmd->add_option("--memory-limit", opts->memory_limit_mb, "MiB per worker process group (default 75% of RAM / workers)")
      ->check(CLI::Range(1LL, 1LL << 40));
  cmd->add_option("--work", opts->work, "Keep the scratch folder here (plan, logs, what each unit recorded)");
  cmd->add_flag("--json", opts->json, "Print the summary as JSON");
  cmd->callback([opts, status] { *status = Harvest(*opts); });
}

}  // namespace opsweep::cli
