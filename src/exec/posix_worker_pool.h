// The real WorkerPool: fork/exec'd worker processes on Linux.
//
// Each worker gets two dedicated pipes (their fd numbers passed as --proto-in / --proto-out),
// stdin from /dev/null, stdout and stderr appended to <log_dir>/worker-<slot>.log, its own process
// group, and PR_SET_PDEATHSIG(SIGKILL) so it never outlives the engine, not even a kill -9 of the
// engine. Killing a worker kills its whole process group (inductor's compile helpers included).
//
// Signals: while a pool exists SIGINT, SIGTERM and SIGCHLD are blocked and only unblocked inside
// ppoll (ninja's habit), so an interrupt can never land between a check and a wait. Only the
// engine handles Ctrl-C: workers start with SIGINT ignored and in their own process group.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <signal.h>

#include "exec/worker_pool.h"

namespace opsweep {

struct WorkerCommand {
  std::vector<std::string> program;  // e.g. {"/usr/bin/python3", "-m", "opsweep.worker"}
  std::vector<std::string> registries;
  int threads = 1;
  std::string library;  // --library NAME for the worker; "" lets the worker guess from the targets
  std::string log_dir;
  std::vector<std::pair<std::string, std::string>> env;  // set (or replaced) in the workers' environment
};

class PosixWorkerPool : public WorkerPool {
 public:
  PosixWorkerPool(const WorkerCommand& command, int slots);
  ~PosixWorkerPool() override;
  PosixWorkerPool(const PosixWorkerPool&) = delete;
  PosixWorkerPool& operator=(const PosixWorkerPool&) = delete;

  // Longest protocol line accepted (a record is bounded far below this).
  static constexpr size_t kMaxLineBytes = 16 << 20;

  int slots() const override { return static_cast<int>(workers_.size()); }
  bool Start(int slot, std::string* err) override;
  bool Send(int slot, const std::string& line, std::string* err) override;
  void Kill(int slot) override;
  void StopAll(double grace_s) override;
  bool Wait(double timeout_s, std::vector<WorkerEvent>* events, std::string* err) override;
  bool Interrupted() override;
  void SampleMemory(std::vector<long long>* rss_bytes) override;
  std::string LogHint(int slot) override;

  // The signal that interrupted the run (SIGINT or SIGTERM), 0 if none.
  static int InterruptSignal();

 private:
  struct Worker {
    int pid = 0;
    int in_fd = -1;   // engine -> worker
    int out_fd = -1;  // worker -> engine
    bool eof = false;
    double eof_since = 0;
    bool discarding = false;  // inside an overlong line
    std::string buffer;
  };

  void ReadAvailable(int slot, std::vector<WorkerEvent>* events);
  void Reap(int slot, bool kill_first, std::vector<WorkerEvent>* events);
  void Close(int slot);
  std::string LogPath(int slot) const;

  WorkerCommand command_;
  std::vector<std::string> env_strings_;
  std::vector<Worker> workers_;
  sigset_t old_mask_;
  sigset_t wait_mask_;
  struct sigaction old_int_, old_term_, old_chld_, old_pipe_;
};

}  // namespace opsweep
