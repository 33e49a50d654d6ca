// The facts a path declares (core/path_fact.h), read from one of its job records for the snapshot
// (docs/formats.md section 5, `facts`).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/path_fact.h"
#include "snapshot/facts.h"

namespace opsweep {

// Each fact's `field` ("executorch.delegated_share") walked from the record; a value that is
// missing, null or not of the fact's kind is left out (a record measured before the fact existed,
// a job that stopped before measuring it). Texts and the names of counts go through `clean` (merge
// cleans them like every text: no absolute paths). Numbers are rounded, so that the snapshot holds
// no float noise: shares to 4 decimals, sizes to 1.
snapshot::Facts FactsOfRecord(const std::vector<FactSpec>& facts, const nlohmann::json& record,
                              const std::function<std::string(const std::string&)>& clean);

}  // namespace opsweep
