// Writes a snapshot model as `snapshot.json` (docs/formats.md section 5): keys sorted, indent 2, a
// trailing newline, UTF-8 (invalid bytes replaced). The same model always gives the same bytes; the
// caller decides what goes in (merge puts nothing machine- or moment-dependent there).
#pragma once
#include <string>

#include "snapshot/snapshot.h"

namespace opsweep::snapshot {

std::string WriteSnapshot(const Snapshot& snapshot);

}  // namespace opsweep::snapshot
