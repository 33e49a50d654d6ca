// A path's facts on the page (render/facts.h through the view model and the page's controls): the
// cell fact beside the verdict, the details, the flag filters and the rows' data-x.
#include <gtest/gtest.h>

#include "render/page_controls.h"
#include "render/view_model.h"
#include "testing/small_snapshots.h"

namespace opsweep::render {
namespace {

PathSpec Deploy() {
  PathSpec p;
  p.id = "deploy";
  p.title = "Deploy";
  p.label = "deploy";
  p.steps = {"lower", "run", "compare"};
  p.order = 80;
  p.facts = {{"delegated", "share delegated", FactKind::share, "deploy.share", "XNN", true},
             {"portable", "on portable kernels", FactKind::counts, "deploy.portable"},
             {"not_delegated", "runs, but not delegated", FactKind::flag, "deploy.none"}};
  return p;
}

snapshot::Snapshot WithDeploy() {
  snapshot::Snapshot s = testing::MakeSnapshot("2.13.0");
  s.paths.push_back(Deploy());
  auto add = [&](const std::string& name, Status status, snapshot::Facts facts) {
    snapshot::Record r = testing::MakeRecord(name, Status::ok, Status::ok, Status::ok);
    snapshot::Outcome o = testing::MakeOutcome(status, "lowering");
    if (status == Status::fail) o.step = "lower";
    o.facts = std::move(facts);
    r.paths["deploy"] = o;
    s.records.push_back(r);
  };
  add("all_in", Status::ok, {{"delegated", 1.0}, {"not_delegated", false}});
  add("none_in", Status::ok, {{"delegated", 0.0}, {"portable", snapshot::FactCounts{{"aten.where.self", 3}}},
                              {"not_delegated", true}});
  add("differs", Status::mismatch, {{"delegated", 0.0}, {"not_delegated", true}});
  add("no_lowering", Status::fail, {});
  return s;
}

const RowView& Row(const ViewModel& vm, const std::string& name) {
  for (const auto& package : vm.packages)
    for (const auto& section : package.sections)
      for (const auto& row : section.rows)
        if (row.name == name) return row;
  throw std::runtime_error("no row " + name);
}

TEST(FactsView, TheShareStandsBesideTheVerdictAndTheRestInTheDetails) {
  const ViewModel vm = BuildViewModel(WithDeploy(), {});
  const std::size_t deploy = vm.paths.size() - 1;
  EXPECT_EQ(Row(vm, "all_in").cells[deploy].label, "yes, XNN 100%");
  EXPECT_EQ(Row(vm, "none_in").cells[deploy].label, "yes, XNN 0%");
  EXPECT_EQ(Row(vm, "differs").cells[deploy].label, "mismatch, XNN 0%");
  EXPECT_EQ(Row(vm, "no_lowering").cells[deploy].label, "no");
  // a plain success gets a detail line for its facts
  const RowView& none = Row(vm, "none_in");
  ASSERT_EQ(none.details.size(), 1u);
  EXPECT_EQ(none.details[0].paths_label, "deploy");
  EXPECT_EQ(none.details[0].text, "share delegated: 0%");
  EXPECT_EQ(none.details[0].facts, std::vector<std::string>{"on portable kernels: aten.where.self \u00d73"});
}

TEST(FactsView, AFlagIsAFilterOfTheRowsWhereThePathRunsAndTheFlagIsSet) {
  const ViewModel vm = BuildViewModel(WithDeploy(), {});
  const auto option = std::find_if(vm.filters.begin(), vm.filters.end(),
                                   [](const FilterOption& f) { return f.value == "deploy:flag:not_delegated"; });
  ASSERT_NE(option, vm.filters.end());
  EXPECT_EQ(option->label, "Deploy: runs, but not delegated");
  EXPECT_EQ(option->count, 1);  // none_in; not "differs" (a mismatch does not run as eager does)
  EXPECT_EQ(option->group, "Deploy");
  EXPECT_NE(RowDataAttributes(vm, Row(vm, "none_in")).find(" data-x=\"deploy:flag:not_delegated\""), std::string::npos);
  EXPECT_EQ(RowDataAttributes(vm, Row(vm, "differs")).find("data-x"), std::string::npos);
  EXPECT_EQ(RowDataAttributes(vm, Row(vm, "all_in")).find("data-x"), std::string::npos);
}

}  // namespace
}  // namespace opsweep::render
