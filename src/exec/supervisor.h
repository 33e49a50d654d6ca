// The supervisor: hands jobs to warm workers and turns everything a worker can do into a record.
// It owns time. A job past its deadline gets its worker's process group killed and a `timeout`
// record; a worker that dies mid-job gives `crash` (signal or exit code); garbage on the protocol
// kills the worker and gives `crash` ("protocol error: ..."); a worker over the memory limit is
// killed and gives `crash`, but only when the job ran first in a fresh worker: a warm worker carries
// what earlier jobs left behind (caches, fragmentation), so a job that crosses the limit there is
// re-queued once for a fresh worker, and only its run there decides. Between jobs, a worker whose
// resident size passed `recycle_bytes` is replaced (not counted as a restart), so the next job
// starts lean. A `poisoned` worker is replaced. When the message carries the job's
// record, the job did finish: that record is kept, with a note saying the worker was replaced, and
// the job is not re-run (it would only poison the next worker). Without a record the job is
// re-queued at the front, and a job that poisons a worker twice that way gets `crash`. `crash`
// otherwise means a process that died. Every lost worker counts as a restart; past the cap the run stops with an error, as does a worker that cannot get ready
// (no hello/inventory/index within the startup deadline, a registry error, a different environment).
//
// It sees processes only through WorkerPool and time only through Clock, so tests script both.
#pragma once
#include <deque>
#include <string>
#include <vector>

#include "core/case_entry.h"
#include "exec/clock.h"
#include "exec/protocol.h"
#include "exec/worker_pool.h"

namespace opsweep {

struct SupervisorOptions {
  double job_timeout_s = 600;
  double startup_timeout_s = 120;
  long long memory_limit_bytes = 0;  // per worker process group; 0 = none
  int max_restarts = 50;
  double memory_poll_s = 1.0;
  long long recycle_bytes = -1;  // replace an idle worker above this RSS; -1 = half the memory limit, 0 = never
  double tick_s = 1.0;        // the observer's OnTick period, at most
  double stop_grace_s = 5.0;  // how long workers get to exit after their input closes
};

struct SupervisedJob {
  std::string case_name;
  std::string path;
};

struct JobOutcome {
  size_t job = 0;  // index into the jobs given to Run
  Status status = Status::ok;
  std::string record_json;
  double duration_s = 0;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // A job has its outcome. Returning false stops the run with *err (e.g. the store failed).
  virtual bool OnOutcome(const JobOutcome& outcome, std::string* err) = 0;
  // Called about every tick_s while the run is going.
  virtual void OnTick() {}
};

enum class RunEnd {
  completed,
  interrupted,
  stopped,      // workers were lost more often than the restart cap allows; finished jobs are kept
  failed,       // a worker could not get ready, the store refused a result, a system call failed
  bad_request,  // the request does not fit what the worker offers (unknown path, group, --only)
};

class Supervisor {
 public:
  Supervisor(WorkerPool* pool, Clock* clock, const SupervisorOptions& options);

  // Starts the first worker and waits for its hello, inventory and library index.
  RunEnd Open(HelloMessage* hello, std::vector<CaseEntry>* inventory, LibraryIndex* index, std::string* err);

  // Runs the jobs, taking them in the given order (the caller sorts them longest first), on up to
  // pool->slots() workers, starting more as needed. On interrupt or failure every worker is killed
  // and jobs in flight get no outcome.
  RunEnd Run(const std::vector<SupervisedJob>& jobs, RunObserver* observer, std::string* err);

  // Lets every worker go (shutdown, then kill after the grace period).
  void Stop();

  int restarts() const { return restarts_; }
  // How many workers run jobs at once.
  int slots() const;
  // Workers replaced between jobs because they had grown past recycle_bytes.
  int recycled() const { return recycled_; }

 private:
  struct Slot {
    enum class State { empty, starting, idle, busy };
    State state = State::empty;
    bool got_hello = false;
    bool got_inventory = false;
    double startup_deadline = 0;
    size_t job = 0;
    long long job_id = 0;
    double started = 0;
    double deadline = 0;
    int jobs_done = 0;     // jobs this worker finished; 0 = fresh
    long long rss = -1;    // the group's resident size at the last memory sample
  };

  bool StartWorker(int slot);
  void AssignJobs();
  void StartWorkersAsNeeded();
  void Step();
  void HandleLine(int slot, const std::string& line);
  void HandleStartupMessage(int slot, const WorkerMessage& msg);
  void HandleExit(int slot, const ExitStatus& exit);
  std::string InventoryMismatch(int slot, const std::vector<CaseEntry>& cases) const;
  void ProtocolError(int slot, const std::string& problem);
  void CheckDeadlines();
  void CheckMemory();
  void HandlePoisoned(int slot, const WorkerMessage& msg);
  void Finish(int slot, Status status, const std::string& record_json);
  void KillAndLose(int slot);
  void RecycleIfGrown(int slot);
  long long RecycleBytes() const;
  void LoseWorker(int slot);
  void KillAll();
  void Fail(const std::string& message);
  bool failed() const { return !fatal_.empty(); }
  RunEnd FailureEnd() const { return capped_ ? RunEnd::stopped : RunEnd::failed; }

  WorkerPool* pool_;
  Clock* clock_;
  SupervisorOptions options_;
  std::vector<Slot> slots_;
  std::vector<WorkerEvent> events_;

  bool have_first_ = false;
  HelloMessage first_hello_;
  std::vector<CaseEntry> first_inventory_;
  int first_inventory_slot_ = 0;  // the worker that loaded it
  LibraryIndex first_index_;
  bool have_first_index_ = false;
  std::string inventory_digest_;

  const std::vector<SupervisedJob>* jobs_ = nullptr;
  RunObserver* observer_ = nullptr;
  std::deque<size_t> queue_;
  std::deque<size_t> fresh_queue_;  // jobs that must run first in a fresh worker (memory retries)
  std::vector<int> poison_counts_;
  std::vector<int> memory_retried_;  // per job: jobs its warm worker had run when it crossed the limit, + 1
  size_t remaining_ = 0;
  long long next_id_ = 0;
  int restarts_ = 0;
  int recycled_ = 0;
  double next_memory_check_ = 0;
  std::string fatal_;
  bool capped_ = false;  // the failure is the restart cap
};

}  // namespace opsweep
