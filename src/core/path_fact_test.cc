#include "core/path_fact.h"

#include <gtest/gtest.h>

#include "core/path_spec.h"

namespace opsweep {
namespace {

using json = nlohmann::json;

json Description(const char* facts) {
  json j = json::parse(R"({"id":"toy","title":"Toy","label":"T","description":"","steps":["lower"],"order":50,
    "env":["python"],"subverdicts":[],"harness":"abc"})");
  j["facts"] = json::parse(facts);
  return j;
}

TEST(PathFact, ADescriptionDeclaresItsFactsAndTheSnapshotFormKeepsThem) {
  PathSpec p;
  std::string err;
  ASSERT_TRUE(ParsePathSpec(Description(R"([
      {"id":"delegated","title":"share delegated","kind":"share","field":"toy.share","label":"XNN","cell":true},
      {"id":"not_delegated","title":"runs, but not delegated","kind":"flag","field":"toy.none"}])"),
                            PathSpecForm::hello, &p, &err)) << err;
  ASSERT_EQ(p.facts.size(), 2u);
  EXPECT_EQ(p.facts[0].kind, FactKind::share);
  EXPECT_TRUE(p.facts[0].cell);
  EXPECT_EQ(p.facts[1].kind, FactKind::flag);
  EXPECT_EQ(FindFact(p.facts, "not_delegated"), &p.facts[1]);
  EXPECT_EQ(FindFact(p.facts, "nope"), nullptr);

  // the snapshot form carries them, and reads back the same
  json snap = PathSpecSnapshotJson(p);
  EXPECT_EQ(snap["facts"][0], json::parse(R"({"id":"delegated","title":"share delegated","kind":"share",
      "field":"toy.share","label":"XNN","cell":true})"));
  EXPECT_FALSE(snap["facts"][1].contains("cell"));
  PathSpec back;
  ASSERT_TRUE(ParsePathSpec(snap, PathSpecForm::snapshot, &back, &err)) << err;
  EXPECT_EQ(back.facts, p.facts);
}

TEST(PathFact, APathWithoutFactsKeepsItsBytes) {
  json j = Description("[]");
  j.erase("facts");
  PathSpec p;
  std::string err;
  ASSERT_TRUE(ParsePathSpec(j, PathSpecForm::hello, &p, &err)) << err;
  EXPECT_TRUE(p.facts.empty());
  EXPECT_FALSE(PathSpecSnapshotJson(p).contains("facts"));
}

TEST(PathFact, AMalformedFactIsRefusedNamingThePathAndTheFact) {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"id":"x"})", "'facts' is not a list"},
      {R"([{"id":"Bad-Id","title":"t","kind":"count","field":"a.b"}])", "fact 'Bad-Id': an id is lowercase"},
      {R"([{"id":"a","title":"t","kind":"percent","field":"a.b"}])", "fact 'a': unknown kind 'percent'"},
      {R"([{"id":"a","title":"t","kind":"count"}])", "fact 'a': 'field' is missing"},
      {R"([{"id":"a","title":"t","kind":"share","field":"a.b","cell":true}])", "a cell fact needs a label"},
      {R"([{"id":"a","title":"t","kind":"flag","field":"a.b","label":"L","cell":true}])", "a cell fact needs a label"},
      {R"([{"id":"a","title":"t","kind":"count","field":"a.b"},{"id":"a","title":"u","kind":"count","field":"a.c"}])",
       "fact 'a' twice"},
  };
  for (const auto& [facts, problem] : bad) {
    PathSpec p;
    std::string err;
    EXPECT_FALSE(ParsePathSpec(Description(facts), PathSpecForm::hello, &p, &err)) << facts;
    EXPECT_NE(err.find("path 'toy'"), std::string::npos) << err;
    EXPECT_NE(err.find(problem), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace opsweep
