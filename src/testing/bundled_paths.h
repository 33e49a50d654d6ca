// The descriptions of the bundled paths (onnx, export, compile, and the dynamic-shape ones) for unit tests, read from
// tests/fixtures/paths.json: the output of `opsweep.paths.describe_paths()`, committed so that the
// C++ tests need no Python (python/tests/test_paths.py checks the fixture against the harness).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include <initializer_list>

#include "core/path_spec.h"
#include "util/read_file.h"

namespace opsweep::testing {

inline std::string BundledPathsJson() {
#ifdef OPSWEEP_SOURCE_DIR
  const std::string file = std::string(OPSWEEP_SOURCE_DIR) + "/tests/fixtures/paths.json";
#else
  const std::string file = "tests/fixtures/paths.json";
#endif
  std::string text, err;
  if (!ReadFile(file, &text, &err)) throw std::runtime_error(err);
  return text;
}

inline std::vector<PathSpec> BundledPaths() {
  std::vector<PathSpec> paths;
  std::string err;
  if (!ParsePathSpecs(nlohmann::json::parse(BundledPathsJson()), PathSpecForm::hello, &paths, &err)) {
    throw std::runtime_error("tests/fixtures/paths.json: " + err);
  }
  return paths;
}

// The bundled paths with these ids, in the bundled order (tests written for some of them).
inline std::vector<PathSpec> BundledPaths(std::initializer_list<std::string_view> ids) {
  std::vector<PathSpec> out;
  for (PathSpec& p : BundledPaths()) {
    for (std::string_view id : ids) {
      if (p.id == id) out.push_back(p);
    }
  }
  return out;
}

// The static paths (onnx, export, compile): what most engine tests are written for.
inline std::vector<PathSpec> StaticBundledPaths() { return BundledPaths({"onnx", "export", "compile"}); }

// A made-up path for tests: its own steps and env fields, harness "h-<id>".
inline PathSpec TestPath(const std::string& id, std::vector<std::string> steps = {"capture"},
                         std::vector<std::string> env = {"python", "torch"}) {
  PathSpec p;
  p.id = id;
  p.title = "Title of " + id;
  p.label = id;
  p.description = "what " + id + " does";
  p.steps = std::move(steps);
  p.env = std::move(env);
  p.harness = "h-" + id;
  return p;
}

}  // namespace opsweep::testing
