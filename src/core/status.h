// The outcome vocabulary every layer shares (docs/formats.md section 1): the job statuses, their
// predicates, and the steps any job can stop at whatever its path.
//
// A status's string id reaches disk (records, the results database, snapshots) and URLs; ids are
// never renamed or reused, and a new status gets a new id at the end of kAllStatuses. The enum's
// numeric values never leave the process. A path's own steps are not listed here: each path's
// description (core/path_spec.h) names them; only the steps common to every path are.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace opsweep {

enum class Status : std::uint8_t {
  ok,
  ok_breaks,
  ok_unverified,
  mismatch,
  fail,
  not_applicable,
  crash,
  timeout,
  ok_static,      // dynamic-shape exports: runs and matches at every shape it accepts, some dims static
  ok_recompiles,  // compile-dynamic: every call matches, but each new size of a dimension recompiles
};

inline constexpr std::array<Status, 10> kAllStatuses = {
    Status::ok,   Status::ok_breaks,      Status::ok_unverified, Status::mismatch,  Status::fail,
    Status::not_applicable, Status::crash, Status::timeout,      Status::ok_static, Status::ok_recompiles,
};

// The persisted id: "ok", "ok-breaks", "ok-unverified", "mismatch", "fail", "n/a", "crash", "timeout",
// "ok-static", "ok-recompiles".
std::string_view StatusId(Status status);
// The status of a persisted id; nullopt for anything else.
std::optional<Status> ParseStatus(std::string_view id);

// ok, ok-breaks, ok-unverified, ok-static and ok-recompiles: it works, some with a caveat.
bool IsSupported(Status status);
// mismatch, fail, crash and timeout: it was probed and did not work.
bool IsFailure(Status status);
// n/a: not measured (skipped, the eager call failed, no tensor output); neither supported nor a failure.
bool IsNotMeasured(Status status);
// crash and timeout: written by the engine only, and retried once on the next run.
bool IsEngineStatus(Status status);
// Every status but crash and timeout: what a worker may report.
bool IsWorkerStatus(Status status);

// Steps any job can stop at, whatever its path: the job runner's before the probe starts (skip,
// eager, no-tensor) and the engine's (worker: crash, timeout, harness error). Persisted like
// statuses. A path's own steps come from its description.
inline constexpr std::array<std::string_view, 4> kCommonSteps = {"skip", "eager", "no-tensor", "worker"};
bool IsCommonStep(std::string_view step);

}  // namespace opsweep
