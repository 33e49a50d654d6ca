// `opsweep render SNAPSHOT [SNAPSHOT ...] (--html OUT.html | --rst OUT.rst | --md OUT.md | -o DIR)
//                 [--current SNAPSHOT] [--api-base URL] [--map MAP]`
//
// Reads and validates the snapshots, builds the one view model and renders every requested format
// in memory first: a damaged snapshot writes nothing. With one snapshot, the page of that survey;
// with several (one library under several torch releases), the same page for one of them (the
// newest release, or --current) with the history of every row across the releases
// (render/history.h). With --map, two snapshots of two libraries make the comparison page of the
// operations the equivalence map lists (render/comparison.h), as HTML and Markdown. `-o DIR` writes
// DIR/index.html, DIR/page.rst and DIR/page.md (a comparison: no page.rst). Every output is written
// to a temporary file beside its destination and only when all are written are they renamed into
// place, so a reader never sees a half-written page.
//
// Exit status (cli/exit_status.h): 0 written; 2 bad input or usage (no output asked for, a snapshot
// that cannot be read or is refused, snapshots that make no history, an output that cannot be
// written, a map that cannot be read or parsed).
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/exit_status.h"
#include "cli/snapshot_files.h"
#include "cli/verbs.h"
#include "render/comparison.h"
#include "render/comparison_writer.h"
#include "render/history.h"
#include "render/html_writer.h"
#include "render/markdown_writer.h"
#include "render/rst_writer.h"
#include "render/view_model.h"
#include "util/read_file.h"

namespace opsweep::cli {
namespace {

struct RenderArgs {
  std::vector<std::string> snapshots;
  std::string html;
  std::string rst;
  std::string md;
  std::string out_dir;
  std::string current;
  std::string api_base;
  std::string map;
};

int Fail(const std::string& message) {
  fmt::print(stderr, "opsweep render: {}\n", OneLineMessage(message));
  return kExitBadInput;
}

// The view model of one snapshot, or of several as a history. `current` names one of them (as given
// on the command line, or by the same file); "" means the newest release.
bool MakeViewModel(const RenderArgs& args, const std::vector<snapshot::Snapshot>& snapshots, render::ViewModel* vm,
                   std::string* err) {
  const render::RenderOptions options{args.api_base};
  if (snapshots.size() == 1) {
    if (!args.current.empty()) {
      *err = "--current is for a history (several snapshots)";
      return false;
    }
    *vm = render::BuildViewModel(snapshots.front(), options);
    return true;
  }
  std::vector<const snapshot::Snapshot*> given, ordered;
  for (const auto& s : snapshots) given.push_back(&s);
  if (!render::OrderReleases(given, &ordered, err)) return false;
  std::size_t current = ordered.size() - 1;
  if (!args.current.empty()) {
    std::error_code ec;
    const snapshot::Snapshot* chosen = nullptr;
    for (std::size_t i = 0; i < args.snapshots.size(); ++i) {
      const std::string given = SnapshotFilePath(args.snapshots[i]), wanted = SnapshotFilePath(args.current);
      if (given == wanted || std::filesystem::equivalent(given, wanted, ec)) {
        chosen = &snapshots[i];
      }
    }
    if (chosen == nullptr) {
      *err = fmt::format("--current {} is not one of the snapshots given", args.current);
      return false;
    }
    current = static_cast<std::size_t>(std::find(ordered.begin(), ordered.end(), chosen) - ordered.begin());
  }
  *vm = render::BuildHistoryViewModel(ordered, current, options);
  return true;
}

// Creates `out_dir` (when given) only now that there is something to write, then writes every output.
bool WriteAll(const std::string& out_dir, const std::vector<Output>& outputs, std::string* err) {
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) {
      *err = fmt::format("cannot create {}: {}", out_dir, ec.message());
      return false;
    }
  }
  return WriteOutputs(outputs, err);
}

