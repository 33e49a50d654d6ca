// The plan: which jobs (case x path) one `opsweep run` is responsible for, before any stored result
// is consulted. Filters compose: --only (case name or prefix), --groups (group prefix at a dot
// boundary), --paths, and --shard I/N.
//
// Shard assignment is deterministic and independent of everything but the job itself: a job
// (case, path) belongs to shard 1 + (low 64 bits of xxh3-128("case|path")) mod N. So N machines
// given 1/N .. N/N cover every job exactly once, whatever order the registries list cases in,
// and adding a case never moves other jobs between shards.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/case_entry.h"

namespace opsweep {

struct ShardSpec {
  int index = 1;  // 1-based
  int count = 1;
  std::string ToString() const;  // "I/N"
};

// Parses "I/N" with 1 <= I <= N. Errors name the text and what is wrong.
bool ParseShard(std::string_view text, ShardSpec* out, std::string* err);

// The shard (1..count) that owns the job (case, path).
int ShardOfJob(std::string_view case_name, std::string_view path, int count);

struct PlanRequest {
  std::vector<std::string> paths;   // in the order given; must all be known
  std::vector<std::string> only;    // case names or name prefixes; empty = all
  std::vector<std::string> groups;  // group prefixes ("geometry" matches "geometry.epipolar"); empty = all
  ShardSpec shard;
  // This machine (util/machine.h), for the sentence that says a changed case's stored result was
  // measured on another one; "" = unknown (no such sentence).
  std::string machine;
  // --exact: `only` holds whole case names, not prefixes (a list of jobs to re-probe, such as
  // "ColorJitter" without "ColorJitter[random]").
  bool only_exact = false;
};

struct PlannedJob {
  size_t case_index = 0;  // into the inventory
  std::string case_name;
  std::string path;
};

// True when `group` is `prefix` or lies under it ("geometry" covers "geometry.epipolar", not
// "geometryx").
bool GroupMatches(std::string_view group, std::string_view prefix);

// True when `group` is or lies under one of `prefixes` (every group when there are none): what
// `--groups` selects, for `run` and `merge` alike.
bool InGroups(std::string_view group, const std::vector<std::string>& prefixes);

// "" when every prefix names the group of some case (`groups`: one entry per case), else why not,
// in one line ("unknown group 'x': no case's group is or lies under it", "empty group name"): a
// typo must never silently select nothing.
std::string UnmatchedGroup(const std::vector<std::string>& prefixes, const std::vector<std::string_view>& groups);

// Builds the plan: cases in inventory order, and for each the requested paths in the given order.
// True when the case name is selected by one --only entry (a prefix, or the whole name with --exact).
bool OnlyMatches(std::string_view name, std::string_view only, bool exact);

// Fails (one line in *err) on an unknown path, an --only that matches no case, or a --groups that
// matches no group: a typo must never silently survey nothing.
bool BuildPlan(const std::vector<CaseEntry>& inventory, const std::vector<std::string>& known_paths,
               const PlanRequest& request, std::vector<PlannedJob>* out, std::string* err);

}  // namespace opsweep
