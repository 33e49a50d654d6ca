// The history of one library across torch releases, for a page rendered from several snapshots
// (`opsweep render SNAP1 SNAP2 ...`, docs/page.md "History"). The page shows one snapshot (the
// current one, the newest release unless told otherwise); the history adds, per row and path, the
// status under every release (a strip), a mark where support changed, a section with every change
// between consecutive releases grouped by reason (diff/diff_report.h, the same report as
// `opsweep diff`), and the filters "changed between releases", "works since a release" and
// "broken since a release".
//
// Definitions:
// - releases are ordered by torch version (diff::ReleaseLess), whatever the order of the files;
//   two snapshots of the same torch release are refused (which one would be "the" release?);
// - a strip has one cell per release; a release whose snapshot lacks the record or the path has
//   an absent cell ("not surveyed");
// - a row's path changed when two consecutive present cells differ in status;
// - the mark is about the last change of support (supported: IsSupported, core/status.h): "since
//   torch X" when it became supported at X and still is in the newest release that has the cell,
//   "broken since torch X" when it stopped being supported at X. No change of support, no mark.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "diff/diff_report.h"
#include "render/view_model.h"

namespace opsweep::render {

// Snapshots of one library in release order, and the one the page shows. Fails (*err, one line)
// when there are fewer than two, when they survey different libraries, or when two share a torch
// release (or do not say theirs).
bool OrderReleases(std::vector<const Snapshot*> snapshots, std::vector<const Snapshot*>* ordered, std::string* err);

// Adds the history to `vm`, which BuildViewModel made from `*releases[current]`. `releases` is in
// release order (OrderReleases).
void AddHistory(const std::vector<const Snapshot*>& releases, std::size_t current, ViewModel* vm);

}  // namespace opsweep::render
