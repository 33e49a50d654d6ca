#include "util/trim.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(Trim, RemovesBlanksAtBothEnds) {
  EXPECT_EQ(Trim("  model name\t: x \r"), "model name\t: x");
  EXPECT_EQ(Trim("\n\v\f\r\t a b \t\r\n"), "a b");
  EXPECT_EQ(Trim("ab"), "ab");
}

TEST(Trim, BlankOrEmptyIsEmpty) {
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \t\r\n"), "");
}

TEST(Trim, KeepsOtherBytes) {
  // Non-ASCII bytes (UTF-8 of a no-break space here) are text, not blanks.
  EXPECT_EQ(Trim("\xc2\xa0x\xc2\xa0"), "\xc2\xa0x\xc2\xa0");
  EXPECT_EQ(Trim(std::string_view("\0x\0", 3)), std::string_view("\0x\0", 3));
}

}  // namespace
}  // namespace opsweep
