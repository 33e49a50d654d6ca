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
