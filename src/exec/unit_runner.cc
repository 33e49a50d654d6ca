#include "exec/unit_runner.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/engine_record.h"

namespace opsweep {

std::string_view UnitEndId(UnitEnd end) {
  switch (end) {
    case UnitEnd::done: return "done";
    case UnitEnd::timeout: return "timeout";
    case UnitEnd::crash: return "crash";
    case UnitEnd::memory: return "memory";
  }
  return "crash";
}

UnitRunner::UnitRunner(WorkerPool* pool, Clock* clock, const UnitRunnerOptions& options)
    : pool_(pool), clock_(clock), options_(options), slots_(static_cast<size_t>(pool->slots())) {}

bool UnitRunner::Enqueue(const std::string& payload, long long resumes) {
  const size_t index = payloads_.size();
  payloads_.push_back(payload);
  queue_.push_back(index);
  ++remaining_;
  std::string err;
  if (observer_ != nullptr && !observer_->OnQueued(index, payload, resumes, &err)) {
    Fail(err);
    return false;
  }
  return true;
}

void UnitRunner::Fail(const std::string& message) {
  if (fatal_.empty()) fatal_ = message;
}

UnitRunEnd UnitRunner::Run(const std::vector<std::string>& payloads, UnitObserver* observer, std::string* err) {
  observer_ = observer;
  for (const auto& p : payloads) {
    if (!Enqueue(p, -1)) break;
  }
  next_memory_check_ = clock_->Now() + options_.memory_poll_s;
  double next_tick = clock_->Now() + options_.tick_s;
  std::vector<WorkerEvent> events;
  UnitRunEnd end = UnitRunEnd::completed;
  while (remaining_ > 0 && !failed()) {
    if (pool_->Interrupted()) {
      end = UnitRunEnd::interrupted;
      break;
    }
    StartAndAssign();
    if (failed()) break;
    const double now = clock_->Now();
    double wake = std::min(next_tick, now + 1.0);
    for (const Slot& s : slots_) {
      if (s.state == Slot::State::starting || s.state == Slot::State::busy || s.state == Slot::State::leaving) {
        wake = std::min(wake, s.deadline);
      }
    }
    if (options_.memory_limit_bytes > 0) wake = std::min(wake, next_memory_check_);
    events.clear();
    std::string wait_err;
    if (!pool_->Wait(std::max(0.0, wake - now), &events, &wait_err)) {
      Fail(wait_err);
      break;
    }
    for (const WorkerEvent& ev : events) {
      if (failed()) break;
      if (ev.kind == WorkerEvent::Kind::line) {
        HandleLine(ev.slot, ev.line);
      } else if (ev.kind == WorkerEvent::Kind::exited) {
        HandleExit(ev.slot, ev.exit);
      } else {  // an overlong line: a protocol failure of this worker
        if (slots_[ev.slot].state == Slot::State::busy) {
          pool_->Kill(ev.slot);
          EndUnit(ev.slot, UnitEnd::crash, "protocol error: a line longer than the limit");
        }
      }
    }
    if (failed()) break;
    CheckDeadlines();
    if (options_.memory_limit_bytes > 0 && clock_->Now() >= next_memory_check_) {
      CheckMemory();
      next_memory_check_ = clock_->Now() + options_.memory_poll_s;
    }
    if (clock_->Now() >= next_tick) {
      if (observer_ != nullptr) observer_->OnTick();
      next_tick = clock_->Now() + options_.tick_s;
    }
  }
  if (failed()) end = UnitRunEnd::failed;
  if (end == UnitRunEnd::completed) {
    pool_->StopAll(options_.stop_grace_s);
  } else {
    for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
      if (slots_[i].state != Slot::State::empty) pool_->Kill(i);
      slots_[i] = Slot{};
    }
  }
  if (end == UnitRunEnd::failed) *err = fatal_;
  return end;
}

void UnitRunner::StartAndAssign() {
  // Idle workers take queued units first; then new workers start for what is left.
  for (int i = 0; i < static_cast<int>(slots_.size()) && !queue_.empty(); ++i) {
    Slot& s = slots_[i];
    if (s.state != Slot::State::idle) continue;
    const size_t unit = queue_.front();
    queue_.pop_front();
    const std::string line = fmt::format(R"({{"type":"unit","id":{},"unit":{}}})", unit, payloads_[unit]);
    std::string err;
    if (!pool_->Send(i, line, &err)) {  // it died between units: it will be reaped; the unit waits
      queue_.push_front(unit);
      pool_->Kill(i);
      s = Slot{};
      continue;
    }
    s.state = Slot::State::busy;
    s.unit = unit;
    s.started = clock_->Now();
    s.deadline = s.started + options_.step_timeout_s;
    s.step_json = "null";
    s.where.clear();
    s.resume_json.clear();
  }
  size_t coming = 0;
  for (const Slot& s : slots_) coming += s.state == Slot::State::starting ? 1 : 0;
  for (int i = 0; i < static_cast<int>(slots_.size()) && coming < queue_.size(); ++i) {
    Slot& s = slots_[i];
    if (s.state != Slot::State::empty) continue;
    std::string err;
    if (!pool_->Start(i, &err)) {
      Fail(fmt::format("cannot start a worker: {}", err));
      return;
    }
    s = Slot{};
    s.state = Slot::State::starting;
    s.deadline = clock_->Now() + options_.startup_timeout_s;
    ++coming;
  }
}

