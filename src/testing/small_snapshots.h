// Small snapshot models for unit tests of the snapshot readers (diff, history, writers): a header
// with the bundled paths and a few reasons, records built from one status per path.
#pragma once
#include <initializer_list>
#include <string>
#include <utility>

#include "core/status.h"
#include "snapshot/snapshot.h"
#include "testing/bundled_paths.h"

namespace opsweep::testing {

inline snapshot::Outcome MakeOutcome(Status status, std::string reason = "", std::string detail = "") {
  snapshot::Outcome outcome;
  outcome.status = status;
  if (!IsSupported(status) && reason.empty()) reason = "lowering";
  outcome.reason = IsSupported(status) ? "" : std::move(reason);
  outcome.detail = std::move(detail);
  if (status == Status::fail) outcome.step = "export";
  if (status == Status::mismatch) outcome.step = "compare";
  return outcome;
}

// A record of package "color" (or `package`) with one outcome per bundled path: onnx, export, compile.
inline snapshot::Record MakeRecord(const std::string& name, Status onnx, Status exported, Status compiled,
                                   const std::string& package = "color") {
  snapshot::Record record;
  record.name = name;
  record.operator_name = name.substr(0, name.find('['));
  if (name.find('[') != std::string::npos) record.variant = name.substr(name.find('[') + 1, name.size() - name.find('[') - 2);
  record.package = package;
  record.group = package;
  record.target = "kornia." + package + "." + record.operator_name;
  record.paths["onnx"] = MakeOutcome(onnx);
  record.paths["export"] = MakeOutcome(exported, "branch");
  record.paths["compile"] = MakeOutcome(compiled, "branch");
  return record;
}

// kornia 0.9.0 measured under `torch` on `date`, with the bundled static paths (onnx, export,
// compile: the paths MakeRecord fills) and reasons lowering, branch and eager.
inline snapshot::Snapshot MakeSnapshot(const std::string& torch, const std::string& date = "2026-11-30") {
  snapshot::Snapshot s;
  s.generated = date;
  s.tool_name = "opsweep";
  s.tool_version = "0.1.0";
  s.library_name = "kornia";
  s.library_version = "0.9.0";
  s.library_fingerprint = "lib1";
  s.paths = StaticBundledPaths();
  for (PathSpec& p : s.paths) {  // snapshot form
    p.harness.clear();
    p.expected_seconds.reset();
  }
  s.environment = {{"torch", torch}, {"onnx", "1.23.2"}, {"python", "3.11.7"}, {"opset", 18}, {"device", "cpu"}};
  s.reasons["lowering"] = {"No ONNX lowering", "The graph holds an op with no lowering.", "Avoid it.", "onnxscript"};
  s.reasons["branch"] = {"Python branch on tensor values", "A data-dependent branch.", "Use torch.where.", "library"};
  s.reasons["eager"] = {"Does not run eagerly", "The eager call raises.", "Fix the inputs.", "library"};
  return s;
}

}  // namespace opsweep::testing
