// The text form of a results database (docs/formats.md section 4.1): what a repository commits
// (snapshots/<library>/results.jsonl) so that a fresh clone re-probes nothing when nothing changed,
// and so that new rules, texts or cross-references can be merged without re-probing.
//
// Design: one JSON object per line, UTF-8, `\n` after every line, in a fixed order: a header line,
// then the runs, the inventory, the shared dependency maps and the results, each kind sorted. One
// line per job, so a refresh that re-probes 24 jobs changes about 24 lines (git diffs and stores
// the file as text, small). The bytes are a function of the database's content alone: runs are
// renumbered 1..n (by start time), only the runs something refers to are kept, a run's registries
// are file names (no absolute paths, no command line), and JSON objects keep their stored key
// order. Records' dependency maps (`deps.functions`, `deps.modules`: the same few thousand names
// in most records) are written once each as a `depset` line and referred to as "@<id>", the id a
// digest of the map; a depset lists the ids of its entries, and each distinct (name, digest)
// entry is written once as an `entry` line (a depset as a map repeated the same names thousands of
// times: 2.4 KB a depset, about one depset per job).
//
// SQLite stays the working store (durable per job, concurrent readers); `opsweep results export`
// writes this form in one piece after a run, `opsweep results import` loads it into a database,
// and `opsweep merge` reads it directly (through a temporary import).
//
// Reading never trusts the file: a first line that is not this format's header is an error, a
// newer version is an error, and anything else damaged (a line that is not JSON, an unknown kind,
// a reference to a run or depset the file lacks, a last line cut short) is skipped with a warning
// saying so; the header's counts tell a file cut at a line boundary from a complete one.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "store/results_db.h"

namespace opsweep {

// 2: depsets list the ids of `entry` lines (each distinct name and digest once) instead of
// holding their maps; version 1 files are still read.
inline constexpr int kResultsTextVersion = 2;
// Hex digits of an entry id: 48 bits, unique among a survey's few thousand entries (two that
// share them both keep the whole digest instead).
inline constexpr size_t kEntryIdChars = 12;

// The bytes of `content` in text form. Fails when a stored JSON text is not JSON.
bool WriteResultsText(const ResultsContent& content, std::string* out, std::string* err);

// Reads the text form. Returns false (*err one line) when the bytes are not this format or of a
// newer version; else true with what could be read, and one warning per problem met.
bool ReadResultsText(std::string_view bytes, ResultsContent* out, std::vector<std::string>* warnings, std::string* err);

}  // namespace opsweep
