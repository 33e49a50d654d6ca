#include "core/rerun.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

JobKey Key(const std::string& torch) {
  KeyEnvironment env;
  env.torch = torch;
  return ComputeJobKey("fp", "onnx", env);
}

StoredJob Stored(const JobKey& key, const std::string& status, int attempts) {
  return StoredJob{key.digest, key.fields_json, status, attempts, 1.5};
}

TEST(DecideRerun, ExplainsEachDecision) {
  JobKey k = Key("2.13");
  EXPECT_EQ(DecideRerun(std::nullopt, k, RetryFailed::no).why, "no stored result");
  EXPECT_TRUE(DecideRerun(std::nullopt, k, RetryFailed::no).run);

  RerunDecision d = DecideRerun(Stored(Key("2.12"), "ok", 0), k, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.why, "the stored result is stale: torch changed");

  d = DecideRerun(Stored(k, "fail", 0), k, RetryFailed::yes);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.why, "the stored result (fail) is current");

  d = DecideRerun(Stored(k, "crash", 1), k, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.why, "the stored crash is retried once (attempt 2 of 2)");

  d = DecideRerun(Stored(k, "timeout", 2), k, RetryFailed::no);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.why, "the stored timeout is current and was already retried (2 attempts); --retry-failed re-runs it");

  d = DecideRerun(Stored(k, "timeout", 2), k, RetryFailed::yes);
  EXPECT_TRUE(d.run);
}

TEST(NextAttempts, CountsConsecutiveEngineFailuresUnderOneKey) {
  JobKey k = Key("2.13");
  EXPECT_EQ(NextAttempts(std::nullopt, k, "ok"), 0);
  EXPECT_EQ(NextAttempts(std::nullopt, k, "crash"), 1);
  EXPECT_EQ(NextAttempts(Stored(k, "crash", 1), k, "timeout"), 2);
  EXPECT_EQ(NextAttempts(Stored(k, "crash", 1), k, "ok"), 0);
  EXPECT_EQ(NextAttempts(Stored(k, "fail", 0), k, "crash"), 1);
  EXPECT_EQ(NextAttempts(Stored(Key("2.12"), "crash", 2), k, "crash"), 1);
}

}  // namespace
}  // namespace opsweep
