#include "core/path_spec.h"

#include <gtest/gtest.h>

#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

using json = nlohmann::json;

json Hello() {
  return json::parse(R"({"id":"toy","title":"Toy","label":"T","description":"a toy","steps":["capture","compare"],
    "expected_seconds":1.5,"order":50,"env":["python","torch"],"subverdicts":[{"id":"ov","title":"OpenVINO","label":"OV"}],
    "harness":"abc"})");
}

TEST(PathSpec, ReadsTheHelloForm) {
  PathSpec p;
  std::string err;
  ASSERT_TRUE(ParsePathSpec(Hello(), PathSpecForm::hello, &p, &err)) << err;
  EXPECT_EQ(p.id, "toy");
  EXPECT_EQ(p.steps, (std::vector<std::string>{"capture", "compare"}));
  EXPECT_EQ(p.expected_seconds, 1.5);
  EXPECT_EQ(p.order, 50);
  EXPECT_EQ(p.harness, "abc");
  ASSERT_EQ(p.subverdicts.size(), 1u);
  EXPECT_EQ(p.subverdicts[0].label, "OV");
  EXPECT_TRUE(PathHasStep(p, "capture"));
  EXPECT_TRUE(PathHasStep(p, "eager"));  // common
  EXPECT_FALSE(PathHasStep(p, "export"));
}

TEST(PathSpec, ReadsHarnessMigrationsAndChainsThemToTheCurrentDigest) {
  json j = Hello();
  j["migrations"] = json::parse(R"([
    {"id":"m1","from":"a0","to":"a1","why":"more seeds","rerun_if_record_contains":["randomness frozen at capture"]},
    {"id":"m2","from":"a1","to":"abc","why":"reworded","rerun_if_record_contains":["Guard failed","identical under"]}])");
  PathSpec p;
  std::string err;
  ASSERT_TRUE(ParsePathSpec(j, PathSpecForm::hello, &p, &err)) << err;
  ASSERT_EQ(p.migrations.size(), 2u);
  EXPECT_EQ(p.migrations[1].rerun_if_record_contains, (std::vector<std::string>{"Guard failed", "identical under"}));

  auto chain = MigrationChain(p, "a0");
  ASSERT_TRUE(chain.has_value());
  ASSERT_EQ(chain->size(), 2u);
  EXPECT_EQ((*chain)[0]->id, "m1");  // oldest first
  EXPECT_TRUE(MigrationChain(p, "abc").value().empty());  // the current digest: nothing to carry
  EXPECT_FALSE(MigrationChain(p, "zz").has_value());

  std::string mark;
  const HarnessMigration* by = nullptr;
  EXPECT_TRUE(CarriesOver(*chain, R"({"status":"ok","detail":""})", &mark, &by));
  EXPECT_FALSE(CarriesOver(*chain, R"({"detail":"randomness frozen at capture: output 0"})", &mark, &by));
  EXPECT_EQ(mark, "randomness frozen at capture");
  EXPECT_EQ(by->id, "m1");
  EXPECT_EQ(MigrationMarks({p}), (std::vector<std::string>{"Guard failed", "identical under", "randomness frozen at capture"}));

  // a cycle (a damaged file) ends the walk instead of looping
  PathSpec cycle = p;
  cycle.migrations = {{"ma", "q", "abc", "w", {"x"}}, {"mb", "abc", "q", "w", {"x"}}};
  EXPECT_FALSE(MigrationChain(cycle, "zz").has_value());
  EXPECT_EQ(MigrationChain(cycle, "q").value().size(), 1u);

  // the snapshot form carries none of it
  EXPECT_FALSE(PathSpecSnapshotJson(p).contains("migrations"));
}

