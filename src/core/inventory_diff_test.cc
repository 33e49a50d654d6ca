#include "core/inventory_diff.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

std::vector<CaseEntry> Cases(std::initializer_list<std::pair<const char*, const char*>> entries) {
  std::vector<CaseEntry> out;
  for (const auto& [name, fingerprint] : entries) out.push_back({name, "g", "cases_x.py", fingerprint, "{}"});
  return out;
}

TEST(InventoryDifference, EqualInventoriesHaveNone) {
  const auto a = Cases({{"a", "f1"}, {"b", "f2"}});
  EXPECT_EQ(DescribeInventoryDifference(a, "worker 1", a, "worker 0"), "");
  EXPECT_EQ(DescribeInventoryDifference({}, "worker 1", {}, "worker 0"), "");
}

TEST(InventoryDifference, NamesTheCaseWhoseFingerprintDiffers) {
  const auto first = Cases({{"a", "f1"}, {"rgb_to_grayscale", "9d8e7f6a5b4c3d2e1f00"}});
  const auto other = Cases({{"a", "f1"}, {"rgb_to_grayscale", "3f2a9c0d1e4b5a6c7d8e"}});
  EXPECT_EQ(DescribeInventoryDifference(other, "worker 2", first, "worker 0"),
            "case 'rgb_to_grayscale' has fingerprint 3f2a9c0d1e4b... in worker 2 and 9d8e7f6a5b4c... in worker 0 "
            "(does its registry draw random inputs without a seed, or did it change during the run?)");
}

TEST(InventoryDifference, CountsTheCasesThatDifferAndNamesTheFirst) {
  const auto first = Cases({{"a", "f1"}, {"b", "f2"}, {"c", "f3"}, {"d", "f4"}});
  const auto other = Cases({{"a", "f1"}, {"b", "x2"}, {"c", "x3"}});
  EXPECT_EQ(DescribeInventoryDifference(other, "worker 1", first, "worker 0"),
            "case 'b' has fingerprint x2 in worker 1 and f2 in worker 0 (does its registry draw random inputs "
            "without a seed, or did it change during the run?); 3 cases differ");
}

TEST(InventoryDifference, NamesACaseOnlyOneSideHas) {
  const auto first = Cases({{"a", "f1"}, {"b", "f2"}});
  EXPECT_EQ(DescribeInventoryDifference(Cases({{"a", "f1"}}), "worker 1", first, "worker 0"),
            "case 'b' is in worker 0's inventory but not in worker 1's (did a registry change during the run?)");
  EXPECT_EQ(DescribeInventoryDifference(Cases({{"a", "f1"}, {"z", "f9"}, {"b", "f2"}}), "worker 1", first, "worker 0"),
            "case 'z' is in worker 1's inventory but not in worker 0's (did a registry change during the run?)");
}

TEST(InventoryDifference, NamesThePositionWhereTheOrderDiffers) {
  const auto first = Cases({{"a", "f1"}, {"b", "f2"}, {"c", "f3"}});
  EXPECT_EQ(DescribeInventoryDifference(Cases({{"a", "f1"}, {"c", "f3"}, {"b", "f2"}}), "worker 1", first, "worker 0"),
            "the same cases in another order: case 2 is 'c' in worker 1 and 'b' in worker 0");
  EXPECT_EQ(DescribeInventoryDifference(Cases({{"a", "f1"}, {"b", "f2"}, {"c", "f3"}, {"c", "f3"}}), "worker 1", first,
                                        "worker 0"),
            "case 'c' is listed twice in worker 1's inventory");
}

}  // namespace
}  // namespace opsweep
