// Reading snapshots given on the command line, and writing a verb's outputs all or nothing: what
// render and diff share.
#pragma once
#include <string>
#include <vector>

#include "snapshot/snapshot.h"

namespace opsweep::cli {

// Messages name user data (record names, file names): keep them to one line.
std::string OneLineMessage(std::string text);

// The snapshot file `path` names: itself, or path/snapshot.json for a folder.
std::string SnapshotFilePath(const std::string& path);

// Reads and validates the snapshot at `path`: a snapshot file, or a folder holding snapshot.json
// (snapshots/lib-1.2.0/torch-2.13.0). On failure *err is one line that starts with the path.
bool LoadSnapshotFile(const std::string& path, snapshot::Snapshot* out, std::string* err);

// Reads several snapshots, each as LoadSnapshotFile does, up to one thread per core: reading and
// validating a large survey's snapshot (17 MB of JSON) is most of what diff and render cost, and the
// files are independent. On failure *err is the message of the first failing path in the order
// given, whatever order the threads finish in; `out` is then unspecified.
bool LoadSnapshotFiles(const std::vector<std::string>& paths, std::vector<snapshot::Snapshot>* out,
                       std::string* err);

struct Output {
  std::string path;
  std::string content;
};

// Writes every output to a temporary file beside its destination, and only when all are written
// renames them into place (util/atomic_file.h): a reader never sees a half-written set.
bool WriteOutputs(const std::vector<Output>& outputs, std::string* err);

}  // namespace opsweep::cli