TEST(PathSpec, RefusesADamagedMigration) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"id":"m","from":"a","to":"b","why":"w"})", "'rerun_if_record_contains' is missing"},
      {R"({"id":"m","from":"a","to":"b","why":"w","rerun_if_record_contains":[""]})", "not a non-empty string"},
      {R"({"id":"m","from":"a","to":"a","why":"w","rerun_if_record_contains":["x"]})", "the same digest"},
      {R"({"id":"m","from":"a","to":"b","rerun_if_record_contains":["x"]})", "'why' is missing"},
      {R"("m")", "a migration is not an object"},
  };
  for (const auto& [text, problem] : bad) {
    json j = Hello();
    j["migrations"] = json::array({json::parse(text)});
    PathSpec p;
    std::string err;
    EXPECT_FALSE(ParsePathSpec(j, PathSpecForm::hello, &p, &err)) << text;
    EXPECT_NE(err.find(problem), std::string::npos) << err;
    EXPECT_EQ(err.rfind("path 'toy'", 0), 0u) << err;
  }
}

TEST(PathSpec, TheSnapshotFormDropsWhatOnlyTheEngineNeeds) {
  PathSpec p;
  std::string err;
  ASSERT_TRUE(ParsePathSpec(Hello(), PathSpecForm::hello, &p, &err));
  json snap = PathSpecSnapshotJson(p);
  EXPECT_FALSE(snap.contains("harness"));
  EXPECT_FALSE(snap.contains("expected_seconds"));
  PathSpec back;
  ASSERT_TRUE(ParsePathSpec(snap, PathSpecForm::snapshot, &back, &err)) << err;
  p.harness.clear();
  p.expected_seconds.reset();
  EXPECT_EQ(back, p);
  EXPECT_FALSE(ParsePathSpec(snap, PathSpecForm::hello, &back, &err));  // no harness
  EXPECT_EQ(err, "path 'toy': 'harness' is missing or not a string");
}

TEST(PathSpec, RefusesWhatWouldBreakKeysOrSteps) {
  auto refused = [](const char* key, json value) {
    json j = Hello();
    j[key] = value;
    PathSpec p;
    std::string err;
    EXPECT_FALSE(ParsePathSpec(j, PathSpecForm::hello, &p, &err)) << key;
    return err;
  };
  EXPECT_EQ(refused("id", "Toy Path"), "path 'Toy Path': an id is lowercase letters, digits and '-'");
  EXPECT_EQ(refused("steps", json{"capture", "capture"}), "path 'toy': 'steps' lists 'capture' twice");
  EXPECT_EQ(refused("steps", json{"eager"}), "path 'toy': step 'eager' is common to every path; a path lists only its own");
  EXPECT_EQ(refused("env", json{"torch", "library"}), "path 'toy': env field 'library' is a job-key tag of its own");
  EXPECT_EQ(refused("order", "first"), "path 'toy': 'order' is missing or not an integer");
  EXPECT_EQ(refused("expected_seconds", -1), "path 'toy': 'expected_seconds' is not a number of seconds");
  std::vector<PathSpec> list;
  std::string err;
  EXPECT_FALSE(ParsePathSpecs(json::array({Hello(), Hello()}), PathSpecForm::hello, &list, &err));
  EXPECT_EQ(err, "path 'toy' is described twice");
}

TEST(PathSpec, SubVerdictsCarryTheirKindAndSteps) {
  json j = Hello();
  j["subverdicts"] = json::parse(R"([{"id":"ov","title":"OpenVINO","label":"OV","kind":"runtime","description":"d",
    "steps":["load","run"]},{"id":"opset17","title":"opset 17","label":"op17","kind":"opset","steps":["convert"]}])");
  PathSpec p;
  std::string err;
  ASSERT_TRUE(ParsePathSpec(j, PathSpecForm::hello, &p, &err)) << err;
  EXPECT_EQ(p.subverdicts[0].kind, SubVerdictKind::runtime);
  EXPECT_EQ(p.subverdicts[0].description, "d");
  EXPECT_EQ(p.subverdicts[1].kind, SubVerdictKind::opset);
  EXPECT_TRUE(SubVerdictHasStep(p.subverdicts[1], "convert"));
  EXPECT_FALSE(SubVerdictHasStep(p.subverdicts[1], "eager"));  // no common steps for a sub-verdict
  // the snapshot form keeps them
  PathSpec back;
  ASSERT_TRUE(ParsePathSpec(PathSpecSnapshotJson(p), PathSpecForm::snapshot, &back, &err)) << err;
  EXPECT_EQ(back.subverdicts, p.subverdicts);
  // a description from before sub-verdicts had kinds reads as a runtime without steps
  EXPECT_EQ(ParsePathSpec(Hello(), PathSpecForm::hello, &p, &err), true);
  EXPECT_EQ(p.subverdicts[0].kind, SubVerdictKind::runtime);
  EXPECT_TRUE(p.subverdicts[0].steps.empty());
  j["subverdicts"][0]["kind"] = "compiler";
  EXPECT_FALSE(ParsePathSpec(j, PathSpecForm::hello, &p, &err));
  EXPECT_EQ(err, "path 'toy': sub-verdict 'ov': 'kind' is neither \"runtime\" nor \"opset\"");
  j["subverdicts"][0]["kind"] = "runtime";
  j["subverdicts"][0]["steps"] = json{"load", "load"};
  EXPECT_FALSE(ParsePathSpec(j, PathSpecForm::hello, &p, &err));
  EXPECT_EQ(err, "path 'toy': sub-verdict 'ov': 'steps' lists 'load' twice");
}

