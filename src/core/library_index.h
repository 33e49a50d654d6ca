// The current state of the surveyed library's code, as the worker's `index` message gives it
// (docs/formats.md section 2), and the check of a stored record's `deps` against it
// (docs/formats.md section 3): the part of a job's key that depends on the library.
//
// A record's deps name every library function the job entered (or Dynamo traced) and every module
// whose module-level code it read, each with the digest it had when the job ran. The result is
// current for the library when every one of them still has that digest; a name the index no
// longer has counts as changed (removed), and so does a digest the worker marked
// `changed-during-run` (the file was edited while the job ran). A record without deps (crash,
// timeout, a recording that could not be trusted) depends on the whole library instead: its run's
// library fingerprint must equal the current one (see core/rerun.h).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace opsweep {

struct LibraryIndex {
  bool known = false;    // false: no index (no library, or a worker that sent none)
  std::string library;   // the library's name
  // "lib/color/gray.py:rgb_to_grayscale" -> digest of its tokens ("t:...", index version 4: a
  // comment or a re-wrapped line changes none); from a version-3 worker, of its source lines.
  std::map<std::string, std::string> functions;
  // Version 4: the same functions' digests of their source lines, against which a record measured
  // before version 4 (its digests lack the "t:" prefix) is checked. Empty from a version-3 worker.
  std::map<std::string, std::string> line_functions;
  std::map<std::string, std::string> modules;    // "lib/color/gray.py" -> digest of its module-level code
};

// Reads an `index` message (version 3 or 4). Fails (*err says what is wrong) on a missing or
// mistyped field or an unknown version.
bool ParseLibraryIndex(const nlohmann::json& message, LibraryIndex* out, std::string* err);
bool ParseLibraryIndex(const nlohmann::ordered_json& message, LibraryIndex* out, std::string* err);

struct DepChange {
  enum class Kind { function, module };
  enum class How { changed, removed, edited_while_running };
  Kind kind = Kind::function;
  std::string name;
  How how = How::changed;
};

// The deps of `deps` (a record's `deps` object) that differ from `index`: functions first, then
// modules, each sorted by name. A function's stored digest is compared with the digest of the same
// kind: "t:..." with `functions`, a digest of lines with `line_functions` (with `functions` when the
// index is of version 3, whose digests are of lines). An empty result means current. A `deps` that is not an object of
// two objects of strings yields one change named "deps" (a damaged record is never current).
std::vector<DepChange> ChangedDeps(const nlohmann::json& deps, const LibraryIndex& index);

// A record measured before index version 4 lists its functions with digests of their source lines.
// When every one of them equals the index's `line_functions` (the record is current: its functions'
// lines are unchanged since it was measured, and so are their tokens), replaces each by the index's
// token digest and returns true: the same dependency, in the encoding a comment does not change.
// Otherwise (already token digests, no functions, a function changed or gone, a version-3 index)
// leaves `deps` alone and returns false.
bool ReencodeLineDigests(nlohmann::json* deps, const LibraryIndex& index);
bool ReencodeLineDigests(nlohmann::ordered_json* deps, const LibraryIndex& index);

// "lib/color/gray.py:rgb_to_grayscale changed", "module-level code of lib/constants.py
// changed", "lib/x.py:f was removed", "lib/x.py was edited while the job ran".
std::string DepChangeSentence(const DepChange& change);

}  // namespace opsweep
