// A page that compares two libraries operation by operation (`opsweep render A B --map MAP`,
// docs/page.md "Comparing two libraries"): one row per operation of a committed equivalence map,
// with each library's verdict per path, so that a user choosing between them sees which one's
// version of "resize" or "nms" deploys.
//
// The equivalence map is a text file, one operation per line:
//
//   libraries: kornia | torchvision          (once, before the first operation)
//   [Geometry]                               (optional: the operations below go under this heading)
//   resize | kornia.geometry.resize, kornia.augmentation.Resize | torchvision.transforms.v2.functional.resize | note
//
// The callables are the public names the snapshots' records target (Record::target), comma-
// separated; an empty field says that library has no such operation. `#` starts a comment line.
//
// Definitions (also in docs/page.md):
// - a library's configurations of an operation are its snapshot's records whose target is one of
//   the operation's callables for that library; a record without a result (merged with --force)
//   is not surveyed, and an n/a outcome is not probed;
// - the compared paths are the paths both snapshots surveyed, in the first snapshot's order;
// - an operation deploys on a path in a library when at least one of its configurations there is
//   supported (IsSupported); the cell counts supported of probed configurations;
// - "deploys in one library only": on some compared path one library deploys and the other
//   probed the operation without a supported configuration.
#pragma once
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "render/view_model.h"
#include "snapshot/snapshot.h"

namespace opsweep::render {

struct EquivalenceEntry {
  int line = 0;             // in the map file, for messages
  std::string section;      // the heading it is under, "" before any
  std::string operation;    // "resize"
  std::array<std::vector<std::string>, 2> callables;  // per library, in the map's column order
  std::string note;         // where the semantics differ; "" when they do not
};

struct EquivalenceMap {
  std::array<std::string, 2> libraries;  // as the `libraries:` line names them
  std::vector<EquivalenceEntry> entries;
};

// Parses a map. Fails (*err: one line naming the line number and what to fix) on a missing or
// repeated `libraries:` line, a line without three `|`, an empty or repeated operation, a line
// naming no callable, a callable that is not a dotted name, or a map without operations.
bool ParseEquivalenceMap(std::string_view text, EquivalenceMap* map, std::string* err);

// One configuration of an operation in one library: its verdict on each compared path.
struct ComparedConfig {
  std::string name;                // the record's name ("resize[antialias]")
  std::string target;              // what it calls
  std::vector<CellView> cells;     // one per compared path
  std::vector<std::string> problems;  // "export: Python branch on tensor values", per unsupported path
  bool surveyed = true;            // false: no result (merged with --force)
};

struct ComparedSide {
  bool offered = false;                  // the map names a callable of this library
  std::vector<std::string> callables;
  std::vector<ComparedConfig> configs;   // its records, in snapshot order
  std::vector<std::string> unmatched;    // callables no record targets
};

struct OperationRow {
  RowView row;  // name, anchor, search text, note, cells (library A's paths, then B's), tokens
  std::array<ComparedSide, 2> sides;
};

struct OperationSection {
  std::string title;   // the map's heading; "Operations" when the map has none
  std::string anchor;
  std::vector<OperationRow> rows;
};

struct ComparedLibrary {
  std::string name, version, label;  // label: "kornia 0.9.0"
  std::string torch;                 // as measured
  std::string generated;             // the snapshot's date
  std::vector<PathCount> cards;      // per compared path: operations that deploy / operations probed
  int deploys_only = 0;              // operations that deploy in this library only (on some path)
  int offered = 0;                   // operations the map gives this library
};

struct ComparisonView {
  // The page around the rows, as the survey page has it: title, lede, columns (`paths`: one per
  // library and compared path, id "<library>-<path>", group the library's label), filters, count
  // unit, row tokens. Its packages are empty: the rows are in `sections`.
  ViewModel page;
  std::array<ComparedLibrary, 2> libraries;
  std::vector<PathView> compared;          // the compared paths, once
  std::vector<std::string> not_compared;   // "kornia: ONNX (dynamic shapes)": paths only one snapshot has
  std::vector<OperationSection> sections;
  int operations = 0;
  int offered_by_both = 0;
  int deploy_in_both_everywhere = 0;       // offered by both, and both deploy on every compared path
  int one_only = 0;                        // "deploys in one library only"
  std::vector<std::string> unmatched;      // "kornia.x.y (line 12)": map names no record targets
};

// Builds the comparison. The snapshots must survey the two libraries the map names (in either
// order); fails (*err, one line) when they do not, when both are the same library, or when they
// share no path.
bool BuildComparison(const snapshot::Snapshot& first, const snapshot::Snapshot& second, const EquivalenceMap& map,
                     ComparisonView* view, std::string* err);

}  // namespace opsweep::render
