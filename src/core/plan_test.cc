#include "core/plan.h"

#include <gtest/gtest.h>

#include <set>

namespace opsweep {
namespace {

std::vector<CaseEntry> Inventory() {
  return {{"rgb_to_gray", "color", "r", "f1", "{}"},
          {"rgb_to_hsv", "color", "r", "f2", "{}"},
          {"find_fundamental", "geometry.epipolar", "r", "f3", "{}"},
          {"warp", "geometry.transform", "r", "f4", "{}"},
          {"geometryx_op", "geometryx", "r", "f5", "{}"}};
}
const std::vector<std::string> kPaths = {"onnx", "export", "compile"};

TEST(ParseShard, AcceptsOneBasedIOfN) {
  ShardSpec s;
  std::string err;
  ASSERT_TRUE(ParseShard("2/8", &s, &err));
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.ToString(), "2/8");
  ASSERT_TRUE(ParseShard("1/1", &s, &err));
}

TEST(ParseShard, RefusesBadShards) {
  ShardSpec s;
  std::string err;
  for (const char* bad : {"3/2", "0/2", "x", "1/0", "/2", "1/", "-1/2", "1/2/3", "1.5/2", "", "2 /4"}) {
    EXPECT_FALSE(ParseShard(bad, &s, &err)) << bad;
    EXPECT_NE(err.find("--shard"), std::string::npos);
    EXPECT_EQ(err.find('\n'), std::string::npos);
  }
}

TEST(ShardOfJob, IsDeterministicAndInRange) {
  EXPECT_EQ(ShardOfJob("a", "onnx", 1), 1);
  int s = ShardOfJob("rgb_to_gray", "onnx", 7);
  EXPECT_GE(s, 1);
  EXPECT_LE(s, 7);
  EXPECT_EQ(s, ShardOfJob("rgb_to_gray", "onnx", 7));
}

TEST(BuildPlan, ShardsPartitionThePlanExactly) {
  std::vector<CaseEntry> inv;
  for (int i = 0; i < 200; ++i) inv.push_back({"case" + std::to_string(i), "g", "r", "f", "{}"});
  PlanRequest all{kPaths, {}, {}, {}};
  std::vector<PlannedJob> full;
  std::string err;
  ASSERT_TRUE(BuildPlan(inv, kPaths, all, &full, &err));
  ASSERT_EQ(full.size(), 600u);
  std::multiset<std::string> seen;
  for (int i = 1; i <= 4; ++i) {
    PlanRequest r = all;
    r.shard = ShardSpec{i, 4};
    std::vector<PlannedJob> part;
    ASSERT_TRUE(BuildPlan(inv, kPaths, r, &part, &err));
    EXPECT_GT(part.size(), 100u);  // roughly balanced
    for (const auto& j : part) seen.insert(j.case_name + "|" + j.path);
  }
  EXPECT_EQ(seen.size(), 600u);
  for (const auto& j : full) EXPECT_EQ(seen.count(j.case_name + "|" + j.path), 1u);
}

TEST(GroupMatches, MatchesAtDotBoundaries) {
  EXPECT_TRUE(GroupMatches("geometry", "geometry"));
  EXPECT_TRUE(GroupMatches("geometry.epipolar", "geometry"));
  EXPECT_TRUE(GroupMatches("geometry.epipolar", "geometry.epipolar"));
  EXPECT_FALSE(GroupMatches("geometryx", "geometry"));
  EXPECT_FALSE(GroupMatches("geo", "geometry"));
}

TEST(BuildPlan, FiltersByOnlyGroupsAndPaths) {
  std::vector<PlannedJob> plan;
  std::string err;
  PlanRequest r{{"compile", "onnx"}, {}, {"geometry"}, {}};
  ASSERT_TRUE(BuildPlan(Inventory(), kPaths, r, &plan, &err));
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].case_name, "find_fundamental");
  EXPECT_EQ(plan[0].path, "compile");  // paths in the order asked
  EXPECT_EQ(plan[1].path, "onnx");
  EXPECT_EQ(plan[2].case_name, "warp");

  r = PlanRequest{{"onnx"}, {"rgb_to"}, {}, {}};
  ASSERT_TRUE(BuildPlan(Inventory(), kPaths, r, &plan, &err));
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[1].case_name, "rgb_to_hsv");
  EXPECT_EQ(plan[1].case_index, 1u);
}

TEST(BuildPlan, ExactOnlySelectsWholeNamesOnly) {
  std::vector<CaseEntry> inv = {{"ColorJitter", "a", "r", "f1", "{}"},
                                {"ColorJitter[random]", "a", "r", "f2", "{}"},
                                {"ColorJiggle", "a", "r", "f3", "{}"}};
  std::vector<PlannedJob> plan;
  std::string err;
  PlanRequest r{{"onnx"}, {"ColorJitter"}, {}, {}};
  ASSERT_TRUE(BuildPlan(inv, kPaths, r, &plan, &err));
  EXPECT_EQ(plan.size(), 2u);  // a prefix: both ColorJitter cases
  r.only_exact = true;
  ASSERT_TRUE(BuildPlan(inv, kPaths, r, &plan, &err));
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].case_name, "ColorJitter");
  r.only = {"ColorJitter[random]", "ColorJiggle"};
  ASSERT_TRUE(BuildPlan(inv, kPaths, r, &plan, &err));
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].case_name, "ColorJitter[random]");
  EXPECT_EQ(plan[1].case_name, "ColorJiggle");
  r.only = {"ColorJit"};  // a prefix of names, the name of none
  EXPECT_FALSE(BuildPlan(inv, kPaths, r, &plan, &err));
  EXPECT_EQ(err, "--only 'ColorJit' --exact: no case has that name");
}

TEST(BuildPlan, RefusesUnknownPathGroupOrOnly) {
  std::vector<PlannedJob> plan;
  std::string err;
  EXPECT_FALSE(BuildPlan(Inventory(), kPaths, PlanRequest{{"onnx", "tflite"}, {}, {}, {}}, &plan, &err));
  EXPECT_EQ(err, "unknown path 'tflite' (the worker knows: onnx, export, compile)");
  EXPECT_FALSE(BuildPlan(Inventory(), kPaths, PlanRequest{{"onnx"}, {}, {"geom"}, {}}, &plan, &err));
  EXPECT_NE(err.find("unknown group 'geom'"), std::string::npos);
  EXPECT_FALSE(BuildPlan(Inventory(), kPaths, PlanRequest{{"onnx"}, {"nope"}, {}, {}}, &plan, &err));
  EXPECT_NE(err.find("--only 'nope'"), std::string::npos);
}

}  // namespace
}  // namespace opsweep
