#include "merge/survey.h"

#include <gtest/gtest.h>

#include "classify/classifier.h"
#include "merge/snapshot_builder.h"
#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

const char* kEnv = R"({"python":"3.11.7","torch":"2.13.0+cpu","onnx":"1.23.2","onnxscript":"0.7.2","onnxruntime":"1.32.0",)"
                   R"("numpy":"2.4.6","opset":18,"device":"cpu","library":{"name":"kornia","version":"0.9.0","fingerprint":"ff"}})";

std::string KeyFields(const std::string& torch = "2.13.0+cpu") {
  return R"({"case":"fp","path":"onnx","harness":"h","torch":")" + torch + R"(","opset":"18"})";
}

StoredResult Result(const std::string& name, const std::string& path, const std::string& record,
                    const std::string& finished = "2026-11-30T04:00:00Z", const std::string& torch = "2.13.0+cpu") {
  StoredResult r;
  r.case_name = name;
  r.path = path;
  r.job_key = "k";
  r.key_fields_json = KeyFields(torch);
  r.record_json = record;
  r.status = record.substr(11, record.find('"', 11) - 11);  // {"status":"<status>"...
  r.duration_s = 1;
  r.run_id = 1;
  r.finished = finished;
  return r;
}

// runs.paths_json: the bundled descriptions of these paths, as a worker's hello gives them.
std::string Paths(std::initializer_list<const char*> ids) {
  nlohmann::json all = nlohmann::json::parse(testing::BundledPathsJson());
  nlohmann::json out = nlohmann::json::array();
  for (const char* id : ids) {
    for (const auto& p : all) {
      if (p["id"] == id) out.push_back(p);
    }
  }
  return out.dump();
}

std::vector<std::string> Ids(const Survey& s) {
  std::vector<std::string> ids;
  for (const PathSpec& p : s.paths) ids.push_back(p.id);
  return ids;
}

DbContents Db(const std::string& file, std::vector<std::string> cases, std::string paths = Paths({"onnx", "export"})) {
  DbContents db;
  db.file = file;
  RunInfo run;
  run.id = 1;
  run.started = "2026-11-30T03:00:00Z";
  run.env_json = kEnv;
  run.paths_json = paths;
  db.runs.push_back(run);
  for (const auto& c : cases) db.inventory.push_back({c, "geometry.epipolar", "cases_geom.py", "fp-" + c, R"({"target":"kornia.x"})", 1});
  return db;
}

std::string All(const Survey& s) {
  std::string out;
  for (const auto& p : s.problems) out += p + "\n";
  return out;
}

TEST(Survey, CompleteSurveyHasNoProblems) {
  DbContents db = Db("a.db", {"x"});
  db.results = {Result("x", "onnx", R"({"status":"ok","step":""})"), Result("x", "export", R"({"status":"ok"})")};
  Survey s = JoinSurvey({db}, {});
  EXPECT_TRUE(s.problems.empty()) << All(s);
  EXPECT_EQ(Ids(s), (std::vector<std::string>{"onnx", "export"}));
  EXPECT_EQ(s.paths[1].title, "torch.export");
  EXPECT_EQ(s.env.value("torch", ""), "2.13.0+cpu");
}

TEST(Survey, MissingResultsAreCountedAndNamed) {
  DbContents db = Db("a.db", {"a", "b", "c", "d", "e", "f", "g"});
  db.results = {Result("a", "onnx", R"({"status":"crash","step":"worker"})"), Result("a", "export", R"({"status":"timeout"})")};
  Survey s = JoinSurvey({db}, {});
  ASSERT_EQ(s.problems.size(), 1u) << All(s);
  EXPECT_NE(s.problems[0].find("12 of 14 jobs have no result (b / onnx, b / export, c / onnx, c / export, d / onnx and 7 more)"),
            std::string::npos)
      << s.problems[0];
}

TEST(Survey, DifferentEnvironmentsNameFieldValuesAndFiles) {
  DbContents a = Db("a.db", {"x"});
  DbContents b = Db("b.db", {"x"});
  a.results = {Result("x", "onnx", R"({"status":"ok"})")};
  b.results = {Result("x", "export", R"({"status":"ok"})", "2026-11-30T04:00:00Z", "2.12.0")};
  Survey s = JoinSurvey({a, b}, {});
  ASSERT_EQ(s.problems.size(), 1u) << All(s);
  EXPECT_EQ(s.problems[0],
            "results were measured under different environments: torch is '2.12.0' in 1 result (b.db), '2.13.0+cpu' in 1 "
            "result (a.db)");
}

