// What changed between two snapshots of one library: per record and path, and in the header
// (docs/diff.md). `opsweep diff OLD NEW` reports it and gates CI on it; the history page lists it
// between consecutive torch releases.
//
// Definitions (the persisted kind ids in parentheses reach the JSON report and the page):
// - a regression (`regression`): supported before (IsSupported: ok, ok-breaks, ok-unverified,
//   ok-static, ok-recompiles), not now;
// - a progression (`progression`): not supported before, supported now;
// - a status change (`status`): another status on the same side of supported (fail -> mismatch,
//   ok -> ok-breaks, n/a -> fail);
// - a reason change (`reason`): the same status, another reason id;
// - a detail change (`detail`): the same status and reason, another step, detail text, error line,
//   location, graph-break count or reasons, ONNX op types, checks (fresh inputs, randomness) or notes.
// Records are matched by name, paths by id; only paths present in both are compared outcome by
// outcome. Records and paths present in one snapshot only are listed as added or removed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.h"

namespace opsweep::diff {

enum class ChangeKind : std::uint8_t { regression, progression, status, reason, detail };

inline constexpr ChangeKind kAllChangeKinds[] = {ChangeKind::regression, ChangeKind::progression, ChangeKind::status,
                                                 ChangeKind::reason, ChangeKind::detail};

// The persisted id: "regression", "progression", "status", "reason", "detail".
std::string_view ChangeKindId(ChangeKind kind);

// The kind of change between two outcomes of one record on one path; nullopt when they are equal.
// `fields` (optional) receives the names of the fields that differ, in a fixed order: status, step,
// reason, detail, error, location, graph_breaks, break_reasons, op_types, checks, notes, facts.
std::optional<ChangeKind> Classify(const snapshot::Outcome& before, const snapshot::Outcome& after,
                                   std::vector<std::string>* fields = nullptr);

struct OutcomeChange {
  ChangeKind kind = ChangeKind::detail;
  std::string record;  // the record's name
  std::string path;    // the path's id
  snapshot::Outcome before, after;
  std::vector<std::string> fields;  // what differs (see Classify)
};

// A header value that differs: "torch", "onnxruntime", ... (environment fields), "library",
// "library sources", "tool", "date".
struct HeaderChange {
  std::string field;
  std::string before;  // "" when absent
  std::string after;
};

struct SnapshotDiff {
  std::vector<HeaderChange> header;   // fixed order: library, library sources, environment fields, tool, date
  std::vector<std::string> paths;     // compared: in both, in NEW's order
  std::vector<std::string> added_paths, removed_paths;  // in NEW's / OLD's order
  int compared_records = 0;           // records in both
  // Outcome changes in NEW's record order (then path order); records only in OLD follow nothing:
  // they are in removed_records.
  std::vector<OutcomeChange> changes;
  std::vector<const snapshot::Record*> added_records;    // in NEW, not in OLD (NEW's order)
  std::vector<const snapshot::Record*> removed_records;  // in OLD, not in NEW (OLD's order)

  int Count(ChangeKind kind) const;
  // A regression: what `--fail-on regression` (the default) fails on.
  bool HasRegression() const;
  // Any difference in the records or paths (any outcome change, an added or removed record or
  // path): what `--fail-on change` fails on. Header differences alone are not changes.
  bool HasChange() const;
};

// Refuses to compare snapshots of two different libraries (by name): one line naming both.
bool Comparable(const snapshot::Snapshot& before, const snapshot::Snapshot& after, std::string* err);

// Compares OLD (`before`) with NEW (`after`). The result points into both snapshots, which must
// outlive it.
SnapshotDiff Compare(const snapshot::Snapshot& before, const snapshot::Snapshot& after);

// The torch release a snapshot was measured under: environment.torch without its local label
// ("2.9.1+cu128" -> "2.9.1"); "" when the snapshot does not say.
std::string TorchRelease(const snapshot::Snapshot& snapshot);

// Orders version strings component by component ('.'-separated), numbers numerically: "2.9.1" <
// "2.13.0" < "2.15.0". Within a component, text after the digits sorts before none ("0rc1" < "0",
// as a release candidate precedes its release), and among texts alphabetically.
bool ReleaseLess(std::string_view a, std::string_view b);

}  // namespace opsweep::diff
