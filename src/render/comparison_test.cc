#include "render/comparison.h"

#include <gtest/gtest.h>

#include "render/comparison_writer.h"
#include "testing/small_snapshots.h"

namespace opsweep::render {
namespace {

using testing::MakeRecord;
using testing::MakeSnapshot;

constexpr Status kOk = Status::ok;
constexpr Status kFail = Status::fail;
constexpr Status kNa = Status::not_applicable;

EquivalenceMap Parse(std::string_view text) {
  EquivalenceMap map;
  std::string err;
  EXPECT_TRUE(ParseEquivalenceMap(text, &map, &err)) << err;
  return map;
}

std::string ParseError(std::string_view text) {
  EquivalenceMap map;
  std::string err;
  EXPECT_FALSE(ParseEquivalenceMap(text, &map, &err)) << text;
  return err;
}

TEST(EquivalenceMap, ReadsLibrariesSectionsCallablesAndNotes) {
  const EquivalenceMap map = Parse(
      "# a comment\n"
      "libraries: kornia | vision\n"
      "gray | kornia.color.gray, kornia.color.Gray | vision.gray | same weights\n"
      "\n"
      "[Filters]\n"
      "blur | kornia.filters.blur |  |\n");
  EXPECT_EQ(map.libraries[0], "kornia");
  EXPECT_EQ(map.libraries[1], "vision");
  ASSERT_EQ(map.entries.size(), 2u);
  EXPECT_EQ(map.entries[0].section, "");
  EXPECT_EQ(map.entries[0].callables[0], (std::vector<std::string>{"kornia.color.gray", "kornia.color.Gray"}));
  EXPECT_EQ(map.entries[0].note, "same weights");
  EXPECT_EQ(map.entries[1].section, "Filters");
  EXPECT_EQ(map.entries[1].line, 6);
  EXPECT_TRUE(map.entries[1].callables[1].empty());
}

TEST(EquivalenceMap, RefusesWhatItCannotRead) {
  EXPECT_NE(ParseError("gray | a.b | c.d |\n").find("line 1: the map starts with `libraries: A | B`"),
            std::string::npos);
  EXPECT_NE(ParseError("libraries: a | a\n").find("two different libraries"), std::string::npos);
  EXPECT_NE(ParseError("libraries: a | b\nlibraries: a | b\n").find("line 2: a second"), std::string::npos);
  EXPECT_NE(ParseError("libraries: a | b\ngray | a.x\n").find("line 2: 2 fields where an operation has 4"),
            std::string::npos);
  EXPECT_NE(ParseError("libraries: a | b\ngray | a.x | b.y |\ngray | a.z | |\n").find("listed twice"),
            std::string::npos);
  EXPECT_NE(ParseError("libraries: a | b\ngray | | |\n").find("names no callable"), std::string::npos);
  EXPECT_NE(ParseError("libraries: a | b\ngray | a x | |\n").find("`a x` is not a dotted name"), std::string::npos);
  EXPECT_NE(ParseError("libraries: a | b\n[ ]\n").find("a heading is `[Title]`"), std::string::npos);
  EXPECT_NE(ParseError("libraries: a | b\n").find("no operation"), std::string::npos);
}

// kornia (MakeSnapshot) against "vision": gray deploys in both on every path; blur deploys on
// ONNX in vision only (kornia's fails) and on compile in kornia only; crop exists in vision only;
// ghost is named but never surveyed.
struct Two {
  snapshot::Snapshot kornia = MakeSnapshot("2.13.0+cpu");
  snapshot::Snapshot vision = MakeSnapshot("2.13.0+cu130");
  Two() {
    kornia.records = {MakeRecord("gray", kOk, kOk, kOk), MakeRecord("blur", kFail, kOk, kOk, "filters"),
                      MakeRecord("blur[big]", kFail, kFail, kOk, "filters")};
    vision.library_name = "vision";
    vision.library_version = "1.0";
    vision.records = {MakeRecord("gray", kOk, kOk, kOk), MakeRecord("blur", kOk, kOk, kFail, "filters"),
                      MakeRecord("crop", kNa, kOk, kOk, "geometry")};
    for (auto& r : vision.records) r.target = "vision." + r.operator_name;
  }
};

const OperationRow& RowNamed(const ComparisonView& view, const std::string& name) {
  for (const auto& section : view.sections) {
    for (const auto& op : section.rows) {
      if (op.row.name == name) return op;
    }
  }
  throw std::runtime_error("no row " + name);
}

TEST(Comparison, AggregatesConfigurationsAndMarksWhoDeploys) {
  Two two;
  const EquivalenceMap map = Parse(
      "libraries: kornia | vision\n"
      "gray | kornia.color.gray | vision.gray |\n"
      "[Filters]\n"
      "blur | kornia.filters.blur | vision.blur | sizes differ\n"
      "crop | | vision.crop |\n"
      "ghost | kornia.color.ghost | |\n");
  ComparisonView view;
  std::string err;
  // The snapshots in the other order than the map's: the columns follow the map.
  ASSERT_TRUE(BuildComparison(two.vision, two.kornia, map, &view, &err)) << err;
  ASSERT_EQ(view.page.paths.size(), 6u);
  EXPECT_EQ(view.page.paths[0].id, "kornia-onnx");
  EXPECT_EQ(view.page.paths[3].id, "vision-onnx");
  EXPECT_EQ(view.page.paths[3].group, "vision 1.0");
  EXPECT_EQ(view.operations, 4);
  ASSERT_EQ(view.sections.size(), 2u);
  EXPECT_EQ(view.sections[0].title, "Operations");
  EXPECT_EQ(view.sections[1].title, "Filters");

  const OperationRow& blur = RowNamed(view, "blur");
  ASSERT_EQ(blur.sides[0].configs.size(), 2u);  // blur and blur[big] both target kornia.filters.blur
  EXPECT_EQ(blur.row.cells[0].token, "fail");   // kornia ONNX: 0 of 2
  EXPECT_EQ(blur.row.cells[0].label, "no (0 of 2)");
  EXPECT_EQ(blur.row.cells[1].label, "yes (1 of 2)");  // kornia export: one of two deploys
  EXPECT_EQ(blur.row.cells[3].label, "yes");           // vision ONNX: its single configuration
  EXPECT_EQ(blur.row.tokens, (std::vector<std::string>{"one-only", "only-kornia", "only-vision"}));
  EXPECT_EQ(blur.row.note, "sizes differ");

  const OperationRow& gray = RowNamed(view, "gray");
  EXPECT_EQ(gray.row.tokens, (std::vector<std::string>{"both"}));

  const OperationRow& crop = RowNamed(view, "crop");
  EXPECT_EQ(crop.row.cells[0].token, "absent");
  EXPECT_EQ(crop.row.cells[0].label, "none");
  EXPECT_EQ(crop.row.cells[3].token, "na");  // offered and surveyed, n/a: not probed
  EXPECT_EQ(crop.row.tokens, (std::vector<std::string>{"offered-one"}));

  const OperationRow& ghost = RowNamed(view, "ghost");
  EXPECT_EQ(ghost.row.cells[0].label, "not surveyed");
  EXPECT_EQ(view.unmatched, (std::vector<std::string>{"kornia.color.ghost (line 6)"}));

  EXPECT_EQ(view.offered_by_both, 2);
  EXPECT_EQ(view.deploy_in_both_everywhere, 1);
  EXPECT_EQ(view.one_only, 1);
  EXPECT_EQ(view.libraries[0].deploys_only, 1);
  // kornia ONNX: gray deploys, blur does not (ghost: not surveyed, not counted).
  EXPECT_EQ(view.libraries[0].cards[0].supported, 1);
  EXPECT_EQ(view.libraries[0].cards[0].probed, 2);
  // vision ONNX: gray, blur deploy; crop is n/a there.
  EXPECT_EQ(view.libraries[1].cards[0].supported, 2);
  EXPECT_EQ(view.libraries[1].cards[0].probed, 2);
  // The filter counts what the page's script shows.
  for (const FilterOption& option : view.page.filters) {
    if (option.value == "one-only") EXPECT_EQ(option.count, 1);
    if (option.value == "offered-one") EXPECT_EQ(option.count, 2);
    if (option.value == "kornia-onnx:failure") EXPECT_EQ(option.count, 1);
    if (option.value == "vision-compile:supported") EXPECT_EQ(option.count, 2);
  }
}

TEST(Comparison, RefusesSnapshotsTheMapDoesNotName) {
  Two two;
  const EquivalenceMap map = Parse("libraries: kornia | other\ngray | kornia.color.gray | other.gray |\n");
  ComparisonView view;
  std::string err;
  EXPECT_FALSE(BuildComparison(two.kornia, two.vision, map, &view, &err));
  EXPECT_NE(err.find("no snapshot given surveys other"), std::string::npos) << err;
  EXPECT_FALSE(BuildComparison(two.kornia, two.kornia, map, &view, &err));
  EXPECT_NE(err.find("both snapshots survey kornia"), std::string::npos) << err;
}

TEST(Comparison, WritersEscapeTheMapsAndSnapshotsTexts) {
  Two two;
  const EquivalenceMap map =
      Parse("libraries: kornia | vision\n<b>gray</b> | kornia.color.gray | vision.gray | a <script>x</script>\n");
  ComparisonView view;
  std::string err;
  ASSERT_TRUE(BuildComparison(two.kornia, two.vision, map, &view, &err)) << err;
  std::string html;
  ASSERT_TRUE(WriteComparisonHtml(view, &html, &err)) << err;
  EXPECT_EQ(html.find("<script>x"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;x"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;gray"), std::string::npos);
  const std::string md = WriteComparisonMarkdown(view);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
}

}  // namespace
}  // namespace opsweep::render
