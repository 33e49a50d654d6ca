#include "render/view_model.h"

#include <gtest/gtest.h>

#include "render/html_writer.h"
#include "render/markdown_writer.h"
#include "render/rst_writer.h"
#include "testing/bundled_paths.h"

namespace opsweep::render {
namespace {

using snapshot::Record;

snapshot::Outcome Outcome(Status status) {
  snapshot::Outcome outcome;
  outcome.status = status;
  return outcome;
}

Record MakeRecord(std::string name, std::string package, std::string section, Status onnx,
                      Status exported, Status compiled) {
  Record record;
  record.name = name;
  record.operator_name = name.substr(0, name.find('['));
  if (name.find('[') != std::string::npos) record.variant = name.substr(name.find('['));
  record.package = package;
  record.section = section;
  record.group = section.empty() ? package : package + "." + section;
  record.paths["onnx"] = Outcome(onnx);
  record.paths["export"] = Outcome(exported);
  record.paths["compile"] = Outcome(compiled);
  return record;
}

Snapshot Base() {
  Snapshot snapshot;
  snapshot.generated = "2026-11-30";
  snapshot.library_name = "kornia";
  snapshot.library_version = "0.9.0";
  snapshot.paths = testing::StaticBundledPaths();
  snapshot.environment = {{"torch", "2.13.0+cpu"}, {"opset", 18}, {"device", "cpu"}};
  snapshot.reasons["lowering"] = {"No ONNX lowering", "cause", "hint", "onnxscript"};
  snapshot.reasons["branch"] = {"Python branch", "cause", "hint", "kornia"};
  snapshot.reasons["no-tensor"] = {"No tensor output", "cause", "", ""};
  return snapshot;
}

const FilterOption* FindFilter(const ViewModel& vm, const std::string& value) {
  for (const FilterOption& f : vm.filters) {
    if (f.value == value) return &f;
  }
  return nullptr;
}

constexpr Status kOk = Status::ok;
constexpr Status kNa = Status::not_applicable;
constexpr Status kFail = Status::fail;

TEST(ViewModelTest, CountsCardsConfigurationsAndOperators) {
  Snapshot snapshot = Base();
  snapshot.records = {
      MakeRecord("a", "color", "", kOk, kOk, kOk),
      MakeRecord("a[x]", "color", "", kFail, kOk, Status::ok_breaks),
      MakeRecord("b", "color", "", Status::mismatch, Status::crash, Status::timeout),
      MakeRecord("c", "geometry", "epipolar", kNa, kNa, kNa),
      MakeRecord("d", "geometry", "epipolar", kNa, kOk, Status::ok_unverified),
  };
  snapshot.records[0].paths["onnx"].op_types = {"Add"};  // the onnx path produces ONNX models
  const ViewModel vm = BuildViewModel(snapshot, {});
  ASSERT_EQ(vm.cards.size(), 3u);
  EXPECT_EQ(vm.cards[0].supported, 1);  // onnx: a
  EXPECT_EQ(vm.cards[0].probed, 3);     // a, a[x], b (c, d are n/a)
  EXPECT_EQ(vm.cards[0].percent, "33.3%");
  EXPECT_EQ(vm.cards[1].supported, 3);
  EXPECT_EQ(vm.cards[1].probed, 4);
  EXPECT_EQ(vm.cards[2].supported, 3);
  EXPECT_EQ(vm.cards[2].probed, 4);
  EXPECT_EQ(vm.configurations, 5);
  EXPECT_EQ(vm.configurations_all_pass, 1);  // only a
  EXPECT_EQ(vm.configurations_na_everywhere, 1);
  EXPECT_EQ(vm.operators, 4);  // a (two configurations), b, c, d
  ASSERT_TRUE(vm.operators_onnx.has_value());
  EXPECT_EQ(*vm.operators_onnx, 1);
  EXPECT_EQ(vm.title, "kornia 0.9.0: ONNX, torch.export and torch.compile support");

  ASSERT_EQ(vm.packages.size(), 2u);
  EXPECT_EQ(vm.packages[0].summary.configurations, 3);
  EXPECT_EQ(vm.packages[0].summary.all_pass, 1);
  EXPECT_EQ(vm.packages[1].summary.configurations, 2);
  EXPECT_EQ(vm.packages[1].summary.na_everywhere, 1);
  EXPECT_EQ(vm.packages[1].summary.paths[1].supported, 1);
}

TEST(ViewModelTest, TitlesAndDescriptionsComeFromThePathDescriptions) {
  Snapshot snapshot = Base();
  snapshot.paths = {testing::TestPath("toy"), snapshot.paths[1]};
  snapshot.records = {MakeRecord("a", "color", "", kOk, kOk, kOk)};
  snapshot.records[0].paths.erase("onnx");
  snapshot.records[0].paths.erase("compile");
  snapshot.records[0].paths["toy"] = Outcome(kFail);
  snapshot.records[0].paths["toy"].detail = "broke";
  const ViewModel vm = BuildViewModel(snapshot, {});
  ASSERT_EQ(vm.paths.size(), 2u);
  EXPECT_EQ(vm.paths[0].title, "Title of toy");
  EXPECT_EQ(vm.paths[0].description, "what toy does");
  EXPECT_EQ(vm.paths[1].description, "torch.export.export; the exported program is run and compared with eager");
  EXPECT_EQ(vm.title, "kornia 0.9.0: Title of toy and torch.export support");
  EXPECT_FALSE(vm.operators_onnx.has_value());  // no path produced an ONNX model
  EXPECT_EQ(vm.packages[0].sections[0].rows[0].details[0].paths_label, "toy");
  bool offered = false;
  for (const FilterOption& f : vm.filters) offered = offered || f.value == "toy:fail";
  EXPECT_TRUE(offered);
}

TEST(ViewModelTest, AnUnversionedLibraryShowsItsFingerprint) {
  Snapshot snapshot = Base();
  snapshot.library_name = "my_ops";
  snapshot.library_version = "";
  snapshot.library_fingerprint = "0123456789abcdef0123";
  snapshot.records = {MakeRecord("a", "ops", "", kOk, kOk, kOk)};
  const ViewModel vm = BuildViewModel(snapshot, {});
  EXPECT_EQ(vm.title, "my_ops (unversioned): ONNX, torch.export and torch.compile support");
  ASSERT_FALSE(vm.environment.empty());
  EXPECT_EQ(vm.environment[0].label, "my_ops");
  EXPECT_EQ(vm.environment[0].value, "unversioned, sources 0123456789ab");
}

TEST(ViewModelTest, EnvironmentListsEveryFieldWellKnownFirst) {
  Snapshot snapshot = Base();
  snapshot.environment = {{"python", "3.11.7"}, {"torch", "2.13.0+cpu"}, {"opset", 18},
                          {"device", "cpu"},    {"openvino", "2025.1"},  {"numpy", nullptr}};
  const ViewModel vm = BuildViewModel(snapshot, {});
  std::vector<std::string> labels;
  for (const auto& e : vm.environment) labels.push_back(e.label + "=" + e.value);
  EXPECT_EQ(labels, (std::vector<std::string>{"kornia=0.9.0", "torch=2.13.0+cpu", "python=3.11.7", "opset=18", "device=cpu",
                                              "openvino=2025.1", "date=2026-11-30"}));
}

TEST(ViewModelTest, RowsNotApplicableEverywhereLeaveTheirTable) {
  Snapshot snapshot = Base();
  snapshot.records = {MakeRecord("c", "geometry", "epipolar", kNa, kNa, kNa),
                      MakeRecord("d", "geometry", "epipolar", kNa, kOk, kOk),
                      MakeRecord("e", "io", "", kNa, kNa, kNa)};
  const ViewModel vm = BuildViewModel(snapshot, {});
  ASSERT_EQ(vm.na_rows.size(), 2u);
  EXPECT_EQ(vm.na_rows[0].name, "c");
  EXPECT_EQ(vm.na_rows[1].name, "e");
  EXPECT_TRUE(vm.na_rows[0].na_everywhere);
  ASSERT_EQ(vm.packages.size(), 2u);
  ASSERT_EQ(vm.packages[0].sections.size(), 1u);
  ASSERT_EQ(vm.packages[0].sections[0].rows.size(), 1u);
  EXPECT_EQ(vm.packages[0].sections[0].rows[0].name, "d");
  EXPECT_FALSE(vm.packages[0].sections[0].rows[0].na_everywhere);
  EXPECT_TRUE(vm.packages[1].sections.empty());  // io: all n/a, still summarised
  EXPECT_EQ(vm.packages[1].summary.na_everywhere, 1);
  EXPECT_EQ(NaNote(vm.packages[1].summary), "1 of its 1 configurations is n/a on every path");
}

TEST(ViewModelTest, EqualReasonsOfSeveralPathsMergeIntoOneLine) {
  Snapshot snapshot = Base();
  Record record = MakeRecord("f", "geometry", "", kFail, kFail, kFail);
  for (const char* path : {"onnx", "export"}) {
    record.paths[path].reason = "branch";
    record.paths[path].detail = "a Python branch depends on tensor values";
    record.paths[path].location = "kornia/g.py:3";
  }
  record.paths["compile"].reason = "branch";
  record.paths["compile"].detail = "a Python branch depends on tensor values";
  record.paths["compile"].location = "kornia/g.py:4";  // another place: its own line
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  ASSERT_EQ(row.details.size(), 2u);
  EXPECT_EQ(row.details[0].paths_label, "ONNX, export");
  EXPECT_EQ(row.details[0].text, "a Python branch depends on tensor values");
  EXPECT_EQ(row.details[0].location, "kornia/g.py:3");
  ASSERT_TRUE(row.details[0].reason.has_value());
  EXPECT_EQ(row.details[0].reason->title, "Python branch");
  EXPECT_EQ(row.details[0].reason->anchor, "reason-branch");
  EXPECT_EQ(row.details[1].paths_label, "compile");

  ASSERT_EQ(vm.reasons.size(), 1u);
  EXPECT_EQ(vm.reasons[0].id, "branch");
  ASSERT_EQ(vm.reasons[0].affected.size(), 1u);
  EXPECT_EQ(vm.reasons[0].affected[0].paths_label, "ONNX, export, compile");
  EXPECT_EQ(vm.reasons[0].operators, 1);
}

TEST(ViewModelTest, AFailureDetailCarriesTheReproCommandOfEachFailingPath) {
  Snapshot snapshot = Base();
  Record record = MakeRecord("RandomCrop[p=0.5][random]", "augmentation", "", kFail, kFail, Status::ok_breaks);
  for (const char* path : {"onnx", "export"}) record.paths[path].detail = "a Python branch depends on tensor values";
  record.paths["compile"].graph_breaks = 1;
  record.paths["compile"].detail = "1 graph break";
  Record fine = MakeRecord("rgb_to_gray", "color", "", kOk, kOk, kNa);
  fine.paths["compile"].detail = "skipped: needs a GPU";
  snapshot.records = {record, fine};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  ASSERT_EQ(row.details.size(), 2u);
  EXPECT_EQ(row.details[0].repro, (std::vector<std::string>{"opsweep repro 'RandomCrop[p=0.5][random]' --path onnx --suite kornia",
                                                            "opsweep repro 'RandomCrop[p=0.5][random]' --path export --suite kornia"}));
  EXPECT_EQ(row.details[1].repro, (std::vector<std::string>{"opsweep repro 'RandomCrop[p=0.5][random]' --path compile --suite kornia"}));
  EXPECT_TRUE(vm.packages[1].sections[0].rows[0].details[0].repro.empty());  // n/a: nothing to reproduce
  EXPECT_EQ(ReproCommand("rgb_to_gray", "onnx"), "opsweep repro rgb_to_gray --path onnx");
  EXPECT_EQ(ReproCommand("it's", "onnx"), "opsweep repro 'it'\\''s' --path onnx");
  EXPECT_EQ(ReproCommand("a b", "onnx", "kornia"), "opsweep repro 'a b' --path onnx --suite kornia");
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_NE(html.find("opsweep repro &#39;RandomCrop[p=0.5][random]&#39; --path onnx --suite kornia</code>"), std::string::npos);
  EXPECT_NE(WriteRst(vm).find("reproduce: ``opsweep repro 'RandomCrop[p=0.5][random]' --path compile --suite kornia``"), std::string::npos);
  EXPECT_NE(WriteMarkdown(vm).find("reproduce: `opsweep repro 'RandomCrop[p=0.5][random]' --path onnx --suite kornia`, `opsweep repro 'RandomCrop[p=0.5][random]' --path export --suite kornia`"),
            std::string::npos);
}

TEST(ViewModelTest, OnlyAPathThatDeclaresAReproducerShowsTheCommand) {
  // `opsweep repro` writes scripts for the paths whose description says reproducible; a command
  // the verb would refuse (a path without a template) is never shown.
  Snapshot snapshot = Base();
  for (PathSpec& path : snapshot.paths) {
    if (path.id == "export") path.reproducible = false;
  }
  Record record = MakeRecord("RandomCrop[p=0.5][random]", "augmentation", "", kFail, kFail, kFail);
  for (const char* path : {"onnx", "export", "compile"}) record.paths[path].detail = "a Python branch depends on tensor values";
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  ASSERT_EQ(row.details.size(), 1u);
  EXPECT_EQ(row.details[0].repro, (std::vector<std::string>{"opsweep repro 'RandomCrop[p=0.5][random]' --path onnx --suite kornia",
                                                            "opsweep repro 'RandomCrop[p=0.5][random]' --path compile --suite kornia"}));
}

TEST(ViewModelTest, ADynamicPathThatRecompilesOnEveryNewSizeShowsItsReproducer) {
  // compile-dynamic declares a reproducer; ok-recompiles wants one (the script shows the guards),
  // ok-static does not (nothing is wrong at the shapes it accepts)
  Snapshot snapshot = Base();
  snapshot.paths = testing::BundledPaths({"onnx", "export", "compile", "export-dynamic", "compile-dynamic"});
  Record record = MakeRecord("rotate", "geometry", "", kOk, kOk, kOk);
  record.paths["export-dynamic"] = Outcome(Status::ok_static);
  record.paths["export-dynamic"].detail = "static in H, W";
  record.paths["compile-dynamic"] = Outcome(Status::ok_recompiles);
  record.paths["compile-dynamic"].detail = "recompiles on every new H: size of x0[2] == 48 (2 recompiles)";
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  std::vector<std::string> commands;
  for (const auto& line : row.details) commands.insert(commands.end(), line.repro.begin(), line.repro.end());
  EXPECT_EQ(commands, (std::vector<std::string>{"opsweep repro rotate --path compile-dynamic --suite kornia"}));
}

TEST(ViewModelTest, AClassifiedBreakReadsAsItsReasonAnUnclassifiedOneAsDynamosWords) {
  Snapshot snapshot = Base();
  snapshot.reasons["unclassified"] = {"Not classified yet", "cause", "hint", "opsweep"};
  Record record = MakeRecord("h", "color", "", kOk, kOk, Status::ok_breaks);
  record.paths["compile"].graph_breaks = 2;
  record.paths["compile"].break_reasons = {{"branch", "generic_jump TensorVariable()", ""},
                                           {"unclassified", "Unsupported: call_function print", ""}};
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  ASSERT_EQ(row.details.size(), 1u);
  ASSERT_EQ(row.details[0].break_reasons.size(), 2u);
  EXPECT_EQ(row.details[0].break_reasons[0].text, "Python branch");
  EXPECT_EQ(row.details[0].break_reasons[1].text, "Unsupported: call_function print");
  EXPECT_EQ(row.details[0].break_reasons[1].reason->anchor, "reason-unclassified");
  EXPECT_NE(row.search_text.find("Python branch"), std::string::npos);
  EXPECT_NE(row.search_text.find("call_function print"), std::string::npos);
  ASSERT_EQ(vm.reasons.size(), 2u);  // both reasons list the row
}

TEST(ViewModelTest, DetailFallsBackToTheErrorAndKeepsADifferentErrorApart) {
  Snapshot snapshot = Base();
  Record record = MakeRecord("g", "color", "", kFail, kFail, kOk);
  record.paths["onnx"].error = "ValueError: bad";
  record.paths["export"].detail = "short";
  record.paths["export"].error = "RuntimeError: long";
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  ASSERT_EQ(row.details.size(), 2u);
  EXPECT_EQ(row.details[0].text, "ValueError: bad");
  EXPECT_EQ(row.details[0].error, "");
  EXPECT_EQ(row.details[1].text, "short");
  EXPECT_EQ(row.details[1].error, "RuntimeError: long");
}

TEST(ViewModelTest, CellsReadWithoutColour) {
  EXPECT_EQ(MakeCell(kOk, std::nullopt).label, "yes");
  EXPECT_EQ(MakeCell(Status::ok_breaks, 2).label, "yes, 2 breaks");
  EXPECT_EQ(MakeCell(Status::ok_breaks, 1).label, "yes, 1 break");
  EXPECT_EQ(MakeCell(Status::ok_unverified, std::nullopt).label, "yes (random)");
  EXPECT_EQ(MakeCell(Status::ok_unverified, 3).label, "yes (random), 3 breaks");
  EXPECT_EQ(MakeCell(kFail, std::nullopt).label, "no");
  EXPECT_EQ(MakeCell(kNa, std::nullopt).token, "na");
  for (Status status : kAllStatuses) {
    const CellView cell = MakeCell(status, std::nullopt);
    EXPECT_FALSE(cell.symbol.empty());
    EXPECT_FALSE(cell.label.empty());
  }
}

TEST(ViewModelTest, AnchorsAreUniqueAndApiLinksUseTheBase) {
  Snapshot snapshot = Base();
  snapshot.records = {MakeRecord("a[b]", "color", "", kOk, kOk, kOk),
                      MakeRecord("a-b", "color", "", kOk, kOk, kOk)};
  snapshot.records[0].api = "kornia.color.a";
  ViewModel vm = BuildViewModel(snapshot, {});
  const auto& rows = vm.packages[0].sections[0].rows;
  EXPECT_EQ(rows[0].anchor, "r-a-b");
  EXPECT_EQ(rows[1].anchor, "r-a-b-2");
  EXPECT_EQ(rows[0].api, "kornia.color.a");
  EXPECT_EQ(rows[0].api_url, "");  // no --api-base: plain text

  vm = BuildViewModel(snapshot, {"https://docs.example/api.html#"});
  EXPECT_EQ(vm.packages[0].sections[0].rows[0].api_url, "https://docs.example/api.html#kornia.color.a");
  EXPECT_EQ(vm.packages[0].sections[0].rows[1].api_url, "");
  vm = BuildViewModel(snapshot, {"https://docs.example/search.html?q={api}&x=1"});
  EXPECT_EQ(vm.packages[0].sections[0].rows[0].api_url,
            "https://docs.example/search.html?q=kornia.color.a&x=1");

  // with the documenting page from objects.inv: the base is the docs root
  snapshot.records[0].api_uri = "color.html#kornia.color.a";
  vm = BuildViewModel(snapshot, {"https://docs.example/en/latest"});
  EXPECT_EQ(vm.packages[0].sections[0].rows[0].api_url, "https://docs.example/en/latest/color.html#kornia.color.a");
  vm = BuildViewModel(snapshot, {"https://docs.example/en/latest/"});
  EXPECT_EQ(vm.packages[0].sections[0].rows[0].api_url, "https://docs.example/en/latest/color.html#kornia.color.a");
}

TEST(ViewModelTest, FiltersCountWhatTheyShow) {
  Snapshot snapshot = Base();
  snapshot.records = {MakeRecord("a", "color", "", kOk, kOk, kOk),
                      MakeRecord("b", "color", "", kFail, kOk, Status::ok_breaks),
                      MakeRecord("c", "color", "", kNa, kNa, kNa)};
  snapshot.records[1].paths["compile"].graph_breaks = 2;
  const ViewModel vm = BuildViewModel(snapshot, {});
  auto count = [&](const std::string& value) {
    for (const FilterOption& option : vm.filters) {
      if (option.value == value) return option.count;
    }
    return -1;
  };
  EXPECT_EQ(count("all"), 3);
  EXPECT_EQ(count("failure"), 1);
  EXPECT_EQ(count("breaks"), 1);
  EXPECT_EQ(count("all-ok"), 1);
  EXPECT_EQ(count("onnx:fail"), 1);
  EXPECT_EQ(count("onnx:na"), 1);
  EXPECT_EQ(count("onnx:supported"), 1);
  EXPECT_EQ(count("compile:ok-breaks"), 1);
  EXPECT_EQ(count("onnx:mismatch"), -1);  // statuses that never occur are not offered
}

snapshot::SubOutcome Sub(Status status, std::string reason = "", std::string detail = "") {
  snapshot::SubOutcome sub;
  sub.status = status;
  sub.reason = std::move(reason);
  sub.detail = std::move(detail);
  if (!IsSupported(status)) sub.step = "load";
  return sub;
}

// The bundled paths and an opset-17 sub-verdict of the onnx path (a worker run with --opsets 17).
Snapshot WithOpset17() {
  Snapshot snapshot = Base();
  SubVerdictSpec opset;
  opset.id = "opset17";
  opset.title = "opset 17";
  opset.label = "op17";
  opset.kind = SubVerdictKind::opset;
  opset.steps = {"convert", "checker", "ort-load", "ort-run", "compare"};
  snapshot.paths[0].subverdicts.push_back(opset);
  snapshot.reasons["ov-missing"] = {"OpenVINO has no conversion", "cause", "hint", "openvino"};
  return snapshot;
}

TEST(ViewModelTest, SubVerdictsAreMarksCardsFiltersAndDetailsOnDemand) {
  Snapshot snapshot = WithOpset17();
  Record a = MakeRecord("a", "color", "", kOk, kOk, kOk);
  a.paths["onnx"].subverdicts = {{"openvino", Sub(kFail, "ov-missing", "no conversion rule for Det")},
                                 {"tract", Sub(kOk)},
                                 {"opset17", Sub(kOk)}};  // agrees with opset 18: no mark
  Record b = MakeRecord("b", "color", "", kFail, kOk, kOk);  // the export failed: nothing ran
  Record c = MakeRecord("c", "color", "", kOk, kOk, kOk);
  c.paths["onnx"].subverdicts = {{"openvino", Sub(kOk)}, {"opset17", Sub(kFail, "lowering", "returns opset 18")}};
  snapshot.records = {a, b, c};
  const ViewModel vm = BuildViewModel(snapshot, {});
  ASSERT_EQ(vm.subverdicts.size(), 4u);
  EXPECT_EQ(vm.subverdicts[0].key, "onnx/openvino");
  EXPECT_TRUE(vm.subverdicts[3].opset);

  const RowView& row_a = vm.packages[0].sections[0].rows[0];
  ASSERT_EQ(row_a.cells[0].marks.size(), 3u);  // every sub-verdict the record holds (the filters see them)
  EXPECT_EQ(row_a.cells[0].marks[0].label, "OV");
  EXPECT_EQ(row_a.cells[0].marks[0].symbol, "\u2717");
  EXPECT_EQ(row_a.cells[0].marks[0].title, "ONNX in OpenVINO: no: no conversion rule for Det");
  EXPECT_TRUE(row_a.cells[0].marks[1].shown);
  EXPECT_FALSE(row_a.cells[0].marks[2].shown);  // opset 17 agrees with the ONNX column
  EXPECT_TRUE(row_a.cells[1].marks.empty());    // export has no sub-verdicts
  ASSERT_EQ(row_a.sub_details.size(), 1u);
  EXPECT_EQ(row_a.sub_details[0].paths_label, "ONNX in OpenVINO");
  ASSERT_TRUE(row_a.sub_details[0].reason.has_value());
  EXPECT_EQ(row_a.sub_details[0].reason->id, "ov-missing");
  EXPECT_EQ(row_a.sub_summary, "fails in OpenVINO");
  EXPECT_NE(row_a.search_text.find("no conversion rule for Det"), std::string::npos);
  const RowView& row_b = vm.packages[0].sections[0].rows[1];
  EXPECT_TRUE(row_b.cells[0].marks.empty());
  EXPECT_TRUE(row_b.sub_details.empty());
  const RowView& row_c = vm.packages[0].sections[0].rows[2];
  EXPECT_TRUE(row_c.cells[0].marks[1].shown);  // opset 17 differs
  EXPECT_EQ(row_c.sub_summary, "differs at opset 17");

  ASSERT_EQ(vm.sub_cards.size(), 4u);
  EXPECT_EQ(vm.sub_cards[0].title, "ONNX in OpenVINO");
  EXPECT_EQ(vm.sub_cards[0].count.supported, 1);
  EXPECT_EQ(vm.sub_cards[0].count.probed, 2);  // ran on a and c: the exported files
  EXPECT_EQ(vm.sub_cards[0].count.percent, "50.0%");
  EXPECT_EQ(vm.sub_cards[0].differs, 1);
  EXPECT_EQ(vm.sub_cards[2].count.probed, 0);  // the reference ran nowhere
  EXPECT_EQ(vm.sub_cards[2].count.percent, "n/a");
  EXPECT_EQ(vm.sub_cards[3].title, "ONNX at opset 17");
  EXPECT_EQ(vm.sub_cards[3].differs, 1);

  auto option = [&](const std::string& value) { return FindFilter(vm, value); };
  ASSERT_NE(option("onnx/openvino:failure"), nullptr);
  EXPECT_EQ(option("onnx/openvino:failure")->label, "ONNX exports but fails in OpenVINO");
  EXPECT_EQ(option("onnx/openvino:failure")->count, 1);
  EXPECT_EQ(option("onnx/openvino:supported")->count, 1);
  EXPECT_EQ(option("onnx/tract:differs")->count, 0);
  EXPECT_EQ(option("onnx/opset17:differs")->count, 1);
  EXPECT_EQ(option("onnx/opset17:failure"), nullptr);  // an opset offers supported and differs
  EXPECT_EQ(option("onnx/openvino:failure")->group, "ONNX: other runtimes and opsets");

  // a sub-verdict's reason lists its row under the sub-verdict's name
  const ReasonView* ov = nullptr;
  for (const ReasonView& r : vm.reasons) {
    if (r.id == "ov-missing") ov = &r;
  }
  ASSERT_NE(ov, nullptr);
  ASSERT_EQ(ov->affected.size(), 1u);
  EXPECT_EQ(ov->affected[0].paths_label, "ONNX in OpenVINO");
  ASSERT_EQ(vm.marks_legend.size(), 4u);
  EXPECT_EQ(vm.marks_legend[3], "op17: ONNX at opset 17, shown where it differs from the ONNX column");
}

TEST(WritersTest, SubVerdictTextIsEscapedInMarksAndDetails) {
  Snapshot snapshot = WithOpset17();
  Record a = MakeRecord("a", "color", "", kOk, kOk, kOk);
  a.paths["onnx"].subverdicts = {{"tract", Sub(kFail, "", "\"><script>alert(3)</script>")}};
  snapshot.paths[0].subverdicts[1].label = "<b>t</b>";
  snapshot.records = {a};
  std::string html, err;
  ASSERT_TRUE(WriteHtml(BuildViewModel(snapshot, {}), &html, &err)) << err;
  EXPECT_EQ(html.find("<script>alert(3)"), std::string::npos);
  EXPECT_EQ(html.find("<b>t</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(3)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(WriteMarkdown(BuildViewModel(snapshot, {})).find("<script>alert(3)"), std::string::npos);
}

TEST(ViewModelTest, NumbersAreFormattedTheSameEverywhere) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1341), "1,341");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatPercent(1043, 1213), "86.0%");
  EXPECT_EQ(FormatPercent(1, 3), "33.3%");
  EXPECT_EQ(FormatPercent(2, 3), "66.7%");
  EXPECT_EQ(FormatPercent(1, 8), "12.5%");  // half up
  EXPECT_EQ(FormatPercent(0, 0), "n/a");
}