TEST(PathSpec, TheBundledDescriptionsParse) {
  std::vector<PathSpec> paths = testing::BundledPaths();
  ASSERT_EQ(paths.size(), 9u);
  std::vector<PathSpec> shuffled = {paths[8], paths[5], paths[2], paths[7], paths[4], paths[0], paths[6], paths[3], paths[1]};
  SortPaths(&shuffled);
  EXPECT_EQ(shuffled, paths);  // the harness lists them in order
  EXPECT_EQ(EnvFieldsOf(paths), (std::vector<std::string>{"python", "torch", "numpy", "device", "onnx", "onnxscript",
                                                           "onnxruntime", "opset", "openvino", "tract", "opsets",
                                                           "cxx", "executorch"}));
  // the onnx path's sub-verdicts: three runtimes (the default opsets add none)
  const PathSpec* onnx = FindPath(paths, "onnx");
  ASSERT_EQ(onnx->subverdicts.size(), 3u);
  EXPECT_EQ(onnx->subverdicts[0].id, "openvino");
  EXPECT_EQ(onnx->subverdicts[0].kind, SubVerdictKind::runtime);
  EXPECT_EQ(onnx->subverdicts[2].steps, (std::vector<std::string>{"load", "run", "compare"}));
  EXPECT_TRUE(SubVerdictHasStep(*FindSubVerdict(*onnx, "tract"), "compile"));
  EXPECT_FALSE(SubVerdictHasStep(*FindSubVerdict(*onnx, "reference"), "compile"));
  EXPECT_EQ(FindSubVerdict(*onnx, "opset17"), nullptr);
  EXPECT_EQ(FindPath(paths, "compile")->title, "torch.compile");
  EXPECT_EQ(FindPath(paths, "compile-dynamic")->group, "dynamic shapes");
  EXPECT_EQ(FindPath(paths, "compile")->group, "");
  EXPECT_FALSE(PathSpecSnapshotJson(*FindPath(paths, "compile")).contains("group"));
  // the executorch path shows what XNNPACK took: its share beside the verdict, its flags as filters
  const PathSpec* et = FindPath(paths, "executorch");
  ASSERT_NE(FindFact(et->facts, "delegated"), nullptr);
  EXPECT_TRUE(FindFact(et->facts, "delegated")->cell);
  EXPECT_EQ(FindFact(et->facts, "not_delegated")->kind, FactKind::flag);
  EXPECT_TRUE(FindPath(paths, "aoti")->facts.empty());
  EXPECT_FALSE(PathSpecSnapshotJson(*FindPath(paths, "compile")).contains("facts"));
  EXPECT_EQ(PathSpecSnapshotJson(*FindPath(paths, "onnx-dynamic"))["group"], "dynamic shapes");
  EXPECT_EQ(FindPath(paths, "compile-dynamic")->steps,
            (std::vector<std::string>{"no-dynamic-dims", "eager-other-shapes", "compile", "compare"}));
  EXPECT_EQ(FindPath(paths, "tflite"), nullptr);
}

}  // namespace
}  // namespace opsweep
