#include "core/status.h"

namespace opsweep {

bool IsKnownStatus(std::string_view status) {
  for (std::string_view s : kStatuses) {
    if (s == status) return true;
  }
  return false;
}

bool IsEngineStatus(std::string_view status) { return status == "crash" || status == "timeout"; }

bool IsWorkerStatus(std::string_view status) { return IsKnownStatus(status) && !IsEngineStatus(status); }

}  // namespace opsweep