TEST(WritersTest, SnapshotTextNeverReachesAPageUnescaped) {
  Snapshot snapshot = Base();
  Record record = MakeRecord("x[\"><img src=x onerror=alert(2)>]", "color", "", kFail, kOk, kOk);
  record.paths["onnx"].error = "RuntimeError: <script>alert(1)</script> </script><!-- | *b*";
  snapshot.paths.push_back(testing::TestPath("</script><!--"));
  record.paths["</script><!--"] = Outcome(kOk);
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("</script><!--"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script\\u003e\\u003c!--"), std::string::npos);  // the config JSON

  const std::string md = WriteMarkdown(vm);
  EXPECT_EQ(md.find("<script>alert"), std::string::npos);
  EXPECT_NE(md.find("\\| \\*b\\*"), std::string::npos);
  const std::string rst = WriteRst(vm);
  EXPECT_NE(rst.find("\\| \\*b\\*"), std::string::npos);
}

// ---- checks, notes and break locations --------------------------------------------------------

using snapshot::CheckState;

TEST(ViewModelTest, ChecksAndNotesBecomeDetailLinesSharedByPathsThatSayTheSame) {
  Snapshot snapshot = Base();
  Record record = MakeRecord("a", "color", "", kOk, kOk, Status::ok_unverified);
  record.paths["onnx"].checks = {{"fresh_inputs", {CheckState::passed, ""}}};
  record.paths["export"].checks = {{"fresh_inputs", {CheckState::passed, ""}}};
  record.paths["compile"].checks = {{"randomness", {CheckState::not_run, "eager gives the same outputs"}},
                                    {"fresh_inputs", {CheckState::not_run, "the case opted out: fixed points"}},
                                    {"opset_17", {CheckState::failed, ""}}};
  record.paths["compile"].notes = {"the worker restored torch's state"};
  record.paths["onnx"].notes = {"the worker restored torch's state"};
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  EXPECT_TRUE(row.details.empty());  // every outcome is a plain success
  ASSERT_EQ(row.annotations.size(), 5u);
  using Kind = AnnotationLine::Kind;
  EXPECT_EQ(row.annotations[0].paths_label, "ONNX, export");
  EXPECT_EQ(row.annotations[0].text, "checked on fresh inputs");
  EXPECT_EQ(row.annotations[0].kind, Kind::check_passed);
  EXPECT_EQ(row.annotations[1].paths_label, "compile");
  EXPECT_EQ(row.annotations[1].text, "not checked on fresh inputs: the case opted out: fixed points");
  EXPECT_EQ(row.annotations[1].kind, Kind::check_not_run);
  EXPECT_EQ(row.annotations[2].text, "randomness not checked: eager gives the same outputs");
  EXPECT_EQ(row.annotations[3].text, "check 'opset 17' failed");  // a check with no words yet
  EXPECT_EQ(row.annotations[3].kind, Kind::check_failed);
  EXPECT_EQ(row.annotations[4].paths_label, "ONNX, compile");
  EXPECT_EQ(row.annotations[4].text, "note: the worker restored torch's state");
  EXPECT_EQ(row.annotations[4].kind, Kind::note);
  EXPECT_TRUE(row.fresh_unchecked);  // compile says yes without the fresh-input check
  for (const char* words : {"checked on fresh inputs", "the case opted out", "note: the worker restored"}) {
    EXPECT_NE(row.search_text.find(words), std::string::npos) << words;
  }
}

TEST(ViewModelTest, TheNotFreshFilterCountsSupportedOutcomesNotCheckedOnFreshInputs) {
  Snapshot snapshot = Base();
  Record checked = MakeRecord("a", "color", "", kOk, kOk, kOk);
  for (auto& [path, outcome] : checked.paths) outcome.checks = {{"fresh_inputs", {CheckState::passed, ""}}};
  Record unchecked = MakeRecord("b", "color", "", kOk, kFail, kOk);
  unchecked.paths["compile"].checks = {{"fresh_inputs", {CheckState::not_run, "nothing to vary"}}};
  Record differs = MakeRecord("c", "color", "", Status::mismatch, kOk, kOk);  // not a yes: not counted
  differs.paths["onnx"].checks = {{"fresh_inputs", {CheckState::not_run, "already differs"}}};
  Record failed = MakeRecord("d", "color", "", Status::mismatch, kOk, kOk);
  failed.paths["onnx"].checks = {{"fresh_inputs", {CheckState::failed, "output 0"}}};
  snapshot.records = {checked, unchecked, differs, failed};
  const ViewModel vm = BuildViewModel(snapshot, {});
  EXPECT_TRUE(vm.has_checks);
  const auto filter = std::find_if(vm.filters.begin(), vm.filters.end(),
                                   [](const FilterOption& f) { return f.value == "not-fresh"; });
  ASSERT_NE(filter, vm.filters.end());
  EXPECT_EQ(filter->label, "Not checked on fresh inputs");
  EXPECT_EQ(filter->count, 1);  // b
  EXPECT_EQ(filter->group, "");
  ASSERT_EQ(vm.legend_notes.size(), 1u);  // checks, no notes
  EXPECT_NE(vm.legend_notes[0].find("not checked on fresh inputs"), std::string::npos);
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_NE(html.find("<option value=\"not-fresh\">Not checked on fresh inputs (1)</option>"), std::string::npos);
  EXPECT_NE(html.find("data-name=\"b\" data-s=\"ok fail ok\" data-b=\"0\" data-nf=\"1\""), std::string::npos);
  EXPECT_EQ(html.find("data-name=\"c\" data-s=\"mismatch ok ok\" data-b=\"0\" data-nf"), std::string::npos);
  EXPECT_NE(html.find("<li class=\"ck ck-not-run\"><span class=\"p\">compile:</span> not checked on fresh inputs: "
                      "nothing to vary</li>"),
            std::string::npos);
}

// A snapshot without checks or notes (one merged before they existed) renders as it always did:
// no filter, no legend paragraph, no row attribute, no extra line.
TEST(ViewModelTest, WithoutChecksOrNotesNothingIsAdded) {
  Snapshot snapshot = Base();
  snapshot.records = {MakeRecord("a", "color", "", kOk, kFail, kOk)};
  const ViewModel vm = BuildViewModel(snapshot, {});
  EXPECT_FALSE(vm.has_checks);
  EXPECT_TRUE(vm.legend_notes.empty());
  for (const FilterOption& f : vm.filters) EXPECT_NE(f.value, "not-fresh");
  EXPECT_TRUE(vm.packages[0].sections[0].rows[0].annotations.empty());
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_EQ(html.find(" data-nf=\""), std::string::npos);
  EXPECT_EQ(html.find("value=\"not-fresh\""), std::string::npos);
  EXPECT_EQ(html.find("class=\"ck"), std::string::npos);
}

TEST(ViewModelTest, ABreakReasonKeepsItsLocationAndLinesWithOtherLocationsStaySeparate) {
  Snapshot snapshot = Base();
  Record record = MakeRecord("h", "color", "", kOk, Status::ok_breaks, Status::ok_breaks);
  record.paths["export"].graph_breaks = 1;
  record.paths["compile"].graph_breaks = 1;
  record.paths["export"].break_reasons = {{"branch", "generic_jump", "kornia/x.py:40"}};
  record.paths["compile"].break_reasons = {{"branch", "generic_jump", "kornia/y.py:7"}};
  snapshot.records = {record};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const RowView& row = vm.packages[0].sections[0].rows[0];
  ASSERT_EQ(row.details.size(), 2u);
  EXPECT_EQ(row.details[0].break_reasons[0].location, "kornia/x.py:40");
  EXPECT_EQ(row.details[1].break_reasons[0].location, "kornia/y.py:7");
  EXPECT_NE(row.search_text.find("kornia/y.py:7"), std::string::npos);
  EXPECT_NE(WriteMarkdown(vm).find("Python branch `kornia/x.py:40`"), std::string::npos);
  EXPECT_NE(WriteRst(vm).find("Python branch ``kornia/y.py:7``"), std::string::npos);
}

TEST(WritersTest, OutputIsDeterministic) {
  Snapshot snapshot = Base();
  snapshot.records = {MakeRecord("a", "color", "", kOk, kFail, kOk), MakeRecord("b", "io", "", kNa, kNa, kNa)};
  std::string first, second, err;
  ASSERT_TRUE(WriteHtml(BuildViewModel(snapshot, {}), &first, &err));
  ASSERT_TRUE(WriteHtml(BuildViewModel(snapshot, {}), &second, &err));
  EXPECT_EQ(first, second);
  EXPECT_EQ(WriteRst(BuildViewModel(snapshot, {})), WriteRst(BuildViewModel(snapshot, {})));
}

// The dynamic-shape paths: what the cells, the details, the legend and the filters say.
Snapshot DynamicSnapshot() {
  Snapshot snapshot = Base();
  snapshot.paths = testing::BundledPaths({"export-dynamic", "compile-dynamic"});
  snapshot.reasons["dynamic-shape-branch"] = {"A branch on a size", "cause", "hint", "library"};
  auto outcome = [](Status status, std::string detail, std::vector<snapshot::DynamicDim> dims,
                    std::optional<int> recompiles, std::vector<std::string> guards) {
    snapshot::Outcome o;
    o.status = status;
    o.detail = std::move(detail);
    snapshot::DynamicInfo d;
    d.shapes = {"1x3x32x40", "2x3x48x56", "3x3x64x72"};
    d.trace = recompiles ? 0 : 1;
    d.specialised = std::move(dims);
    d.recompiles = recompiles;
    d.guards = std::move(guards);
    o.dynamic = d;
    return o;
  };
  Record a;
  a.name = a.operator_name = "rotate";
  a.package = a.group = "geometry";
  a.paths["export-dynamic"] = outcome(Status::ok_static, "static in H, W",
                                      {{"H", "constant", "x0[2] - 1 == 47 at kornia/affwarp.py:69 in _center"},
                                       {"W", "constant", "x0[3] - 1 == 55 at kornia/affwarp.py:68 in _center"}},
                                      std::nullopt, {});
  a.paths["compile-dynamic"] = outcome(Status::ok_recompiles, "recompiles on every new H: size of x0[2] == 48 (2 recompiles)",
                                       {{"H", "constant", "size of x0[2] == 48"}}, 2,
                                       {"size of x0[0] == 1", "size of x0[2] == 48"});
  Record b;
  b.name = b.operator_name = "sobel";
  b.package = b.group = "filters";
  b.paths["export-dynamic"] = outcome(Status::ok, "", {}, std::nullopt, {});
  b.paths["compile-dynamic"] = outcome(Status::ok, "1 recompile", {}, 1, {"size of x0[0] == 1"});
  Record c;
  c.name = c.operator_name = "branchy";
  c.package = c.group = "filters";
  c.paths["export-dynamic"] = outcome(Status::mismatch, "matches eager at its trace shape only; at 3x3x64x72: output 0: ...",
                                      {{"W", "range", "x0[3] <= 60 at kornia/f.py:7 in g"}}, std::nullopt, {});
  c.paths["export-dynamic"].reason = "dynamic-shape-branch";
  c.paths["compile-dynamic"] = outcome(Status::ok, "2 recompiles; once more at 3x3x64x72: 2 <= x0[3] <= 60 (a size threshold, not every shape)",
                                       {}, 2, {"size of x0[0] == 1", "2 <= x0[3] <= 60"});
  snapshot.records = {c, b, a};
  return snapshot;
}

const RowView* FindRow(const ViewModel& vm, const std::string& name) {
  for (const auto& package : vm.packages) {
    for (const auto& section : package.sections) {
      for (const auto& row : section.rows) {
        if (row.name == name) return &row;
      }
    }
  }
  return nullptr;
}

// With the dynamic-shape paths beside onnx, export and compile, the facts and a filter also count
// the configurations that pass the three paths at one shape (what a survey without them says).
TEST(ViewModelTest, WithGroupedPathsTheBasePathsPassCountIsItsOwnFactAndFilter) {
  Snapshot snapshot = Base();
  snapshot.paths = testing::BundledPaths({"onnx", "export", "compile", "export-dynamic", "compile-dynamic"});
  Record all = MakeRecord("all", "color", "", kOk, kOk, kOk);  // every path: yes
  all.paths["export-dynamic"] = Outcome(Status::ok_static);
  all.paths["compile-dynamic"] = Outcome(kOk);
  Record base = MakeRecord("base", "color", "", kOk, kOk, Status::ok_breaks);  // yes at one shape only
  base.paths["export-dynamic"] = Outcome(kFail);
  base.paths["compile-dynamic"] = Outcome(kOk);
  Record none = MakeRecord("none", "color", "", kFail, kOk, kOk);  // fails at one shape, passes dynamic
  none.paths["export-dynamic"] = Outcome(kOk);
  none.paths["compile-dynamic"] = Outcome(kOk);
  snapshot.records = {all, base, none};
  const ViewModel vm = BuildViewModel(snapshot, {});
  EXPECT_EQ(vm.base_paths, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(vm.base_titles, "ONNX, torch.export and torch.compile");
  EXPECT_EQ(vm.configurations_base_pass, 2);  // all, base
  EXPECT_EQ(vm.configurations_all_pass, 1);   // all
  auto filter = [&](const std::string& value) { return FindFilter(vm, value); };
  ASSERT_NE(filter("base-ok"), nullptr);
  EXPECT_EQ(filter("base-ok")->label, "Supported on ONNX, torch.export and torch.compile");
  EXPECT_EQ(filter("base-ok")->count, 2);
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_NE(html.find("<li><b>2</b><span>of 3 configurations pass ONNX, torch.export and torch.compile</span></li>"),
            std::string::npos);
  EXPECT_NE(html.find("\"base\":[0,1,2]"), std::string::npos);
  EXPECT_NE(WriteMarkdown(vm).find("- **2** of 3 configurations pass ONNX, torch.export and torch.compile.\n"),
            std::string::npos);
  EXPECT_NE(WriteRst(vm).find("- **2** of 3 configurations pass ONNX, torch.export and torch.compile.\n"),
            std::string::npos);
  // Without a grouped path, every path is a base path: one fact, no second filter.
  const ViewModel plain = BuildViewModel(Base(), {});
  EXPECT_TRUE(plain.base_paths.empty());
  for (const FilterOption& f : plain.filters) EXPECT_NE(f.value, "base-ok");
  ASSERT_TRUE(WriteHtml(plain, &html, &err)) << err;
  EXPECT_EQ(html.find("configurations pass ONNX"), std::string::npos);
}

TEST(ViewModelTest, DynamicCellsSayWhatIsStaticAndWhatRecompiles) {
  const ViewModel vm = BuildViewModel(DynamicSnapshot(), {});
  const RowView* rotate = FindRow(vm, "rotate");
  ASSERT_NE(rotate, nullptr);
  EXPECT_EQ(rotate->cells[0].token, "ok-static");
  EXPECT_EQ(rotate->cells[0].label, "yes, static in H, W");
  EXPECT_EQ(rotate->cells[1].token, "ok-recompiles");
  EXPECT_EQ(rotate->cells[1].label, "yes, recompiles per H");
  EXPECT_EQ(FindRow(vm, "sobel")->cells[0].label, "yes");
  // both are supported: the cards count them
  EXPECT_EQ(vm.cards[0].supported, 2);  // rotate, sobel (branchy is a mismatch)
  EXPECT_EQ(vm.cards[1].supported, 3);
}

TEST(ViewModelTest, DynamicDetailsNameTheShapesTheSpecialisedDimsAndTheRecompiles) {
  const ViewModel vm = BuildViewModel(DynamicSnapshot(), {});
  const RowView* rotate = FindRow(vm, "rotate");
  ASSERT_EQ(rotate->details.size(), 2u);
  EXPECT_EQ(rotate->details[0].text, "static in H, W");
  EXPECT_EQ(rotate->details[0].facts,
            (std::vector<std::string>{"shapes: 1x3x32x40, then 2x3x48x56 (traced), then 3x3x64x72",
                                      "H static: x0[2] - 1 == 47 at kornia/affwarp.py:69 in _center",
                                      "W static: x0[3] - 1 == 55 at kornia/affwarp.py:68 in _center"}));
  EXPECT_EQ(rotate->details[1].facts.back(), "2 recompiles: size of x0[0] == 1; size of x0[2] == 48");
  EXPECT_NE(rotate->search_text.find("x0[2] - 1 == 47"), std::string::npos);  // the search sees them
  // a plain success says nothing more than its detail
  const RowView* sobel = FindRow(vm, "sobel");
  ASSERT_EQ(sobel->details.size(), 1u);
  EXPECT_EQ(sobel->details[0].text, "1 recompile");
  EXPECT_TRUE(sobel->details[0].facts.empty());
  // a capture that gave up shows the guards it recorded
  Snapshot gave_up = DynamicSnapshot();
  snapshot::Outcome& o = gave_up.records[0].paths["export-dynamic"];
  o.status = Status::fail;
  o.step = "export";
  o.dynamic->specialised.clear();
  o.dynamic->guards = {"x0[0] == 2 at kornia/a.py:3 in f"};
  const ViewModel failed = BuildViewModel(gave_up, {});
  EXPECT_EQ(FindRow(failed, "branchy")->details[0].facts.back(), "guards recorded: x0[0] == 2 at kornia/a.py:3 in f");
  const RowView* branchy = FindRow(vm, "branchy");
  EXPECT_EQ(branchy->details[0].facts[1], "W limited: x0[3] <= 60 at kornia/f.py:7 in g");
  ASSERT_TRUE(branchy->details[0].reason.has_value());
}

TEST(ViewModelTest, GroupedPathsJoinTheTitleByTheirGroup) {
  Snapshot snapshot = DynamicSnapshot();
  snapshot.paths = testing::BundledPaths({"onnx", "export", "compile", "export-dynamic", "onnx-dynamic", "compile-dynamic"});
  for (Record& record : snapshot.records) {
    for (const char* id : {"onnx", "export", "compile", "onnx-dynamic"}) record.paths[id] = Outcome(kOk);
  }
  const ViewModel vm = BuildViewModel(snapshot, {});
  EXPECT_EQ(vm.title, "kornia 0.9.0: ONNX, torch.export and torch.compile support, with dynamic shapes");
  EXPECT_EQ(vm.paths[3].group, "dynamic shapes");
  EXPECT_EQ(vm.paths[0].group, "");
}

TEST(ViewModelTest, DynamicLegendAndFilters) {
  const ViewModel vm = BuildViewModel(DynamicSnapshot(), {});
  std::vector<std::string> legend;
  for (const auto& entry : vm.legend) legend.push_back(entry.cell.token);
  EXPECT_NE(std::find(legend.begin(), legend.end(), "ok-static"), legend.end());
  EXPECT_NE(std::find(legend.begin(), legend.end(), "ok-recompiles"), legend.end());
  auto filter = [&](const std::string& value) { return FindFilter(vm, value); };
  ASSERT_NE(filter("caveat"), nullptr);
  EXPECT_EQ(filter("caveat")->count, 1);  // rotate
  ASSERT_NE(filter("export-dynamic:ok-static"), nullptr);
  EXPECT_EQ(filter("export-dynamic:ok-static")->label, "torch.export, dynamic shapes: \u2713 yes, static dimensions");
  EXPECT_EQ(filter("compile-dynamic:ok-recompiles")->count, 1);
  // without a dynamic caveat there is no such filter, and the legend does not explain them
  const ViewModel plain = BuildViewModel([] {
    Snapshot s = Base();
    s.records = {MakeRecord("a", "color", "", kOk, kOk, kOk)};
    return s;
  }(), {});
  for (const auto& f : plain.filters) EXPECT_NE(f.value, "caveat");
  for (const auto& entry : plain.legend) EXPECT_NE(entry.cell.token, "ok-static");
}

TEST(WritersTest, DynamicFactsAppearInEveryFormat) {
  const ViewModel vm = BuildViewModel(DynamicSnapshot(), {});
  std::string html, err;
  ASSERT_TRUE(WriteHtml(vm, &html, &err)) << err;
  EXPECT_NE(html.find("<span class=\"dyn\">H static: x0[2] - 1 == 47 at kornia/affwarp.py:69 in _center</span>"),
            std::string::npos);
  EXPECT_NE(html.find("class=\"c st-ok-static\""), std::string::npos);
  EXPECT_NE(html.find("\"caveat\":[\"ok-static\",\"ok-recompiles\"]"), std::string::npos);
  EXPECT_NE(html.find("\"supported\":[\"ok\",\"ok-breaks\",\"ok-unverified\",\"ok-static\",\"ok-recompiles\"]"),
            std::string::npos);
  EXPECT_NE(WriteMarkdown(vm).find("2 recompiles: size of x0\\[0\\] == 1"), std::string::npos);
  EXPECT_NE(WriteRst(vm).find("H static: x0[2] - 1 == 47"), std::string::npos);
}

TEST(ViewModelTest, TheSearchSeesTheCasesOwnNote) {
  // a case's note names what its verdict depends on (an upstream optimizer, a documented export behaviour): a
  // reader searching for it must find the row
  Snapshot snapshot = Base();
  Record with_note = MakeRecord("backbone", "models", "", Status::mismatch, kOk, kOk);
  with_note.note = "ONNX: the optimizer drops LiteMLA's + 1e-15";
  snapshot.records = {with_note, MakeRecord("other", "models", "", kOk, kOk, kOk)};
  const ViewModel vm = BuildViewModel(snapshot, {});
  const auto& rows = vm.packages[0].sections[0].rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].search_text.find("LiteMLA"), std::string::npos);
  EXPECT_EQ(rows[1].search_text.find("LiteMLA"), std::string::npos);
}

}  // namespace
}  // namespace opsweep::render
