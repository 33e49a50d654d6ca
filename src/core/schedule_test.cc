#include "core/schedule.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(DurationModel, DefaultsComeFromThePathsElseTheFallback) {
  DurationModel m;
  m.SetDefault("compile", 20);
  m.SetDefault("onnx", 4);
  m.SetDefault("bad", -1);  // ignored
  EXPECT_EQ(m.Default("compile"), 20);
  EXPECT_EQ(m.Default("onnx"), 4);
  EXPECT_EQ(m.Default("dynamic"), kFallbackExpectedSeconds);
  EXPECT_EQ(m.Default("bad"), kFallbackExpectedSeconds);
  EXPECT_EQ(m.Expected("never-seen", "compile"), 20);
}

TEST(LongestFirst, SortsDescendingAndKeepsTiesInPlanOrder) {
  EXPECT_EQ(LongestFirst({1, 5, 3, 5, 0}), (std::vector<size_t>{1, 3, 2, 0, 4}));
  EXPECT_TRUE(LongestFirst({}).empty());
}

}  // namespace
}  // namespace opsweep

namespace opsweep {
namespace {

DurationModel WithDefaults() {
  DurationModel m;
  m.SetDefault("onnx", 4);
  m.SetDefault("export", 3);
  m.SetDefault("compile", 20);
  return m;
}

DurationModel FiveCasesCompileTwiceOnnx() {
  DurationModel m = WithDefaults();
  for (int i = 1; i <= 5; ++i) {
    m.Add("c" + std::to_string(i), "onnx", i);
    m.Add("c" + std::to_string(i), "compile", 2.0 * i);
  }
  return m;
}

TEST(DurationModel, OwnDurationFirst) {
  DurationModel m = FiveCasesCompileTwiceOnnx();
  EXPECT_EQ(m.Expected("c3", "compile"), 6);
  EXPECT_EQ(m.Expected("c3", "onnx"), 3);
}

TEST(DurationModel, ScalesAnotherPathByTheMedianRatio) {
  DurationModel m = FiveCasesCompileTwiceOnnx();
  m.Add("slow", "onnx", 40);
  EXPECT_EQ(m.Ratio("compile", "onnx"), std::make_pair(2.0, size_t{5}));
  EXPECT_EQ(m.Expected("slow", "compile"), 80);  // 40 s to ONNX: slow under compile too
  EXPECT_EQ(m.Expected("unknown", "compile"), 20);  // nothing known: the default
  EXPECT_EQ(m.Expected("slow", "export"), 3);       // no export measured anywhere: the default
  // only a job's own duration is a measurement of it (the progress ETA paces the rest apart)
  EXPECT_TRUE(m.Measured("c3", "compile"));
  EXPECT_FALSE(m.Measured("slow", "compile"));
  EXPECT_FALSE(m.Measured("unknown", "compile"));
}

TEST(DurationModel, TooFewPairsOrNoiseGivesTheDefault) {
  DurationModel m = WithDefaults();
  for (int i = 1; i <= 4; ++i) {
    m.Add("c" + std::to_string(i), "onnx", i);
    m.Add("c" + std::to_string(i), "compile", 3.0 * i);
  }
  m.Add("slow", "onnx", 40);
  EXPECT_EQ(m.Ratio("compile", "onnx"), std::nullopt);  // 4 pairs < kMinRatioPairs
  EXPECT_EQ(m.Expected("slow", "compile"), 20);
  m.Add("c5", "onnx", 0.001);  // below the noise floor: not a pair
  m.Add("c5", "compile", 9);
  EXPECT_EQ(m.Ratio("compile", "onnx"), std::nullopt);
  m.Add("c6", "onnx", 2);
  m.Add("c6", "compile", 6);
  EXPECT_EQ(m.Ratio("compile", "onnx"), std::make_pair(3.0, size_t{5}));  // the cache follows Add
  EXPECT_EQ(m.Expected("slow", "compile"), 120);
  m.Add("bad", "onnx", -1);  // ignored
  EXPECT_EQ(m.Expected("bad", "compile"), 20);
}

TEST(DurationModel, AnotherSurveysDurationComesAfterTheJobsOwnAndBeforeDerivedOnes) {
  DurationModel m = FiveCasesCompileTwiceOnnx();
  m.AddPrior("c3", "compile", 100);     // measured here too: this database's own duration wins
  m.AddPrior("slow", "compile", 50);    // a fresh job: the other survey's duration, not 40 x 2
  m.AddPrior("fresh", "export", 7);     // a case this database has never run
  m.AddPrior("fresh", "export", 70);    // a second survey naming it: the first one given is kept
  m.AddPrior("bad", "export", -1);      // ignored
  m.Add("slow", "onnx", 40);
  EXPECT_EQ(m.Expected("c3", "compile"), 6);
  EXPECT_TRUE(m.Measured("c3", "compile"));
  EXPECT_FALSE(m.FromPrior("c3", "compile"));
  EXPECT_EQ(m.Expected("slow", "compile"), 50);
  EXPECT_FALSE(m.Measured("slow", "compile"));
  EXPECT_TRUE(m.FromPrior("slow", "compile"));
  EXPECT_EQ(m.Expected("fresh", "export"), 7);
  EXPECT_TRUE(m.FromPrior("fresh", "export"));
  EXPECT_EQ(m.Expected("fresh", "compile"), 20);  // no prior for this path: the default
  EXPECT_FALSE(m.FromPrior("fresh", "compile"));
  EXPECT_EQ(m.Expected("bad", "export"), 3);
  EXPECT_FALSE(m.FromPrior("bad", "export"));
  // a prior does not count as a pair of this database's path ratio
  EXPECT_EQ(m.Ratio("compile", "onnx"), std::make_pair(2.0, size_t{5}));
}

}  // namespace
}  // namespace opsweep
