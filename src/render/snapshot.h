// The snapshot as `opsweep render` reads it (docs/formats.md section 5, schema 1).
//
// ParseSnapshot checks everything the page relies on before anything is rendered: the schema
// version, the required header fields, every record's required fields, known statuses, reason ids
// that resolve, non-negative graph-break counts and unique names. A snapshot that fails any check is
// refused as a whole with one sentence that says where (`records[12] 'name': ...`), so a damaged
// file never produces a half-true page. Optional fields take the defaults the format implies.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "render/status.h"

namespace opsweep::render {

inline constexpr int kSnapshotSchema = 1;

// One graph break: its reason id (when a rule matched) and dynamo's own text.
struct GraphBreak {
  std::string reason;  // reason id, "" when no rule matched
  std::string text;
};

// One record's outcome on one path.
struct PathOutcome {
  Status status = Status::kNotApplicable;
  std::string step;
  std::string reason;    // reason id, "" when unclassified or none
  std::string detail;    // short user-facing text
  std::string error;     // cleaned first line of the root cause, "" when nothing raised
  std::string location;  // "kornia/x.py:12", "" when unknown
  std::optional<int> graph_breaks;
  std::vector<GraphBreak> break_reasons;
  std::vector<std::string> op_types;
};

struct SnapshotRecord {
  std::string name;
  std::string operator_name;
  std::string variant;
  std::string package;
  std::string section;
  std::string group;
  std::string target;
  std::string note;
  bool check = true;
  std::optional<std::string> api;
  std::map<std::string, PathOutcome> paths;  // keyed by path id
};

struct SnapshotReason {
  std::string title;
  std::string cause;
  std::string hint;
  std::string component;
};

struct Snapshot {
  int schema = 0;
  std::string generated;
  std::string tool_name;
  std::string tool_version;
  std::string library_name;
  std::string library_version;
  std::string library_fingerprint;
  std::map<std::string, std::string> environment;  // python, torch, onnx, ...
  std::string opset;                               // as text: "18"
  std::string device;
  std::vector<std::string> paths;  // path ids in probing order
  bool cross_references = false;
  std::map<std::string, SnapshotReason> reasons;
  int unclassified = 0;
  std::vector<SnapshotRecord> records;  // in the file's (sorted) order
};

// Parses and validates `text`. On failure returns false and sets *err to one line (no file name;
// the caller adds it).
bool ParseSnapshot(std::string_view text, Snapshot* out, std::string* err);

}  // namespace opsweep::render
