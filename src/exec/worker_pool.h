// The seam between the supervisor (scheduling, deadlines, records) and worker processes. A pool has
// a fixed number of slots; each slot holds at most one live worker. The real pool
// (posix_worker_pool.h) forks processes and polls their pipes; tests use a scripted fake
// (testing/fake_worker_pool.h) so that every supervision rule is tested without a process.
#pragma once
#include <string>
#include <vector>

#include "core/engine_record.h"

namespace opsweep {

struct WorkerEvent {
  enum class Kind {
    line,      // one complete protocol line (without the newline)
    overlong,  // a line exceeded the pool's bound; its bytes were dropped
    exited,    // the worker is gone and reaped; the slot is empty again
  };
  int slot = 0;
  Kind kind = Kind::line;
  std::string line;
  ExitStatus exit;
};

class WorkerPool {
 public:
  virtual ~WorkerPool() = default;
  virtual int slots() const = 0;
  // Starts a worker in an empty slot. Failure to spawn at all (not found, fork failed) is an error.
  virtual bool Start(int slot, std::string* err) = 0;
  // Sends one protocol line (the newline is added). False when the worker cannot receive it.
  virtual bool Send(int slot, const std::string& line, std::string* err) = 0;
  // Kills the worker's whole process group and reaps it: the slot is empty when this returns and
  // no further event of that worker is reported.
  virtual void Kill(int slot) = 0;
  // Closes every worker's input (which asks it to exit), waits up to grace_s for them, then kills
  // the rest. Every slot is empty afterwards.
  virtual void StopAll(double grace_s) = 0;
  // Waits up to timeout_s for events (lines in the order the worker wrote them, an exit after the
  // worker's last line). Returns early on an interrupt. False with *err only on a system failure.
  virtual bool Wait(double timeout_s, std::vector<WorkerEvent>* events, std::string* err) = 0;
  // True once SIGINT or SIGTERM reached the engine.
  virtual bool Interrupted() = 0;
  // Resident memory of each slot's process group in bytes (-1 for an empty slot).
  virtual void SampleMemory(std::vector<long long>* rss_bytes) = 0;
  // A hint for error messages about a worker that failed: its log file and last log line.
  virtual std::string LogHint(int slot) = 0;
};

}  // namespace opsweep
