#include "merge/record_facts.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

using json = nlohmann::json;

std::vector<FactSpec> Specs() {
  return {{"delegated", "share", FactKind::share, "et.share", "XNN", true},
          {"portable", "on portable kernels", FactKind::counts, "et.portable"},
          {"program_kb", "program size", FactKind::kb, "et.program_kb"},
          {"not_delegated", "runs, but not delegated", FactKind::flag, "et.none"},
          {"note", "note", FactKind::text, "et.note"},
          {"ops", "operators", FactKind::count, "et.ops"}};
}

std::string Clean(const std::string& text) { return text == "/home/u/x.py" ? "~/x.py" : text; }

TEST(RecordFacts, EachDeclaredFactIsReadFromItsFieldRoundedAndCleaned) {
  const json record = json::parse(R"({"status":"ok","et":{"share":0.714285714,"portable":{"aten.where.self":4,"/home/u/x.py":1},
      "program_kb":22.349999,"none":false,"note":"/home/u/x.py","ops":12,"other":1}})");
  const snapshot::Facts facts = FactsOfRecord(Specs(), record, Clean);
  ASSERT_EQ(facts.size(), 6u);
  EXPECT_EQ(std::get<double>(facts.at("delegated")), 0.7143);
  EXPECT_EQ(std::get<double>(facts.at("program_kb")), 22.3);
  EXPECT_EQ(std::get<bool>(facts.at("not_delegated")), false);
  EXPECT_EQ(std::get<std::string>(facts.at("note")), "~/x.py");
  EXPECT_EQ(std::get<long long>(facts.at("ops")), 12);
  EXPECT_EQ(std::get<snapshot::FactCounts>(facts.at("portable")),
            (snapshot::FactCounts{{"aten.where.self", 4}, {"~/x.py", 1}}));
  EXPECT_EQ(snapshot::FactsJson(facts)["delegated"].dump(), "0.7143");
}

TEST(RecordFacts, AFactMissingNullOrOfTheWrongKindIsLeftOut) {
  // another path's record (the field null), a job that stopped before measuring, a mistyped value
  EXPECT_TRUE(FactsOfRecord(Specs(), json::parse(R"({"status":"fail","et":null})"), Clean).empty());
  EXPECT_TRUE(FactsOfRecord(Specs(), json::parse(R"({"status":"fail"})"), Clean).empty());
  const snapshot::Facts facts = FactsOfRecord(
      Specs(), json::parse(R"({"et":{"share":1.5,"ops":-1,"none":"yes","portable":{"a":"b"},"program_kb":null}})"), Clean);
  EXPECT_TRUE(facts.empty());
}

}  // namespace
}  // namespace opsweep
