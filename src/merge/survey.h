// Joining results databases into one survey, and checking that the survey may be published.
//
// Shards (one database per machine) are joined: the union of their inventories and results. When
// the same (case, path) was measured in two databases, the result with the later `finished` wins
// (ISO 8601 UTC text compares in time order); on a tie, the larger record text, so the outcome
// never depends on the order the databases were named in.
//
// The paths come from the databases themselves: runs.paths_json holds the description of every
// path a run asked for (core/path_spec.h), so merge validates steps and environments against what
// the workers said, never against a table of its own.
//
// Validation lists every problem, one line each, before anything is written:
//   - a database without an inventory;
//   - databases built from different registries (their inventories differ) or probing different
//     paths (a database's requested paths: the union over its runs), or registries other than
//     --registries names;
//   - results measured under different environments: a key field (but case and path) whose value
//     differs between results, or that some results of a path lack; a path's harness digest is
//     compared among that path's results only;
//   - a case of the inventory without a result for a requested path (crash and timeout are results);
//   - a record that cannot be read: not JSON, unknown status, a step that is neither common nor its
//     path's, a status that disagrees with its row, a graph-break count that is negative or not an
//     integer, graph-break reasons that are not text; optional fields of the wrong shape (checks,
//     notes, break_frames: docs/formats.md section 3).
// Records that cannot be read are left out of the survey; everything else is kept, so `--force`
// can still publish what was measured.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/path_spec.h"
#include "store/results_db.h"

namespace opsweep {

// Everything merge reads from one database.
struct DbContents {
  std::string file;
  std::vector<InventoryCase> inventory;
  std::vector<RunInfo> runs;
  std::vector<StoredResult> results;
};

// Reads a database read-only (never modifies it); a FILE.jsonl is the database's committed text
// form (store/results_text.h), refused when damaged. On failure returns false with one line.
bool LoadDbContents(const std::string& file, DbContents* out, std::string* err);

struct SurveyCase {
  InventoryCase inventory;
  nlohmann::json info;  // the inventory entry, parsed (an object; empty when unreadable)
};

struct SurveyResult {
  StoredResult row;
  nlohmann::json record;  // parsed record_json (an object)
  std::string db_file;
};

struct Survey {
  std::vector<PathSpec> paths;                    // requested paths, by (order, id)
  std::map<std::string, SurveyCase> cases;        // by name
  std::map<std::pair<std::string, std::string>, SurveyResult> results;  // (case, path)
  nlohmann::json env = nlohmann::json::object();  // hello.env of the run of the newest result
  std::string newest_finished;                    // of the results kept
  size_t databases = 0;
  std::vector<std::string> problems;  // refuse to publish unless forced
  std::string refused;                // a usage error: refuse to publish even when forced (one line)
  std::vector<std::string> groups;    // the groups the snapshot is limited to (--groups); empty = all
  std::vector<std::string> notes;     // worth saying, never a reason to refuse
};

struct SurveyOptions {
  std::vector<std::string> expected_registries;  // base names; empty = no check
  // Group prefixes (core/plan.h GroupMatches) the snapshot keeps: the cases of other groups, and
  // their results, are left out, as `opsweep run --groups` leaves them unprobed. Empty = all.
  std::vector<std::string> groups;
};

// Joins and validates. Never fails: problems are collected in the survey.
Survey JoinSurvey(const std::vector<DbContents>& dbs, const SurveyOptions& options);

}  // namespace opsweep
