// Records the engine writes itself (docs/formats.md section 3): `crash` and `timeout`, with step
// "worker" and a detail sentence. They hold the fields every record has (status, step, detail,
// error, outputs, timings, sources) and none of the optional or path-specific ones (graph_breaks,
// break_reasons, onnx, notes, ...): readers treat a missing optional field as absent.
#pragma once
#include <string>

#include "core/status.h"

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
std::string EngineRecord(Status status, const std::string& detail, double duration_s);

// `record_json` (an object) with `note` appended to its "notes" list (created when absent); the
// record unchanged when it is not an object.
std::string WithNote(const std::string& record_json, const std::string& note);

// The note on a record the worker finished before it was found poisoned (issue: poison is not a
// crash): "the worker was found poisoned after this job (REASON) and was replaced".
std::string PoisonNote(const std::string& reason);

// The note on a record measured in a fresh worker after a warm one crossed the memory limit:
// "measured as the first job of a fresh worker: a worker that had run N other jobs crossed the
// memory limit of M MiB with it".
std::string MemoryRetryNote(int earlier_jobs, long long limit_mib);

// Details for the engine's outcomes.
std::string CrashDetail(const ExitStatus& exit);              // "... during the job"
std::string TimeoutDetail(double timeout_s);                  // "no result after 600 s; ..."
std::string MemoryDetail(long long limit_mib);                // "worker exceeded the memory limit of N MiB"
std::string ProtocolErrorDetail(const std::string& problem);  // "protocol error: ..." (bounded)

}  // namespace opsweep
