#include "render/diff_writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "diff/snapshot_diff.h"
#include "testing/small_snapshots.h"

namespace opsweep::render {
namespace {

using testing::MakeOutcome;
using testing::MakeRecord;
using testing::MakeSnapshot;

struct Pair {
  snapshot::Snapshot before = MakeSnapshot("2.13.0+cpu");
  snapshot::Snapshot after = MakeSnapshot("2.15.0", "2026-12-01");
  diff::SnapshotDiff result;
  diff::DiffReport report;
  explicit Pair(const std::string& detail) {
    for (const char* name : {"a", "b", "c"}) {
      before.records.push_back(MakeRecord(name, Status::ok, Status::ok, Status::ok));
      after.records.push_back(MakeRecord(name, Status::ok, Status::ok, Status::ok));
    }
    for (auto& r : after.records) r.paths["onnx"] = MakeOutcome(Status::fail, "lowering", detail);
    result = diff::Compare(before, after);
    report = diff::BuildReport(result, before, after);
  }
};

TEST(DiffWriterTest, TextIsAlignedLimitedAndFreeOfControlCharacters) {
  Pair p("no lowering \x1b[31mred\x1b[0m\nnext");
  const std::string text = WriteDiffText(p.report, {});
  EXPECT_EQ(text.rfind("opsweep diff: 3 regressions\n  old: kornia 0.9.0, torch 2.13.0+cpu, 2026-11-30\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("    a  ONNX  ok -> fail  no lowering [31mred [0m next\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  const std::string limited = WriteDiffText(p.report, {1});
  EXPECT_NE(limited.find("    a  ONNX  ok -> fail"), std::string::npos);
  EXPECT_EQ(limited.find("    b  ONNX"), std::string::npos);
  EXPECT_NE(limited.find("    ... and 2 more\n"), std::string::npos);
}

TEST(DiffWriterTest, MarkdownEscapesProbedTextAndKeepsTheTableShape) {
  Pair p("a | b <img src=x onerror=alert(1)> **bold**");
  const std::string md = WriteDiffMarkdown(p.report, {});
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_EQ(md.find("**bold**"), std::string::npos);
  EXPECT_NE(md.find("<details open>\n<summary><b>No ONNX lowering</b> (<code>lowering</code>): 3</summary>"),
            std::string::npos)
      << md;
  for (std::size_t at = md.find("| `a` |"); at != std::string::npos; at = std::string::npos) {
    const std::string row = md.substr(at, md.find('\n', at) - at);
    int bars = 0;
    for (std::size_t i = 0; i < row.size(); ++i) bars += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
    EXPECT_EQ(bars, 5) << row;  // 4 columns
  }
}

// A path's title has commas of its own: the paths one side lacks are told apart by "; ".
TEST(DiffWriterTest, PathsOneSideLacksAreListedApart) {
  Pair p("x");
  p.report.removed_paths = {{"export-dynamic", "torch.export, dynamic shapes"},
                            {"onnx-dynamic", "ONNX, dynamic shapes"}};
  p.report.added_paths = {{"tract", "tract"}};
  const std::string text = WriteDiffText(p.report, {});
  EXPECT_NE(text.find("\nRemoved paths (not compared): torch.export, dynamic shapes (export-dynamic); "
                      "ONNX, dynamic shapes (onnx-dynamic)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nNew paths (not compared): tract (tract)\n"), std::string::npos) << text;
  p.report.paths = {{"onnx", "ONNX"}, {"export-dynamic", "torch.export, dynamic shapes"}, {"compile", "torch.compile"}};
  EXPECT_NE(WriteDiffText(p.report, {}).find("cases on ONNX; torch.export, dynamic shapes; and torch.compile.\n"),
            std::string::npos);
  p.report.paths.erase(p.report.paths.begin() + 1);
  EXPECT_NE(WriteDiffText(p.report, {}).find("cases on ONNX and torch.compile.\n"), std::string::npos);
  const std::string md = WriteDiffMarkdown(p.report, {});
  EXPECT_NE(md.find("\nRemoved paths (not compared): torch.export, dynamic shapes (`export-dynamic`); "
                    "ONNX, dynamic shapes (`onnx-dynamic`)\n"),
            std::string::npos)
      << md;
}

TEST(DiffWriterTest, JsonIsCompleteAndDeterministic) {
  Pair p("x");
  const std::string json = WriteDiffJson(p.report);
  EXPECT_EQ(json, WriteDiffJson(p.report));
  const auto doc = nlohmann::json::parse(json);
  EXPECT_EQ(json, doc.dump(2) + "\n");  // keys sorted, indent 2
  EXPECT_EQ(doc["counts"]["regression"], 3);
  EXPECT_EQ(doc["changes"].size(), 3u);
  EXPECT_EQ(doc["changes"][0]["old"]["reason"], nullptr);
  EXPECT_EQ(doc["changes"][0]["new"]["reason"], "lowering");
  EXPECT_TRUE(doc["regression"].get<bool>());
}

}  // namespace
}  // namespace opsweep::render
