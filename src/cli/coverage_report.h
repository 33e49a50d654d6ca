// The text of `opsweep coverage` and its gates, from the harness's JSON report
// (python -m opsweep.coverage): pure functions, so the wording is tested without a harness.
//
// The report counts the public operators the library declares (its __all__s, else a module's
// public names; functions, classes, public methods of public classes; one operator per object,
// whatever number of names reach it); each is covered (a probed case), skipped (a case with a skip
// reason), listed (NOT_SURVEYED in a registry, with a reason) or missing. The text gives the
// shares, a per-package table, the skipped, listed and missing names grouped by module, then the
// cases that reach no public operator, each with why (docs/quickstart.md, `coverage`).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace opsweep::cli {

// The human report (stdout): summary, per-package table, names grouped by module, unmatched cases.
std::string FormatCoverage(const nlohmann::json& report, const std::string& library);

// Warnings for stderr, one a line: stale NOT_SURVEYED entries, modules that failed to import.
std::vector<std::string> CoverageWarnings(const nlohmann::json& report, const std::string& library);

struct CoverageGates {
  double min_percent = 0;         // share with a case: probed or skipped with a reason
  double min_probed_percent = 0;  // share with a probed case
};

// The gate failures (empty when every gate passes), one sentence each, for stderr.
std::vector<std::string> FailedGates(const nlohmann::json& report, const CoverageGates& gates);

}  // namespace opsweep::cli
