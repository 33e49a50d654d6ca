// A clock that moves only when told (or when FakeWorkerPool::Wait simulates waiting).
#pragma once
#include <fmt/core.h>

#include <string>

#include "exec/clock.h"

namespace opsweep {

class FakeClock : public Clock {
 public:
  double Now() override { return now; }
  std::string UtcIso() override { return fmt::format("2026-01-01T00:00:{:02}Z", static_cast<int>(now) % 60); }
  void Advance(double seconds) { now += seconds; }
  double now = 1000;
};

}  // namespace opsweep
