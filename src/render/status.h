// Job statuses as the page shows them (docs/formats.md section 1). The string ids reach disk and
// URLs and are never renamed; the enum's numeric values never leave the process.
//
// This belongs in core/ once the core layer defines statuses for everyone; until then render
// keeps its own copy of the list, which is all it needs.
#pragma once
#include <array>
#include <optional>
#include <string_view>

namespace opsweep::render {

enum class Status {
  kOk,
  kOkBreaks,
  kOkUnverified,
  kMismatch,
  kFail,
  kNotApplicable,
  kCrash,
  kTimeout,
};

inline constexpr std::array<Status, 8> kAllStatuses = {
    Status::kOk,   Status::kOkBreaks,      Status::kOkUnverified, Status::kMismatch,
    Status::kFail, Status::kNotApplicable, Status::kCrash,        Status::kTimeout,
};

// The id used in snapshots: "ok", "ok-breaks", ..., "n/a".
std::string_view StatusId(Status status);
// The id used in the page's filters and data attributes: like StatusId, but "na" for n/a so that
// it is safe in a URL and a class name.
std::string_view StatusToken(Status status);
std::optional<Status> ParseStatus(std::string_view id);

// ok, ok-breaks and ok-unverified.
bool IsSupported(Status status);
// mismatch, fail, crash and timeout: it was probed and did not work.
bool IsFailure(Status status);

}  // namespace opsweep::render
