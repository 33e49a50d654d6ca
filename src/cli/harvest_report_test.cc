#include "cli/harvest_report.h"

#include <gtest/gtest.h>

namespace opsweep::cli {
namespace {

TEST(HarvestReport, CountsBySourceAndFailuresGroupedByError) {
  const auto summary = nlohmann::json::parse(R"({
    "library": "lib", "version": "1.2", "operators": 10, "with_examples": 8, "harvested": 6, "cases": 9,
    "by_source": {"docs": 5, "tests": 2}, "cases_by_source": {"docs": 7, "tests": 2},
    "no_example": 1,
    "example_failed": {"count": 2, "by_error": [
      {"error": "ModuleNotFoundError: No module named 'x'", "count": 2, "operators": ["lib.a.f", "lib.b.G"]}]},
    "no_tensor_output": 1, "none_by_reason": {"no example": 1, "example failed": 2, "no tensor output": 1,
                                              "not rebuildable": 1},
    "random": 1, "measured_tolerance": 2, "fresh_opt_out": 3,
    "dropped": [{"case": "h[doc]", "why": "the rebuilt call raises: E"}], "overridden": []
  })");
  const std::string text = FormatHarvest(summary, "out");
  EXPECT_NE(text.find("lib 1.2: 6 of 10 public operators harvested\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  harvested             6 (from docs 5, from tests 2), 9 cases (7 from docs, 2 from tests)\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("  example failed        2\n       2  ModuleNotFoundError: No module named 'x'  (f, G)\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("  no case, other        not rebuildable 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("random (check=False) 1, measured tolerance 2, fresh-input opt-outs 3"), std::string::npos);
  EXPECT_NE(text.find("    h[doc]: the rebuilt call raises: E\n"), std::string::npos) << text;
  EXPECT_NE(text.find("wrote out/"), std::string::npos);
}

}  // namespace
}  // namespace opsweep::cli
