// Job statuses and steps as they reach disk (docs/formats.md section 1). These strings are
// persisted: never rename or reuse one; add new ones at the end.
#pragma once
#include <string_view>

namespace opsweep {

inline constexpr std::string_view kStatuses[] = {"ok",       "ok-breaks", "ok-unverified", "mismatch",
                                                 "fail",     "n/a",       "crash",         "timeout"};

// True for a status that a worker may report (everything but the engine-only crash and timeout).
bool IsWorkerStatus(std::string_view status);
// True for crash and timeout: outcomes written by the engine and retried once on the next run.
bool IsEngineStatus(std::string_view status);
bool IsKnownStatus(std::string_view status);

}  // namespace opsweep
