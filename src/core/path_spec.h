// What a capture path is, as the harness describes it once (python/opsweep/paths/base.py
// `PathSpec.describe`, docs/formats.md section 2). The engine names no path: planning, job keys,
// scheduling, merge validation, the snapshot header and the page all read these descriptions. They
// travel in the worker's hello, are stored in the results database (runs.paths_json) and, without
// the fields only the engine needs, in the snapshot header, so merge and render never need a worker.
//
// Two forms: the hello form (everything below) and the snapshot form (no `harness`, no
// `expected_seconds`: they mean nothing to a reader of the snapshot).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/path_fact.h"

namespace opsweep {

// What a sub-verdict is, which decides the reason rules that classify it: a `runtime` runs the
// path's own file elsewhere (only rules that name it apply); an `opset` repeats the path's own
// pipeline at another opset (the path's rules apply too). Persisted as "runtime" / "opset".
enum class SubVerdictKind { runtime, opset };

std::string_view SubVerdictKindId(SubVerdictKind kind);

// A verdict reported inside a path's record beside the path's own (a runtime, an opset): the
// record's `subverdicts[id]` (docs/formats.md section 3).
struct SubVerdictSpec {
  std::string id;  // persisted, never reused
  std::string title;
  std::string label;  // short: the page's compact mark
  SubVerdictKind kind = SubVerdictKind::runtime;
  std::string description;         // one sentence, for the page's card
  std::vector<std::string> steps;  // where it can stop, in order (no common steps)
  bool operator==(const SubVerdictSpec&) const = default;
};

// A change of a path's harness code that the harness declares harmless for most stored results
// (python/opsweep/harness_migrations.json, docs/formats.md section 1): a result measured under the
// harness digest `from` stands under `to` unless its record's text contains one of
// `rerun_if_record_contains` (the marks of the results the change can alter, e.g. the detail the
// changed branch wrote). Migrations chain: from -> to -> ... -> the path's current digest.
struct HarnessMigration {
  std::string id;    // "2026-12-04-randomness-seeds": named in the sentences that cite it
  std::string from;  // the path's harness digest before the change
  std::string to;    // after it
  std::string why;   // one sentence: what changed, and why the other results stand
  std::vector<std::string> rerun_if_record_contains;  // empty: the change can alter no result
  bool operator==(const HarnessMigration&) const = default;
};

struct PathSpec {
  std::string id;           // persisted, never reused: "onnx"
  std::string title;        // "ONNX", "torch.export"
  std::string label;        // short, where the page merges reasons of several paths: "export"
  std::string description;  // one sentence: what the probe does
  std::vector<std::string> steps;  // where a job of this path can stop, in order; the common steps come on top
  std::vector<std::string> env;    // the environment fields its results depend on, in job-key order
  std::vector<SubVerdictSpec> subverdicts;
  int order = 100;                          // position among the paths (then by id)
  std::string group;                        // a heading over the page's columns of the paths that share it
                                            // ("dynamic shapes"); "" for none. Optional in both forms.
  bool reproducible = false;                // `opsweep repro` writes scripts for its failures. Optional in both forms.
  std::vector<FactSpec> facts;              // what the page shows beside its verdict (core/path_fact.h). Optional in both forms.
  std::optional<double> expected_seconds;   // hello form only: the scheduler's guess for a new job
  std::string harness;                      // hello form only: digest of the harness code the path runs
  std::vector<HarnessMigration> migrations;  // hello form only, optional: older digests whose results stand
  bool operator==(const PathSpec&) const = default;
};

enum class PathSpecForm { hello, snapshot };

// Reads one description. Fails (*err names the path and the field) on a missing or mistyped field,
// an id that is not lowercase letters, digits and '-', a step or env field listed twice, or an
// env field that collides with a job-key tag of its own (case, path, harness, library).
bool ParsePathSpec(const nlohmann::json& j, PathSpecForm form, PathSpec* out, std::string* err);

// Reads a list of descriptions (ids must be unique), keeping the list's order.
bool ParsePathSpecs(const nlohmann::json& list, PathSpecForm form, std::vector<PathSpec>* out, std::string* err);

// The snapshot form, as an object with sorted keys.
nlohmann::json PathSpecSnapshotJson(const PathSpec& path);

// The migrations that carry a result measured under the path's harness digest `from` to its current
// one, oldest first (empty when `from` is the current digest); nullopt when no chain of the path's
// migrations leads from `from` to it.
std::optional<std::vector<const HarnessMigration*>> MigrationChain(const PathSpec& path, std::string_view from);

// Whether a chain carries a result whose record text is `record_text`: no migration of the chain
// names a mark the text contains. The first mark found goes to *mark, its migration to *by.
bool CarriesOver(const std::vector<const HarnessMigration*>& chain, std::string_view record_text, std::string* mark,
                 const HarnessMigration** by);

// Every mark of every migration of `paths` (each once): what a stored record's text is searched for.
std::vector<std::string> MigrationMarks(const std::vector<PathSpec>& paths);

// Sorts by `order`, then id: the order the page shows and merge lists.
void SortPaths(std::vector<PathSpec>* paths);

// The description with this id, or nullptr.
const PathSpec* FindPath(const std::vector<PathSpec>& paths, std::string_view id);

// True when `step` is one of the path's own steps or a common step (core/status.h).
bool PathHasStep(const PathSpec& path, std::string_view step);

// The path's sub-verdict with this id, or nullptr.
const SubVerdictSpec* FindSubVerdict(const PathSpec& path, std::string_view id);

// True when `step` is one of the sub-verdict's steps (a sub-verdict never stops at a common step).
bool SubVerdictHasStep(const SubVerdictSpec& sub, std::string_view step);

// The union of the paths' env fields, first seen first (paths in the given order).
std::vector<std::string> EnvFieldsOf(const std::vector<PathSpec>& paths);

}  // namespace opsweep
