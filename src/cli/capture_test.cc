#include "cli/capture.h"

#include <gtest/gtest.h>

namespace opsweep::cli {
namespace {

TEST(RunAndCapture, CapturesStdoutAndExitCode) {
  std::string out, err;
  int code = -1;
  ASSERT_TRUE(RunAndCapture({"sh", "-c", "echo hello; echo noise >&2; exit 3"}, Stderr::discard, &out, &code, &err))
      << err;
  EXPECT_EQ(out, "hello\n");
  EXPECT_EQ(code, 3);
}

TEST(RunAndCapture, ReportsASignalAs128PlusN) {
  std::string out, err;
  int code = -1;
  ASSERT_TRUE(RunAndCapture({"sh", "-c", "kill -9 $$"}, Stderr::discard, &out, &code, &err)) << err;
  EXPECT_EQ(code, 128 + 9);
}

TEST(RunAndCapture, AMissingProgramIsAnErrorNamingIt) {
  std::string out, err;
  int code = -1;
  EXPECT_FALSE(RunAndCapture({"/nonexistent/program"}, Stderr::discard, &out, &code, &err));
  EXPECT_NE(err.find("/nonexistent/program"), std::string::npos) << err;
}

}  // namespace
}  // namespace opsweep::cli
