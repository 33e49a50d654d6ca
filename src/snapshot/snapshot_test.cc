#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "snapshot/snapshot_reader.h"
#include "snapshot/snapshot_writer.h"
#include "testing/bundled_paths.h"

namespace opsweep::snapshot {
namespace {

using nlohmann::json;

json OutcomeJson(const char* status) {
  return {{"status", status}, {"step", ""}, {"reason", nullptr}, {"detail", ""}, {"error", ""},
          {"location", ""}, {"graph_breaks", nullptr}, {"break_reasons", json::array()},
          {"op_types", json::array()}};
}

json RecordJson(const std::string& name, const char* onnx = "ok", const char* compile = "ok") {
  return {{"name", name}, {"operator", name}, {"variant", ""}, {"package", "color"},
          {"section", ""}, {"group", "color"}, {"target", "kornia.color." + name}, {"note", ""},
          {"tags", json::array()}, {"check", true}, {"api", nullptr},
          {"paths", {{"onnx", OutcomeJson(onnx)}, {"compile", OutcomeJson(compile)}}}};
}

json PathsJson(std::initializer_list<const char*> ids) {
  json out = json::array();
  for (const PathSpec& p : testing::BundledPaths()) {
    for (const char* id : ids) {
      if (p.id == id) out.push_back(PathSpecSnapshotJson(p));
    }
  }
  return out;
}

json Minimal() {
  return {{"schema", 2},
          {"generated", "2026-11-30"},
          {"tool", {{"name", "opsweep"}, {"version", "0.1.0"}}},
          {"library", {{"name", "kornia"}, {"version", "0.9.0"}, {"fingerprint", "ab"}}},
          {"environment", {{"torch", "2.9.1"}, {"python", "3.11.7"}, {"opset", 18}, {"device", "cpu"}}},
          {"paths", PathsJson({"onnx", "compile"})},
          {"cross_references", false},
          {"reasons", {{"r1", {{"title", "T"}, {"cause", "C"}, {"hint", "H"}, {"component", "kornia"}}}}},
          {"unclassified", 0},
          {"records", {RecordJson("a"), RecordJson("b", "fail", "ok-breaks")}}};
}

std::string ErrorOf(const json& snapshot) {
  Snapshot out;
  std::string err;
  EXPECT_FALSE(ReadSnapshot(snapshot.dump(), &out, &err));
  return err;
}

TEST(SnapshotReader, ReadsAValidSnapshot) {
  json j = Minimal();
  j["records"][1]["paths"]["compile"]["graph_breaks"] = 2;
  j["records"][1]["paths"]["compile"]["break_reasons"] = {{{"reason", "r1"}, {"text", "Tensor.item() call"}}};
  j["records"][1]["paths"]["onnx"]["reason"] = "r1";
  j["records"][1]["paths"]["onnx"]["step"] = "ort-run";
  j["records"][1]["api"] = "kornia.color.b";
  Snapshot snapshot;
  std::string err;
  ASSERT_TRUE(ReadSnapshot(j.dump(2), &snapshot, &err)) << err;
  EXPECT_EQ(snapshot.library_name, "kornia");
  EXPECT_EQ(snapshot.EnvironmentText("opset"), "18");
  EXPECT_EQ(snapshot.EnvironmentText("torch"), "2.9.1");
  EXPECT_EQ(snapshot.EnvironmentText("onnx"), "");
  ASSERT_EQ(snapshot.paths.size(), 2u);
  EXPECT_EQ(snapshot.paths[1].title, "torch.compile");
  ASSERT_EQ(snapshot.records.size(), 2u);
  const Record& b = snapshot.records[1];
  EXPECT_EQ(b.paths.at("onnx").status, Status::fail);
  EXPECT_EQ(b.paths.at("onnx").reason, "r1");
  EXPECT_EQ(b.paths.at("compile").graph_breaks, 2);
  ASSERT_EQ(b.paths.at("compile").break_reasons.size(), 1u);
  EXPECT_EQ(b.paths.at("compile").break_reasons[0].text, "Tensor.item() call");
  EXPECT_EQ(b.api, "kornia.color.b");
  EXPECT_FALSE(snapshot.records[0].api.has_value());
}

TEST(SnapshotWriter, WritesWhatTheReaderReadsToTheByte) {
  json j = Minimal();
  j["records"][1]["paths"]["compile"]["graph_breaks"] = 2;
  j["records"][1]["paths"]["compile"]["break_reasons"] = {{{"reason", "r1"}, {"text", "Tensor.item() call"}}};
  j["records"][1]["paths"]["onnx"]["reason"] = "r1";
  j["records"][1]["tags"] = {"random"};
  j["records"][0]["api"] = "kornia.color.a";
  j["records"][0]["api_uri"] = "color.html#kornia.color.a";
  const std::string text = j.dump(2) + "\n";
  Snapshot snapshot;
  std::string err;
  ASSERT_TRUE(ReadSnapshot(text, &snapshot, &err)) << err;
  EXPECT_EQ(WriteSnapshot(snapshot), text);
}

// The optional fields (checks, notes, a break reason's location) read and write back to the byte;
// without them the outcome is written exactly as before they existed.
TEST(SnapshotWriter, OptionalOutcomeFieldsRoundTripAndAreOmittedWhenEmpty) {
  json j = Minimal();
  json& onnx = j["records"][0]["paths"]["onnx"];
  onnx["checks"] = {{"fresh_inputs", "passed"}, {"randomness", "not run: eager gives the same outputs"}};
  onnx["notes"] = {"the worker restored torch's thread-local state"};
  j["records"][1]["paths"]["compile"]["graph_breaks"] = 1;
  j["records"][1]["paths"]["compile"]["break_reasons"] = {
      {{"location", "kornia/filters/x.py:40"}, {"reason", "r1"}, {"text", "Tensor.item() call"}}};
  const std::string text = j.dump(2) + "\n";
  Snapshot snapshot;
  std::string err;
  ASSERT_TRUE(ReadSnapshot(text, &snapshot, &err)) << err;
  const Outcome& a = snapshot.records[0].paths.at("onnx");
  ASSERT_EQ(a.checks.size(), 2u);
  EXPECT_EQ(a.checks.at("fresh_inputs").state, CheckState::passed);
  EXPECT_EQ(a.checks.at("randomness").state, CheckState::not_run);
  EXPECT_EQ(a.checks.at("randomness").why, "eager gives the same outputs");
  EXPECT_EQ(a.notes, std::vector<std::string>{"the worker restored torch's thread-local state"});
  EXPECT_EQ(snapshot.records[1].paths.at("compile").break_reasons[0].location, "kornia/filters/x.py:40");
  EXPECT_EQ(WriteSnapshot(snapshot), text);

  json bare = Minimal();
  ASSERT_TRUE(ReadSnapshot(bare.dump(), &snapshot, &err)) << err;
  const json written = json::parse(WriteSnapshot(snapshot));
  for (const char* key : {"checks", "notes"}) EXPECT_FALSE(written["records"][0]["paths"]["onnx"].contains(key)) << key;
  EXPECT_EQ(WriteSnapshot(snapshot), bare.dump(2) + "\n");
}

TEST(SnapshotReader, RefusesMalformedChecksAndNotes) {
  json j = Minimal();
  j["records"][0]["paths"]["onnx"]["checks"] = {{"fresh_inputs", "maybe"}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx: check 'fresh_inputs' does not start with 'passed', 'failed' or "
                        "'not run' (then optionally ': ' and why)");
  j = Minimal();
  j["records"][0]["paths"]["onnx"]["checks"] = {{"fresh_inputs", {{"ran", true}}}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx: check 'fresh_inputs' is not a string");
  j = Minimal();
  j["records"][0]["paths"]["onnx"]["checks"] = {{"Fresh Inputs", "passed"}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx: check id 'Fresh Inputs' is not lowercase letters, digits, '_' or '-'");
  j = Minimal();
  j["records"][0]["paths"]["onnx"]["checks"] = "passed";
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx: 'checks' is not an object");
  j = Minimal();
  j["records"][0]["paths"]["onnx"]["notes"] = {1};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx: 'notes' holds a non-string");
  j = Minimal();
  j["records"][0]["paths"]["compile"]["break_reasons"] = {{{"reason", "r1"}, {"text", "t"}, {"location", 3}}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.compile: 'location' is not a string");
}

json SubJson(const char* status, const char* step = "", const char* reason = nullptr) {
  return {{"status", status}, {"step", step}, {"reason", reason ? json(reason) : json(nullptr)},
          {"detail", "d"}, {"error", ""}, {"location", ""}};
}

TEST(SnapshotReader, SubVerdictsRoundTripUnderTheirPath) {
  json j = Minimal();
  json openvino = SubJson("fail", "load", "r1");
  openvino["checks"] = {{"fresh_inputs", "not run: the capture already differs on its trace inputs"}};
  j["records"][0]["paths"]["onnx"]["subverdicts"] = {{"openvino", openvino}, {"reference", SubJson("ok")}};
  const std::string text = j.dump(2) + "\n";
  Snapshot snapshot;
  std::string err;
  ASSERT_TRUE(ReadSnapshot(text, &snapshot, &err)) << err;
  const auto& subs = snapshot.records[0].paths.at("onnx").subverdicts;
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs.at("openvino").status, Status::fail);
  EXPECT_EQ(subs.at("openvino").reason, "r1");
  EXPECT_EQ(subs.at("openvino").checks.at("fresh_inputs").state, CheckState::not_run);
  EXPECT_TRUE(subs.at("reference").checks.empty());
  EXPECT_TRUE(snapshot.records[1].paths.at("onnx").subverdicts.empty());
  EXPECT_EQ(WriteSnapshot(snapshot), text);  // none written where there are none
}

TEST(SnapshotReader, RefusesSubVerdictsTheirPathDoesNotDescribe) {
  json j = Minimal();
  j["records"][0]["paths"]["onnx"]["subverdicts"] = {{"tensorrt", SubJson("ok")}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx.subverdicts.tensorrt: path 'onnx' describes no sub-verdict 'tensorrt'");
  j["records"][0]["paths"]["onnx"]["subverdicts"] = {{"reference", SubJson("fail", "compile")}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx.subverdicts.reference: step 'compile' is not a step of sub-verdict "
                        "'reference'");
  j["records"][0]["paths"]["onnx"]["subverdicts"] = {{"tract", SubJson("fail", "load", "nope")}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx.subverdicts.tract: reason 'nope' is not in 'reasons'");
  j["records"][0]["paths"]["onnx"]["subverdicts"] = {{"tract", SubJson("maybe")}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx.subverdicts.tract: unknown status 'maybe'");
}

TEST(SnapshotWriter, DynamicFindingsRoundTripToTheByte) {
  json j = Minimal();
  j["records"][0]["paths"]["compile"]["status"] = "ok-recompiles";
  j["records"][0]["paths"]["compile"]["dynamic"] = {
      {"shapes", {"1x3x32x40", "2x3x48x56", "3x3x64x72"}}, {"trace", 0}, {"recompiles", 2},
      {"guards", {"size of x0[2] == 48"}},
      {"specialised", {{{"name", "H"}, {"kind", "constant"}, {"why", "size of x0[2] == 48"}}}}};
  const std::string text = j.dump(2) + "\n";
  Snapshot snapshot;
  std::string err;
  ASSERT_TRUE(ReadSnapshot(text, &snapshot, &err)) << err;
  const Outcome& o = snapshot.records[0].paths.at("compile");
  ASSERT_TRUE(o.dynamic.has_value());
  EXPECT_EQ(o.status, Status::ok_recompiles);
  EXPECT_EQ(o.dynamic->recompiles, 2);
  EXPECT_EQ(o.dynamic->specialised.at(0).name, "H");
  EXPECT_FALSE(snapshot.records[0].paths.at("onnx").dynamic.has_value());
  EXPECT_EQ(WriteSnapshot(snapshot), text);
}

TEST(SnapshotReader, RefusesABadDynamicObject) {
  json j = Minimal();
  j["records"][0]["paths"]["compile"]["dynamic"] = {{"shapes", {"1x3"}}, {"trace", 3}};
  EXPECT_NE(ErrorOf(j).find("'trace' is not the index of one of its shapes"), std::string::npos) << ErrorOf(j);
  j["records"][0]["paths"]["compile"]["dynamic"] = {{"specialised", {{{"kind", "constant"}}}}};
  EXPECT_NE(ErrorOf(j).find("missing 'name'"), std::string::npos) << ErrorOf(j);
  j["records"][0]["paths"]["compile"]["dynamic"] = "static";
  EXPECT_NE(ErrorOf(j).find("'dynamic' is not an object"), std::string::npos) << ErrorOf(j);
}

TEST(SnapshotReader, AnUnversionedLibraryIsRead) {
  json j = Minimal();
  j["library"]["version"] = "";
  Snapshot snapshot;
  std::string err;
  ASSERT_TRUE(ReadSnapshot(j.dump(), &snapshot, &err)) << err;
  EXPECT_EQ(snapshot.library_version, "");
  j["library"].erase("version");
  EXPECT_EQ(ErrorOf(j), "library: missing 'version'");
}

TEST(SnapshotReader, RefusesInvalidJsonWithAPosition) {
  Snapshot out;
  std::string err;
  EXPECT_FALSE(ReadSnapshot("{\"schema\": 2,\n \"records\": [", &out, &err));
  EXPECT_NE(err.find("not valid JSON"), std::string::npos) << err;
  EXPECT_NE(err.find("line 2"), std::string::npos) << err;
  EXPECT_FALSE(ReadSnapshot("", &out, &err));
  EXPECT_FALSE(ReadSnapshot("{} trailing", &out, &err));
  EXPECT_FALSE(ReadSnapshot("[1, 2]", &out, &err));
  EXPECT_NE(err.find("not an opsweep snapshot"), std::string::npos) << err;
}

TEST(SnapshotReader, RefusesOtherSchemaVersionsInOneLine) {
  json j = Minimal();
  j["schema"] = 1;
  EXPECT_EQ(ErrorOf(j), "snapshot schema 1 is not supported (this opsweep reads 2; scripts/migrate_snapshot_v1.py "
                        "converts schema 1)");
  j["schema"] = 3;
  EXPECT_EQ(ErrorOf(j), "snapshot schema 3 is not supported (this opsweep reads 2; upgrade opsweep)");
  j.erase("schema");
  EXPECT_EQ(ErrorOf(j), "not an opsweep snapshot (no 'schema')");
}

TEST(SnapshotReader, NamesTheRecordAndFieldThatIsWrong) {
  json j = Minimal();
  j["records"][1]["paths"]["onnx"]["status"] = "weird";
  EXPECT_EQ(ErrorOf(j), "records[1] 'b' paths.onnx: unknown status 'weird'");

  j = Minimal();
  j["records"][0].erase("operator");
  EXPECT_EQ(ErrorOf(j), "records[0] 'a': missing 'operator'");

  j = Minimal();
  j["records"][0]["paths"].erase("compile");
  EXPECT_EQ(ErrorOf(j), "records[0] 'a': no outcome for path 'compile'");

  j = Minimal();
  j["records"][0]["paths"]["export"] = OutcomeJson("ok");
  EXPECT_EQ(ErrorOf(j), "records[0] 'a': outcome for path 'export', which is not in 'paths'");

  j = Minimal();
  j["records"][0]["paths"]["onnx"]["reason"] = "nope";
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx: reason 'nope' is not in 'reasons'");

  j = Minimal();
  j["records"][0]["paths"]["compile"]["step"] = "ort-run";  // an onnx step
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.compile: step 'ort-run' is not a step of path 'compile'");

  j = Minimal();
  j["records"][0]["paths"]["compile"]["break_reasons"] = {"graph-break-data-dependent"};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.compile: a break reason is not an object {\"reason\", \"text\"}");

  j = Minimal();
  j["records"][0]["paths"]["compile"]["break_reasons"] = {{{"reason", "nope"}, {"text", "t"}}};
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.compile: break reason 'nope' is not in 'reasons'");

  j = Minimal();
  j["records"][0]["paths"]["compile"]["graph_breaks"] = -1;
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.compile: 'graph_breaks' is -1 (must be 0 or more)");

  j = Minimal();
  j["records"][1]["name"] = "a";
  EXPECT_EQ(ErrorOf(j), "records[1]: duplicate record name 'a'");

  j = Minimal();
  j["records"][0]["check"] = "yes";
  EXPECT_EQ(ErrorOf(j), "records[0] 'a': 'check' is not true or false");
}

TEST(SnapshotReader, RefusesMissingHeaderFields) {
  for (const char* key : {"generated", "library", "environment", "paths", "reasons", "records"}) {
    json j = Minimal();
    j.erase(key);
    EXPECT_NE(ErrorOf(j).find(key), std::string::npos) << key;
  }
  json j = Minimal();
  j["paths"].push_back(j["paths"][0]);
  EXPECT_EQ(ErrorOf(j), "paths: path 'onnx' is described twice");
  j = Minimal();
  j["paths"] = {"onnx", "compile"};  // schema 1 listed ids only
  EXPECT_EQ(ErrorOf(j), "paths: a path description is not an object");
  j = Minimal();
  j["paths"][0].erase("title");
  EXPECT_EQ(ErrorOf(j), "paths: path 'onnx': 'title' is missing or not a string");
  j = Minimal();
  j["environment"]["torch"] = {{"v", 1}};
  EXPECT_EQ(ErrorOf(j), "environment: 'torch' is not a value");
}

// Like ninja's log test: a snapshot cut at any length is refused, never crashes the reader.
TEST(SnapshotReader, EveryTruncationIsRefused) {
  const std::string text = Minimal().dump(2);
  for (std::size_t n = 0; n < text.size(); ++n) {
    Snapshot out;
    std::string err;
    EXPECT_FALSE(ReadSnapshot(std::string_view(text).substr(0, n), &out, &err)) << n;
    EXPECT_FALSE(err.empty()) << n;
    EXPECT_EQ(err.find('\n'), std::string::npos) << n;
  }
}

}  // namespace
}  // namespace opsweep::snapshot
