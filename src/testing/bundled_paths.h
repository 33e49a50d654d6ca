// The descriptions of the bundled paths (onnx, export, compile) for unit tests, read from
// tests/fixtures/paths.json: the output of `opsweep.paths.describe_paths()`, committed so that the
// C++ tests need no Python (python/tests/test_paths.py checks the fixture against the harness).
#pragma once
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/path_spec.h"

namespace opsweep::testing {

inline std::string BundledPathsJson() {
#ifdef OPSWEEP_SOURCE_DIR
  std::ifstream in(std::string(OPSWEEP_SOURCE_DIR) + "/tests/fixtures/paths.json");
#else
  std::ifstream in("tests/fixtures/paths.json");
#endif
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<PathSpec> BundledPaths() {
  std::vector<PathSpec> paths;
  std::string err;
  if (!ParsePathSpecs(nlohmann::json::parse(BundledPathsJson()), PathSpecForm::hello, &paths, &err)) {
    throw std::runtime_error("tests/fixtures/paths.json: " + err);
  }
  return paths;
}

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
