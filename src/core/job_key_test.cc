#include "core/job_key.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace opsweep {
namespace {

KeyEnvironment Env() {
  KeyEnvironment env;
  std::string err;
  EXPECT_TRUE(KeyEnvironmentFromHello(
      "h1",
      R"({"python":"3.11","torch":"2.13.0+cpu","onnx":"1.2","onnxscript":"0.7","onnxruntime":"1.3","numpy":"2.4",)"
      R"("opset":18,"device":"cpu","library":{"name":"kornia","version":"0.9.0","fingerprint":"abc"}})",
      &env, &err));
  return env;
}

TEST(JobKey, KeepsFieldsInTagOrder) {
  JobKey k = ComputeJobKey("fp1", "onnx", Env());
  EXPECT_EQ(k.fields_json,
            R"({"case":"fp1","path":"onnx","harness":"h1","python":"3.11","torch":"2.13.0+cpu","onnx":"1.2",)"
            R"("onnxscript":"0.7","onnxruntime":"1.3","numpy":"2.4","opset":"18","device":"cpu",)"
            R"("library":"kornia 0.9.0 abc"})");
  EXPECT_EQ(k.digest.size(), 32u);
  EXPECT_EQ(k.digest, ComputeJobKey("fp1", "onnx", Env()).digest);
}

TEST(JobKey, EveryFieldChangesTheKey) {
  KeyEnvironment base = Env();
  std::string d = ComputeJobKey("fp1", "onnx", base).digest;
  EXPECT_NE(d, ComputeJobKey("fp2", "onnx", base).digest);
  EXPECT_NE(d, ComputeJobKey("fp1", "export", base).digest);
  for (std::string KeyEnvironment::*field :
       {&KeyEnvironment::harness, &KeyEnvironment::python, &KeyEnvironment::torch, &KeyEnvironment::onnx,
        &KeyEnvironment::onnxscript, &KeyEnvironment::onnxruntime, &KeyEnvironment::numpy, &KeyEnvironment::opset,
        &KeyEnvironment::device, &KeyEnvironment::library}) {
    KeyEnvironment e = base;
    e.*field += "x";
    EXPECT_NE(d, ComputeJobKey("fp1", "onnx", e).digest);
  }
}

TEST(JobKey, MissingFieldsAreEmpty) {
  KeyEnvironment env;
  std::string err;
  ASSERT_TRUE(KeyEnvironmentFromHello("h", R"({"torch":null})", &env, &err));
  EXPECT_EQ(env.torch, "");
  EXPECT_EQ(env.library, "");
  EXPECT_FALSE(KeyEnvironmentFromHello("h", "[1]", &env, &err));
}

TEST(ChangedKeyFields, NamesWhatChanged) {
  KeyEnvironment e = Env();
  JobKey a = ComputeJobKey("fp1", "onnx", e);
  e.torch = "2.14";
  e.harness = "h2";
  JobKey b = ComputeJobKey("fp1", "onnx", e);
  EXPECT_EQ(ChangedKeyFields(a.fields_json, b.fields_json), (std::vector<std::string>{"harness", "torch"}));
  EXPECT_TRUE(ChangedKeyFields(a.fields_json, a.fields_json).empty());
  EXPECT_EQ(ChangedKeyFields("garbage", a.fields_json), (std::vector<std::string>{"key_fields_json"}));
}

}  // namespace
}  // namespace opsweep
