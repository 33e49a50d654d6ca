#include "exec/supervisor.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "core/engine_record.h"
#include "core/inventory_diff.h"
#include "util/hash.h"

namespace opsweep {

namespace {
std::string InventoryDigest(const std::vector<CaseEntry>& cases) {
  std::string buf;
  for (const auto& c : cases) buf += c.name + "\t" + c.fingerprint + "\n";
  return HashHex(buf);
}

const char* TypeName(WorkerMessage::Type t) {
  switch (t) {
    case WorkerMessage::Type::hello: return "hello";
    case WorkerMessage::Type::inventory: return "inventory";
    case WorkerMessage::Type::index: return "index";
    case WorkerMessage::Type::error: return "error";
    case WorkerMessage::Type::result: return "result";
    case WorkerMessage::Type::poisoned: return "poisoned";
  }
  return "?";
}
}  // namespace

int Supervisor::slots() const { return pool_->slots(); }

Supervisor::Supervisor(WorkerPool* pool, Clock* clock, const SupervisorOptions& options)
    : pool_(pool), clock_(clock), options_(options), slots_(static_cast<size_t>(pool->slots())) {}

RunEnd Supervisor::Open(HelloMessage* hello, std::vector<CaseEntry>* inventory, LibraryIndex* index,
                        std::string* err) {
  next_memory_check_ = clock_->Now() + options_.memory_poll_s;
  if (!StartWorker(0)) {
    *err = fatal_;
    return RunEnd::failed;
  }
  while (slots_[0].state != Slot::State::idle) {
    if (pool_->Interrupted()) {
      KillAll();
      return RunEnd::interrupted;
    }
    Step();
    if (failed()) {
      KillAll();
      *err = fatal_;
      return RunEnd::failed;
    }
  }
  *hello = first_hello_;
  *inventory = first_inventory_;
  *index = first_index_;
  return RunEnd::completed;
}

RunEnd Supervisor::Run(const std::vector<SupervisedJob>& jobs, RunObserver* observer, std::string* err) {
  jobs_ = &jobs;
  observer_ = observer;
  queue_.clear();
  for (size_t i = 0; i < jobs.size(); ++i) queue_.push_back(i);
  fresh_queue_.clear();
  poison_counts_.assign(jobs.size(), 0);
  memory_retried_.assign(jobs.size(), 0);
  remaining_ = jobs.size();
  while (remaining_ > 0) {
    if (pool_->Interrupted()) {
      KillAll();
      return RunEnd::interrupted;
    }
    AssignJobs();
    if (!failed()) StartWorkersAsNeeded();
    if (!failed()) Step();
    if (failed()) {
      KillAll();
      *err = fatal_;
      return FailureEnd();
    }
  }
  return RunEnd::completed;
}

void Supervisor::Stop() {
  pool_->StopAll(options_.stop_grace_s);
  for (auto& s : slots_) s = Slot{};
}

bool Supervisor::StartWorker(int slot) {
  std::string err;
  if (!pool_->Start(slot, &err)) {
    Fail("cannot start a worker: " + err);
    return false;
  }
  Slot& s = slots_[slot];
  s = Slot{};
  s.state = Slot::State::starting;
  s.startup_deadline = clock_->Now() + options_.startup_timeout_s;
  return true;
}

void Supervisor::AssignJobs() {
  for (int i = 0; i < static_cast<int>(slots_.size()) && !(queue_.empty() && fresh_queue_.empty()); ++i) {
    Slot& s = slots_[i];
    if (s.state != Slot::State::idle) continue;
    // A fresh worker serves the memory retries first; a warm one never takes them.
    std::deque<size_t>& from = s.jobs_done == 0 && !fresh_queue_.empty() ? fresh_queue_ : queue_;
    if (from.empty()) continue;
    size_t job = from.front();
    from.pop_front();
    long long id = ++next_id_;
    std::string err;
    if (!pool_->Send(i, JobMessage(id, (*jobs_)[job].case_name, (*jobs_)[job].path, options_.job_timeout_s), &err)) {
      // The worker went away between jobs: not the job's fault.
      from.push_front(job);
      KillAndLose(i);
      if (failed()) return;
      continue;
    }
    s.state = Slot::State::busy;
    s.job = job;
    s.job_id = id;
    s.started = clock_->Now();
    s.deadline = s.started + options_.job_timeout_s;
  }
}

void Supervisor::StartWorkersAsNeeded() {
  size_t busy = 0, live = 0, fresh = 0;
  for (const auto& s : slots_) {
    if (s.state == Slot::State::busy) ++busy;
    if (s.state != Slot::State::empty) ++live;
    if (s.state == Slot::State::starting || (s.state == Slot::State::idle && s.jobs_done == 0)) ++fresh;
  }
  size_t want_fresh = fresh_queue_.size() > fresh ? fresh_queue_.size() - fresh : 0;
  size_t needed = std::min(slots_.size(), queue_.size() + fresh_queue_.size() + busy);
  for (int i = 0; i < static_cast<int>(slots_.size()) && live < needed; ++i) {
    if (slots_[i].state != Slot::State::empty) continue;
    if (!StartWorker(i)) return;
    ++live;
    if (want_fresh > 0) --want_fresh;
  }
  // A memory retry runs only in a fresh worker; when no slot is free for one, idle warm workers
  // make room (a warm worker would take every other job before it).
  for (int i = 0; i < static_cast<int>(slots_.size()) && want_fresh > 0; ++i) {
    if (slots_[i].state != Slot::State::idle || slots_[i].jobs_done == 0) continue;
    pool_->Kill(i);
    slots_[i] = Slot{};
    ++recycled_;
    if (!StartWorker(i)) return;
    --want_fresh;
  }
}

void Supervisor::Step() {
  double now = clock_->Now();
  double timeout = options_.tick_s;
  for (const auto& s : slots_) {
    if (s.state == Slot::State::starting) timeout = std::min(timeout, s.startup_deadline - now);
    if (s.state == Slot::State::busy) timeout = std::min(timeout, s.deadline - now);
  }
  if (options_.memory_limit_bytes > 0) timeout = std::min(timeout, next_memory_check_ - now);
  timeout = std::max(timeout, 0.0);

  events_.clear();
  std::string err;
  if (!pool_->Wait(timeout, &events_, &err)) {
    Fail("waiting for workers failed: " + err);
    return;
  }
  for (const WorkerEvent& ev : events_) {
    if (failed()) return;
    if (ev.slot < 0 || ev.slot >= static_cast<int>(slots_.size())) continue;
    if (slots_[ev.slot].state == Slot::State::empty) continue;  // a worker killed earlier in this batch
    switch (ev.kind) {
      case WorkerEvent::Kind::line: HandleLine(ev.slot, ev.line); break;
      case WorkerEvent::Kind::overlong: ProtocolError(ev.slot, "a message longer than the protocol allows"); break;
      case WorkerEvent::Kind::exited: HandleExit(ev.slot, ev.exit); break;
    }
  }
  if (failed()) return;
  CheckDeadlines();
  if (failed()) return;
  if (options_.memory_limit_bytes > 0 && clock_->Now() >= next_memory_check_) {
    CheckMemory();
    next_memory_check_ = clock_->Now() + options_.memory_poll_s;
  }
  if (observer_ != nullptr && !failed()) observer_->OnTick();
}

void Supervisor::HandleLine(int slot, const std::string& line) {
  WorkerMessage msg;
  std::string problem;
  if (!ParseWorkerMessage(line, &msg, &problem)) {
    ProtocolError(slot, problem);
    return;
  }
  Slot& s = slots_[slot];
  switch (s.state) {
    case Slot::State::empty: return;
    case Slot::State::starting: HandleStartupMessage(slot, msg); return;
    case Slot::State::idle:
      ProtocolError(slot, fmt::format("an unexpected '{}' message while idle", TypeName(msg.type)));
      return;
    case Slot::State::busy: break;
  }
  const SupervisedJob& job = (*jobs_)[s.job];
  bool same_job = msg.id == s.job_id && msg.case_name == job.case_name && msg.path == job.path;
  if (msg.type == WorkerMessage::Type::result && same_job) {
    if (memory_retried_[s.job] > 0) {
      Finish(slot, msg.status,
             WithNote(msg.record_json, MemoryRetryNote(memory_retried_[s.job] - 1,
                                                       options_.memory_limit_bytes / (1024 * 1024))));
    } else {
      Finish(slot, msg.status, msg.record_json);
    }
    if (failed()) return;
    s.state = Slot::State::idle;
    ++s.jobs_done;
    if (RecycleBytes() > 0) {  // what the job left behind, measured now rather than at the last poll
      std::vector<long long> rss;
      pool_->SampleMemory(&rss);
      if (slot < static_cast<int>(rss.size())) s.rss = rss[slot];
      RecycleIfGrown(slot);
    }
    return;
  }
  if (msg.type == WorkerMessage::Type::poisoned && same_job) {
    HandlePoisoned(slot, msg);
    return;
  }
  if (msg.type == WorkerMessage::Type::result || msg.type == WorkerMessage::Type::poisoned) {
    ProtocolError(slot, fmt::format("a '{}' for job {} ({} / {}) while job {} ({} / {}) was running", TypeName(msg.type),
                                    msg.id, msg.case_name, msg.path, s.job_id, job.case_name, job.path));
    return;
  }
  if (msg.type == WorkerMessage::Type::error) {
    ProtocolError(slot, "the worker reported an error during the job: " + msg.message);
    return;
  }
  ProtocolError(slot, fmt::format("an unexpected '{}' message during a job", TypeName(msg.type)));
}

void Supervisor::HandlePoisoned(int slot, const WorkerMessage& msg) {
  Slot& s = slots_[slot];
  pool_->Kill(slot);
  if (msg.has_record) {
    // The job ran to its end; only the interpreter is suspect. Keep what it measured.
    Finish(slot, msg.status, WithNote(msg.record_json, PoisonNote(msg.reason)));
  } else if (++poison_counts_[s.job] >= 2) {
    Finish(slot, Status::crash,
           EngineRecord(Status::crash, "poisoned the worker twice: " + msg.reason, clock_->Now() - s.started));
  } else {
    queue_.push_front(s.job);
  }
  if (!failed()) LoseWorker(slot);
}

void Supervisor::HandleStartupMessage(int slot, const WorkerMessage& msg) {
  Slot& s = slots_[slot];
  if (msg.type == WorkerMessage::Type::error) {
    Fail(msg.message);
    return;
  }
  if (!s.got_hello) {
    if (msg.type != WorkerMessage::Type::hello) {
      Fail(fmt::format("worker {}: expected 'hello', got '{}'", slot, TypeName(msg.type)));
      return;
    }
    if (msg.hello.protocol != kProtocolVersion) {
      Fail(fmt::format("the worker speaks protocol {}; this engine speaks protocol {} (upgrade the one that is older)",
                       msg.hello.protocol, kProtocolVersion));
      return;
    }
    if (have_first_) {
      if (msg.hello.harness != first_hello_.harness || msg.hello.env_json != first_hello_.env_json ||
          msg.hello.paths_json != first_hello_.paths_json) {
        Fail(fmt::format("worker {} reports a different harness or environment than the first worker did; was "
                         "something reinstalled during the run?",
                         slot));
        return;
      }
    } else {
      first_hello_ = msg.hello;
    }
    s.got_hello = true;
    return;
  }
  if (s.got_inventory) {
    if (msg.type != WorkerMessage::Type::index) {
      Fail(fmt::format("worker {}: expected 'index' after 'inventory', got '{}'", slot, TypeName(msg.type)));
      return;
    }
    if (!have_first_index_) {  // the first worker's is the plan's; later workers measured the same files
      first_index_ = msg.index;
      have_first_index_ = true;
    }
    s.state = Slot::State::idle;
    return;
  }
  if (msg.type != WorkerMessage::Type::inventory) {
    Fail(fmt::format("worker {}: expected 'inventory' after 'hello', got '{}'", slot, TypeName(msg.type)));
    return;
  }
  std::string digest = InventoryDigest(msg.cases);
  if (have_first_) {
    if (digest != inventory_digest_) {
      Fail(InventoryMismatch(slot, msg.cases));
      return;
    }
  } else {
    first_inventory_ = msg.cases;
    first_inventory_slot_ = slot;
    inventory_digest_ = digest;
    have_first_ = true;
  }
  s.got_inventory = true;
}

// "worker 2 loaded different cases than worker 0: case 'x' has fingerprint ... in worker 2 and ...".
std::string Supervisor::InventoryMismatch(int slot, const std::vector<CaseEntry>& cases) const {
  const bool same = slot == first_inventory_slot_;  // a replacement in the first worker's slot
  const std::string mine = same ? fmt::format("worker {} now", slot) : fmt::format("worker {}", slot);
  const std::string theirs = same ? fmt::format("worker {} at its first start", slot)
                                  : fmt::format("worker {}", first_inventory_slot_);
  std::string difference = DescribeInventoryDifference(cases, mine, first_inventory_, theirs);
  if (difference.empty()) difference = "the inventories differ";  // the digest says so; cannot happen
  return fmt::format("{} loaded different cases than {}: {}", mine, theirs, difference);
}

void Supervisor::HandleExit(int slot, const ExitStatus& exit) {
  Slot& s = slots_[slot];
  switch (s.state) {
    case Slot::State::empty: return;
    case Slot::State::starting:
      s = Slot{};
      Fail(fmt::format("worker {} {} before it was ready; {}", slot, DescribeExit(exit).substr(7), pool_->LogHint(slot)));
      return;
    case Slot::State::idle: LoseWorker(slot); return;
    case Slot::State::busy:
      Finish(slot, Status::crash, EngineRecord(Status::crash, CrashDetail(exit), clock_->Now() - s.started));
      if (!failed()) LoseWorker(slot);
      return;
  }
}

void Supervisor::ProtocolError(int slot, const std::string& problem) {
  Slot& s = slots_[slot];
  if (s.state == Slot::State::starting) {
    pool_->Kill(slot);
    s = Slot{};
    Fail(fmt::format("worker {}: protocol error while starting: {}; {}", slot, problem, pool_->LogHint(slot)));
    return;
  }
  pool_->Kill(slot);
  if (s.state == Slot::State::busy) {
    Finish(slot, Status::crash, EngineRecord(Status::crash, ProtocolErrorDetail(problem), clock_->Now() - s.started));
  }
  if (!failed()) LoseWorker(slot);
}

void Supervisor::CheckDeadlines() {
  double now = clock_->Now();
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    Slot& s = slots_[i];
    if (s.state == Slot::State::starting && now >= s.startup_deadline) {
      pool_->Kill(i);
      s = Slot{};
      Fail(fmt::format("worker {} was not ready within {:g} s (no hello, inventory and index); {}", i,
                       options_.startup_timeout_s, pool_->LogHint(i)));
      return;
    }
    if (s.state == Slot::State::busy && now >= s.deadline) {
      pool_->Kill(i);
      Finish(i, Status::timeout, EngineRecord(Status::timeout, TimeoutDetail(options_.job_timeout_s), now - s.started));
      if (failed()) return;
      LoseWorker(i);
      if (failed()) return;
    }
  }
}

