#include "diff/snapshot_diff.h"

#include <gtest/gtest.h>

#include <map>

#include "diff/diff_report.h"
#include "snapshot/checks.h"
#include "testing/small_snapshots.h"

namespace opsweep::diff {
namespace {

using testing::MakeOutcome;
using testing::MakeRecord;
using testing::MakeSnapshot;

constexpr Status kOk = Status::ok;
constexpr Status kFail = Status::fail;
constexpr Status kNa = Status::not_applicable;

TEST(ClassifyTest, SupportDecidesRegressionAndProgression) {
  std::vector<std::string> fields;
  EXPECT_EQ(Classify(MakeOutcome(kOk), MakeOutcome(kFail), &fields), ChangeKind::regression);
  EXPECT_EQ(fields, (std::vector<std::string>{"status", "step", "reason"}));
  EXPECT_EQ(Classify(MakeOutcome(Status::ok_unverified), MakeOutcome(Status::timeout)), ChangeKind::regression);
  EXPECT_EQ(Classify(MakeOutcome(kOk), MakeOutcome(kNa, "eager")), ChangeKind::regression);
  EXPECT_EQ(Classify(MakeOutcome(Status::mismatch), MakeOutcome(Status::ok_breaks)), ChangeKind::progression);
  EXPECT_EQ(Classify(MakeOutcome(kNa, "eager"), MakeOutcome(kOk)), ChangeKind::progression);
}

TEST(ClassifyTest, SameSideChangesAreStatusReasonOrDetail) {
  EXPECT_EQ(Classify(MakeOutcome(kOk), MakeOutcome(Status::ok_breaks)), ChangeKind::status);
  EXPECT_EQ(Classify(MakeOutcome(kFail), MakeOutcome(Status::crash)), ChangeKind::status);
  EXPECT_EQ(Classify(MakeOutcome(kNa, "eager"), MakeOutcome(kFail)), ChangeKind::status);
  EXPECT_EQ(Classify(MakeOutcome(kFail, "lowering"), MakeOutcome(kFail, "branch")), ChangeKind::reason);
  std::vector<std::string> fields;
  auto a = MakeOutcome(kFail, "lowering", "torch.atan2 has no ONNX lowering in onnxscript 0.7.2");
  auto b = MakeOutcome(kFail, "lowering", "torch.atan2 has no ONNX lowering in onnxscript 0.8.0");
  EXPECT_EQ(Classify(a, b, &fields), ChangeKind::detail);
  EXPECT_EQ(fields, std::vector<std::string>{"detail"});
  auto c = MakeOutcome(Status::ok_breaks), d = c;
  c.graph_breaks = 1;
  d.graph_breaks = 2;
  d.break_reasons = {{"branch", "Data-dependent branching"}};
  EXPECT_EQ(Classify(c, d, &fields), ChangeKind::detail);
  EXPECT_EQ(fields, (std::vector<std::string>{"graph_breaks", "break_reasons"}));
  auto e = MakeOutcome(kOk), f = e;
  e.op_types = {"Add"};
  f.op_types = {"Add", "Cast"};
  EXPECT_EQ(Classify(e, f, &fields), ChangeKind::detail);
  EXPECT_EQ(fields, std::vector<std::string>{"op_types"});
  EXPECT_FALSE(Classify(e, e).has_value());
  auto g = MakeOutcome(kOk), k = g;
  g.checks["fresh_inputs"] = {snapshot::CheckState::passed, ""};
  k.checks["fresh_inputs"] = {snapshot::CheckState::not_run, "no floating input"};
  k.notes = {"the worker's grad mode was restored"};
  EXPECT_EQ(Classify(g, k, &fields), ChangeKind::detail);
  EXPECT_EQ(fields, (std::vector<std::string>{"checks", "notes"}));
}

TEST(CompareTest, PerRecordAndPathChangesInNewOrder) {
  auto before = MakeSnapshot("2.13.0+cpu");
  before.records = {MakeRecord("a", kOk, kOk, kOk), MakeRecord("b", kFail, kOk, kOk), MakeRecord("c", kOk, kOk, kOk),
                    MakeRecord("gone", kOk, kOk, kOk)};
  auto after = MakeSnapshot("2.15.0", "2026-12-01");
  after.records = {MakeRecord("a", kOk, kFail, kOk), MakeRecord("b", kOk, kOk, kOk), MakeRecord("c", kOk, kOk, kOk),
                   MakeRecord("new", kFail, kOk, kOk)};
  const SnapshotDiff diff = Compare(before, after);
  ASSERT_EQ(diff.changes.size(), 2u);
  EXPECT_EQ(diff.changes[0].record, "a");
  EXPECT_EQ(diff.changes[0].path, "export");
  EXPECT_EQ(diff.changes[0].kind, ChangeKind::regression);
  EXPECT_EQ(diff.changes[1].record, "b");
  EXPECT_EQ(diff.changes[1].path, "onnx");
  EXPECT_EQ(diff.changes[1].kind, ChangeKind::progression);
  EXPECT_EQ(diff.compared_records, 3);
  ASSERT_EQ(diff.added_records.size(), 1u);
  EXPECT_EQ(diff.added_records[0]->name, "new");
  ASSERT_EQ(diff.removed_records.size(), 1u);
  EXPECT_EQ(diff.removed_records[0]->name, "gone");
  EXPECT_TRUE(diff.HasRegression());
  EXPECT_TRUE(diff.HasChange());
  ASSERT_EQ(diff.header.size(), 2u);
  EXPECT_EQ(diff.header[0].field, "torch");
  EXPECT_EQ(diff.header[0].before, "2.13.0+cpu");
  EXPECT_EQ(diff.header[0].after, "2.15.0");
  EXPECT_EQ(diff.header[1].field, "date");
}

TEST(CompareTest, IdenticalResultsUnderAnotherEnvironmentAreNoChange) {
  auto before = MakeSnapshot("2.13.0+cpu");
  before.records = {MakeRecord("a", kOk, kFail, kOk)};
  auto after = before;
  after.environment["onnxruntime"] = "1.33.0";
  after.tool_version = "0.2.0";
  after.library_version = "0.9.1";
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_FALSE(diff.HasChange());
  EXPECT_FALSE(diff.HasRegression());
  std::vector<std::string> fields;
  for (const auto& h : diff.header) fields.push_back(h.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"library", "onnxruntime", "tool"}));
  EXPECT_EQ(diff.header[0].before, "kornia 0.9.0");
  EXPECT_EQ(diff.header[0].after, "kornia 0.9.1");
  EXPECT_EQ(diff.header[1].before, "");
}