TEST(Survey, TheHeaderReportsTheFieldsTheResultsWereMeasuredWith) {
  // The newest result's run (run 2: the dynamic paths alone) measured opsets "18" and onnx 1.23.2;
  // the onnx results were measured with opsets "17,18,25" and keep saying so in the header.
  DbContents db = Db("a.db", {"x"});
  RunInfo later = db.runs[0];
  later.id = 2;
  later.started = "2026-11-30T06:00:00Z";
  nlohmann::json env = nlohmann::json::parse(kEnv);
  env["opsets"] = "18";
  env["opset"] = 19;
  later.env_json = env.dump();
  db.runs.push_back(later);
  StoredResult onnx = Result("x", "onnx", R"({"status":"ok"})");
  onnx.key_fields_json = R"({"case":"fp","path":"onnx","harness":"h","torch":"2.13.0+cpu","opset":"18","opsets":"17,18,25"})";
  StoredResult exp = Result("x", "export", R"({"status":"ok"})", "2026-11-30T07:00:00Z");
  exp.run_id = 2;
  db.results = {onnx, exp};
  Survey s = JoinSurvey({db}, {});
  EXPECT_TRUE(s.problems.empty()) << All(s);
  EXPECT_EQ(s.env.at("opsets"), "17,18,25");
  EXPECT_EQ(s.env.at("opset"), 18);  // a number in the run's env stays a number
  EXPECT_EQ(s.env.at("onnx"), "1.23.2");  // a field no key carries: the header's run
  EXPECT_EQ(s.env.at("torch"), "2.13.0+cpu");
}

TEST(Survey, LaterResultWinsWhateverTheOrder) {
  DbContents a = Db("a.db", {"x"});
  DbContents b = Db("b.db", {"x"});
  a.results = {Result("x", "onnx", R"({"status":"fail","step":"export"})", "2026-11-30T05:00:00Z"),
               Result("x", "export", R"({"status":"ok"})")};
  b.results = {Result("x", "onnx", R"({"status":"ok"})", "2026-11-30T04:00:00Z")};
  for (auto order : {std::vector<DbContents>{a, b}, std::vector<DbContents>{b, a}}) {
    Survey s = JoinSurvey(order, {});
    EXPECT_TRUE(s.problems.empty()) << All(s);
    EXPECT_EQ(s.results.at({"x", "onnx"}).row.status, "fail");
    EXPECT_EQ(s.newest_finished, "2026-11-30T05:00:00Z");
  }
}

TEST(Survey, PathsComeInTheirOrderWhateverTheRunsAskedFirst) {
  DbContents db = Db("a.db", {"x"}, Paths({"compile", "onnx"}));
  db.results = {Result("x", "onnx", R"({"status":"ok"})"), Result("x", "compile", R"({"status":"ok"})")};
  Survey s = JoinSurvey({db}, {});
  EXPECT_TRUE(s.problems.empty()) << All(s);
  EXPECT_EQ(Ids(s), (std::vector<std::string>{"onnx", "compile"}));
}

TEST(Survey, StepsAreCheckedAgainstTheirPathsDescription) {
  DbContents db = Db("a.db", {"x"});
  db.results = {Result("x", "onnx", R"({"status":"fail","step":"ort-run"})"),
                Result("x", "export", R"({"status":"fail","step":"ort-run"})")};
  Survey s = JoinSurvey({db}, {});
  std::string all = All(s);
  EXPECT_EQ(all.find("x / onnx"), std::string::npos) << all;
  EXPECT_NE(all.find("a.db: x / export: unknown step 'ort-run' (not a step of path 'export')"), std::string::npos) << all;
}

