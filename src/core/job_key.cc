#include "core/job_key.h"

#include <nlohmann/json.hpp>

#include "util/hash.h"

namespace opsweep {

namespace {
std::string ValueText(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string FieldText(const nlohmann::json& obj, const char* name) {
  auto it = obj.find(name);
  return it == obj.end() ? "" : ValueText(*it);
}
}  // namespace

std::string LibraryKeyValue(const nlohmann::json& env) {
  auto lib = env.find("library");
  if (lib == env.end() || !lib->is_object()) return "";
  return FieldText(*lib, "name") + " " + FieldText(*lib, "version") + " " + FieldText(*lib, "fingerprint");
}

bool KeyEnvironmentFromHello(const std::string& env_json, KeyEnvironment* out, std::string* err) {
  nlohmann::json env = nlohmann::json::parse(env_json, nullptr, /*allow_exceptions=*/false);
  if (!env.is_object()) {
    *err = "hello: env is not a JSON object";
    return false;
  }
  out->values.clear();
  for (const auto& [field, value] : env.items()) {
    if (field != "library") out->values[field] = ValueText(value);
  }
  out->library = LibraryKeyValue(env);
  return true;
}

JobKey ComputeJobKey(std::string_view case_fingerprint, const PathSpec& path, const KeyEnvironment& env) {
  TaggedHasher h;
  h.Add("case", case_fingerprint);
  h.Add("path", path.id);
  h.Add("harness", path.harness);
  for (const std::string& field : path.env) {
    auto it = env.values.find(field);
    h.Add(field, it == env.values.end() ? "" : it->second);
  }
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
