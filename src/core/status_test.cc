#include "core/status.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace opsweep {
namespace {

TEST(Status, PersistedIdsNeverChange) {
  // These strings are on disk in every database and snapshot: this list may only grow.
  std::string ids;
  for (Status s : kAllStatuses) ids += std::string(StatusId(s)) + " ";
  EXPECT_EQ(ids, "ok ok-breaks ok-unverified mismatch fail n/a crash timeout ok-static ok-recompiles ");
  for (Status s : kAllStatuses) EXPECT_EQ(ParseStatus(StatusId(s)), s);
  EXPECT_EQ(ParseStatus("na"), std::nullopt);
  EXPECT_EQ(ParseStatus(""), std::nullopt);
  EXPECT_EQ(ParseStatus("OK"), std::nullopt);
}

TEST(Status, EveryStatusIsExactlyOneOfSupportedFailureOrNotMeasured) {
  for (Status s : kAllStatuses) {
    EXPECT_EQ(int(IsSupported(s)) + int(IsFailure(s)) + int(IsNotMeasured(s)), 1) << StatusId(s);
    EXPECT_NE(IsEngineStatus(s), IsWorkerStatus(s)) << StatusId(s);
  }
  EXPECT_TRUE(IsSupported(Status::ok_breaks));
  EXPECT_TRUE(IsSupported(Status::ok_static));
  EXPECT_TRUE(IsSupported(Status::ok_recompiles));
  EXPECT_TRUE(IsWorkerStatus(Status::ok_static));
  EXPECT_TRUE(IsFailure(Status::timeout));
  EXPECT_TRUE(IsNotMeasured(Status::not_applicable));
  EXPECT_TRUE(IsEngineStatus(Status::crash));
  EXPECT_FALSE(IsEngineStatus(Status::fail));
}

TEST(Status, CommonSteps) {
  EXPECT_TRUE(IsCommonStep("skip"));
  EXPECT_TRUE(IsCommonStep("worker"));
  EXPECT_FALSE(IsCommonStep("export"));
  EXPECT_FALSE(IsCommonStep(""));
}

}  // namespace
}  // namespace opsweep
