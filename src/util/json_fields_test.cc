#include "util/json_fields.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(Str, TheStringOrEmpty) {
  const nlohmann::json j = {{"name", "rgb_to_gray"}, {"count", 3}, {"empty", ""}};
  EXPECT_EQ(Str(j, "name"), "rgb_to_gray");
  EXPECT_EQ(Str(j, "count"), "");    // not a string
  EXPECT_EQ(Str(j, "missing"), "");  // not there
  EXPECT_EQ(Str(nlohmann::json::array({"name"}), "name"), "");
  EXPECT_EQ(Str(nlohmann::json("name"), "name"), "");
  EXPECT_EQ(Str(nlohmann::json(nullptr), "name"), "");
}

TEST(Str, ClearsOkOnlyWhenAFieldIsMissing) {
  const nlohmann::ordered_json j = {{"case", "a"}, {"run", 1}, {"empty", ""}};
  bool ok = true;
  EXPECT_EQ(Str(j, "case", &ok), "a");
  EXPECT_EQ(Str(j, "empty", &ok), "");
  EXPECT_TRUE(ok);
  EXPECT_EQ(Str(j, "run", &ok), "");
  EXPECT_FALSE(ok);
  EXPECT_EQ(Str(j, "case", &ok), "a");  // a later field that is there does not set it back
  EXPECT_FALSE(ok);
  bool ok_array = true;
  EXPECT_EQ(Str(nlohmann::ordered_json::array(), "case", &ok_array), "");
  EXPECT_FALSE(ok_array);
}

}  // namespace
}  // namespace opsweep
