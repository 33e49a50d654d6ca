// `opsweep repro CASE --path P [-o DIR]`: a standalone reproducer of one job, for an upstream bug
// report. The harness (python -m opsweep.repro) writes it, since that needs the case imported:
// repro.py (torch, the library and the exporter or runtime only; no opsweep), the inputs saved
// next to it, the target when it is not importable, and for ONNX the exported file. This verb
// resolves the registries and the output folder, and says how to run the script.
//
// Exit status (cli/exit_status.h): 0 written; 2 bad input (an unknown case or path, a target the
// script cannot rebuild, no registries, the harness gave no answer).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <cctype>
#include <string>
#include <vector>

#include "cli/capture.h"
#include "cli/exit_status.h"
#include "cli/run_setup.h"
#include "cli/verbs.h"

namespace opsweep::cli {

namespace {

struct ReproOptions {
  std::string case_name;
  std::string path;
  std::string out;
  CaseSource source;
  std::string library;
  std::string python;
};

// A folder name for a case: letters, digits, '.', '-' and '_' kept, anything else '_'.
std::string SafeName(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "case" : out;
}

int RunRepro(const ReproOptions& o) {
  std::string python = ResolvePython(o.python);
  std::vector<std::string> registries;
  std::string err;
  if (!ResolveRegistries(python, o.source, &registries, &err)) {
    fmt::print(stderr, "opsweep repro: {}\n", err);
    return kExitBadInput;
  }
  const std::string out = o.out.empty() ? fmt::format("repro/{}-{}", SafeName(o.case_name), SafeName(o.path)) : o.out;
  std::vector<std::string> argv = {python, "-m", "opsweep.repro", "--case", o.case_name, "--path", o.path, "-o", out};
  if (!o.library.empty()) {
    argv.push_back("--library");
    argv.push_back(o.library);
  }
  for (const auto& r : registries) {
    argv.push_back("--registry");
    argv.push_back(r);
  }
  std::string text;
  int code = 0;
  if (!RunAndCapture(argv, Stderr::pass_through, &text, &code, &err)) {
    fmt::print(stderr, "opsweep repro: {}\n", err);
    return kExitBadInput;
  }
  nlohmann::json answer = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded() || !answer.is_object()) {
    fmt::print(stderr, "opsweep repro: the harness gave no answer (exit {}); is opsweep installed for '{}'?\n", code, python);
    return kExitBadInput;
  }
  if (answer.contains("error")) {
    fmt::print(stderr, "opsweep repro: {}\n", answer.value("error", ""));
    return kExitBadInput;
  }
  std::vector<std::string> files;
  for (const auto& f : answer.value("files", nlohmann::json::array())) files.push_back(f.get<std::string>());
  fmt::print("wrote {}/: {}\nrun it: cd {} && python repro.py   (exit 1: the failure shows; 0: it matches eager)\n", out,
             fmt::join(files, ", "), out);
  return kExitDone;
}

}  // namespace

void RegisterRepro(CLI::App& app, int* status) {
  auto opts = std::make_shared<ReproOptions>();
  auto* cmd = app.add_subcommand("repro", "Write a standalone script that reproduces one job (for a bug report)");
  cmd->add_option("case", opts->case_name, "The case name, as the page shows it")->required();
  cmd->add_option("--path", opts->path, "The path of the job (any path the worker offers that writes reproducers: onnx, export, compile, aoti, executorch, the dynamic-shape paths, ...)")->required();
  cmd->add_option("-o,--out", opts->out, "Output folder (default repro/CASE-PATH)");
  AddCaseSourceOptions(cmd, &opts->source);
  cmd->add_option("--library", opts->library, "Top-level package of the surveyed library (named in the script)");
  cmd->add_option("--python", opts->python, "Python to ask (default as for `opsweep run`)");
  cmd->callback([opts, status] { *status = RunRepro(*opts); });
}

}  // namespace opsweep::cli
