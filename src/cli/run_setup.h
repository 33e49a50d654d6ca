// What `opsweep run` learns about its surroundings before the first worker starts: which Python
// runs the workers, the worker command, the bundled registries, cores and memory.
#pragma once
#include <string>
#include <vector>

#include "store/results_db.h"

namespace opsweep::cli {

// The workers' Python: --python, else $OPSWEEP_PYTHON, else `python3` beside the opsweep
// executable (the environment it was installed into), else `python3` on PATH.
std::string ResolvePython(const std::string& flag);

// The worker command before its protocol arguments. $OPSWEEP_WORKER_CMD, when set and non-empty,
// replaces `PYTHON -m opsweep.worker` entirely (its words split on whitespace, no shell quoting):
// the hook that lets tests and benchmarks run fake workers that need no torch.
std::vector<std::string> WorkerProgram(const std::string& python);

// The bundled kornia registries: every registries/kornia/cases_*.py of the opsweep package that
// `python` imports, sorted by name, as absolute paths.
bool BundledRegistries(const std::string& python, std::vector<std::string>* out, std::string* err);

// A bundled preset: registries/kornia/presets/NAME.py, a registry that selects a representative
// subset of the bundled cases (e.g. `quick`). An unknown name is an error listing the known ones.
bool BundledPreset(const std::string& python, const std::string& name, std::string* file, std::string* err);

// The folder of the bundled kornia registries inside the opsweep package that `python` imports.
bool BundledRegistryDir(const std::string& python, std::string* dir, std::string* err);

// The registries a run (or `explain`) loads: --preset NAME, else the --cases files (absolute), else
// every bundled registry. Fails (one line) on both flags, an unknown preset, a missing file.
bool ResolveRegistries(const std::string& python, const std::string& preset, const std::vector<std::string>& cases,
                       std::vector<std::string>* out, std::string* err);

// "--opset 23,17,18" -> "17,18,23": whole numbers, sorted, each once (run and explain). The worker
// checks them against the onnx it has (and always measures 18, the onnx path's own opset).
bool ParseOpsets(const std::vector<std::string>& items, std::string* out, std::string* err);

// Without --opset, a survey goes on with the opsets its database's onnx results were measured with
// (ResultsDb::StoredOpsets), so that a refresh does not count every onnx job as changed; `*out` is
// left empty when there are none (the default, 18 alone). `*note` says where they came from.
bool OpsetsOfDatabase(const ResultsDb& db, std::string* out, std::string* note, std::string* err);

// One job's duration in another survey (`opsweep run --durations-from`).
struct PriorDuration {
  std::string case_name, path;
  double seconds = 0;
};

// Reads a snapshot timings file (`snapshot.timings.json`, docs/formats.md: {"schema":1,"records":
// {"<case>":{"<path>":{"duration_s":1.2,...}}}}); durations that are null are skipped. Fails (one
// line naming the file and what is wrong) on a file that cannot be read, is not JSON or has
// another shape.
bool ReadPriorDurations(const std::string& file, std::vector<PriorDuration>* out, std::string* err);

// CPUs this process may run on.
int AvailableCores();
// MemTotal in bytes (0 when unknown).
long long TotalMemoryBytes();

}  // namespace opsweep::cli
