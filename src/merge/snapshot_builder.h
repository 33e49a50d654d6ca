// From a joined survey to the snapshot model (src/snapshot/) and `snapshot.timings.json`.
//
// Determinism is the contract: records sorted by (package, section, operator, name), paths in the
// survey's order, and nothing that depends on the merging machine or the moment: the header's
// environment is what the workers measured (the env fields of the paths' descriptions) and
// `generated` is the date of the newest result. Every text is cleaned (colour codes, absolute
// paths, one bounded line) and every failure carries a reason id: a rule's, or `unclassified`
// (counted), or `missing-result` for a job without a result (only with --force).
#pragma once
#include <string>
#include <vector>

#include "classify/classifier.h"
#include "merge/objects_inv.h"
#include "merge/survey.h"
#include "snapshot/snapshot.h"

namespace opsweep {

struct SnapshotOptions {
  std::string tool_version;
  const ObjectsInventory* objects = nullptr;  // nullptr: no cross-references
};

struct SnapshotOutput {
  snapshot::Snapshot snapshot;
  std::string snapshot_json;  // snapshot/snapshot_writer.h of `snapshot`
  std::string timings_json;
  size_t records = 0;
  size_t unclassified = 0;                          // errors and break reasons no rule matched
  std::vector<std::string> unclassified_examples;   // distinct first lines, "path: text"
  size_t api_links = 0;
};

SnapshotOutput BuildSnapshot(const Survey& survey, const Classifier& classifier, const SnapshotOptions& options);

using snapshot::kMissingResultReason;
using snapshot::kUnclassifiedReason;

}  // namespace opsweep
