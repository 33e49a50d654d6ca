#include "render/facts.h"

#include <gtest/gtest.h>

namespace opsweep::render {
namespace {

std::vector<FactSpec> Specs() {
  return {{"delegated", "share of the operators XNNPACK runs", FactKind::share, "et.share", "XNNPACK", true},
          {"portable", "operators on portable kernels", FactKind::counts, "et.portable"},
          {"program_kb", "program size", FactKind::kb, "et.program_kb"},
          {"not_delegated", "runs, but not delegated", FactKind::flag, "et.none"}};
}

TEST(Facts, ValuesAreWrittenByTheirKind) {
  const auto specs = Specs();
  EXPECT_EQ(FactText(specs[0], 0.7143), "71%");
  EXPECT_EQ(FactText(specs[0], 0.001), "<1%");
  EXPECT_EQ(FactText(specs[0], 0.999), ">99%");
  EXPECT_EQ(FactText(specs[0], 1LL), "100%");
  EXPECT_EQ(FactText(specs[0], 0LL), "0%");
  EXPECT_EQ(FactText(specs[2], 22.3), "22.3 KiB");
  EXPECT_EQ(FactText(specs[1], snapshot::FactCounts{{"aten.cat.default", 1}, {"aten.where.self", 4}}),
            "aten.where.self \u00d74, aten.cat.default");
  snapshot::FactCounts many;
  for (int i = 0; i < 15; ++i) many.emplace_back("op" + std::to_string(10 + i), 1);
  EXPECT_NE(FactText(specs[1], many).find(", op21 and 3 more"), std::string::npos) << FactText(specs[1], many);
}

TEST(Facts, TheCellShowsItsCellFactsTheDetailsTheRestAndFlagsOnlyWhereThePathRuns) {
  const auto specs = Specs();
  snapshot::Outcome o;
  o.status = Status::ok;
  o.facts = {{"delegated", 0.5}, {"program_kb", 2.0}, {"not_delegated", true}};
  EXPECT_EQ(CellFactText(specs, o.facts), "XNNPACK 50%");
  EXPECT_EQ(FactSentences(specs, o.facts),
            (std::vector<std::string>{"share of the operators XNNPACK runs: 50%", "program size: 2.0 KiB"}));
  EXPECT_EQ(SetFlags("executorch", specs, o), std::vector<std::string>{"executorch:flag:not_delegated"});
  o.status = Status::mismatch;  // runs, but differs: not the flag's filter
  EXPECT_TRUE(SetFlags("executorch", specs, o).empty());
  o.status = Status::ok_unverified;
  o.facts["not_delegated"] = false;
  EXPECT_TRUE(SetFlags("executorch", specs, o).empty());
  EXPECT_EQ(CellFactText(specs, {}), "");
}

}  // namespace
}  // namespace opsweep::render
