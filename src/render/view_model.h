// The one view model behind every rendering of a snapshot. BuildViewModel makes every decision
// about what the page says (counts, which rows go where, cell labels, merged reason lines, anchors,
// links, the search text of a row); the HTML, reStructuredText and Markdown writers only lay it
// out, so the three formats can never disagree about a number or a label.
//
// The paths' titles, labels and descriptions come from the snapshot's path descriptions: nothing
// here names a path.
//
// Definitions (also in docs/page.md):
// - supported: ok, ok-breaks, ok-unverified, ok-static or ok-recompiles (core/status.h);
//   probed (per path): any status but n/a.
// - a configuration is one record; an operator is a distinct (package, section, operator) triple.
// - a row that is n/a on every path leaves its package table for the "n/a on every path" section.
// - an ONNX path is one whose outcomes list ONNX op types (`op_types`): it produces ONNX models.
// - a sub-verdict (a path description's `subverdicts`: another runtime, another opset) is shown as
//   a compact mark beside its path's cell; a runtime's mark whenever it ran, an opset's only where
//   its status differs from the path's own. Its card counts supported / run ("exported": it runs
//   only on a file that exported and passed the checker).
#pragma once
#include <optional>
#include <set>
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
  std::string group;        // the heading over its column ("dynamic shapes"); "" for none
  bool reproducible = false;  // `opsweep repro` writes scripts for its failures: details show the command
  // What the path shows beyond its verdict (render/facts.h): cell facts in its cells' labels
  // ("yes, XNNPACK 72%"), every other fact in the details, flags as filters.
  std::vector<FactSpec> facts;
};

// One sub-verdict the snapshot's paths describe, in the order of the paths and their descriptions.
struct SubVerdictView {
  int path = 0;             // index into ViewModel::paths
  std::string key;          // "onnx/openvino": the filters' and data attributes' name
  std::string id;           // "openvino"
  std::string title;        // "OpenVINO"
  std::string label;        // "OV": the mark's text
  bool opset = false;       // kind opset: marked only where it differs from its path's own status
  std::string description;  // one sentence
};

struct PathCount {
  int supported = 0;
  int probed = 0;        // status other than n/a
  std::string percent;   // supported / probed, one decimal ("86.0%"); "n/a" when nothing was probed
};

// A sub-verdict beside its path's cell: every one the record holds (the filters see them all);
// `shown` says whether the cell shows its mark.
struct MarkView {
  int sub = 0;         // index into ViewModel::subverdicts
  std::string label;   // "OV"
  Status status = Status::not_applicable;
  std::string token;   // StatusToken
  std::string symbol;  // as the cell's
  std::string words;   // the cell's label for this status: "no", "yes", "mismatch"
  std::string title;   // for a tooltip: "OpenVINO: no: OpenVINO 2026.4.1 has no conversion rule for ONNX Det"
  bool shown = true;
};

struct CellView {
  Status status = Status::not_applicable;
  std::string token;   // StatusToken: "ok-breaks", "na"; the class and filter name
  std::string symbol;  // "✓", "✗", ...: the cell reads without colour
  std::string label;   // "yes", "yes, 2 breaks", "no", ...
  std::vector<MarkView> marks;  // its path's sub-verdicts that ran, in the description's order
};

struct ReasonLink {
  std::string id;
  std::string title;
  std::string anchor;  // of the reason's entry in the Reasons section
};

// A graph-break reason: a classified reason (linked) or a plain text, and where Dynamo broke.
struct BreakReasonView {
  std::string text;
  std::optional<ReasonLink> reason;
  std::string location;  // "lib/x.py:40" or ""
};

// One line of a row's details: what one or more paths said, merged when equal.
struct DetailLine {
  std::vector<int> paths;   // indexes into ViewModel::paths
  std::string paths_label;  // "ONNX, export"
  std::string text;         // the user-facing detail (falls back to the error, the reason title)
  std::string error;        // the raw error line when it says more than `text`; else ""
  std::string location;     // "lib/x.py:12" or ""
  std::optional<ReasonLink> reason;
  std::vector<BreakReasonView> break_reasons;
  // The dynamic-shape paths' findings, one sentence each: the shapes probed, each dimension the
  // capture specialised and why, the recompiles and their guards (DynamicFacts).
  std::vector<std::string> facts;
  // For each path of the line whose job failed, mismatched, crashed, timed out or broke the graph:
  // the command that writes a standalone reproducer (`opsweep repro 'NAME' --path P`).
  std::vector<std::string> repro;
};

// One release's status of one row on one path (history pages only).
struct HistoryCell {
  bool present = false;  // false: that release did not survey this row or this path
  std::string release;   // "2.9.1"
  CellView cell;         // meaningful when present
};

enum class MarkKind { none, since, broken };

