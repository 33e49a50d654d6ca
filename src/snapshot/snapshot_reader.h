// Reads `snapshot.json` (docs/formats.md section 5, schema 2) into the model.
//
// ReadSnapshot checks everything a reader relies on before anything is used: the schema version,
// the header (library, environment, the path descriptions), every record's required fields, known
// statuses, steps that the record's path or every path has, reason ids (of outcomes and graph
// breaks) that resolve, non-negative graph-break counts and unique names. A snapshot that fails any
// check is refused as a whole with one line that says where (`records[12] 'name' paths.onnx: ...`),
// so a damaged file never produces a half-true page. A schema this build does not read is refused
// with one line naming both versions. Optional fields take the defaults the format implies.
#pragma once
#include <string>
#include <string_view>

#include "snapshot/snapshot.h"

namespace opsweep::snapshot {

// Parses and validates `text`. On failure returns false and sets *err to one line (no file name;
// the caller adds it).
bool ReadSnapshot(std::string_view text, Snapshot* out, std::string* err);

}  // namespace opsweep::snapshot
