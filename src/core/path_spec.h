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
  std::optional<double> expected_seconds;   // hello form only: the scheduler's guess for a new job
  std::string harness;                      // hello form only: digest of the harness code the path runs
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
