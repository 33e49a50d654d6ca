// `opsweep coverage`: which public callables of the surveyed library have no case. The harness
// (python -m opsweep.coverage) enumerates the library and matches case targets, since that needs
// the library imported; this verb reports, and gates with --min.
//
// Exit status (cli/exit_status.h): 0 done; 1 covered below --min; 2 bad input (no registries, the
// harness gave no report or an error).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "cli/capture.h"
#include "cli/exit_status.h"
#include "cli/run_setup.h"
#include "cli/verbs.h"

namespace opsweep::cli {

namespace {

struct CoverageOptions {
  std::vector<std::string> cases;
  std::string library = "kornia";
  std::string python;
  int depth = 2;
  double min_percent = 0;
  bool json = false;
  bool list_covered = false;
};

int RunCoverage(const CoverageOptions& o) {
  std::string python = ResolvePython(o.python);
  std::vector<std::string> registries = o.cases;
  std::string err;
  if (registries.empty() && !BundledRegistries(python, &registries, &err)) {
    fmt::print(stderr, "opsweep coverage: {}\n", err);
    return kExitBadInput;
  }
  std::vector<std::string> argv = {python, "-m", "opsweep.coverage", "--library", o.library, "--depth",
                                   std::to_string(o.depth)};
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
    const int total = report.value("total", 0);
    const int covered = report.value("covered", 0);
    const auto& skipped = report["skipped"];
    const auto& listed = report["not_surveyed"];
    const auto& missing = report["missing"];
    fmt::print("{}: {} of {} public callables have a case ({:.1f}%): {} probed ({:.1f}%), {} skipped with a reason\n",
               report.value("library", o.library), covered + static_cast<int>(skipped.size()), total,
               100.0 * report.value("share", 0.0), covered, 100.0 * report.value("probed_share", 0.0), skipped.size());
    fmt::print("  {} listed as not surveyed (with a reason), {} with neither; {} cases in all\n", listed.size(),
               missing.size(), report.value("cases", 0));
    if (report.contains("not_operators") && !report["not_operators"].empty()) {
      std::map<std::string, int> kinds;
      for (const auto& t : report["not_operators"]) ++kinds[t.value("kind", "type")];
      std::vector<std::string> parts;
      for (const auto& [kind, n] : kinds) parts.push_back(fmt::format("{} {}", n, kind));
      fmt::print("  not counted: {} public types that are not operators ({}); --json lists them\n",
                 report["not_operators"].size(), fmt::join(parts, ", "));
    }
    if (!skipped.empty()) fmt::print("\nSkipped (case with a skip reason):\n");
    for (const auto& s : skipped) fmt::print("  {:<60} {}\n", s.value("name", ""), s.value("reason", ""));
    if (!listed.empty()) fmt::print("\nNot surveyed (NOT_SURVEYED in a registry):\n");
    for (const auto& s : listed) fmt::print("  {:<60} {}\n", s.value("name", ""), s.value("reason", ""));
    if (!missing.empty()) fmt::print("\nNo case yet:\n");
    for (const auto& m : missing) fmt::print("  {:<60} {}\n", m.value("name", ""), m.value("kind", ""));
  }
  if (report.contains("stale_not_surveyed")) {
    for (const auto& n : report["stale_not_surveyed"])
      fmt::print(stderr, "opsweep coverage: warning: NOT_SURVEYED lists '{}', which is not a public operator of {}\n",
                 n.get<std::string>(), report.value("library", o.library));
  }
  const double percent = 100.0 * report.value("share", 0.0);
  if (percent + 1e-9 < o.min_percent) {
    fmt::print(stderr, "opsweep coverage: {:.1f}% covered, below --min {:.1f}%\n", percent, o.min_percent);
    return kExitFindings;
  }
  return kExitDone;
}

}  // namespace

void RegisterCoverage(CLI::App& app, int* status) {
  auto opts = std::make_shared<CoverageOptions>();
  auto* cmd = app.add_subcommand("coverage", "List the library's public callables that have no case");
  cmd->add_option("--cases", opts->cases, "Registry files (default: the bundled kornia registries)");
  cmd->add_option("--library", opts->library, "Top-level package of the surveyed library (default kornia)");
  cmd->add_option("--python", opts->python, "Python to ask (default as for `opsweep run`)");
  cmd->add_option("--depth", opts->depth, "Package depth counted as public (default 2: kornia.geometry.camera)")
      ->check(CLI::Range(1, 8));
  cmd->add_option("--min", opts->min_percent, "Exit 1 when fewer than this percent have a case (probed or skipped with a reason)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("--json", opts->json, "Print the report as JSON");
  cmd->callback([opts, status] { *status = RunCoverage(*opts); });
}

}  // namespace opsweep::cli
