#include "render/status.h"

namespace opsweep::render {

std::string_view StatusId(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kOkBreaks: return "ok-breaks";
    case Status::kOkUnverified: return "ok-unverified";
    case Status::kMismatch: return "mismatch";
    case Status::kFail: return "fail";
    case Status::kNotApplicable: return "n/a";
    case Status::kCrash: return "crash";
    case Status::kTimeout: return "timeout";
  }
  return "n/a";
}

std::string_view StatusToken(Status status) {
  return status == Status::kNotApplicable ? std::string_view("na") : StatusId(status);
}

std::optional<Status> ParseStatus(std::string_view id) {
  for (Status status : kAllStatuses) {
    if (StatusId(status) == id) return status;
  }
  return std::nullopt;
}

bool IsSupported(Status status) {
  return status == Status::kOk || status == Status::kOkBreaks || status == Status::kOkUnverified;
}

bool IsFailure(Status status) {
  return status == Status::kMismatch || status == Status::kFail || status == Status::kCrash ||
         status == Status::kTimeout;
}

}  // namespace opsweep::render
