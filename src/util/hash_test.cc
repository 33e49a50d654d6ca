#include "util/hash.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(HashHex, IsStableAndHex) {
  EXPECT_EQ(HashHex("abc"), HashHex("abc"));
  EXPECT_NE(HashHex("abc"), HashHex("abd"));
  EXPECT_EQ(HashHex("").size(), 32u);
  EXPECT_EQ(HashHex("x").find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(TaggedHasher, FieldBoundariesMatter) {
  TaggedHasher a, b;
  a.Add("ab", "c");
  b.Add("a", "bc");
  EXPECT_NE(a.HexDigest(), b.HexDigest());
  TaggedHasher c;
  c.Add("ab", "c");
  EXPECT_EQ(a.HexDigest(), c.HexDigest());
  ASSERT_EQ(a.fields().size(), 1u);
  EXPECT_EQ(a.fields()[0].first, "ab");
}

}  // namespace
}  // namespace opsweep
