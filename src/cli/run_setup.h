// What `opsweep run` learns about its surroundings before the first worker starts: which Python
// runs the workers, the worker command, the registries (a suite, a preset or files), cores and memory.
#pragma once
#include <string>
#include <vector>

#include "store/results_db.h"

namespace CLI {
class App;
}

namespace opsweep::cli {

// The workers' Python: --python, else $OPSWEEP_PYTHON, else `python3` beside the opsweep
// executable (the environment it was installed into), else `python3` on PATH.
std::string ResolvePython(const std::string& flag);

// The worker command before its protocol arguments. $OPSWEEP_WORKER_CMD, when set and non-empty,
// replaces `PYTHON -m opsweep.worker` entirely (its words split on whitespace, no shell quoting):
// the hook that lets tests and benchmarks run fake workers that need no torch.
std::vector<std::string> WorkerProgram(const std::string& python);

// Where a verb's cases come from: --cases FILE..., else a suite (--suite NAME|DIR), optionally one
// of its presets (--preset NAME). Declared once for run, explain, repro and coverage.
struct CaseSource {
  std::string suite;
  std::string preset;
  std::vector<std::string> cases;
};
void AddCaseSourceOptions(CLI::App* cmd, CaseSource* source);

// A suite is a folder of registries (cases_*.py, optionally presets/NAME.py). The bundled suites are
// the packages of `opsweep_suites` in the environment of `python`; --suite NAME picks one of them,
// --suite DIR (a path with a '/', or an existing folder) a suite of one's own. Without --suite the one
// bundled suite is taken; when there are several, the error names them. On failure *err is one line.
bool ResolveSuite(const std::string& python, const std::string& suite, std::string* dir, std::string* err);

// The bundled suites' names (sorted), or an error when `python` cannot import opsweep_suites.
bool BundledSuites(const std::string& python, std::string* root, std::vector<std::string>* names, std::string* err);

// The registries a verb loads: the --cases files (absolute), else the suite's preset, else every
// cases_*.py of the suite, sorted. Fails (one line) on --cases with --suite or --preset, an unknown
// suite or preset, a missing file, a suite without registries.
bool ResolveRegistries(const std::string& python, const CaseSource& source, std::vector<std::string>* out,
                       std::string* err);

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