void Supervisor::CheckMemory() {
  std::vector<long long> rss;
  pool_->SampleMemory(&rss);
  long long limit_mib = options_.memory_limit_bytes / (1024 * 1024);
  for (int i = 0; i < static_cast<int>(slots_.size()) && i < static_cast<int>(rss.size()); ++i) {
    Slot& s = slots_[i];
    if (s.state == Slot::State::empty) continue;
    s.rss = rss[i];
    if (rss[i] <= options_.memory_limit_bytes) {
      if (s.state == Slot::State::idle) RecycleIfGrown(i);
      continue;
    }
    pool_->Kill(i);
    if (s.state == Slot::State::starting) {
      s = Slot{};
      Fail(fmt::format("worker {} exceeded the memory limit of {} MiB while starting (raise --memory-limit)", i, limit_mib));
      return;
    }
    if (s.state == Slot::State::busy) {
      if (s.jobs_done > 0 && memory_retried_[s.job] == 0) {
        // Not yet the job's verdict: the worker had run other jobs first.
        memory_retried_[s.job] = s.jobs_done + 1;
        fresh_queue_.push_back(s.job);
      } else {
        std::string detail = MemoryDetail(limit_mib);
        if (memory_retried_[s.job] > 0) detail += ", again as the first job of a fresh worker";
        Finish(i, Status::crash, EngineRecord(Status::crash, detail, clock_->Now() - s.started));
        if (failed()) return;
      }
    }
    LoseWorker(i);
    if (failed()) return;
  }
}

