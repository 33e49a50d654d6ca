// What differs between the inventories two workers loaded. Every worker of a run must load the same
// cases (names and fingerprints, in the same order), or results measured by different workers would
// not be of the same case; when one does not, the run stops and says which case differs and how, so
// the user can find the registry at fault (typically one that draws its inputs at random without a
// seed, so each worker gets other values and other fingerprints).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/case_entry.h"

namespace opsweep {

// The first difference between inventory `a` (loaded by `a_name`, e.g. "worker 2") and `b` (by
// `b_name`), as one clause without a final stop, e.g.
//   case 'rgb_to_grayscale' has fingerprint 3f2a9c0d1e4b... in worker 2 and 9d8e7f6a5b4c... in
//   worker 0 (does its registry draw random inputs without a seed?); 12 cases differ
// or "case 'x' is in worker 0's inventory but not in worker 2's", or the first position where the
// same cases are listed in another order. Cases are compared by name and fingerprint (which covers
// the case's definition and inputs). "" when the inventories are equal.
std::string DescribeInventoryDifference(const std::vector<CaseEntry>& a, std::string_view a_name,
                                        const std::vector<CaseEntry>& b, std::string_view b_name);

}  // namespace opsweep
