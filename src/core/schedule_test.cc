#include "core/schedule.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(ExpectedSeconds, PrefersThePreviousDuration) {
  EXPECT_EQ(ExpectedSeconds("compile", std::nullopt), 20);
  EXPECT_EQ(ExpectedSeconds("onnx", std::nullopt), 4);
  EXPECT_EQ(ExpectedSeconds("export", std::nullopt), 3);
  EXPECT_EQ(ExpectedSeconds("dynamic", std::nullopt), 5);
  EXPECT_EQ(ExpectedSeconds("compile", 0.5), 0.5);
}

TEST(LongestFirst, SortsDescendingAndKeepsTiesInPlanOrder) {
  EXPECT_EQ(LongestFirst({1, 5, 3, 5, 0}), (std::vector<size_t>{1, 3, 2, 0, 4}));
  EXPECT_TRUE(LongestFirst({}).empty());
}

}  // namespace
}  // namespace opsweep
