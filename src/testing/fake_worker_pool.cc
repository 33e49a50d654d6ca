#include "testing/fake_worker_pool.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "testing/bundled_paths.h"

namespace opsweep {

FakeWorkerPool::FakeWorkerPool(FakeClock* clock, int slots)
    : paths(testing::StaticBundledPaths()), clock_(clock), workers_(static_cast<size_t>(slots)) {}

void FakeWorkerPool::Schedule(int slot, double due, WorkerEvent ev) {
  ev.slot = slot;
  workers_[slot].pending.push_back(Pending{due, std::move(ev)});
}

bool FakeWorkerPool::Start(int slot, std::string* err) {
  if (fail_start_after >= 0 && started >= fail_start_after) {
    *err = "cannot execute 'fake': No such file or directory";
    return false;
  }
  ++started;
  Worker& w = workers_[slot];
  w = Worker{};
  w.live = true;
  if (startup_hangs) return true;
  double due = clock_->now + startup_s;
  if (!startup_error.empty()) {
    Schedule(slot, due, {0, WorkerEvent::Kind::line, nlohmann::json{{"type", "error"}, {"message", startup_error}}.dump(), {}});
    Schedule(slot, due, {0, WorkerEvent::Kind::exited, "", ExitStatus{2, 0}});
    return true;
  }
  nlohmann::json described = nlohmann::json::array();
  for (const PathSpec& p : paths) {
    nlohmann::json d = PathSpecSnapshotJson(p);
    d["harness"] = p.harness;
    if (p.expected_seconds) d["expected_seconds"] = *p.expected_seconds;
    described.push_back(d);
  }
  nlohmann::json hello = {{"type", "hello"}, {"protocol", protocol}, {"pid", 1}, {"harness", harness},
                          {"paths", described}, {"env", nlohmann::json::parse(env_json)}};
  nlohmann::json inv = {{"type", "inventory"}, {"cases", nlohmann::json::array()}};
  const auto varied = fingerprints_by_start.find(started - 1);  // this worker's start, counted from 0
  for (const auto& c : cases) {
    std::string fingerprint = "fp-" + c;
    if (varied != fingerprints_by_start.end() && varied->second.count(c)) fingerprint = varied->second.at(c);
    inv["cases"].push_back({{"name", c}, {"group", "g.sub"}, {"registry", "r.py"}, {"fingerprint", fingerprint}});
  }
  Schedule(slot, due, {0, WorkerEvent::Kind::line, hello.dump(), {}});
  Schedule(slot, due, {0, WorkerEvent::Kind::line, inv.dump(), {}});
  if (!index_json.empty()) Schedule(slot, due, {0, WorkerEvent::Kind::line, index_json, {}});
  return true;
}

bool FakeWorkerPool::Send(int slot, const std::string& line, std::string* err) {
  Worker& w = workers_[slot];
  if (!w.live) {
    *err = "no worker";
    return false;
  }
  auto msg = nlohmann::json::parse(line);
  std::string c = msg["case"], p = msg["path"];
  long long id = msg["id"];
  std::string key = c + "|" + p;
  jobs_sent.push_back(key);
  FakeJobScript s;
  if (auto it = scripts.find(key); it != scripts.end()) s = it->second;
  double due = clock_->now + s.seconds;
  auto result = [&](const std::string& status) {
    nlohmann::json r = {{"type", "result"}, {"id", id}, {"case", c}, {"path", p}, {"record", {{"status", status}}}};
    if (!s.deps_json.empty()) r["record"]["deps"] = nlohmann::json::parse(s.deps_json);
    return r.dump();
  };
  switch (s.kind) {
    case FakeJobScript::Kind::result:
      if (s.peak_bytes > 0) w.pending.push_back(Pending{clock_->now + s.seconds / 2, {slot, WorkerEvent::Kind::line, "", {}}, w.rss + s.peak_bytes});
      if (s.leak_bytes > 0 || s.peak_bytes > 0) w.pending.push_back(Pending{due, {slot, WorkerEvent::Kind::line, "", {}}, w.rss + s.leak_bytes});
      Schedule(slot, due, {0, WorkerEvent::Kind::line, result(s.status), {}});
      break;
    case FakeJobScript::Kind::hang: break;
    case FakeJobScript::Kind::exit: Schedule(slot, due, {0, WorkerEvent::Kind::exited, "", s.exit}); break;
    case FakeJobScript::Kind::poison:
      if (poisoned_[key]++ < s.poison_times) {
        nlohmann::json m = {{"type", "poisoned"}, {"id", id}, {"case", c}, {"path", p}, {"reason", s.reason}};
        if (s.poison_with_record) m["record"] = {{"status", s.status}, {"detail", "measured"}};
        Schedule(slot, due, {0, WorkerEvent::Kind::line, m.dump(), {}});
        Schedule(slot, due, {0, WorkerEvent::Kind::exited, "", ExitStatus{3, 0}});
      } else {
        Schedule(slot, due, {0, WorkerEvent::Kind::line, result(s.status), {}});
      }
      break;
    case FakeJobScript::Kind::garbage: Schedule(slot, due, {0, WorkerEvent::Kind::line, "{not json", {}}); break;
    case FakeJobScript::Kind::memory: w.pending.push_back(Pending{due, {slot, WorkerEvent::Kind::line, "", {}}, s.rss_bytes}); break;
  }
  return true;
}

void FakeWorkerPool::Kill(int slot) {
  if (!workers_[slot].live) return;
  ++killed;
  workers_[slot] = Worker{};
}

void FakeWorkerPool::StopAll(double) {
  stopped = true;
  for (auto& w : workers_) w = Worker{};
}

bool FakeWorkerPool::Interrupted() { return interrupt_at >= 0 && clock_->now >= interrupt_at; }

bool FakeWorkerPool::Wait(double timeout_s, std::vector<WorkerEvent>* events, std::string* err) {
  double horizon = clock_->now + timeout_s;
  if (interrupt_at >= 0 && interrupt_at > clock_->now) horizon = std::min(horizon, interrupt_at);
  double next = horizon;
  for (const auto& w : workers_) {
    for (const auto& p : w.pending) next = std::min(next, p.due);
  }
  clock_->now = std::max(clock_->now, next);
  for (int i = 0; i < slots(); ++i) {
    Worker& w = workers_[i];
    std::vector<Pending> later;
    std::vector<Pending> due;
    for (auto& p : w.pending) (p.due <= clock_->now ? due : later).push_back(std::move(p));
    w.pending = std::move(later);
    for (auto& p : due) {
      if (p.rss >= 0) {
        w.rss = p.rss;
        continue;
      }
      events->push_back(p.event);
      if (p.event.kind == WorkerEvent::Kind::exited) {
        w = Worker{};
        break;
      }
    }
  }
  return true;
}

void FakeWorkerPool::SampleMemory(std::vector<long long>* rss_bytes) {
  rss_bytes->clear();
  for (const auto& w : workers_) rss_bytes->push_back(w.live ? w.rss : -1);
}

}  // namespace opsweep