TEST(CompareTest, PathsInOneSnapshotOnlyAreAddedOrRemovedNotCompared) {
  auto before = MakeSnapshot("2.13.0+cpu");
  before.records = {MakeRecord("a", kOk, kOk, kOk)};
  auto after = before;
  after.paths.push_back(testing::TestPath("export-dynamic"));
  after.records[0].paths["export-dynamic"] = MakeOutcome(kFail);
  after.paths.erase(after.paths.begin());  // onnx
  after.records[0].paths.erase("onnx");
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_EQ(diff.paths, (std::vector<std::string>{"export", "compile"}));
  EXPECT_EQ(diff.added_paths, std::vector<std::string>{"export-dynamic"});
  EXPECT_EQ(diff.removed_paths, std::vector<std::string>{"onnx"});
  EXPECT_TRUE(diff.changes.empty());
  EXPECT_TRUE(diff.HasChange());
  EXPECT_FALSE(diff.HasRegression());
}

TEST(CompareTest, DifferentLibrariesAreNotComparable) {
  auto before = MakeSnapshot("2.13.0");
  auto after = before;
  std::string err;
  EXPECT_TRUE(Comparable(before, after, &err));
  after.library_name = "torchvision";
  EXPECT_FALSE(Comparable(before, after, &err));
  EXPECT_EQ(err, "OLD is a survey of kornia, NEW of torchvision: snapshots of different libraries are not compared");
}

TEST(ReleaseTest, TorchReleaseDropsTheLocalLabelAndOrdersNumerically) {
  EXPECT_EQ(TorchRelease(MakeSnapshot("2.9.1+cu128")), "2.9.1");
  EXPECT_EQ(TorchRelease(MakeSnapshot("2.13.0")), "2.13.0");
  EXPECT_TRUE(ReleaseLess("2.9.1", "2.13.0"));
  EXPECT_FALSE(ReleaseLess("2.13.0", "2.9.1"));
  EXPECT_TRUE(ReleaseLess("2.13.0", "2.15.0"));
  EXPECT_TRUE(ReleaseLess("2.10.0rc1", "2.10.0"));
  EXPECT_TRUE(ReleaseLess("2.10", "2.10.1"));
  EXPECT_FALSE(ReleaseLess("2.10.0", "2.10"));
  EXPECT_FALSE(ReleaseLess("2.13.0", "2.13.0"));
  EXPECT_TRUE(ReleaseLess("", "2.9.1"));
}

