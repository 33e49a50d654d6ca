// `opsweep diff OLD NEW [--format text|md|json] [--fail-on regression|change] [--limit N] [-o FILE]`
//
// Compares two snapshots of one library (files, or folders holding snapshot.json): per case and
// path, regressions, progressions, other status changes, changed reasons and details, new and
// removed cases and paths, grouped by reason; the environment difference first (docs/diff.md).
// Snapshots measured under other library, tool or torch versions are compared all the same.
//
// Exit status (cli/exit_status.h): 0 nothing regressed (with --fail-on change: nothing changed at
// all); 1 a regression (with --fail-on change: any change of a record or a path, progressions
// included: the two-way gate, so a committed snapshot never lags behind reality); 2 bad input or
// usage (a snapshot that cannot be read or is refused, snapshots of two different libraries, an
// output that cannot be written). The report is written in full before the status is decided.
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/exit_status.h"
#include "cli/snapshot_files.h"
#include "cli/verbs.h"
#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "render/diff_writer.h"

namespace opsweep::cli {
namespace {

struct DiffArgs {
  std::string before;
  std::string after;
  std::string format = "text";
  std::string fail_on = "regression";
  int limit = -1;  // -1: the format's default
  std::string output;
};

int Diff(const DiffArgs& args) {
  std::vector<snapshot::Snapshot> both;
  std::string err;
  if (!LoadSnapshotFiles({args.before, args.after}, &both, &err) || !diff::Comparable(both[0], both[1], &err)) {
    fmt::print(stderr, "opsweep diff: {}\n", OneLineMessage(err));
    return kExitBadInput;
  }
  const snapshot::Snapshot& before = both[0];
  const snapshot::Snapshot& after = both[1];
  const diff::SnapshotDiff result = diff::Compare(before, after);
  const diff::DiffReport report = diff::BuildReport(result, before, after);
  render::DiffWriteOptions options;
  // A pull-request comment has a size limit: Markdown lists 25 changes per reason unless told.
  options.limit = args.limit >= 0 ? args.limit : (args.format == "md" ? 25 : 0);
  std::string text;
  if (args.format == "md") {
    text = render::WriteDiffMarkdown(report, options);
  } else if (args.format == "json") {
    text = render::WriteDiffJson(report);
  } else {
    text = render::WriteDiffText(report, options);
  }
  if (args.output.empty() || args.output == "-") {
    fmt::print("{}", text);
    std::fflush(stdout);
  } else if (!WriteOutputs({{args.output, text}}, &err)) {
    fmt::print(stderr, "opsweep diff: {}\n", err);
    return kExitBadInput;
  }
  const bool failed = args.fail_on == "change" ? result.HasChange() : result.HasRegression();
  return failed ? kExitFindings : kExitDone;
}

}  // namespace

void RegisterDiff(CLI::App& app, int* status) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand(
      "diff", "What changed between two snapshots: regressions, progressions, changed reasons, new and removed cases");
  cmd->add_option("old", args->before, "The earlier snapshot (a snapshot.json, or a folder holding one)")->required();
  cmd->add_option("new", args->after, "The later snapshot (a snapshot.json, or a folder holding one)")->required();
  cmd->add_option("--format", args->format, "text (default: for a terminal), md (a pull-request comment) or json")
      ->check(CLI::IsMember({"text", "md", "json"}));
  cmd->add_option("--fail-on", args->fail_on,
                  "Exit 1 on: regression (default: supported before, not now) or change (any change of a "
                  "case or path, progressions included)")
      ->check(CLI::IsMember({"regression", "change"}));
  cmd->add_option("--limit", args->limit,
                  "List at most N changes per reason group, count the rest (default: 25 for md, no limit "
                  "for text; 0: no limit; json always lists all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("-o,--output", args->output, "Write the report to this file (whole or not at all) instead of stdout");
  cmd->footer("Exit status: 0 nothing regressed (or, with --fail-on change, nothing changed), 1 it did, 2 bad input.");
  cmd->callback([args, status] { *status = Diff(*args); });
}

}  // namespace opsweep::cli
