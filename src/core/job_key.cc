#include "core/job_key.h"

#include <nlohmann/json.hpp>

#include "util/hash.h"

namespace opsweep {

namespace {
std::string FieldText(const nlohmann::json& obj, const char* name) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}
}  // namespace

bool KeyEnvironmentFromHello(const std::string& harness, const std::string& env_json, KeyEnvironment* out,
                             std::string* err) {
  nlohmann::json env = nlohmann::json::parse(env_json, nullptr, /*allow_exceptions=*/false);
  if (!env.is_object()) {
    *err = "hello: env is not a JSON object";
    return false;
  }
  out->harness = harness;
  out->python = FieldText(env, "python");
  out->torch = FieldText(env, "torch");
  out->onnx = FieldText(env, "onnx");
  out->onnxscript = FieldText(env, "onnxscript");
  out->onnxruntime = FieldText(env, "onnxruntime");
  out->numpy = FieldText(env, "numpy");
  out->opset = FieldText(env, "opset");
  out->device = FieldText(env, "device");
  out->library.clear();
  auto lib = env.find("library");
  if (lib != env.end() && lib->is_object()) {
    out->library = FieldText(*lib, "name") + " " + FieldText(*lib, "version") + " " + FieldText(*lib, "fingerprint");
  }
  return true;
}

JobKey ComputeJobKey(std::string_view case_fingerprint, std::string_view path, const KeyEnvironment& env) {
  TaggedHasher h;
  h.Add("case", case_fingerprint);
  h.Add("path", path);
  h.Add("harness", env.harness);
  h.Add("python", env.python);
  h.Add("torch", env.torch);
  h.Add("onnx", env.onnx);
  h.Add("onnxscript", env.onnxscript);
  h.Add("onnxruntime", env.onnxruntime);
  h.Add("numpy", env.numpy);
  h.Add("opset", env.opset);
  h.Add("device", env.device);
  h.Add("library", env.library);
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for (const auto& [tag, value] : h.fields()) fields[tag] = value;
  return JobKey{h.HexDigest(), fields.dump()};
}

std::vector<std::string> ChangedKeyFields(const std::string& old_fields_json, const std::string& new_fields_json) {
  auto a = nlohmann::ordered_json::parse(old_fields_json, nullptr, false);
  auto b = nlohmann::ordered_json::parse(new_fields_json, nullptr, false);
  if (!a.is_object() || !b.is_object()) return {"key_fields_json"};
  std::vector<std::string> changed;
  for (auto it = b.begin(); it != b.end(); ++it) {
    auto old = a.find(it.key());
    if (old == a.end() || *old != it.value()) changed.push_back(it.key());
  }
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (!b.contains(it.key())) changed.push_back(it.key());
  }
  return changed;
}

}  // namespace opsweep
