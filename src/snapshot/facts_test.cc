#include "snapshot/facts.h"

#include <gtest/gtest.h>

#include "snapshot/snapshot_reader.h"
#include "snapshot/snapshot_writer.h"
#include "testing/small_snapshots.h"

namespace opsweep::snapshot {
namespace {

Snapshot WithFacts() {
  Snapshot s = testing::MakeSnapshot("2.13.0");
  PathSpec deploy;
  deploy.id = "deploy";
  deploy.title = "Deploy";
  deploy.label = "deploy";
  deploy.steps = {"lower"};
  deploy.order = 80;
  deploy.facts = {{"delegated", "share delegated", FactKind::share, "deploy.share", "XNN", true},
                  {"portable", "on portable kernels", FactKind::counts, "deploy.portable"},
                  {"not_delegated", "runs, but not delegated", FactKind::flag, "deploy.none"}};
  s.paths.push_back(deploy);
  Record r = testing::MakeRecord("op", Status::ok, Status::ok, Status::ok);
  r.paths["deploy"] = testing::MakeOutcome(Status::ok);
  r.paths["deploy"].facts = {{"delegated", 0.5}, {"portable", FactCounts{{"aten.where.self", 2}}}, {"not_delegated", false}};
  s.records.push_back(r);
  return s;
}

TEST(SnapshotFacts, AnOutcomesFactsSurviveWritingAndReading) {
  const std::string text = WriteSnapshot(WithFacts());
  EXPECT_NE(text.find("\"facts\": {\n"), std::string::npos);
  Snapshot back;
  std::string err;
  ASSERT_TRUE(ReadSnapshot(text, &back, &err)) << err;
  EXPECT_EQ(back.records[0].paths.at("deploy").facts, WithFacts().records[0].paths.at("deploy").facts);
  EXPECT_TRUE(back.records[0].paths.at("onnx").facts.empty());
  EXPECT_EQ(WriteSnapshot(back), text);
  // paths without facts keep their bytes: no "facts" key in their outcomes
  EXPECT_EQ(text.find("\"facts\": {}"), std::string::npos);
}

TEST(SnapshotFacts, TheReaderRefusesAFactItsPathDoesNotDeclareOrOfAnotherKind) {
  Snapshot s = WithFacts();
  s.records[0].paths["deploy"].facts["surprise"] = 1LL;
  Snapshot back;
  std::string err;
  EXPECT_FALSE(ReadSnapshot(WriteSnapshot(s), &back, &err));
  EXPECT_NE(err.find("fact 'surprise' is not one its path declares"), std::string::npos) << err;
  s = WithFacts();
  s.records[0].paths["deploy"].facts["delegated"] = 2.0;  // a share above 1
  EXPECT_FALSE(ReadSnapshot(WriteSnapshot(s), &back, &err));
  EXPECT_NE(err.find("fact 'delegated' is not a value of kind share"), std::string::npos) << err;
}

}  // namespace
}  // namespace opsweep::snapshot
