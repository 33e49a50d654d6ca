// Reading a whole file into memory: the one reader of every input that is read in one piece
// (snapshots, results text, rules, objects.inv, timings, /proc files). Reads to the end of the
// file rather than trusting its size, so files whose size is not known in advance (/proc) are read
// whole too; our own outputs are replaced by rename (util/atomic_file.h), so none grows under a
// reader.
#pragma once
#include <string>

namespace opsweep {

// The bytes of `path` in *contents. Fails (*contents empty, *err one line naming the path and the
// system's reason: "snap.json: cannot read: No such file or directory") when the file cannot be
// opened or read, a folder included.
bool ReadFile(const std::string& path, std::string* contents, std::string* err);

}  // namespace opsweep
