#include "merge/case_name.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(CaseName, OperatorAndVariant) {
  struct Case { const char* name; const char* op; const char* variant; bool ok; };
  for (Case c : {Case{"rgb_to_grayscale", "rgb_to_grayscale", "", true},
                 Case{"RandomCrop[p=0.5][random]", "RandomCrop", "p=0.5, random", true},
                 Case{"Resize[size=(8, [2])]", "Resize", "size=(8, [2])", true},
                 Case{"gaussian_blur2d[sigma=(1.5, 1.5)]", "gaussian_blur2d", "sigma=(1.5, 1.5)", true},
                 Case{"Broken[p=1", "Broken[p=1", "", false},
                 Case{"Odd[a]tail", "Odd[a]tail", "", false},
                 Case{"[x]", "[x]", "", false},
                 Case{"close]", "close]", "", false}}) {
    CaseName parsed;
    EXPECT_EQ(ParseCaseName(c.name, &parsed), c.ok) << c.name;
    EXPECT_EQ(parsed.operator_name, c.op) << c.name;
    EXPECT_EQ(parsed.variant, c.variant) << c.name;
  }
}

TEST(CaseName, PackageAndSection) {
  std::string package, section;
  SplitGroup("geometry.epipolar", &package, &section);
  EXPECT_EQ(package, "geometry");
  EXPECT_EQ(section, "epipolar");
  SplitGroup("color", &package, &section);
  EXPECT_EQ(package, "color");
  EXPECT_EQ(section, "");
  SplitGroup("a.b.c", &package, &section);
  EXPECT_EQ(package, "a");
  EXPECT_EQ(section, "b.c");
}

}  // namespace
}  // namespace opsweep
