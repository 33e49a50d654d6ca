// Runs a helper program to completion and captures its standard output (stderr passes through or is discarded).
// Used by verbs that ask the harness's Python a question (coverage); never for workers.
#pragma once
#include <string>
#include <vector>

namespace opsweep::cli {

enum class Stderr { pass_through, discard };

// Runs argv[0] (searched on PATH) with argv; on success *out holds its stdout and *exit_code its
// exit status (128 + N when killed by signal N). Returns false with *err set when it cannot start.
bool RunAndCapture(const std::vector<std::string>& argv, Stderr stderr_mode, std::string* out, int* exit_code,
                   std::string* err);

}  // namespace opsweep::cli
