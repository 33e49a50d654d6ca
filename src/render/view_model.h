// The one view model behind every rendering of a snapshot. BuildViewModel makes every decision
// about what the page says (counts, which rows go where, cell labels, merged reason lines, anchors,
// links, the search text of a row); the HTML, reStructuredText and Markdown writers only lay it
// out, so the three formats can never disagree about a number or a label.
//
// The paths' titles, labels and descriptions come from the snapshot's path descriptions: nothing
// here names a path.
//
// Definitions (also in docs/page.md):
// - supported: ok, ok-breaks or ok-unverified; probed (per path): any status but n/a.
// - a configuration is one record; an operator is a distinct (package, section, operator) triple.
// - a row that is n/a on every path leaves its package table for the "n/a on every path" section.
// - an ONNX path is one whose outcomes list ONNX op types (`op_types`): it produces ONNX models.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "snapshot/snapshot.h"

namespace opsweep::render {

using snapshot::Snapshot;

// The id of a status in the page's filters, data attributes and class names: the persisted id,
// but "na" for n/a, so that it is safe in a URL and a CSS class.
std::string_view StatusToken(Status status);

struct RenderOptions {
  // Where records with an `api` cross-reference link to: the root of the library's docs, under
  // which the record's documenting page (`api_uri`, from objects.inv) is found. "{api}" in it
  // makes it a template for the (percent-encoded) documented name instead; a record without a
  // page gets the name appended. Empty: no links.
  std::string api_base;
};

struct PathView {
  std::string id;           // "onnx"
  std::string title;        // "ONNX", "torch.export"
  std::string short_label;  // "ONNX", "export": used where reasons of several paths merge
  std::string description;  // what the probe does, one sentence
};

struct PathCount {
  int supported = 0;
  int probed = 0;        // status other than n/a
  std::string percent;   // supported / probed, one decimal ("86.0%"); "n/a" when nothing was probed
};

struct CellView {
  Status status = Status::not_applicable;
  std::string token;   // StatusToken: "ok-breaks", "na"; the class and filter name
  std::string symbol;  // "✓", "✗", ...: the cell reads without colour
  std::string label;   // "yes", "yes, 2 breaks", "no", ...
};

struct ReasonLink {
  std::string id;
  std::string title;
  std::string anchor;  // of the reason's entry in the Reasons section
};

// A graph-break reason: a classified reason (linked) or a plain text.
struct BreakReasonView {
  std::string text;
  std::optional<ReasonLink> reason;
};

// One line of a row's details: what one or more paths said, merged when equal.
struct DetailLine {
  std::vector<int> paths;   // indexes into ViewModel::paths
  std::string paths_label;  // "ONNX, export"
  std::string text;         // the user-facing detail (falls back to the error, the reason title)
  std::string error;        // the raw error line when it says more than `text`; else ""
  std::string location;     // "kornia/x.py:12" or ""
  std::optional<ReasonLink> reason;
  std::vector<BreakReasonView> break_reasons;
  // For each path of the line whose job failed, mismatched, crashed, timed out or broke the graph:
  // the command that writes a standalone reproducer (`opsweep repro 'NAME' --path P`).
  std::vector<std::string> repro;
};

// `opsweep repro 'NAME' --path PATH`, the name quoted for a POSIX shell when it needs it.
std::string ReproCommand(std::string_view case_name, std::string_view path_id);

struct RowView {
  std::string name;
  std::string operator_name;
  std::string variant;
  std::string package;
  std::string group;   // package[.section]
  std::string anchor;  // unique id: "r-<slug of name>"
  std::string api;     // documented name, "" when none
  std::string api_url; // "" when there is no api or no --api-base
  std::string note;
  bool random = false;  // check=False
  std::vector<CellView> cells;  // one per path, in ViewModel::paths order
  std::vector<DetailLine> details;
  std::string search_text;  // name, variant, reason texts and locations: what the search box sees
  int graph_breaks = 0;     // over all paths
  bool na_everywhere = false;
};

struct SectionView {
  std::string name;   // "" for the package's top level
  std::string title;  // "kornia.geometry.epipolar"; "kornia.geometry (top level)" for ""
  std::string anchor;
  std::vector<RowView> rows;
};

struct PackageSummary {
  int configurations = 0;  // every record of the package, n/a rows included
  int na_everywhere = 0;
  int all_pass = 0;        // supported on every path
  std::vector<PathCount> paths;
};

struct PackageView {
  std::string name;    // "geometry"
  std::string title;   // "kornia.geometry"
  std::string anchor;
  PackageSummary summary;
  std::vector<SectionView> sections;  // only sections with rows left after n/a-everywhere rows
  bool titled_sections = false;       // more than one section (or one that is not the top level)
};

struct AffectedRow {
  std::string name;
  std::string anchor;
  std::string paths_label;  // where the reason applies: "ONNX, compile"
};

struct ReasonView {
  std::string id;
  std::string anchor;
  std::string title;
  std::string cause;
  std::string hint;
  std::string component;
  int operators = 0;  // distinct operators affected
  std::vector<AffectedRow> affected;  // in record order
};

struct LegendEntry {
  CellView cell;
  std::string meaning;
};

// One choice of the page's filter (HTML only). `value` is what the URL carries: "all", "failure",
// "breaks", "all-ok", "<path>:supported", "<path>:failure" or "<path>:<status token>".
struct FilterOption {
  std::string value;
  std::string label;
  int count = 0;      // rows it shows with an empty search
  std::string group;  // "" for the global filters, else the path's title
};

struct EnvironmentEntry {
  std::string label;
  std::string value;
};

struct ViewModel {
  std::string title;  // "kornia 0.9.0: ONNX, torch.export and torch.compile support"
  std::string library_name;
  std::string library_version;
  std::string generated;
  std::string lede;  // the opening sentence every format shows under the title (plain text)
  std::string tool;  // "opsweep 0.1.0" (the tool that merged the snapshot)
  std::vector<PathView> paths;
  std::vector<PathCount> cards;  // one per path
  int configurations = 0;
  int configurations_na_everywhere = 0;
  int configurations_all_pass = 0;
  int operators = 0;
  std::optional<int> operators_onnx;  // supported on an ONNX path in >= 1 configuration; none without one
  std::vector<EnvironmentEntry> environment;
  std::vector<LegendEntry> legend;
  std::vector<FilterOption> filters;
  std::vector<PackageView> packages;
  std::vector<RowView> na_rows;  // n/a on every path, in record order
  std::vector<ReasonView> reasons;
  int unclassified = 0;
};

// `snapshot` must be one that snapshot::ReadSnapshot accepted (every record has an outcome for every
// path).
ViewModel BuildViewModel(const Snapshot& snapshot, const RenderOptions& options);

// "1,341".
std::string FormatCount(long long value);
// supported / probed as "86.0%" (half up), "n/a" when probed is 0.
std::string FormatPercent(int supported, int probed);
// "1 of its 6 configurations is n/a on every path" (no final stop).
std::string NaNote(const PackageSummary& summary);
// The cell of one outcome: symbol and label.
CellView MakeCell(Status status, std::optional<int> graph_breaks);

}  // namespace opsweep::render
