#include "core/status.h"

#include <algorithm>

namespace opsweep {

std::string_view StatusId(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::ok_breaks: return "ok-breaks";
    case Status::ok_unverified: return "ok-unverified";
    case Status::mismatch: return "mismatch";
    case Status::fail: return "fail";
    case Status::not_applicable: return "n/a";
    case Status::crash: return "crash";
    case Status::timeout: return "timeout";
    case Status::ok_static: return "ok-static";
    case Status::ok_recompiles: return "ok-recompiles";
  }
  return "n/a";
}

std::optional<Status> ParseStatus(std::string_view id) {
  for (Status status : kAllStatuses) {
    if (StatusId(status) == id) return status;
  }
  return std::nullopt;
}

bool IsSupported(Status status) {
  return status == Status::ok || status == Status::ok_breaks || status == Status::ok_unverified ||
         status == Status::ok_static || status == Status::ok_recompiles;
}

bool IsFailure(Status status) {
  return status == Status::mismatch || status == Status::fail || status == Status::crash || status == Status::timeout;
}

bool IsNotMeasured(Status status) { return status == Status::not_applicable; }

bool IsEngineStatus(Status status) { return status == Status::crash || status == Status::timeout; }

bool IsWorkerStatus(Status status) { return !IsEngineStatus(status); }

bool IsCommonStep(std::string_view step) {
  return std::find(kCommonSteps.begin(), kCommonSteps.end(), step) != kCommonSteps.end();
}

}  // namespace opsweep
