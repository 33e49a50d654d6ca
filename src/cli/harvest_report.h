// The text of `opsweep harvest` from the harness's summary (python -m opsweep.harvest.assemble
// final; docs/harvest.md, "The summary"): a pure function, so the wording is tested without a harness.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace opsweep::cli {

// The summary for stdout: public operators, harvested (by source), no example, example failed
// (grouped by error), no tensor output, the other reasons an operator has no case, and what the
// checks changed or dropped. `out_dir` is where the suite was written.
std::string FormatHarvest(const nlohmann::json& summary, const std::string& out_dir);

}  // namespace opsweep::cli
