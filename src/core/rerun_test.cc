#include "core/rerun.h"

#include <gtest/gtest.h>

#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

JobKey Key(const std::string& torch) {
  KeyEnvironment env;
  env.values["torch"] = torch;
  return ComputeJobKey("fp", testing::TestPath("onnx"), env);
}

StoredJob Stored(const JobKey& key, Status status, int attempts) {
  return StoredJob{key.digest, key.fields_json, status, attempts, 1.5};
}

TEST(DecideRerun, ExplainsEachDecision) {
  JobKey k = Key("2.13");
  EXPECT_EQ(DecideRerun(std::nullopt, k, RetryFailed::no).why, "no stored result");
  EXPECT_TRUE(DecideRerun(std::nullopt, k, RetryFailed::no).run);

  RerunDecision d = DecideRerun(Stored(Key("2.12"), Status::ok, 0), k, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.why, "the stored result is stale: torch changed");

  d = DecideRerun(Stored(k, Status::fail, 0), k, RetryFailed::yes);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.why, "the stored result (fail) is current");

  d = DecideRerun(Stored(k, Status::crash, 1), k, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.why, "the stored crash is retried once (attempt 2 of 2)");

  d = DecideRerun(Stored(k, Status::timeout, 2), k, RetryFailed::no);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.why, "the stored timeout is current and was already retried (2 attempts); --retry-failed re-runs it");

  d = DecideRerun(Stored(k, Status::timeout, 2), k, RetryFailed::yes);
  EXPECT_TRUE(d.run);
}

TEST(NextAttempts, CountsConsecutiveEngineFailuresUnderOneKey) {
  JobKey k = Key("2.13");
  EXPECT_EQ(NextAttempts(std::nullopt, k, Status::ok), 0);
  EXPECT_EQ(NextAttempts(std::nullopt, k, Status::crash), 1);
  EXPECT_EQ(NextAttempts(Stored(k, Status::crash, 1), k, Status::timeout), 2);
  EXPECT_EQ(NextAttempts(Stored(k, Status::crash, 1), k, Status::ok), 0);
  EXPECT_EQ(NextAttempts(Stored(k, Status::fail, 0), k, Status::crash), 1);
  EXPECT_EQ(NextAttempts(Stored(Key("2.12"), Status::crash, 2), k, Status::crash), 1);
}

}  // namespace
}  // namespace opsweep