// `--map`: the comparison of two libraries, as HTML and Markdown (no reStructuredText page). The
// arguments and the map are checked before any snapshot is read.
int RenderComparison(const RenderArgs& a) {
  if (a.snapshots.size() != 2) {
    return Fail(fmt::format("--map compares two libraries: give two snapshots, not {}", a.snapshots.size()));
  }
  if (!a.current.empty()) return Fail("--current is for a history page, not a comparison (--map)");
  std::string text, err;
  if (!ReadFile(a.map, &text, &err)) return Fail(fmt::format("cannot read the map {}: {}", a.map, err));
  render::EquivalenceMap map;
  if (!render::ParseEquivalenceMap(text, &map, &err)) return Fail(a.map + ": " + err);
  std::vector<snapshot::Snapshot> snapshots;
  if (!LoadSnapshotFiles(a.snapshots, &snapshots, &err)) return Fail(err);
  render::ComparisonView view;
  if (!render::BuildComparison(snapshots[0], snapshots[1], map, &view, &err)) return Fail(err);
  std::vector<Output> outputs;
  if (!a.html.empty()) {
    std::string html;
    if (!render::WriteComparisonHtml(view, &html, &err)) return Fail(err);
    outputs.push_back({a.html, std::move(html)});
  }
  if (!a.md.empty()) outputs.push_back({a.md, render::WriteComparisonMarkdown(view)});
  if (!WriteAll(a.out_dir, outputs, &err)) return Fail(err);
  if (!view.unmatched.empty()) {
    fmt::print(stderr, "opsweep render: {} names of the map match no record (shown as not surveyed): {}{}\n",
               view.unmatched.size(), view.unmatched.front(), view.unmatched.size() > 1 ? ", ..." : "");
  }
  return kExitDone;
}

int Render(const RenderArgs& args) {
  RenderArgs a = args;
  if (!a.map.empty() && !a.rst.empty()) {
    return Fail("a comparison (--map) is written as HTML and Markdown: use --html, --md or -o DIR, not --rst");
  }
  if (!a.out_dir.empty()) {
    const std::filesystem::path dir(a.out_dir);
    if (a.html.empty()) a.html = (dir / "index.html").string();
    if (a.rst.empty() && a.map.empty()) a.rst = (dir / "page.rst").string();
    if (a.md.empty()) a.md = (dir / "page.md").string();
  }
  if (a.html.empty() && a.rst.empty() && a.md.empty()) {
    return Fail("nothing to write: give --html, --rst, --md or -o DIR");
  }
  if (!a.map.empty()) return RenderComparison(a);
  std::vector<snapshot::Snapshot> snapshots;
  std::string err;
  if (!LoadSnapshotFiles(a.snapshots, &snapshots, &err)) return Fail(err);
  render::ViewModel vm;
  if (!MakeViewModel(a, snapshots, &vm, &err)) return Fail(err);

  std::vector<Output> outputs;
  if (!a.html.empty()) {
    std::string html;
    if (!render::WriteHtml(vm, &html, &err)) return Fail(err);
    outputs.push_back({a.html, std::move(html)});
  }
  if (!a.rst.empty()) outputs.push_back({a.rst, render::WriteRst(vm)});
  if (!a.md.empty()) outputs.push_back({a.md, render::WriteMarkdown(vm)});
  if (!WriteAll(a.out_dir, outputs, &err)) return Fail(err);
  return kExitDone;
}

}  // namespace

void RegisterRender(CLI::App& app, int* status) {
  auto args = std::make_shared<RenderArgs>();
  auto* cmd = app.add_subcommand(
      "render",
      "Render a snapshot (or one library's snapshots under several torch releases, with their history; or two "
      "libraries' snapshots compared by an equivalence map) as a self-contained HTML page, reStructuredText and "
      "Markdown");
  cmd->add_option("snapshot", args->snapshots,
                  "The snapshot(s) to render: snapshot.json files or folders holding one; several make a "
                  "history page")
      ->required();
  cmd->add_option("--html", args->html, "Write the self-contained HTML page here");
  cmd->add_option("--rst", args->rst, "Write the reStructuredText page (for Sphinx) here");
  cmd->add_option("--md", args->md, "Write the Markdown page (for a README) here");
  cmd->add_option("-o,--out-dir", args->out_dir,
                  "Write DIR/index.html, DIR/page.rst and DIR/page.md (unless --html, --rst or --md say otherwise)");
  cmd->add_option("--current", args->current,
                  "With several snapshots: the one whose tables the page shows (default: the newest torch release)");
  cmd->add_option("--api-base", args->api_base,
                  "Link operators with an API cross-reference to this URL ({api} is replaced by "
                  "the documented name; without it the name is appended)");
  cmd->add_option("--map", args->map,
                  "Compare two libraries' snapshots operation by operation, by this equivalence map "
                  "(docs/page.md: one line per operation); writes HTML and Markdown");
  cmd->callback([args, status] { *status = Render(*args); });
}

}  // namespace opsweep::cli