TEST(ReportTest, GroupsByReasonMostFirstAndSaysItInOneLine) {
  auto before = MakeSnapshot("2.13.0+cpu");
  auto after = MakeSnapshot("2.15.0");
  for (const char* name : {"a", "b", "c", "d"}) {
    before.records.push_back(MakeRecord(name, kOk, kOk, kOk));
    after.records.push_back(MakeRecord(name, kOk, kOk, kOk));
  }
  after.records[0].paths["onnx"] = MakeOutcome(kFail, "branch");  // regression, now: branch
  after.records[1].paths["onnx"] = MakeOutcome(kFail, "lowering");
  after.records[2].paths["onnx"] = MakeOutcome(kFail, "lowering");
  before.records[3].paths["compile"] = MakeOutcome(kFail, "branch");  // progression, fixed: branch
  const SnapshotDiff diff = Compare(before, after);
  const DiffReport report = BuildReport(diff, before, after);
  ASSERT_EQ(report.sections.size(), 2u);
  EXPECT_EQ(report.sections[0].kind, ChangeKind::regression);
  EXPECT_EQ(report.sections[0].count, 3);
  ASSERT_EQ(report.sections[0].groups.size(), 2u);
  EXPECT_EQ(report.sections[0].groups[0].reason, "lowering");  // two changes before one
  EXPECT_EQ(report.sections[0].groups[0].title, "No ONNX lowering");
  EXPECT_EQ(report.sections[0].groups[0].lines[0].change->record, "b");
  EXPECT_EQ(report.sections[0].groups[0].lines[0].path_title, "ONNX");
  EXPECT_EQ(report.sections[0].groups[1].reason, "branch");
  EXPECT_EQ(report.sections[1].kind, ChangeKind::progression);
  EXPECT_EQ(report.sections[1].groups[0].reason, "branch");  // the reason it failed with before
  EXPECT_EQ(report.summary, "3 regressions, 1 progression");
  EXPECT_EQ(report.before.text, "kornia 0.9.0, torch 2.13.0+cpu, 2026-11-30");
  EXPECT_EQ(report.PathTitle("onnx"), "ONNX");
  EXPECT_TRUE(report.regression);

  const DiffReport same = BuildReport(Compare(before, before), before, before);
  EXPECT_EQ(same.summary, "no change");
  EXPECT_FALSE(same.change);
}

TEST(ReportTest, SupportedChangesAreGroupedAsSupported) {
  auto before = MakeSnapshot("2.13.0");
  before.records = {MakeRecord("a", kOk, kOk, kOk)};
  auto after = before;
  after.records[0].paths["compile"] = MakeOutcome(Status::ok_breaks);
  const DiffReport report = BuildReport(Compare(before, after), before, after);
  ASSERT_EQ(report.sections.size(), 1u);
  EXPECT_EQ(report.sections[0].kind, ChangeKind::status);
  EXPECT_EQ(report.sections[0].groups[0].reason, "");
  EXPECT_EQ(report.sections[0].groups[0].title, "supported");
  EXPECT_FALSE(report.regression);
  EXPECT_TRUE(report.change);
}

TEST(ReportTest, EachLineSaysWhatChangedInWords) {
  auto before = MakeSnapshot("2.13.0");
  before.records = {MakeRecord("a", kOk, kOk, kOk), MakeRecord("b", kOk, kOk, kOk)};
  auto after = before;
  after.records[0].paths["onnx"] = MakeOutcome(kFail, "lowering", "torch.atan2 has no ONNX lowering");
  before.records[1].paths["export"] = MakeOutcome(Status::mismatch, "", "max abs diff 0.5");
  before.records[1].paths["export"].reason = "branch";
  before.records[1].paths["compile"].graph_breaks = 1;
  after.records[1].paths["compile"].graph_breaks = 3;
  before.records[1].paths["onnx"].op_types = {"Add", "Identity"};
  after.records[1].paths["onnx"].op_types = {"Add", "Cast"};
  after.records.push_back(MakeRecord("c", kOk, kFail, kOk));
  const SnapshotDiff diff = Compare(before, after);
  const DiffReport report = BuildReport(diff, before, after);
  std::map<std::string, std::string> text;
  for (const auto& section : report.sections) {
    for (const auto& group : section.groups) {
      for (const auto& line : group.lines) text[line.change->record + " " + line.change->path] = line.text;
    }
  }
  EXPECT_EQ(text["a onnx"], "torch.atan2 has no ONNX lowering");
  EXPECT_EQ(text["b export"], "was: max abs diff 0.5");
  EXPECT_EQ(text["b compile"], "graph breaks 1 -> 3");
  EXPECT_EQ(text["b onnx"], "ONNX ops +Cast, -Identity");
  ASSERT_EQ(report.added_records.size(), 1u);
  EXPECT_EQ(report.added_records[0].text,
            "ONNX ok, torch.export fail (Python branch on tensor values), torch.compile ok");
  EXPECT_EQ(report.summary, "1 regression, 1 progression, 2 detail changes, 1 new case");
}

}  // namespace
}  // namespace opsweep::diff