// A row's history on one path: the strip and the mark (render/history.h).
struct PathHistory {
  std::vector<HistoryCell> cells;  // one per release, in release order
  bool changed = false;            // two consecutive present cells differ in status
  bool uniform = true;             // present in every release, one status: a text layout may omit the strip
  MarkKind mark = MarkKind::none;
  std::string mark_text;           // "since torch 2.13.0", "broken since torch 2.15.0", ""
  std::string strip_text;          // "torch 2.9.1 no, 2.13.0 yes, 2.15.0 yes": the strip in words
  std::string symbols;             // "✗✓✓": the strip in the cells' symbols, "·" where not surveyed
};

// A line of a row's details about how far a result was checked, or what the worker noticed: one
// check of the captured program (the outcome's `checks`) or one note (its `notes`), shared by the
// paths that say the same.
struct AnnotationLine {
  enum class Kind { check_passed, check_failed, check_not_run, note };
  Kind kind = Kind::note;
  std::vector<int> paths;   // indexes into ViewModel::paths
  std::string paths_label;  // "ONNX, export"
  std::string text;         // "checked on fresh inputs", "not checked on fresh inputs: <why>", "note: ..."
};

// Hands out unique anchors: the slug of a name, then "-2", "-3", ... on a collision.
class AnchorSet {
 public:
  std::string Make(std::string_view prefix, std::string_view name);

 private:
  std::set<std::string> used_;
};

// The paths' titles joined: "ONNX, torch.export and torch.compile".
std::string JoinTitles(const std::vector<PathView>& paths);

// `opsweep repro 'NAME' --path PATH --suite SUITE`, each word quoted for a POSIX shell when it needs it.
// SUITE is the surveyed library's name: a bundled suite is named after its library, and opsweep
// bundles several, so a command without it would be refused. "" leaves --suite out.
std::string ReproCommand(std::string_view case_name, std::string_view path_id, std::string_view suite = "");

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
  // What the sub-verdicts that are shown and not supported say (paths_label: the sub-verdict's
  // title, "ONNX at opset 17" for an opset), merged when equal: the details on demand.
  std::vector<DetailLine> sub_details;
  std::string sub_summary;  // "OpenVINO and tract fail; opset 17 differs", "" when nothing to say
  std::vector<AnnotationLine> annotations;  // checks first (fresh inputs, randomness, ...), then notes
  // Some path is supported but its capture was not run on fresh inputs (the filter "not-fresh").
  bool fresh_unchecked = false;
  // The flags its supported outcomes have set, as the filters name them ("<path>:flag:<fact id>").
  std::vector<std::string> flags;
  std::string search_text;  // name, variant, case note, reason texts, locations, checks, notes: what the search box sees
  int graph_breaks = 0;     // over all paths
  bool na_everywhere = false;
  std::vector<PathHistory> history;  // one per path; empty on a single-snapshot page
  bool changed = false;              // on any path (history pages)
  bool since = false;                // a "since" mark on any path
  bool broken = false;               // a "broken since" mark on any path
  // Other row tokens the page's filters match (ViewModel::row_tokens): a comparison's "one-only".
  std::vector<std::string> tokens;
};

