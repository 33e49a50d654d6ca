#include "snapshot/checks.h"

#include <gtest/gtest.h>

namespace opsweep::snapshot {
namespace {

CheckResult Parsed(std::string_view text) {
  CheckResult out;
  std::string err;
  EXPECT_TRUE(ParseCheckText(text, &out, &err)) << text << ": " << err;
  return out;
}

TEST(CheckText, WritesAStateThenWhy) {
  EXPECT_EQ(CheckText({CheckState::passed, ""}), "passed");
  EXPECT_EQ(CheckText({CheckState::failed, "output 0: max abs diff 1"}), "failed: output 0: max abs diff 1");
  EXPECT_EQ(CheckText({CheckState::not_run, "the case opted out: no valid other inputs"}),
            "not run: the case opted out: no valid other inputs");
}

TEST(CheckText, ParsesWhatItWrites) {
  for (const CheckResult& check : {CheckResult{CheckState::passed, ""}, CheckResult{CheckState::passed, "stateful: ok"},
                                   CheckResult{CheckState::failed, "raised RuntimeError on the fresh inputs"},
                                   CheckResult{CheckState::not_run, ""}, CheckResult{CheckState::not_run, "a: b: c"}}) {
    const CheckResult back = Parsed(CheckText(check));
    EXPECT_EQ(back.state, check.state);
    EXPECT_EQ(back.why, check.why);
  }
}

TEST(CheckText, RefusesOtherTexts) {
  for (const char* text : {"", "ok", "Passed", "passed:", "passed: ", "passedx", "not run:", "notrun: x", "failed why"}) {
    CheckResult out;
    std::string err;
    EXPECT_FALSE(ParseCheckText(text, &out, &err)) << text;
    EXPECT_FALSE(err.empty()) << text;
  }
}

TEST(CheckId, LowercaseDigitsUnderscoreAndDash) {
  EXPECT_TRUE(IsCheckId("fresh_inputs"));
  EXPECT_TRUE(IsCheckId("randomness"));
  EXPECT_TRUE(IsCheckId("opset-17"));
  EXPECT_FALSE(IsCheckId(""));
  EXPECT_FALSE(IsCheckId("Fresh"));
  EXPECT_FALSE(IsCheckId("a b"));
  EXPECT_FALSE(IsCheckId("<script>"));
}

}  // namespace
}  // namespace opsweep::snapshot
