// Time, behind an interface: the engine owns every deadline, and tests drive a fake clock.
#pragma once
#include <string>

namespace opsweep {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic seconds since an arbitrary origin: for deadlines and durations.
  virtual double Now() = 0;
  // Wall-clock UTC time as ISO 8601 ("2026-11-30T12:34:56Z"): for the records' timestamps.
  virtual std::string UtcIso() = 0;
};

class SystemClock : public Clock {
 public:
  double Now() override;
  std::string UtcIso() override;
};

}  // namespace opsweep
