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

// A migration's why is a paragraph: each job line names the migration, and its why is said once,
// after the jobs, with how many of them it re-runs.
TEST(RunPlan, ExplainSaysAMigrationsWhyOnceAfterItsJobs) {
  RunPlan plan;
  auto add = [&plan](const std::string& name, const std::string& path, RerunDecision d) {
    PlannedDecision p;
    p.job.case_name = name;
    p.job.path = path;
    p.decision = std::move(d);
    plan.jobs.push_back(std::move(p));
  };
  auto migrated = [](const std::string& id, const std::string& why, const std::string& mark) {
    RerunDecision d{true, RerunCause::harness_changed,
                    {"the harness code of path onnx changed",
                     "migration " + id + " (" + why + ") re-runs the results whose record says '" + mark +
                         "', as this one does"}};
    d.migration_id = id;
    d.migration_why = why;
    return d;
  };
  add("a", "onnx", migrated("m1", "compare.py (rows along dim 1)", "outside atol"));
  add("b", "onnx", RerunDecision{true, RerunCause::new_result, {"no stored result"}});
  add("c", "onnx", RerunDecision{false, RerunCause::new_result, {"current"}});
  add("d", "onnx", migrated("m2", "outputs copied", "mismatch"));
  add("e", "onnx", migrated("m1", "compare.py (rows along dim 1)", "outside atol"));
  EXPECT_EQ(ExplainLines(plan),
            (std::vector<std::string>{
                "a onnx: the harness code of path onnx changed; migration m1 re-runs the results whose record says "
                "'outside atol', as this one does",
                "b onnx: no stored result",
                "d onnx: the harness code of path onnx changed; migration m2 re-runs the results whose record says "
                "'mismatch', as this one does",
                "e onnx: the harness code of path onnx changed; migration m1 re-runs the results whose record says "
                "'outside atol', as this one does",
                "migration m1 (2 jobs): compare.py (rows along dim 1)",
                "migration m2 (1 job): outputs copied",
            }));
  // `opsweep explain` (one case) keeps the why in the sentence
  EXPECT_EQ(plan.jobs[0].decision.Why(),
            "the harness code of path onnx changed; migration m1 (compare.py (rows along dim 1)) re-runs the "
            "results whose record says 'outside atol', as this one does");
}

}  // namespace
}  // namespace opsweep