TEST(Survey, SubVerdictsAreCheckedAgainstTheirPathsDescription) {
  DbContents db = Db("a.db", {"x", "y", "z", "w"});
  db.results = {
      Result("x", "onnx", R"({"status":"ok","subverdicts":{"openvino":{"status":"timeout","step":"run"}}})"),
      Result("y", "onnx", R"({"status":"ok","subverdicts":{"tensorrt":{"status":"ok"}}})"),
      Result("z", "onnx", R"({"status":"ok","subverdicts":{"reference":{"status":"fail","step":"compile"}}})"),
      Result("w", "onnx", R"({"status":"ok","subverdicts":{"tract":{"status":"maybe"}}})")};
  for (const char* c : {"x", "y", "z", "w"}) db.results.push_back(Result(c, "export", R"({"status":"ok"})"));
  Survey s = JoinSurvey({db}, {});
  std::string all = All(s);
  EXPECT_EQ(all.find("x / onnx"), std::string::npos) << all;  // a runtime's own timeout is fine
  EXPECT_NE(all.find("a.db: y / onnx: sub-verdict 'tensorrt' is not one that path 'onnx' describes"), std::string::npos) << all;
  EXPECT_NE(all.find("a.db: z / onnx: sub-verdict 'reference': unknown step 'compile' (not one of its steps)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("a.db: w / onnx: sub-verdict 'tract': unknown status 'maybe'"), std::string::npos) << all;
}

// Each sub-verdict is classified by its own rules; an opset's by the path's too.
TEST(Survey, SnapshotClassifiesEverySubVerdict) {
  nlohmann::json paths = nlohmann::json::parse(Paths({"onnx"}));
  paths[0]["subverdicts"].push_back(
      {{"id", "opset23"}, {"title", "opset 23"}, {"label", "op23"}, {"kind", "opset"}, {"description", ""},
       {"steps", {"export", "checker", "ort-load", "ort-run", "compare"}}});
  DbContents db = Db("a.db", {"x"}, paths.dump());
  db.results = {Result("x", "onnx", R"({"status":"ok","subverdicts":{
    "openvino":{"status":"fail","step":"load","detail":"","error":{"type":"RuntimeError","message":"No conversion rule found for operations: Det-18\nFrontEnd API failed"}},
    "tract":{"status":"timeout","step":"run","detail":"no answer within the 60 s time limit of tract (step run); the runtime host was killed","error":null},
    "reference":{"status":"ok","step":"","detail":"","error":null},
    "opset23":{"status":"fail","step":"export","detail":"","error":{"type":"DispatchError","message":"No ONNX function found for <OpOverload(op='aten._linalg_svd', overload='default')>. x","frames":["kornia/a.py:1"]}}}})")};
  Survey s = JoinSurvey({db}, {});
  ASSERT_TRUE(s.problems.empty()) << All(s);
  s.env["openvino"] = "2026.4.1";
  s.env["onnxscript"] = "0.7.2";
  RuleSet rules;
  std::string err;
  ASSERT_TRUE(LoadRules(EmbeddedRuleSources(), &rules, &err)) << err;
  Classifier classifier(rules);
  SnapshotOptions options;
  SnapshotOutput out = BuildSnapshot(s, classifier, options);
  const auto& subs = out.snapshot.records.at(0).paths.at("onnx").subverdicts;
  ASSERT_EQ(subs.size(), 4u);
  EXPECT_EQ(subs.at("openvino").reason, "openvino-missing-op");
  EXPECT_EQ(subs.at("openvino").detail, "OpenVINO 2026.4.1 has no conversion rule for ONNX Det (opset 18)");
  EXPECT_EQ(subs.at("openvino").error, "No conversion rule found for operations: Det-18");
  EXPECT_EQ(subs.at("tract").reason, "runtime-timeout");
  EXPECT_EQ(subs.at("reference").reason, "");
  EXPECT_EQ(subs.at("opset23").reason, "onnx-missing-lowering");
  EXPECT_EQ(subs.at("opset23").location, "kornia/a.py:1");
  for (const char* id : {"openvino-missing-op", "runtime-timeout", "onnx-missing-lowering"}) {
    EXPECT_TRUE(out.snapshot.reasons.count(id)) << id;
  }
  EXPECT_EQ(out.unclassified, 0u);
  EXPECT_NE(out.snapshot_json.find(R"("subverdicts": {)"), std::string::npos);
}

TEST(Survey, ASchemaOneRunIsNotReadable) {
  DbContents db = Db("a.db", {"x"}, R"(["onnx","export"])");
  Survey s = JoinSurvey({db}, {});
  EXPECT_NE(All(s).find("a.db: run 1 has no readable path descriptions (a path description is not an object)"),
            std::string::npos)
      << All(s);
}

TEST(Survey, EachPathKeepsItsOwnHarnessAndEnvFields) {
  DbContents db = Db("a.db", {"x", "y"});
  auto result = [](const std::string& name, const std::string& path, const std::string& fields) {
    StoredResult r = Result(name, path, R"({"status":"ok"})");
    r.key_fields_json = fields;
    return r;
  };
  const std::string onnx = R"({"case":"f","path":"onnx","harness":"h-onnx","torch":"2.13","onnxruntime":"1.32"})";
  const std::string exported = R"({"case":"f","path":"export","harness":"h-export","torch":"2.13"})";
  db.results = {result("x", "onnx", onnx), result("y", "onnx", onnx), result("x", "export", exported),
                result("y", "export", exported)};
  Survey s = JoinSurvey({db}, {});
  EXPECT_TRUE(s.problems.empty()) << All(s);  // different harnesses and fields per path are fine
  db.results[1].key_fields_json = R"({"case":"f","path":"onnx","harness":"h-new","torch":"2.13"})";
  s = JoinSurvey({db}, {});
  EXPECT_EQ(All(s),
            "results were measured under different environments: harness (path onnx) is 'h-new' in 1 result (a.db), "
            "'h-onnx' in 1 result (a.db)\n"
            "results were measured under different environments: onnxruntime is '1.32' in 1 result (a.db), missing in "
            "1 result\n");
}

TEST(Survey, RegistriesPathsAndInventoriesMustAgree) {
  DbContents a = Db("a.db", {"x", "y"});
  DbContents b = Db("b.db", {"x", "z"}, Paths({"onnx"}));
  b.inventory[0].fingerprint = "changed";
  DbContents empty = Db("c.db", {});
  Survey s = JoinSurvey({a, b, empty}, {});
  std::string all = All(s);
  EXPECT_NE(all.find("c.db: has no inventory"), std::string::npos) << all;
  EXPECT_NE(all.find("a.db and b.db come from different registries: 1 case only in a.db (y), 1 only in b.db (z), 1 defined "
                     "differently (x)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("a.db and b.db probed different paths: onnx, export in a.db but onnx in b.db"), std::string::npos) << all;
}

TEST(Survey, BadRecordsAreProblemsAndLeftOut) {
  DbContents db = Db("a.db", {"x", "y"}, Paths({"compile"}));
  db.results = {Result("x", "compile", R"({"status":"ok","graph_breaks":-1})"),
                Result("y", "compile", R"({"status":"ok-breaks","graph_breaks":2.5})")};
  StoredResult broken = Result("x", "compile", R"({"status":"ok"})");
  broken.case_name = "gone";  // a case no longer in the inventory: a note, not a problem
  db.results.push_back(broken);
  Survey s = JoinSurvey({db}, {});
  std::string all = All(s);
  EXPECT_NE(all.find("a.db: x / compile: graph_breaks is -1 (must be 0 or more)"), std::string::npos) << all;
  EXPECT_NE(all.find("a.db: y / compile: graph_breaks is 2.5 (must be a whole number, 0 or more)"), std::string::npos) << all;
  EXPECT_NE(all.find("2 of 2 jobs have no result"), std::string::npos) << all;
  EXPECT_TRUE(s.results.empty());
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("1 stored results of cases that are no longer in the inventory"), std::string::npos);
}

TEST(Survey, SnapshotIsByteStableAndScrubbed) {
  DbContents db = Db("a.db", {"Op[v=1][random]"}, Paths({"onnx"}));
  db.results = {Result("Op[v=1][random]", "onnx",
                       R"({"status":"fail","step":"export","detail":"","error":{"type":"RuntimeError","message":"boom at /home/bob/x/y.py:3\nmore","chain":"","frames":["kornia/a.py:1","kornia/b.py:2"]}})")};
  Survey s = JoinSurvey({db}, {});
  ASSERT_TRUE(s.problems.empty()) << All(s);
  RuleSet rules;
  Classifier classifier(rules);
  SnapshotOptions options;
  options.tool_version = "9.9.9";
  SnapshotOutput a = BuildSnapshot(s, classifier, options);
  SnapshotOutput b = BuildSnapshot(s, classifier, options);
  EXPECT_EQ(a.snapshot_json, b.snapshot_json);
  EXPECT_EQ(a.unclassified, 1u);
  EXPECT_EQ(a.snapshot_json.back(), '\n');
  EXPECT_EQ(a.snapshot_json.find("/home/"), std::string::npos);
  EXPECT_NE(a.snapshot_json.find(R"("error": "boom at ~/x/y.py:3")"), std::string::npos) << a.snapshot_json;
  EXPECT_NE(a.snapshot_json.find(R"("location": "kornia/a.py:1")"), std::string::npos);  // innermost first
  EXPECT_NE(a.snapshot_json.find(R"("variant": "v=1, random")"), std::string::npos);
  EXPECT_NE(a.snapshot_json.find(R"("section": "epipolar")"), std::string::npos);
  EXPECT_NE(a.snapshot_json.find(R"("version": "9.9.9")"), std::string::npos);
}

// A dynamic-shape record's findings reach the snapshot, cleaned; a static path's outcome has no
// "dynamic" key at all (its bytes do not change).
TEST(Survey, DynamicFindingsReachTheSnapshot) {
  DbContents db = Db("a.db", {"rotate"}, Paths({"export", "compile-dynamic"}));
  db.results = {
      Result("rotate", "export", R"({"status":"ok"})"),
      Result("rotate", "compile-dynamic",
             R"j({"status":"ok-recompiles","detail":"recompiles on every new H: size of x0[2] == 48 (2 recompiles)",)j"
             R"j("dynamic":{"dims":{"0":[0,2,3]},"names":{"0":["batch","H","W"]},"source":"default",)j"
             R"j("shapes":[[[1,3,32,40]],[[2,3,48,56]],[[3,3,64,72]]],"trace":0,"recompiles":2,)j"
             R"j("guards":["size of x0[0] == 1","(x0[2] // 16) == 3 at /home/bob/kornia/f.py:12 in g"],)j"
             R"j("specialised":[{"input":0,"dim":2,"name":"H","kind":"constant","value":48,"why":"size of x0[2] == 48",)j"
             R"j("source":"compile"}],"per_shape":[]}})j")};
  Survey s = JoinSurvey({db}, {});
  ASSERT_TRUE(s.problems.empty()) << All(s);
  RuleSet rules;
  Classifier classifier(rules);
  SnapshotOutput out = BuildSnapshot(s, classifier, SnapshotOptions{});
  const nlohmann::json j = nlohmann::json::parse(out.snapshot_json);
  const nlohmann::json& dyn = j["records"][0]["paths"]["compile-dynamic"]["dynamic"];
  EXPECT_EQ(dyn["shapes"], nlohmann::json({"1x3x32x40", "2x3x48x56", "3x3x64x72"}));
  EXPECT_EQ(dyn["trace"], 0);
  EXPECT_EQ(dyn["recompiles"], 2);
  EXPECT_EQ(dyn["specialised"], nlohmann::json::parse(R"([{"name":"H","kind":"constant","why":"size of x0[2] == 48"}])"));
  EXPECT_EQ(dyn["guards"][1], "(x0[2] // 16) == 3 at kornia/f.py:12 in g");  // cleaned like every text
  EXPECT_EQ(j["records"][0]["paths"]["compile-dynamic"]["reason"], nullptr);  // supported: no reason
  EXPECT_FALSE(j["records"][0]["paths"]["export"].contains("dynamic"));
  // the group reaches the header; an ungrouped path has no such key
  EXPECT_EQ(j["paths"][1]["group"], "dynamic shapes");
  EXPECT_FALSE(j["paths"][0].contains("group"));
}

TEST(Survey, ADynamicFieldThatIsNotAnObjectIsAProblem) {
  DbContents db = Db("a.db", {"x"}, Paths({"export-dynamic"}));
  db.results = {Result("x", "export-dynamic", R"({"status":"ok-static","dynamic":[1,2]})")};
  Survey s = JoinSurvey({db}, {});
  EXPECT_NE(All(s).find("a.db: x / export-dynamic: dynamic is neither null nor an object"), std::string::npos) << All(s);
}

}  // namespace
}  // namespace opsweep
