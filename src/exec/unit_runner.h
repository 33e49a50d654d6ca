// The unit runner: opaque units of work (JSON payloads) on warm workers, for `opsweep harvest`.
// It owns time and turns everything a worker can do to a unit into an outcome, as the supervisor
// does for jobs (exec/supervisor.h), with a smaller protocol (docs/harvest.md, "Workers"):
//
//   worker -> engine  {"type":"hello"} once ready; {"type":"error","message":...} if it cannot be
//   engine -> worker  {"type":"unit","id":K,"unit":<payload>}
//   worker -> engine  {"type":"step","id":K,"step":S,"where":"file:line"[,"resume":<payload>]}
//                     {"type":"event","id":K,"event":<object>}   (any number)
//                     {"type":"done","id":K[,"leaving":true]}   (leaving: it exits now, take no unit)
//
// A unit's deadline is per step: it starts when the unit is sent and restarts at every `step`
// (one example, one test, one check), so a slow docstring with many quick examples is not cut
// off while one example that hangs is. A unit past its deadline gets its worker's process group
// killed (`timeout`); a worker that dies during a unit gives `crash`; a worker whose process group
// grows past the memory limit during a unit is killed (`memory`). Each costs that unit only: the
// next unit gets a fresh worker. When the step that was cut off carried a `resume` payload, that
// payload is queued as a new unit (the rest of a test file, without the test that hung). A worker
// that says it is leaving after a unit (one that ran a test file does) gets no other unit and is
// replaced once it has exited (killed if it is still there after the stop grace). A worker that
// cannot get ready (an error, an exit or no hello before the startup deadline) stops the run: it
// is the environment's fault (the library does not import), not a unit's.
//
// It sees processes only through WorkerPool and time only through Clock, so tests script both.
#pragma once
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "exec/clock.h"
#include "exec/worker_pool.h"

namespace opsweep {

struct UnitRunnerOptions {
  double step_timeout_s = 60;
  double startup_timeout_s = 300;
  long long memory_limit_bytes = 0;  // per worker process group; 0 = none
  double memory_poll_s = 1.0;
  double tick_s = 1.0;
  double stop_grace_s = 5.0;
};

// How a unit ended. The ids are written to the harvest's scratch files.
enum class UnitEnd { done, timeout, crash, memory };
std::string_view UnitEndId(UnitEnd end);

struct UnitOutcome {
  size_t unit = 0;
  UnitEnd end = UnitEnd::done;
  std::string step_json = "null";  // the last step the worker announced (JSON), null before the first
  std::string where;               // that step's "where"
  std::string detail;              // why it did not finish (timeout, exit status, memory)
  double seconds = 0;
  long long resumed_as = -1;  // the unit queued to go on after it, or -1
};

class UnitObserver {
 public:
  virtual ~UnitObserver() = default;
  // A unit was queued: the first ones in order, later ones to resume `resumes`. False stops the run.
  virtual bool OnQueued(size_t unit, const std::string& payload_json, long long resumes, std::string* err) = 0;
  // An event of a running unit (compact JSON of the event object).
  virtual bool OnEvent(size_t unit, const std::string& event_json, std::string* err) = 0;
  virtual bool OnEnd(const UnitOutcome& outcome, std::string* err) = 0;
  virtual void OnTick() {}
};

enum class UnitRunEnd { completed, interrupted, failed };

class UnitRunner {
 public:
  UnitRunner(WorkerPool* pool, Clock* clock, const UnitRunnerOptions& options);

  // Runs every payload (and the units queued to resume cut-off ones) on up to pool->slots()
  // workers; returns once each has an outcome, or on interrupt / failure (every worker killed).
  UnitRunEnd Run(const std::vector<std::string>& payloads, UnitObserver* observer, std::string* err);

  // Workers lost to a timeout, a crash or the memory limit.
  int lost() const { return lost_; }

 private:
  struct Slot {
    enum class State { empty, starting, idle, busy, leaving };
    State state = State::empty;
    double deadline = 0;
    size_t unit = 0;
    double started = 0;
    std::string step_json = "null";
    std::string where;
    std::string resume_json;  // the current step's resume payload, "" for none
  };

  bool Enqueue(const std::string& payload, long long resumes);
  void StartAndAssign();
  void HandleLine(int slot, const std::string& line);
  void HandleExit(int slot, const ExitStatus& exit);
  void CheckDeadlines();
  void CheckMemory();
  // Ends the busy slot's unit (its worker already gone or killed) and queues its resume.
  void EndUnit(int slot, UnitEnd end, const std::string& detail);
  void Fail(const std::string& message);
  bool failed() const { return !fatal_.empty(); }

  WorkerPool* pool_;
  Clock* clock_;
  UnitRunnerOptions options_;
  UnitObserver* observer_ = nullptr;
  std::vector<Slot> slots_;
  std::vector<std::string> payloads_;
  std::deque<size_t> queue_;
  size_t remaining_ = 0;
  double next_memory_check_ = 0;
  int lost_ = 0;
  std::string fatal_;
};

}  // namespace opsweep
