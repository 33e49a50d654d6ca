#include "core/job_key.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

const char* kEnv =
    R"({"python":"3.11","torch":"2.13.0+cpu","onnx":"1.2","onnxscript":"0.7","onnxruntime":"1.3","numpy":"2.4",)"
    R"("opset":18,"device":"cpu","library":{"name":"kornia","version":"0.9.0","fingerprint":"abc"}})";

KeyEnvironment Env(const char* json = kEnv) {
  KeyEnvironment env;
  std::string err;
  EXPECT_TRUE(KeyEnvironmentFromHello(json, &env, &err)) << err;
  return env;
}

PathSpec Path(const std::string& id) {
  for (const PathSpec& p : testing::BundledPaths()) {
    if (p.id == id) return p;
  }
  ADD_FAILURE() << "no bundled path " << id;
  return {};
}

TEST(JobKey, KeepsTheTagsOfItsPathInOrder) {
  PathSpec onnx = Path("onnx");
  JobKey k = ComputeJobKey("fp1", onnx, Env());
  EXPECT_EQ(k.fields_json, R"({"case":"fp1","path":"onnx","harness":")" + onnx.harness +
                               R"(","python":"3.11","torch":"2.13.0+cpu","numpy":"2.4","device":"cpu","onnx":"1.2",)"
                               R"("onnxscript":"0.7","onnxruntime":"1.3","opset":"18","openvino":"","tract":"","opsets":"",)"
                               R"("library":"kornia"})");
  EXPECT_EQ(k.digest.size(), 32u);
  EXPECT_EQ(k.digest, ComputeJobKey("fp1", onnx, Env()).digest);
  // export depends on fewer fields: only those are in its key.
  PathSpec exp = Path("export");
  EXPECT_EQ(ComputeJobKey("fp1", exp, Env()).fields_json,
            R"({"case":"fp1","path":"export","harness":")" + exp.harness +
                R"(","python":"3.11","torch":"2.13.0+cpu","numpy":"2.4","device":"cpu","library":"kornia"})");
}

TEST(JobKey, EveryFieldOfItsPathChangesTheKey) {
  PathSpec p = testing::TestPath("toy", {"capture"}, {"python", "torch", "opset"});
  KeyEnvironment base = Env();
  std::string d = ComputeJobKey("fp1", p, base).digest;
  EXPECT_NE(d, ComputeJobKey("fp2", p, base).digest);
  PathSpec other = p;
  other.id = "toy2";
  EXPECT_NE(d, ComputeJobKey("fp1", other, base).digest);
  other = p;
  other.harness += "x";
  EXPECT_NE(d, ComputeJobKey("fp1", other, base).digest);
  for (const char* field : {"python", "torch", "opset"}) {
    KeyEnvironment e = base;
    e.values[field] += "x";
    EXPECT_NE(d, ComputeJobKey("fp1", p, e).digest) << field;
  }
  KeyEnvironment e = base;
  e.library += "x";
  EXPECT_NE(d, ComputeJobKey("fp1", p, e).digest);
}

TEST(JobKey, AnOnnxruntimeUpgradeChangesOnnxKeysOnly) {
  KeyEnvironment before = Env();
  KeyEnvironment after = before;
  after.values["onnxruntime"] = "1.33.0";
  for (const PathSpec& p : testing::BundledPaths()) {
    bool changed = ComputeJobKey("fp", p, before).digest != ComputeJobKey("fp", p, after).digest;
    EXPECT_EQ(changed, p.id == "onnx" || p.id == "onnx-dynamic") << p.id;  // the paths that run onnxruntime
  }
}

TEST(JobKey, TheLibrarysSourcesAreNotInTheKey) {
  // What of the library a result depends on is its record's deps (core/rerun.h): an edit of any
  // library file must not make every key stale.
  KeyEnvironment a = Env();
  KeyEnvironment b = Env(R"({"python":"3.11","torch":"2.13.0+cpu","onnx":"1.2","onnxscript":"0.7","onnxruntime":"1.3",)"
                         R"("numpy":"2.4","opset":18,"device":"cpu","library":{"name":"kornia","version":"0.9.1",)"
                         R"("fingerprint":"def"}})");
  EXPECT_EQ(a.library_fingerprint, "abc");
  EXPECT_EQ(b.library_fingerprint, "def");
  for (const PathSpec& p : testing::BundledPaths()) {
    EXPECT_EQ(ComputeJobKey("fp", p, a).digest, ComputeJobKey("fp", p, b).digest) << p.id;
  }
}

TEST(JobKey, MissingFieldsAreEmpty) {
  KeyEnvironment env = Env(R"({"torch":null})");
  EXPECT_EQ(env.values["torch"], "");
  EXPECT_EQ(env.library, "");
  JobKey k = ComputeJobKey("fp", testing::TestPath("toy", {"capture"}, {"torch", "numpy"}), env);
  EXPECT_EQ(k.fields_json, R"({"case":"fp","path":"toy","harness":"h-toy","torch":"","numpy":"","library":""})");
  std::string err;
  EXPECT_FALSE(KeyEnvironmentFromHello("[1]", &env, &err));
}

TEST(ChangedKeyFields, NamesWhatChanged) {
  PathSpec p = Path("onnx");
  KeyEnvironment e = Env();
  JobKey a = ComputeJobKey("fp1", p, e);
  e.values["torch"] = "2.14";
  p.harness = "h2";
  JobKey b = ComputeJobKey("fp1", p, e);
  EXPECT_EQ(ChangedKeyFields(a.fields_json, b.fields_json), (std::vector<std::string>{"harness", "torch"}));
  EXPECT_TRUE(ChangedKeyFields(a.fields_json, a.fields_json).empty());
  EXPECT_EQ(ChangedKeyFields("garbage", a.fields_json), (std::vector<std::string>{"key_fields_json"}));
}

}  // namespace
}  // namespace opsweep