void Supervisor::Finish(int slot, Status status, const std::string& record_json) {
  Slot& s = slots_[slot];
  JobOutcome outcome{s.job, status, record_json, std::max(0.0, clock_->Now() - s.started)};
  --remaining_;
  std::string err;
  if (observer_ != nullptr && !observer_->OnOutcome(outcome, &err)) Fail(err);
}

void Supervisor::KillAndLose(int slot) {
  pool_->Kill(slot);
  LoseWorker(slot);
}

long long Supervisor::RecycleBytes() const {
  if (options_.recycle_bytes >= 0) return options_.recycle_bytes;
  return options_.memory_limit_bytes / 2;
}

void Supervisor::RecycleIfGrown(int slot) {
  Slot& s = slots_[slot];
  long long threshold = RecycleBytes();
  if (s.state != Slot::State::idle || threshold <= 0 || s.rss <= threshold) return;
  // Planned, not a loss: the restart cap is for workers that died or were killed mid-job.
  pool_->Kill(slot);
  s = Slot{};
  ++recycled_;
}

void Supervisor::LoseWorker(int slot) {
  slots_[slot] = Slot{};
  ++restarts_;
  if (restarts_ > options_.max_restarts && !failed()) {
    capped_ = true;
    Fail(fmt::format("stopped: workers were lost {} times, more than the cap of {} (--max-restarts); see the "
                     "worker logs",
                     restarts_, options_.max_restarts));
  }
}

void Supervisor::KillAll() {
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    if (slots_[i].state != Slot::State::empty) pool_->Kill(i);
    slots_[i] = Slot{};
  }
}

void Supervisor::Fail(const std::string& message) {
  if (fatal_.empty()) fatal_ = message;
}

}  // namespace opsweep
