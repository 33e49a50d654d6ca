// Records the engine writes itself (docs/formats.md section 3): `crash` and `timeout`, with step
// "worker" and a detail sentence. Every field of a worker record is present so readers need no
// special case.
#pragma once
#include <string>

namespace opsweep {

// How a worker process ended: a signal, or an exit code.
struct ExitStatus {
  int code = 0;    // meaningful when signal == 0
  int signal = 0;  // > 0 when killed by a signal
};

// "SIGSEGV" for 11, "signal 77" for one without a name.
std::string SignalName(int signal);

// "worker exited with signal 11 (SIGSEGV)" / "worker exited with code 7".
std::string DescribeExit(const ExitStatus& exit);

// The full record as compact JSON.
std::string EngineRecord(const std::string& status, const std::string& detail, double duration_s);

// Details for the engine's outcomes.
std::string CrashDetail(const ExitStatus& exit);              // "... during the job"
std::string TimeoutDetail(double timeout_s);                  // "no result after 600 s; ..."
std::string MemoryDetail(long long limit_mib);                // "worker exceeded the memory limit of N MiB"
std::string ProtocolErrorDetail(const std::string& problem);  // "protocol error: ..." (bounded)

}  // namespace opsweep