struct SectionView {
  std::string name;   // "" for the package's top level
  std::string title;  // "lib.geometry.epipolar"; "lib.geometry (top level)" for ""
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
  std::string title;   // "lib.geometry"
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
// "breaks", "all-ok", "not-fresh" (when the snapshot records checks), "caveat" (a dynamic-shape
// path is static in a dimension or recompiles per size; only when some row is), "<path>:supported",
// "<path>:failure" or "<path>:<status token>", and for a sub-verdict "<path>/<id>:supported",
// "<path>/<id>:failure" (it ran and failed: the file exported but fails there) or
// "<path>/<id>:differs" (its status is not its path's), and for a path's flag fact "<path>:flag:<fact id>"
// (the path is supported and the flag is set: "runs, but not delegated").
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

// The card of one sub-verdict: supported / the records it ran on.
struct SubVerdictCard {
  int sub = 0;  // index into ViewModel::subverdicts
  std::string title;  // "ONNX in OpenVINO", "ONNX at opset 17"
  PathCount count;    // probed: the records that hold this sub-verdict
  int differs = 0;    // records whose sub-verdict status differs from the path's own
};

// ---- history pages (several snapshots of one library, render/history.h) ----------------------

struct ReleaseView {
  std::string release;   // "2.9.1"
  std::string label;     // "torch 2.9.1"
  std::string torch;     // "2.9.1+cu128": the version the workers measured
  std::string library;   // "lib 1.2.0"
  std::string date;
  bool current = false;  // the snapshot the page shows
  std::vector<PathCount> counts;  // one per ViewModel::paths: that release's supported / probed
  std::vector<bool> has_path;     // whether that release surveyed the path
  std::vector<EnvironmentEntry> environment;  // what the workers measured
};

struct HistoryLine {
  std::string name;
  std::string anchor;  // the row's, "" when the page shows no such row (a removed case)
  std::string path_title;
  CellView before, after;
  std::string text;    // what changed, in words
};

struct HistoryGroup {
  std::string reason;  // "" for supported outcomes
  std::string title;
  std::string anchor;  // of the reason's entry in the Reasons section, "" when the page has none
  std::vector<HistoryLine> lines;
};

struct HistorySection {
  std::string kind;  // persisted kind id: "regression", "progression", "status", "reason", "detail"
  std::string title;
  std::string meaning;
  int count = 0;
  std::vector<HistoryGroup> groups;
};

struct HistoryRecordLine {
  std::string name;
  std::string anchor;  // "" when the page shows no such row
  std::string text;
};

struct HeaderChangeView {
  std::string field, before, after;
};

// Every change from one release to the next.
struct ReleaseChangesView {
  std::string from, to;  // "torch 2.9.1", "torch 2.13.0"
  std::string anchor;    // "changes-2.9.1-2.13.0"
  std::string summary;   // "3 regressions, 1 new case" / "no change"
  std::vector<HeaderChangeView> environment;  // torch, onnx, ... (not the date)
  std::vector<HistorySection> sections;
  std::vector<HistoryRecordLine> added, removed;
  std::vector<std::string> added_paths, removed_paths;  // titles
};

struct HistoryView {
  std::vector<ReleaseView> releases;  // in release order
  std::size_t current = 0;
  std::vector<ReleaseChangesView> changes;  // one per consecutive pair
  int rows_changed = 0, rows_since = 0, rows_broken = 0;
  // How to read a strip in a text layout: "status under torch 2.9.1, 2.13.0 and 2.15.0, in that
  // order; · not surveyed".
  std::string strip_legend;
};

struct ViewModel {
  std::string title;  // "lib 1.2.0: ONNX, torch.export and torch.compile support"
  std::string library_name;
  std::string library_version;
  std::string generated;
  std::string lede;  // the opening sentence every format shows under the title (plain text)
  std::string tool;  // "opsweep 0.1.0" (the tool that merged the snapshot)
  std::vector<PathView> paths;
  std::vector<PathCount> cards;  // one per path
  std::vector<SubVerdictView> subverdicts;
  std::vector<SubVerdictCard> sub_cards;  // one per sub-verdict that some record holds
  int configurations = 0;
  int configurations_na_everywhere = 0;
  int configurations_all_pass = 0;
  // With grouped paths (the dynamic-shape variants) beside ungrouped ones: the ungrouped paths
  // (indices into paths), their titles joined ("ONNX, torch.export and torch.compile") and the
  // configurations supported on all of them, the figure comparable with a survey at one shape.
  // Empty and 0 when no path has a group (then every path is a base path and all_pass says it).
  std::vector<int> base_paths;
  std::string base_titles;
  int configurations_base_pass = 0;
  int operators = 0;
  std::optional<int> operators_onnx;  // supported on an ONNX path in >= 1 configuration; none without one
  std::vector<EnvironmentEntry> environment;
  std::vector<LegendEntry> legend;
  // Paragraphs under the legend on what the details say beyond the cells (checks, notes); only for
  // what the snapshot holds, so a snapshot without checks or notes renders as before they existed.
  std::vector<std::string> legend_notes;
  bool has_checks = false;  // some outcome records checks: the "not-fresh" filter is offered
  std::vector<std::string> marks_legend;  // one sentence per sub-verdict: "OV: ONNX in OpenVINO (...)"
  std::vector<FilterOption> filters;
  std::vector<PackageView> packages;
  std::vector<RowView> na_rows;  // n/a on every path, in record order
  std::vector<ReasonView> reasons;
  int unclassified = 0;
  std::optional<HistoryView> history;  // pages of several snapshots only
  // What a row is, counted in the page's count ("configurations"; a comparison's "operations").
  std::string unit = "configurations";
  // The filter values that match a row by its tokens (RowView::tokens), beyond the history's.
  std::vector<std::string> row_tokens;
};

// `snapshot` must be one that snapshot::ReadSnapshot accepted (every record has an outcome for every
// path).
ViewModel BuildViewModel(const Snapshot& snapshot, const RenderOptions& options);

// A page of several snapshots of one library (render/history.h): the view model of
// `*releases[current]` plus the history over every release. `releases` in release order.
ViewModel BuildHistoryViewModel(const std::vector<const Snapshot*>& releases, std::size_t current,
                                const RenderOptions& options);

// "1,341".
std::string FormatCount(long long value);
// supported / probed as "86.0%" (half up), "n/a" when probed is 0.
std::string FormatPercent(int supported, int probed);
// "1 of its 6 configurations is n/a on every path" (no final stop).
std::string NaNote(const PackageSummary& summary);
// The cell of one outcome: symbol and label.
CellView MakeCell(Status status, std::optional<int> graph_breaks);
// The cell of an outcome, its label naming what a dynamic-shape path specialised: "yes, static in
// H, W", "yes, W limited", "yes, recompiles per H".
CellView MakeCell(const snapshot::Outcome& outcome);
// The sentences a row's details give for a dynamic-shape outcome (see DetailLine::facts); none for
// a plain success, whose cell says it all, or for an outcome without dynamic findings.
std::vector<std::string> DynamicFacts(const snapshot::Outcome& outcome);

}  // namespace opsweep::render
