// What a row's details say beyond its outcomes: how far each path's result was checked (the
// outcome's `checks`: fresh inputs, randomness, ...) and what the worker noted around the job (its
// `notes`), as AnnotationLines (view_model.h) shared by the paths that say the same; the row flag
// behind the "not-fresh" filter; the legend's paragraphs on them. Everything here is absent for a
// snapshot without checks or notes, so such a snapshot renders as it did before they existed.
#pragma once
#include <string>
#include <vector>

#include "render/view_model.h"

namespace opsweep::render {

// Checks by check (fresh inputs, randomness, then any other by id), then notes, each line in the
// order of the first path that says it; `paths` are indexes into `paths`, `paths_label` is left
// for the caller.
std::vector<AnnotationLine> MakeAnnotations(const snapshot::Record& record, const std::vector<PathView>& paths);

// The line of one check: "checked on fresh inputs", "not checked on fresh inputs: <why>",
// "checked on fresh inputs (<remark>)"; a check without words of its own reads "check '<id>' passed".
std::string CheckLineText(const std::string& id, const snapshot::CheckResult& check);

// Some path of the record is supported, but its fresh-input check did not run.
bool FreshUnchecked(const snapshot::Record& record);

// Some outcome of the snapshot records checks (the "not-fresh" filter is offered then).
bool HasChecks(const Snapshot& snapshot);

// The legend's paragraphs on checks and notes, for those the snapshot holds.
std::vector<std::string> MakeLegendNotes(const Snapshot& snapshot);

}  // namespace opsweep::render