void UnitRunner::HandleLine(int slot, const std::string& line) {
  Slot& s = slots_[slot];
  nlohmann::json msg = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  const std::string type = msg.is_object() && msg.contains("type") && msg["type"].is_string() ? msg["type"].get<std::string>() : "";
  if (s.state == Slot::State::starting) {
    if (type == "hello") {
      s.state = Slot::State::idle;
    } else if (type == "error") {
      Fail(fmt::format("a worker could not get ready: {} ({})", msg.value("message", "?"), pool_->LogHint(slot)));
    } else {
      Fail(fmt::format("a worker sent something else than hello ({})", pool_->LogHint(slot)));
    }
    return;
  }
  if (s.state != Slot::State::busy) return;  // nothing is expected from an idle worker
  const bool ours = msg.contains("id") && msg["id"].is_number_integer() && msg["id"].get<long long>() == static_cast<long long>(s.unit);
  if (!ours) {
    pool_->Kill(slot);
    EndUnit(slot, UnitEnd::crash, type.empty() ? "protocol error: not a JSON message" : "protocol error: a message of another unit");
    return;
  }
  std::string err;
  if (type == "step") {
    s.deadline = clock_->Now() + options_.step_timeout_s;
    s.step_json = msg.contains("step") ? msg["step"].dump() : "null";
    s.where = msg.value("where", "");
    s.resume_json = msg.contains("resume") && msg["resume"].is_object() ? msg["resume"].dump() : "";
  } else if (type == "event") {
    if (observer_ != nullptr && msg.contains("event") && !observer_->OnEvent(s.unit, msg["event"].dump(), &err)) Fail(err);
  } else if (type == "done") {
    UnitOutcome outcome{s.unit, UnitEnd::done, s.step_json, s.where, "", clock_->Now() - s.started, -1};
    const bool leaving = msg.contains("leaving") && msg["leaving"].is_boolean() && msg["leaving"].get<bool>();
    s.state = leaving ? Slot::State::leaving : Slot::State::idle;
    if (leaving) s.deadline = clock_->Now() + options_.stop_grace_s;
    --remaining_;
    if (observer_ != nullptr && !observer_->OnEnd(outcome, &err)) Fail(err);
  } else {
    pool_->Kill(slot);
    EndUnit(slot, UnitEnd::crash, fmt::format("protocol error: unexpected message '{}'", type));
  }
}

void UnitRunner::EndUnit(int slot, UnitEnd end, const std::string& detail) {
  Slot s = slots_[slot];
  slots_[slot] = Slot{};
  ++lost_;
  UnitOutcome outcome{s.unit, end, s.step_json, s.where, detail, clock_->Now() - s.started, -1};
  --remaining_;
  if (!s.resume_json.empty()) outcome.resumed_as = static_cast<long long>(payloads_.size());
  std::string err;
  if (observer_ != nullptr && !observer_->OnEnd(outcome, &err)) {
    Fail(err);
    return;
  }
  if (!s.resume_json.empty()) Enqueue(s.resume_json, static_cast<long long>(s.unit));
}

void UnitRunner::HandleExit(int slot, const ExitStatus& exit) {
  Slot& s = slots_[slot];
  if (s.state == Slot::State::starting) {
    slots_[slot] = Slot{};
    Fail(fmt::format("a worker {} before it was ready ({})", DescribeExit(exit).substr(std::string("worker ").size()),
                     pool_->LogHint(slot)));
    return;
  }
  if (s.state == Slot::State::busy) {
    EndUnit(slot, UnitEnd::crash, DescribeExit(exit));
    return;
  }
  slots_[slot] = Slot{};  // it left between units
}

void UnitRunner::CheckDeadlines() {
  const double now = clock_->Now();
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    Slot& s = slots_[i];
    if (s.state == Slot::State::starting && now >= s.deadline) {
      pool_->Kill(i);
      s = Slot{};
      Fail(fmt::format("a worker did not get ready within {:g} s ({})", options_.startup_timeout_s, pool_->LogHint(i)));
      return;
    }
    if (s.state == Slot::State::busy && now >= s.deadline) {
      pool_->Kill(i);
      EndUnit(i, UnitEnd::timeout, fmt::format("no step finished within {:g} s", options_.step_timeout_s));
    }
    if (s.state == Slot::State::leaving && now >= s.deadline) {  // said it would exit, and did not
      pool_->Kill(i);
      s = Slot{};
    }
  }
}

void UnitRunner::CheckMemory() {
  std::vector<long long> rss;
  pool_->SampleMemory(&rss);
  for (int i = 0; i < static_cast<int>(slots_.size()) && i < static_cast<int>(rss.size()); ++i) {
    Slot& s = slots_[i];
    if (s.state == Slot::State::empty || rss[i] <= options_.memory_limit_bytes) continue;
    pool_->Kill(i);
    const long long mib = options_.memory_limit_bytes / (1024 * 1024);
    if (s.state == Slot::State::busy) {
      EndUnit(i, UnitEnd::memory, fmt::format("its processes grew past the memory limit of {} MiB", mib));
    } else if (s.state == Slot::State::starting) {
      s = Slot{};
      Fail(fmt::format("a worker grew past the memory limit of {} MiB while starting (raise --memory-limit)", mib));
      return;
    } else {
      s = Slot{};  // an idle worker that grew: replaced before its next unit
    }
  }
}

}  // namespace opsweep
