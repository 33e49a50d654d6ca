#include "render/history.h"

#include <gtest/gtest.h>

#include "render/html_writer.h"
#include "render/markdown_writer.h"
#include "render/rst_writer.h"
#include "testing/small_snapshots.h"

namespace opsweep::render {
namespace {

using testing::MakeOutcome;
using testing::MakeRecord;
using testing::MakeSnapshot;

constexpr Status kOk = Status::ok;
constexpr Status kFail = Status::fail;

// Three releases of one library:
//   a: onnx fail ok ok (since 2.13.0), export ok ok fail (broken since 2.15.0), compile ok ok ok
//   b: onnx ok fail ok (flaps: since 2.15.0), export ok ok-breaks ok-breaks (changed, no mark)
//   c: new in 2.13.0, the same status since
//   gone: only in 2.9.1
struct Three {
  Snapshot s291 = MakeSnapshot("2.9.1+cu128", "2026-11-20");
  Snapshot s213 = MakeSnapshot("2.13.0+cpu", "2026-11-30");
  Snapshot s215 = MakeSnapshot("2.15.0", "2026-12-01");
  Three() {
    s291.records = {MakeRecord("a", kFail, kOk, kOk), MakeRecord("b", kOk, kOk, kOk), MakeRecord("gone", kOk, kOk, kOk)};
    s213.records = {MakeRecord("a", kOk, kOk, kOk), MakeRecord("b", kFail, Status::ok_breaks, kOk),
                    MakeRecord("c", kOk, kOk, kOk)};
    s215.records = {MakeRecord("a", kOk, kFail, kOk), MakeRecord("b", kOk, Status::ok_breaks, kOk),
                    MakeRecord("c", kOk, kOk, kOk)};
  }
  std::vector<const Snapshot*> Ordered() {
    std::vector<const Snapshot*> out;
    std::string err;
    EXPECT_TRUE(OrderReleases({&s215, &s291, &s213}, &out, &err)) << err;
    return out;
  }
};

const RowView& Row(const ViewModel& vm, const std::string& name) {
  for (const auto& package : vm.packages) {
    for (const auto& section : package.sections) {
      for (const auto& row : section.rows) {
        if (row.name == name) return row;
      }
    }
  }
  throw std::runtime_error("no row " + name);
}

TEST(HistoryTest, ReleasesAreOrderedByTorchVersionNotByArgument) {
  Three t;
  const auto ordered = t.Ordered();
  ASSERT_EQ(ordered.size(), 3u);
  EXPECT_EQ(ordered[0], &t.s291);
  EXPECT_EQ(ordered[1], &t.s213);
  EXPECT_EQ(ordered[2], &t.s215);
}

TEST(HistoryTest, SnapshotsThatMakeNoHistoryAreRefused) {
  Three t;
  std::vector<const Snapshot*> out;
  std::string err;
  EXPECT_FALSE(OrderReleases({&t.s291}, &out, &err));
  EXPECT_EQ(err, "a history needs at least two snapshots");
  Snapshot twin = t.s213;
  twin.environment["torch"] = "2.13.0";
  EXPECT_FALSE(OrderReleases({&t.s213, &twin}, &out, &err));
  EXPECT_EQ(err, "two snapshots of torch 2.13.0: a history has one snapshot per torch release");
  Snapshot other = t.s215;
  other.library_name = "torchvision";
  EXPECT_FALSE(OrderReleases({&t.s213, &other}, &out, &err));
  EXPECT_NE(err.find("different libraries (kornia and torchvision)"), std::string::npos) << err;
  Snapshot unknown = t.s215;
  unknown.environment.erase("torch");
  EXPECT_FALSE(OrderReleases({&t.s213, &unknown}, &out, &err));
  EXPECT_NE(err.find("does not say its torch release"), std::string::npos) << err;
}

TEST(HistoryTest, StripsAndMarks) {
  Three t;
  const ViewModel vm = BuildHistoryViewModel(t.Ordered(), 2, {});
  ASSERT_TRUE(vm.history.has_value());
  const RowView& a = Row(vm, "a");
  ASSERT_EQ(a.history.size(), 3u);
  EXPECT_EQ(a.history[0].mark, MarkKind::since);
  EXPECT_EQ(a.history[0].mark_text, "since torch 2.13.0");
  EXPECT_EQ(a.history[0].symbols, "\u2717\u2713\u2713");
  EXPECT_EQ(a.history[0].strip_text, "torch 2.9.1 no, 2.13.0 yes, 2.15.0 yes");
  EXPECT_EQ(a.history[1].mark, MarkKind::broken);
  EXPECT_EQ(a.history[1].mark_text, "broken since torch 2.15.0");
  EXPECT_EQ(a.history[2].mark, MarkKind::none);
  EXPECT_TRUE(a.history[2].uniform);
  EXPECT_FALSE(a.history[2].changed);
  EXPECT_TRUE(a.changed && a.since && a.broken);
  EXPECT_NE(a.search_text.find("ONNX since torch 2.13.0"), std::string::npos);

  const RowView& b = Row(vm, "b");
  EXPECT_EQ(b.history[0].mark_text, "since torch 2.15.0");  // the last change of support counts
  EXPECT_TRUE(b.history[1].changed);                        // ok -> ok-breaks: changed, still supported
  EXPECT_EQ(b.history[1].mark, MarkKind::none);

  const RowView& c = Row(vm, "c");
  EXPECT_FALSE(c.history[0].cells[0].present);  // not in 2.9.1
  EXPECT_EQ(c.history[0].symbols, "\u00b7\u2713\u2713");
  EXPECT_EQ(c.history[0].strip_text, "torch 2.9.1 not surveyed, 2.13.0 yes, 2.15.0 yes");
  EXPECT_FALSE(c.history[0].uniform);
  EXPECT_FALSE(c.history[0].changed);
  EXPECT_EQ(c.history[0].mark, MarkKind::none);
  EXPECT_FALSE(c.changed);

  EXPECT_EQ(vm.history->rows_changed, 2);
  EXPECT_EQ(vm.history->rows_since, 2);
  EXPECT_EQ(vm.history->rows_broken, 1);
  std::map<std::string, int> filters;
  for (const auto& f : vm.filters) filters[f.value] = f.count;
  EXPECT_EQ(filters["changed"], 2);
  EXPECT_EQ(filters["since"], 2);
  EXPECT_EQ(filters["broken"], 1);
}

TEST(HistoryTest, ReleasesAndChangesBetweenConsecutiveOnes) {
  Three t;
  const ViewModel vm = BuildHistoryViewModel(t.Ordered(), 2, {});
  const HistoryView& h = *vm.history;
  ASSERT_EQ(h.releases.size(), 3u);
  EXPECT_EQ(h.releases[0].label, "torch 2.9.1");
  EXPECT_EQ(h.releases[0].torch, "2.9.1+cu128");
  EXPECT_TRUE(h.releases[2].current);
  EXPECT_EQ(h.releases[0].counts[0].supported, 2);  // onnx under 2.9.1: b, gone
  EXPECT_EQ(h.releases[0].counts[0].probed, 3);
  ASSERT_EQ(h.changes.size(), 2u);
  const ReleaseChangesView& first = h.changes[0];
  EXPECT_EQ(first.from, "torch 2.9.1");
  EXPECT_EQ(first.to, "torch 2.13.0");
  EXPECT_EQ(first.anchor, "changes-2.9.1-2.13.0");
  EXPECT_EQ(first.summary, "1 regression, 1 progression, 1 status change, 1 new case, 1 removed case");
  ASSERT_FALSE(first.environment.empty());
  EXPECT_EQ(first.environment[0].field, "torch");  // the date is in the releases table
  for (const auto& e : first.environment) EXPECT_NE(e.field, "date");
  EXPECT_EQ(first.sections[0].kind, "regression");
  EXPECT_EQ(first.sections[0].groups[0].lines[0].name, "b");
  EXPECT_EQ(first.sections[0].groups[0].lines[0].anchor, Row(vm, "b").anchor);
  ASSERT_EQ(first.removed.size(), 1u);
  EXPECT_EQ(first.removed[0].name, "gone");
  EXPECT_EQ(first.removed[0].anchor, "");  // the page has no row for it
  EXPECT_EQ(h.changes[1].summary, "1 regression, 1 progression");
}

TEST(HistoryTest, TheCurrentReleaseNeedNotBeTheNewest) {
  Three t;
  const ViewModel vm = BuildHistoryViewModel(t.Ordered(), 1, {});
  EXPECT_TRUE(vm.history->releases[1].current);
  EXPECT_FALSE(vm.history->releases[2].current);
  EXPECT_EQ(vm.environment[1].value, "2.13.0+cpu");  // the tables are 2.13.0's
  EXPECT_EQ(Row(vm, "b").cells[0].status, kFail);
  EXPECT_EQ(Row(vm, "b").history[0].mark_text, "since torch 2.15.0");  // marks look at every release
  EXPECT_NE(vm.lede.find("The tables show torch 2.13.0; the history follows torch 2.9.1, 2.13.0 and 2.15.0."),
            std::string::npos);
}

TEST(HistoryTest, EveryFormatCarriesTheHistory) {
  Three t;
  const ViewModel vm = BuildHistoryViewModel(t.Ordered(), 2, {});
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_NE(html.find("data-h=\"changed since broken\""), std::string::npos);
  EXPECT_NE(html.find("<div class=\"mk mk-since\">since torch 2.13.0</div>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"hs\" role=\"img\" title=\"torch 2.9.1 not surveyed, 2.13.0 yes, 2.15.0 yes\">"
                      "<i class=\"h-absent\"></i><i class=\"h-ok\"></i><i class=\"h-ok\"></i></div>"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"changes-2.13.0-2.15.0\""), std::string::npos);
  EXPECT_NE(html.find("<option value=\"broken\">Broken since a release (1)</option>"), std::string::npos);
  const std::string md = WriteMarkdown(vm);
  EXPECT_NE(md.find("\u2713 yes \u00b7 \u2717\u2713\u2713 *since torch 2.13.0*"), std::string::npos) << md;
  EXPECT_NE(md.find("## Changes between torch releases"), std::string::npos);
  EXPECT_NE(md.find("### torch 2.9.1 \u2192 torch 2.13.0: 1 regression"), std::string::npos) << md;
  EXPECT_NE(md.find("| torch 2.15.0 (shown) |"), std::string::npos) << md;
  const std::string rst = WriteRst(vm);
  EXPECT_NE(rst.find("Torch releases\n--------------"), std::string::npos);
  EXPECT_NE(rst.find("*since torch 2.13.0*"), std::string::npos) << rst;
  EXPECT_NE(rst.find(".. _opsweep-changes-2.9.1-2.13.0:"), std::string::npos);

  // A single snapshot's page has none of it.
  const ViewModel one = BuildViewModel(t.s215, {});
  EXPECT_FALSE(one.history.has_value());
  std::string single;
  ASSERT_TRUE(WriteHtml(one, &single, &err));
  EXPECT_EQ(single.find("class=\"hs\""), std::string::npos);
  EXPECT_EQ(single.find("id=\"changes\""), std::string::npos);
  EXPECT_EQ(WriteMarkdown(one).find("Torch releases"), std::string::npos);
}

// Paths one release surveyed and the next did not (the dynamic-shape paths under the main torch
// alone): each format lists their titles apart by "; ", since a title has commas of its own.
TEST(HistoryTest, PathsOneReleaseLacksAreListedApart) {
  Three t;
  ViewModel vm = BuildHistoryViewModel(t.Ordered(), 2, {});
  vm.history->changes[1].removed_paths = {"torch.export, dynamic shapes", "ONNX, dynamic shapes"};
  const std::string listed = "torch.export, dynamic shapes; ONNX, dynamic shapes";
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_NE(html.find("<p class=\"grp\">Removed paths (not compared): " + listed + "</p>"), std::string::npos);
  EXPECT_NE(WriteMarkdown(vm).find("**Removed paths** (not compared): " + listed + "\n"), std::string::npos);
  EXPECT_NE(WriteRst(vm).find("**Removed paths** (not compared): " + listed + "\n"), std::string::npos);
}

}  // namespace
}  // namespace opsweep::render
