// The snapshot model (docs/formats.md section 5, schema 2): what `opsweep merge` publishes and every
// later reader (render, and the coming diff and history verbs) consumes. This layer owns the format:
// the model here, the reader (snapshot_reader.h) and the writer (snapshot_writer.h), so that no
// reader depends on merge and no writer on render.
//
// The header carries the descriptions of the paths probed (core/path_spec.h, snapshot form), so the
// page's titles, the steps a record may name and the environment fields come from the snapshot
// itself, never from a table in the engine.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/path_spec.h"
#include "core/status.h"
#include "snapshot/checks.h"
#include "snapshot/facts.h"

namespace opsweep::snapshot {

inline constexpr int kSchema = 2;

// Reason ids of the format itself, which no rule may take (merge writes them): an error or a
// graph-break reason that no rule matched, and a job without a result (merged with --force).
inline constexpr const char* kUnclassifiedReason = "unclassified";
inline constexpr const char* kMissingResultReason = "missing-result";

// One graph-break reason: its reason id (a rule's, or `unclassified`), the cleaned text, and where
// Dynamo broke in the library ("lib/x.py:40"; "" when unknown: omitted on disk).
struct GraphBreak {
  std::string reason;
  std::string text;
  std::string location;
};

// One sub-verdict of an outcome (a runtime, an opset: the path description's `subverdicts`),
// classified like the outcome itself. Absent from its outcome when it did not run.
struct SubOutcome {
  Status status = Status::not_applicable;
  std::string step;      // one of the sub-verdict's steps; "" when it finished
  std::string reason;    // reason id; "" (null on disk) for a supported sub-verdict
  std::string detail;
  std::string error;
  std::string location;
  std::map<std::string, CheckResult> checks;  // its fidelity checks, as an outcome's; omitted when empty
};

// A varied dimension a dynamic-shape path did not keep fully dynamic (record.dynamic.specialised).
struct DynamicDim {
  std::string name;  // "batch", "H", "W", "D", "x1[2]"
  std::string kind;  // "constant", "range", "assert", "guard"
  std::string why;   // the guard and the library line: "x0[2] == 48 at lib/x.py:12 in f"
};

// What a dynamic-shape path found (from record.dynamic; absent on the static paths).
struct DynamicInfo {
  std::vector<std::string> shapes;  // "1x3x32x40" per probed shape (inputs joined with ", ")
  int trace = 0;                    // the index in `shapes` the capture was made at
  std::vector<DynamicDim> specialised;
  std::optional<int> recompiles;    // compile-dynamic: recompilations over its calls
  std::vector<std::string> guards;  // guard texts (compile: recompile reasons), at most kDynamicGuards
};
inline constexpr std::size_t kDynamicGuards = 8;

// One record's outcome on one path.
struct Outcome {
  Status status = Status::not_applicable;
  std::string step;      // "" when the job finished
  std::string reason;    // reason id; "" (null on disk) for a supported outcome
  std::string detail;    // short user-facing text
  std::string error;     // cleaned first line of the root cause, "" when nothing raised
  std::string location;  // where it was raised: "lib/x.py:12", a registry's "cases_x.py:40"; "" when unknown
  std::optional<int> graph_breaks;
  std::vector<GraphBreak> break_reasons;
  std::vector<std::string> op_types;  // sorted
  // Optional fields, omitted on disk when empty (a snapshot without them reads and writes back to
  // the same bytes):
  std::map<std::string, CheckResult> checks;  // by check id (record.checks): "fresh_inputs", ...
  std::vector<std::string> notes;             // what the worker observed around the job, cleaned
  std::map<std::string, SubOutcome> subverdicts;  // by sub-verdict id; written only when not empty
  std::optional<DynamicInfo> dynamic;             // dynamic-shape paths only
  Facts facts;  // by fact id, those its path's description declares (core/path_fact.h); written only when not empty
};

struct Record {
  std::string name;
  std::string operator_name;
  std::string variant;
  std::string package;
  std::string section;
  std::string group;
  std::string target;
  std::string note;
  std::vector<std::string> tags;
  bool check = true;
  std::optional<std::string> api;
  std::optional<std::string> api_uri;  // the page documenting `api`, relative to the docs root
  std::map<std::string, Outcome> paths;  // by path id: one per header path
};

struct Reason {
  std::string title;
  std::string cause;
  std::string hint;
  std::string component;
};

struct Snapshot {
  int schema = kSchema;
  std::string generated;  // YYYY-MM-DD of the newest result merged
  std::string tool_name;
  std::string tool_version;
  std::string library_name;
  std::string library_version;  // "" for a library that is not an installed distribution
  std::string library_fingerprint;
  // The union of the paths' env fields as the workers measured them (strings, numbers; null when a
  // worker did not report one).
  nlohmann::json environment = nlohmann::json::object();
  std::vector<PathSpec> paths;  // snapshot form, in the page's order
  bool cross_references = false;
  // The groups the snapshot is limited to (`merge --groups`), in the order given; empty: every group
  // of the registries. Written only when not empty.
  std::vector<std::string> groups;
  std::map<std::string, Reason> reasons;  // only the ids used
  int unclassified = 0;
  std::vector<Record> records;  // sorted by (package, section, operator, name)

  // An environment value as text ("18" for a number); "" when absent or null.
  std::string EnvironmentText(const std::string& field) const;
};

}  // namespace opsweep::snapshot
