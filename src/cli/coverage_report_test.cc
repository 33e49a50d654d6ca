#include "cli/coverage_report.h"

#include <gtest/gtest.h>

namespace opsweep::cli {
namespace {

nlohmann::json Report() {
  return nlohmann::json::parse(R"({
    "library": "lib", "depth": null, "modules": 7, "total": 10, "covered": 7, "cases": 12,
    "share": 0.8, "probed_share": 0.7, "by_kind": {"class": 2, "function": 5, "method": 3},
    "skipped": [{"name": "lib.io.load", "module": "lib.io", "kind": "function", "reason": "reads a file"}],
    "not_surveyed": [{"name": "lib.net.fetch", "module": "lib.net", "kind": "function", "reason": "downloads"}],
    "missing": [{"name": "lib.geo.deep.Quat.norm", "module": "lib.geo.deep", "kind": "method"},
                {"name": "lib.geo.deep.twist", "module": "lib.geo.deep", "kind": "function"}],
    "not_operators": [{"name": "lib.Mode", "kind": "enum"}, {"name": "lib.Cfg", "kind": "dataclass"}],
    "by_package": {"lib.geo": {"total": 6, "covered": 4, "skipped": 0, "not_surveyed": 0, "missing": 2},
                   "lib.io": {"total": 4, "covered": 3, "skipped": 1, "not_surveyed": 0, "missing": 0}},
    "stale_not_surveyed": ["lib.gone"],
    "unimportable": [{"module": "lib.extra", "error": "ImportError: no module named foo"}]
  })");
}

TEST(CoverageReport, SummaryTableAndNamesGroupedByModule) {
  const std::string text = FormatCoverage(Report(), "lib");
  EXPECT_NE(text.find("lib: 8 of 10 public operators have a case (80.0%): 7 probed (70.0%), 1 skipped with a reason\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  7 public modules walked (any depth)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  counted: 2 classes, 5 functions, 3 methods\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  not counted: 2 public names that are not operators (1 dataclass, 1 enum)"), std::string::npos);
  EXPECT_NE(text.find("  lib.geo                           6       4        0       0        2    66.7%\n"),
            std::string::npos)
      << text;
  // the missing names under their module, leaves only (a method keeps its class)
  EXPECT_NE(text.find("\nNo case yet (2), by module:\n  lib.geo.deep\n    Quat.norm"), std::string::npos) << text;
  EXPECT_NE(text.find("    twist"), std::string::npos);
  EXPECT_NE(text.find("\nSkipped (a case with a skip reason) (1), by module:\n  lib.io\n    load"), std::string::npos);
  EXPECT_NE(text.find("reads a file"), std::string::npos);
}

TEST(CoverageReport, CasesThatReachNoOperatorAreListedWithWhy) {
  nlohmann::json report = Report();
  EXPECT_EQ(FormatCoverage(report, "lib").find("reach no public operator"), std::string::npos);
  report["unmatched_cases"] = nlohmann::json::parse(R"([
    {"case": "helper", "registry": "cases_a.py", "target": "lib.ops.helper", "why": "not a public name of lib"},
    {"case": "relu", "registry": "cases_b.py", "target": "torch.relu", "why": "not part of lib"}])");
  const std::string text = FormatCoverage(report, "lib");
  EXPECT_NE(text.find("  2 cases reach no public operator (listed at the end)\n"), std::string::npos) << text;
  const auto section = text.find("\nCases that reach no public operator (2): they run, but cover nothing\n");
  ASSERT_NE(section, std::string::npos) << text;
  EXPECT_NE(text.find("  helper (cases_a.py)                          lib.ops.helper: not a public name of lib\n", section),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  relu (cases_b.py)                            torch.relu: not part of lib\n", section),
            std::string::npos);
}

TEST(CoverageReport, WarningsNameStaleEntriesAndUnimportableModules) {
  const auto w = CoverageWarnings(Report(), "lib");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "NOT_SURVEYED lists 'lib.gone', which is not a public operator of lib");
  EXPECT_EQ(w[1], "module lib.extra could not be imported (ImportError: no module named foo): its names are not counted");
}

TEST(CoverageReport, GatesOnShareAndProbedShare) {
  EXPECT_TRUE(FailedGates(Report(), {80.0, 70.0}).empty());
  const auto both = FailedGates(Report(), {80.1, 98.0});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0], "80.0% have a case, below --min 80.1%");
  EXPECT_EQ(both[1], "70.0% have a probed case, below --min-probed 98.0%");
}

}  // namespace
}  // namespace opsweep::cli

namespace opsweep::cli {
namespace {

TEST(CoverageReport, WhereCasesComeFromAndWhyTheHarvestGaveNone) {
  nlohmann::json report = Report();
  report["covered_by_source"] = {{"hand-written", 5}, {"harvested (docs)", 2}};
  report["missing"][1]["why"] = "harvest: example failed: ValueError: bad mode";
  const std::string text = FormatCoverage(report, "lib");
  EXPECT_NE(text.find("  probed operators by where their cases come from: 5 hand-written, 2 harvested (docs)\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("    twist                                        harvest: example failed: ValueError: bad mode\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("    Quat.norm                                    method\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace opsweep::cli
