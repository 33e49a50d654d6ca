#include "render/annotations.h"

#include <gtest/gtest.h>

namespace opsweep::render {
namespace {

using snapshot::CheckResult;
using snapshot::CheckState;

TEST(CheckLineText, KnownChecksHaveTheirWords) {
  EXPECT_EQ(CheckLineText("fresh_inputs", {CheckState::passed, ""}), "checked on fresh inputs");
  EXPECT_EQ(CheckLineText("fresh_inputs", {CheckState::passed, "stateful target"}),
            "checked on fresh inputs (stateful target)");
  EXPECT_EQ(CheckLineText("fresh_inputs", {CheckState::failed, "output 0: max abs diff 1"}),
            "failed on fresh inputs: output 0: max abs diff 1");
  EXPECT_EQ(CheckLineText("fresh_inputs", {CheckState::not_run, "nothing to vary"}),
            "not checked on fresh inputs: nothing to vary");
  EXPECT_EQ(CheckLineText("randomness", {CheckState::passed, ""}), "checked that randomness survives capture");
  EXPECT_EQ(CheckLineText("randomness", {CheckState::not_run, ""}), "randomness not checked");
}

TEST(CheckLineText, AnotherCheckReadsByItsId) {
  EXPECT_EQ(CheckLineText("other_opset", {CheckState::passed, ""}), "check 'other opset' passed");
  EXPECT_EQ(CheckLineText("other_opset", {CheckState::not_run, "no"}), "check 'other opset' not run: no");
}

TEST(CheckLineText, WhyIsOneLine) {
  EXPECT_EQ(CheckLineText("fresh_inputs", {CheckState::not_run, "a\nb"}).find('\n'), std::string::npos);
}

}  // namespace
}  // namespace opsweep::render
