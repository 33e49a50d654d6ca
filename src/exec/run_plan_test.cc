#include "exec/run_plan.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(RunPlan, TheSummarySaysOneJobCaseAndPathInTheSingular) {
  RunPlan plan;
  plan.jobs.resize(1);
  plan.paths = {"compile-dynamic"};
  plan.to_run = 1;
  plan.by_cause[RerunCause::retry] = 1;
  EXPECT_EQ(PlanSummary(plan, 1, ShardSpec{}), "1 job planned (from 1 case x 1 path): 1 to run: 1 retried; 0 current");
  plan.jobs.resize(2412);
  plan.paths = {"onnx", "export"};
  plan.current = 2411;
  EXPECT_EQ(PlanSummary(plan, 1206, ShardSpec{2, 8}),
            "2,412 jobs planned (from 1,206 cases x 2 paths, shard 2/8): 1 to run: 1 retried; 2,411 current");
}

}  // namespace
}  // namespace opsweep
