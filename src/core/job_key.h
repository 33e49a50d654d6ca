// The job key (docs/formats.md section 4): what makes a stored result current. A TaggedHasher over
// the fields below, in this order of tags, each also kept as an ordered JSON object
// (key_fields_json) so that `explain` can name the field that changed.
//
//   case  path  harness  python  torch  onnx  onnxscript  onnxruntime  numpy  opset  device  library
//
// Values are the worker's hello verbatim as text: strings as they are, numbers in their JSON form
// ("18"), a missing or null field as "". `library` is "<name> <version> <fingerprint>".
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace opsweep {

// Everything in the key that comes from the worker's hello rather than from the case.
struct KeyEnvironment {
  std::string harness, python, torch, onnx, onnxscript, onnxruntime, numpy, opset, device, library;
};

// Builds the environment from hello's `harness` and `env` (the env object as JSON text). Fails
// when env is not a JSON object.
bool KeyEnvironmentFromHello(const std::string& harness, const std::string& env_json, KeyEnvironment* out,
                             std::string* err);

struct JobKey {
  std::string digest;       // hex
  std::string fields_json;  // {"case":..,"path":..,...} in tag order
};

JobKey ComputeJobKey(std::string_view case_fingerprint, std::string_view path, const KeyEnvironment& env);

// The tags whose values differ between two key_fields_json objects, in tag order (a tag missing
// on one side counts as different). Unparseable input yields {"key_fields_json"}.
std::vector<std::string> ChangedKeyFields(const std::string& old_fields_json, const std::string& new_fields_json);

}  // namespace opsweep
