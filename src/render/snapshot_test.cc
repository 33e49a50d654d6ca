#include "render/snapshot.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace opsweep::render {
namespace {

using nlohmann::json;

json Outcome(const char* status) {
  return {{"status", status}, {"step", ""}, {"reason", nullptr}, {"detail", ""}, {"error", ""},
          {"location", ""}, {"graph_breaks", nullptr}, {"break_reasons", json::array()},
          {"op_types", json::array()}};
}

json Record(const std::string& name, const char* onnx = "ok", const char* compile = "ok") {
  return {{"name", name}, {"operator", name}, {"variant", ""}, {"package", "color"},
          {"section", ""}, {"group", "color"}, {"target", "kornia.color." + name}, {"note", ""},
          {"tags", json::array()}, {"check", true}, {"api", nullptr},
          {"paths", {{"onnx", Outcome(onnx)}, {"compile", Outcome(compile)}}}};
}

json Minimal() {
  return {{"schema", 1},
          {"generated", "2026-11-30"},
          {"tool", {{"name", "opsweep"}, {"version", "0.1.0"}}},
          {"library", {{"name", "kornia"}, {"version", "0.9.0"}, {"fingerprint", "ab"}}},
          {"environment", {{"torch", "2.9.1"}, {"python", "3.11.7"}}},
          {"opset", 18},
          {"device", "cpu"},
          {"paths", {"onnx", "compile"}},
          {"cross_references", false},
          {"reasons", {{"r1", {{"title", "T"}, {"cause", "C"}, {"hint", "H"}, {"component", "kornia"}}}}},
          {"unclassified", 0},
          {"records", {Record("a"), Record("b", "fail", "ok-breaks")}}};
}

std::string ErrorOf(const json& snapshot) {
  Snapshot out;
  std::string err;
  EXPECT_FALSE(ParseSnapshot(snapshot.dump(), &out, &err));
  return err;
}

TEST(SnapshotTest, ReadsAValidSnapshot) {
  json j = Minimal();
  j["records"][1]["paths"]["compile"]["graph_breaks"] = 2;
  j["records"][1]["paths"]["onnx"]["reason"] = "r1";
  j["records"][1]["api"] = "kornia.color.b";
  Snapshot snapshot;
  std::string err;
  ASSERT_TRUE(ParseSnapshot(j.dump(2), &snapshot, &err)) << err;
  EXPECT_EQ(snapshot.library_name, "kornia");
  EXPECT_EQ(snapshot.opset, "18");
  EXPECT_EQ(snapshot.environment.at("torch"), "2.9.1");
  ASSERT_EQ(snapshot.records.size(), 2u);
  const SnapshotRecord& b = snapshot.records[1];
  EXPECT_EQ(b.paths.at("onnx").status, Status::kFail);
  EXPECT_EQ(b.paths.at("onnx").reason, "r1");
  EXPECT_EQ(b.paths.at("compile").graph_breaks, 2);
  EXPECT_EQ(b.api, "kornia.color.b");
  EXPECT_FALSE(snapshot.records[0].api.has_value());
}

TEST(SnapshotTest, RefusesInvalidJsonWithAPosition) {
  Snapshot out;
  std::string err;
  EXPECT_FALSE(ParseSnapshot("{\"schema\": 1,\n \"records\": [", &out, &err));
  EXPECT_NE(err.find("not valid JSON"), std::string::npos) << err;
  EXPECT_NE(err.find("line 2"), std::string::npos) << err;
  EXPECT_FALSE(ParseSnapshot("", &out, &err));
  EXPECT_FALSE(ParseSnapshot("{} trailing", &out, &err));
  EXPECT_FALSE(ParseSnapshot("[1, 2]", &out, &err));
  EXPECT_NE(err.find("not an opsweep snapshot"), std::string::npos) << err;
}

TEST(SnapshotTest, RefusesOtherSchemaVersions) {
  json j = Minimal();
  j["schema"] = 2;
  EXPECT_EQ(ErrorOf(j), "snapshot schema 2 is not supported (this opsweep reads 1)");
  j.erase("schema");
  EXPECT_EQ(ErrorOf(j), "not an opsweep snapshot (no 'schema')");
}

TEST(SnapshotTest, NamesTheRecordAndFieldThatIsWrong) {
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
  j["records"][0]["paths"]["export"] = Outcome("ok");
  EXPECT_EQ(ErrorOf(j), "records[0] 'a': outcome for path 'export', which is not in 'paths'");

  j = Minimal();
  j["records"][0]["paths"]["onnx"]["reason"] = "nope";
  EXPECT_EQ(ErrorOf(j), "records[0] 'a' paths.onnx: reason 'nope' is not in 'reasons'");

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

TEST(SnapshotTest, RefusesMissingHeaderFields) {
  for (const char* key : {"generated", "library", "environment", "paths", "reasons", "records"}) {
    json j = Minimal();
    j.erase(key);
    EXPECT_NE(ErrorOf(j).find(key), std::string::npos) << key;
  }
  json j = Minimal();
  j["paths"] = {"onnx", "onnx"};
  EXPECT_EQ(ErrorOf(j), "paths: 'onnx' twice");
  j = Minimal();
  j["library"].erase("version");
  EXPECT_EQ(ErrorOf(j), "library: missing 'version'");
}

// Like ninja's log test: a snapshot cut at any length is refused, never crashes the reader.
TEST(SnapshotTest, EveryTruncationIsRefused) {
  const std::string text = Minimal().dump(2);
  for (std::size_t n = 0; n < text.size(); ++n) {
    Snapshot out;
    std::string err;
    EXPECT_FALSE(ParseSnapshot(std::string_view(text).substr(0, n), &out, &err)) << n;
    EXPECT_FALSE(err.empty()) << n;
    EXPECT_EQ(err.find('\n'), std::string::npos) << n;
  }
}

}  // namespace
}  // namespace opsweep::render
