// The report of a snapshot diff: every decision about what `opsweep diff` says (sections, groups by
// reason, their order, labels, the summary line), made once, so that the text, Markdown and JSON
// writers (render/diff_writer.h) and the history page never disagree about a number or a group.
//
// Sections come in the order of the kinds (regressions first); inside a section the changes are
// grouped by reason: a regression by the reason it fails with now, a progression by the reason it
// failed with before (what got fixed), any other change by its reason now (else before). Groups
// with more changes come first, ties by reason id; inside a group, NEW's record order, then path
// order. A supported outcome has no reason: its group has reason id "" and title "supported".
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "diff/snapshot_diff.h"
#include "snapshot/snapshot.h"

namespace opsweep::diff {

// One change as every layout shows it.
struct ChangeLine {
  const OutcomeChange* change = nullptr;
  std::string path_title;  // "ONNX"
  std::string text;        // what changed, in words: the detail now, "was: <detail before>", "graph breaks 1 -> 2"
};

struct ReasonGroup {
  std::string reason;  // reason id, "" for supported outcomes
  std::string title;   // the reason's title; "supported" for ""
  std::vector<ChangeLine> lines;
};

// A record of one snapshot only, with its outcome on every path of that snapshot.
struct RecordLine {
  const snapshot::Record* record = nullptr;
  std::string text;  // "ONNX ok, torch.export fail (No ONNX lowering), torch.compile ok"
};

struct KindSection {
  ChangeKind kind = ChangeKind::detail;
  std::string title;    // "Regressions"
  std::string meaning;  // "supported before, not now"
  int count = 0;
  std::vector<ReasonGroup> groups;
};

struct SideLabel {
  std::string library;  // "lib 1.2.0"
  std::string torch;    // "2.13.0+cpu", "" when unknown
  std::string date;     // "2026-11-30"
  std::string text;     // "lib 1.2.0, torch 2.13.0+cpu, 2026-11-30"
};

struct PathLabel {
  std::string id;
  std::string title;
};

struct DiffReport {
  SideLabel before, after;
  std::vector<HeaderChange> header;      // environment differences: printed first
  std::vector<PathLabel> paths;          // compared
  std::vector<PathLabel> added_paths, removed_paths;
  int compared_records = 0;
  std::vector<KindSection> sections;     // only kinds that occur
  std::vector<RecordLine> added_records, removed_records;
  std::string summary;                   // "3 regressions, 5 progressions, 1 new case" / "no change"
  bool regression = false;
  bool change = false;

  std::vector<PathLabel> known_paths;    // every path of either snapshot (NEW's titles first)
  std::map<std::string, std::string> reason_titles;  // of either snapshot (NEW's first)

  // The title of path `id` (NEW's description, else OLD's, else the id).
  std::string PathTitle(const std::string& id) const;
  // The title of reason `id`; "supported" for "", the id itself when neither snapshot has it.
  std::string ReasonTitle(const std::string& id) const;
};

// `diff` must come from Compare(before, after); the report points into all three.
DiffReport BuildReport(const SnapshotDiff& diff, const snapshot::Snapshot& before, const snapshot::Snapshot& after);

// "3 regressions" / "1 regression": a count and its noun, singular or plural.
std::string Counted(int n, std::string_view singular, std::string_view plural);

}  // namespace opsweep::diff
