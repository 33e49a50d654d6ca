// The job key (docs/formats.md section 4): what makes a stored result current. A TaggedHasher over
// tagged fields, each also kept, in tag order, as a JSON object (key_fields_json) so that a rerun
// can name the field that changed. The tags of a job of path P are:
//
//   case  path  harness  <P's env fields, in the order P's description lists them>  library
//
// `harness` is P's own digest (its description's `harness`: the common harness modules plus its
// module), so editing one path re-probes only that path; the env fields are those P's description
// says its results depend on, so an onnxruntime upgrade re-probes ONNX jobs and nothing else.
// Values are the worker's hello verbatim as text: strings as they are, numbers in their JSON form
// ("18"), a missing or null field as "".
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/path_spec.h"

namespace opsweep {

// What the key takes from the worker's hello.env.
struct KeyEnvironment {
  std::map<std::string, std::string> values;  // every top-level env field but `library`, as key text
  std::string library;                        // LibraryKeyValue
};

// Builds the environment from hello's `env` (JSON text). Fails when it is not a JSON object.
bool KeyEnvironmentFromHello(const std::string& env_json, KeyEnvironment* out, std::string* err);

// The `library` tag: "<name> <version> <fingerprint>" of hello.env.library, "" without one. The one
// place that says which of the surveyed library's code a job depends on.
std::string LibraryKeyValue(const nlohmann::json& env);

struct JobKey {
  std::string digest;       // hex
  std::string fields_json;  // {"case":..,"path":..,...} in tag order
};

JobKey ComputeJobKey(std::string_view case_fingerprint, const PathSpec& path, const KeyEnvironment& env);

// The tags whose values differ between two key_fields_json objects, in tag order (a tag missing
// on one side counts as different). Unparseable input yields {"key_fields_json"}.
std::vector<std::string> ChangedKeyFields(const std::string& old_fields_json, const std::string& new_fields_json);

}  // namespace opsweep
