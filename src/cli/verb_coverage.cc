// `opsweep coverage`: which public operators the surveyed library declares (its __all__s; public
// methods of public classes included) have no case, and which cases reach none. The harness
// (python -m opsweep.coverage) enumerates the library and matches case targets, since that needs
// the library imported; this verb reports (cli/coverage_report.h), and gates with --min /
// --min-probed. No library is assumed: without --library the harness takes the LIBRARY that the
// registries' suite names, or says in one line that --library NAME is needed.
//
// Exit status (cli/exit_status.h): 0 done; 1 covered below --min; 2 bad input (no registries, no
// library, the harness gave no report or an error).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "cli/capture.h"
#include "cli/coverage_report.h"
#include "cli/exit_status.h"
#include "cli/run_setup.h"
#include "cli/verbs.h"

namespace opsweep::cli {

namespace {

struct CoverageOptions {
  CaseSource source;
  std::string library;  // empty: the LIBRARY the registries' suite names (the harness decides)
  std::string python;
  int depth = 0;  // 0: modules at any depth
  double min_percent = 0;
  double min_probed_percent = 0;
  bool json = false;
};

int RunCoverage(const CoverageOptions& o) {
  std::string python = ResolvePython(o.python);
  std::vector<std::string> registries;
  std::string err;
  if (!ResolveRegistries(python, o.source, &registries, &err)) {
    fmt::print(stderr, "opsweep coverage: {}\n", err);
    return kExitBadInput;
  }
  std::vector<std::string> argv = {python, "-m", "opsweep.coverage"};
  if (!o.library.empty()) {
    argv.push_back("--library");
    argv.push_back(o.library);
  }
  if (o.depth > 0) {
    argv.push_back("--depth");
    argv.push_back(std::to_string(o.depth));
  }
  for (const auto& r : registries) {
    argv.push_back("--registry");
    argv.push_back(r);
  }
  std::string out;
  int code = 0;
  if (!RunAndCapture(argv, Stderr::pass_through, &out, &code, &err)) {
    fmt::print(stderr, "opsweep coverage: {}\n", err);
    return kExitBadInput;
  }
  nlohmann::json report = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded() || !report.is_object()) {
    fmt::print(stderr, "opsweep coverage: the harness gave no report (exit {}); is opsweep installed for '{}'?\n", code,
               python);
    return kExitBadInput;
  }
  if (report.contains("error")) {
    fmt::print(stderr, "opsweep coverage: {}\n", report["error"].get<std::string>());
    return kExitBadInput;
  }
  if (o.json) {
    fmt::print("{}\n", report.dump(2));
  } else {
    fmt::print("{}", FormatCoverage(report, o.library));
  }
  for (const auto& w : CoverageWarnings(report, o.library)) fmt::print(stderr, "opsweep coverage: warning: {}\n", w);
  const auto failed = FailedGates(report, CoverageGates{o.min_percent, o.min_probed_percent});
  for (const auto& f : failed) fmt::print(stderr, "opsweep coverage: {}\n", f);
  if (!failed.empty()) return kExitFindings;
  return kExitDone;
}

}  // namespace

void RegisterCoverage(CLI::App& app, int* status) {
  auto opts = std::make_shared<CoverageOptions>();
  auto* cmd = app.add_subcommand("coverage", "List the library's public operators that have no case, by module");
  AddCaseSourceOptions(cmd, &opts->source);
  cmd->add_option("--library", opts->library,
                  "Top-level package of the surveyed library (default: the LIBRARY the registries' suite names)");
  cmd->add_option("--python", opts->python, "Python to ask (default as for `opsweep run`)");
  cmd->add_option("--depth", opts->depth,
                  "Count only modules this many levels below the top (default: every public module, any depth)")
      ->check(CLI::Range(0, 16));
  cmd->add_option("--min", opts->min_percent,
                  "Exit 1 when fewer than this percent have a case (probed, or skipped with a reason)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--min-probed", opts->min_probed_percent, "Exit 1 when fewer than this percent have a probed case")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("--json", opts->json, "Print the report as JSON");
  cmd->callback([opts, status] { *status = RunCoverage(*opts); });
}

}  // namespace opsweep::cli
