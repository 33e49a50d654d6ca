#include "merge/objects_inv.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "util/read_file.h"

namespace opsweep {
namespace {

// tests/fixtures/merge/objects.inv was written with Python's zlib (see the test's comment there).
std::string Fixture() {
  const char* root = std::getenv("OPSWEEP_SOURCE_DIR");
  std::string dir = root ? root : OPSWEEP_SOURCE_DIR;
  std::string bytes, err;
  EXPECT_TRUE(ReadFile(dir + "/tests/fixtures/merge/objects.inv", &bytes, &err)) << err;
  return bytes;
}

TEST(ObjectsInventory, ParsesSphinxV2) {
  ObjectsInventory inv;
  std::string err;
  std::string bytes = Fixture();
  ASSERT_FALSE(bytes.empty());
  ASSERT_TRUE(inv.Parse(bytes, &err)) << err;
  EXPECT_EQ(inv.size(), 4u);  // the std:doc entry is not an API object
  EXPECT_TRUE(inv.Has("kornia.augmentation.RandomCrop"));
  EXPECT_FALSE(inv.Has("get-started/export-support"));
}

TEST(ObjectsInventory, LooksUpTargetThenOperatorInsideItsPackage) {
  ObjectsInventory inv;
  std::string err;
  ASSERT_TRUE(inv.Parse(Fixture(), &err)) << err;
  auto name = [&](std::vector<std::string> names, std::string package, std::string op) -> std::string {
    auto found = inv.Lookup(names, package, op);
    return found ? found->name : "";
  };
  EXPECT_EQ(name({"kornia.color.rgb_to_grayscale"}, "color", "rgb_to_grayscale"), "kornia.color.rgb_to_grayscale");
  EXPECT_EQ(name({"kornia.augmentation._2d.geometric.crop.RandomCrop"}, "augmentation", "RandomCrop"),
            "kornia.augmentation.RandomCrop");
  EXPECT_EQ(name({"kornia.augmentation._2d.Crop"}, "augmentation", "RandomCrop"), "kornia.augmentation.RandomCrop");
  EXPECT_EQ(name({"kornia.feature.LoFTR"}, "feature", "LoFTR"), "");
  EXPECT_EQ(name({}, "", ""), "");
}

TEST(ObjectsInventory, LooksUpEveryPublicNameAndKeepsThePage) {
  ObjectsInventory inv;
  std::string err;
  ASSERT_TRUE(inv.Parse(Fixture(), &err)) << err;
  // the target (a package re-export) is not documented; one of its other public names is
  auto found = inv.Lookup({"kornia.nowhere.rgb_to_grayscale", "kornia.color.rgb_to_grayscale"}, "nowhere", "x");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->name, "kornia.color.rgb_to_grayscale");
  EXPECT_FALSE(found->uri.empty());
  EXPECT_EQ(found->uri.find('$'), std::string::npos) << found->uri;  // "$" stands for the name
}

TEST(ObjectsInventory, RefusesDamagedFiles) {
  std::string bytes = Fixture();
  ObjectsInventory inv;
  std::string err;
  EXPECT_FALSE(inv.Parse("hello", &err));
  EXPECT_NE(err.find("fewer than 4 header lines"), std::string::npos) << err;
  EXPECT_FALSE(inv.Parse("# Sphinx inventory version 1\na\nb\nc\n", &err));
  EXPECT_NE(err.find("version 2"), std::string::npos) << err;
  // Truncated at every length: never crashes, refuses or reads what is there.
  for (size_t n = 0; n < bytes.size(); ++n) {
    ObjectsInventory cut;
    std::string why;
    if (!cut.Parse(std::string_view(bytes).substr(0, n), &why)) {
      EXPECT_FALSE(why.empty());
    }
  }
  std::string flipped = bytes;
  flipped[flipped.size() - 5] ^= 0x5a;
  EXPECT_FALSE(inv.Parse(flipped, &err));
}

}  // namespace
}  // namespace opsweep
