#include "exec/unit_runner.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "testing/fake_clock.h"

namespace opsweep {
namespace {

// A pool whose workers say hello 0.5 s after they start and play each unit's "script" (a field of
// its payload): "ok" (one step, one event, done after 1 s), "hang" (one step, then nothing),
// "crash" (one step, then killed by SIGSEGV), "steps" (n steps `gap` seconds apart, then done),
// "resume" (a step whose resume payload is {"script":"ok"}, then nothing), "leave" (done, saying
// it leaves, then exits half a second later), "grow" (one step, then its RSS reaches 4 GiB).
class ScriptedPool : public WorkerPool {
 public:
  ScriptedPool(FakeClock* clock, int slots) : clock_(clock), workers_(static_cast<size_t>(slots)) {}

  std::string start_error;  // sent instead of hello
  int started = 0;
  int killed = 0;

  int slots() const override { return static_cast<int>(workers_.size()); }
  bool Start(int slot, std::string* err) override {
    Worker& w = workers_[slot];
    w = Worker{};
    w.live = true;
    ++started;
    if (!start_error.empty()) {
      Push(slot, 0.5, R"({"type":"error","message":")" + start_error + R"("})");
    } else {
      Push(slot, 0.5, R"({"type":"hello","protocol":1})");
    }
    return true;
  }
  bool Send(int slot, const std::string& line, std::string* err) override {
    auto msg = nlohmann::json::parse(line);
    const long long id = msg["id"].get<long long>();
    const auto& unit = msg["unit"];
    const std::string script = unit.value("script", "ok");
    auto step = [&](double at, int n, const nlohmann::json& resume) {
      nlohmann::json m = {{"type", "step"}, {"id", id}, {"step", n}, {"where", "f.py:" + std::to_string(n)}};
      if (!resume.is_null()) m["resume"] = resume;
      Push(slot, at, m.dump());
    };
    auto done = [&](double at) { Push(slot, at, nlohmann::json({{"type", "done"}, {"id", id}}).dump()); };
    if (script == "ok" || script == "leave") {
      step(0.1, 0, nullptr);
      Push(slot, 0.2, nlohmann::json({{"type", "event"}, {"id", id}, {"event", {{"kind", "call"}, {"n", id}}}}).dump());
      if (script == "leave") {
        Push(slot, 1.0, nlohmann::json({{"type", "done"}, {"id", id}, {"leaving", true}}).dump());
        PushExit(slot, 1.5, ExitStatus{0, 0});
      } else {
        done(1.0);
      }
    } else if (script == "hang") {
      step(0.1, 0, nullptr);
    } else if (script == "crash") {
      step(0.1, 0, nullptr);
      PushExit(slot, 0.5, ExitStatus{0, 11});
    } else if (script == "steps") {
      const int n = unit.value("n", 3);
      const double gap = unit.value("gap", 50.0);
      for (int i = 0; i < n; ++i) step(0.1 + gap * i, i, nullptr);
      done(0.2 + gap * (n - 1));
    } else if (script == "resume") {
      step(0.1, 0, nlohmann::json({{"script", "ok"}}));
    } else if (script == "grow") {
      step(0.1, 0, nullptr);
      workers_[slot].grow_at = clock_->now + 2.0;
    }
    return true;
  }
  void Kill(int slot) override {
    if (!workers_[slot].live) return;
    workers_[slot] = Worker{};
    ++killed;
  }
  void StopAll(double) override {
    for (int i = 0; i < slots(); ++i) workers_[i] = Worker{};
  }
  bool Wait(double timeout_s, std::vector<WorkerEvent>* events, std::string*) override {
    double next = clock_->now + timeout_s;
    for (const Worker& w : workers_) {
      for (const Pending& p : w.pending) next = std::min(next, p.due);
    }
    clock_->now = std::max(clock_->now, next);
    for (int i = 0; i < slots(); ++i) {
      Worker& w = workers_[i];
      std::vector<Pending> keep;
      bool gone = false;
      for (const Pending& p : w.pending) {
        if (gone) break;
        if (p.due <= clock_->now) {
          events->push_back(p.event);
          if (p.event.kind == WorkerEvent::Kind::exited) gone = true;
        } else {
          keep.push_back(p);
        }
      }
      if (gone) {
        w = Worker{};
      } else {
        w.pending = keep;
      }
    }
    return true;
  }
  bool Interrupted() override { return false; }
  void SampleMemory(std::vector<long long>* rss) override {
    rss->clear();
    for (const Worker& w : workers_) {
      rss->push_back(!w.live ? -1 : (w.grow_at > 0 && clock_->now >= w.grow_at) ? (4LL << 30) : (100LL << 20));
    }
  }
  std::string LogHint(int) override { return "see the log"; }

 private:
  struct Pending {
    double due;
    WorkerEvent event;
  };
  struct Worker {
    bool live = false;
    double grow_at = 0;
    std::vector<Pending> pending;
  };
  void Push(int slot, double after, const std::string& line) {
    workers_[slot].pending.push_back(Pending{clock_->now + after, WorkerEvent{slot, WorkerEvent::Kind::line, line, {}}});
  }
  void PushExit(int slot, double after, ExitStatus exit) {
    workers_[slot].pending.push_back(Pending{clock_->now + after, WorkerEvent{slot, WorkerEvent::Kind::exited, "", exit}});
  }
  FakeClock* clock_;
  std::vector<Worker> workers_;
};

struct Recorded : UnitObserver {
  std::vector<std::pair<size_t, std::string>> queued;
  std::vector<std::pair<size_t, std::string>> events;
  std::map<size_t, UnitOutcome> ends;
  bool OnQueued(size_t unit, const std::string& payload, long long resumes, std::string*) override {
    queued.emplace_back(unit, payload + (resumes >= 0 ? " resumes " + std::to_string(resumes) : ""));
    return true;
  }
  bool OnEvent(size_t unit, const std::string& event, std::string*) override {
    events.emplace_back(unit, event);
    return true;
  }
  bool OnEnd(const UnitOutcome& outcome, std::string*) override {
    ends[outcome.unit] = outcome;
    return true;
  }
};

UnitRunnerOptions Options() {
  UnitRunnerOptions o;
  o.step_timeout_s = 60;
  o.startup_timeout_s = 30;
  return o;
}

TEST(UnitRunner, RunsEveryUnitAndRelaysItsEvents) {
  FakeClock clock;
  ScriptedPool pool(&clock, 2);
  UnitRunner runner(&pool, &clock, Options());
  Recorded seen;
  std::string err;
  ASSERT_EQ(runner.Run({R"({"script":"ok"})", R"({"script":"ok"})", R"({"script":"ok"})"}, &seen, &err),
            UnitRunEnd::completed) << err;
  ASSERT_EQ(seen.ends.size(), 3u);
  for (const auto& [unit, outcome] : seen.ends) EXPECT_EQ(outcome.end, UnitEnd::done);
  EXPECT_EQ(seen.events.size(), 3u);
  EXPECT_EQ(pool.started, 2);  // warm workers: two for three units
}

TEST(UnitRunner, AHangCostsItsUnitOnlyAndNamesTheStep) {
  FakeClock clock;
  ScriptedPool pool(&clock, 1);
  UnitRunner runner(&pool, &clock, Options());
  Recorded seen;
  std::string err;
  ASSERT_EQ(runner.Run({R"({"script":"hang"})", R"({"script":"ok"})"}, &seen, &err), UnitRunEnd::completed) << err;
  EXPECT_EQ(seen.ends[0].end, UnitEnd::timeout);
  EXPECT_EQ(seen.ends[0].where, "f.py:0");
  EXPECT_EQ(seen.ends[0].detail, "no step finished within 60 s");
  EXPECT_EQ(seen.ends[1].end, UnitEnd::done);
  EXPECT_EQ(pool.killed, 1);
  EXPECT_EQ(pool.started, 2);  // a fresh worker after the kill
  EXPECT_EQ(runner.lost(), 1);
}

TEST(UnitRunner, ACrashIsTheUnitsOutcome) {
  FakeClock clock;
  ScriptedPool pool(&clock, 1);
  UnitRunner runner(&pool, &clock, Options());
  Recorded seen;
  std::string err;
  ASSERT_EQ(runner.Run({R"({"script":"crash"})", R"({"script":"ok"})"}, &seen, &err), UnitRunEnd::completed) << err;
  EXPECT_EQ(seen.ends[0].end, UnitEnd::crash);
  EXPECT_NE(seen.ends[0].detail.find("SIGSEGV"), std::string::npos) << seen.ends[0].detail;
  EXPECT_EQ(seen.ends[1].end, UnitEnd::done);
}

TEST(UnitRunner, TheDeadlineIsPerStep) {
  FakeClock clock;
  ScriptedPool pool(&clock, 1);
  UnitRunner runner(&pool, &clock, Options());
  Recorded seen;
  std::string err;
  ASSERT_EQ(runner.Run({R"({"script":"steps","n":4,"gap":50})"}, &seen, &err), UnitRunEnd::completed) << err;
  EXPECT_EQ(seen.ends[0].end, UnitEnd::done);
  EXPECT_GT(seen.ends[0].seconds, 120);  // longer than one timeout, never longer than it per step
}

TEST(UnitRunner, ACutOffStepWithAResumeQueuesTheRest) {
  FakeClock clock;
  ScriptedPool pool(&clock, 1);
  UnitRunner runner(&pool, &clock, Options());
  Recorded seen;
  std::string err;
  ASSERT_EQ(runner.Run({R"({"script":"resume"})"}, &seen, &err), UnitRunEnd::completed) << err;
  EXPECT_EQ(seen.ends[0].end, UnitEnd::timeout);
  EXPECT_EQ(seen.ends[0].resumed_as, 1);
  ASSERT_EQ(seen.queued.size(), 2u);
  EXPECT_EQ(seen.queued[1].second, R"({"script":"ok"} resumes 0)");
  EXPECT_EQ(seen.ends[1].end, UnitEnd::done);
}

TEST(UnitRunner, AWorkerThatLeavesBetweenUnitsIsReplaced) {
  FakeClock clock;
  ScriptedPool pool(&clock, 1);
  UnitRunner runner(&pool, &clock, Options());
  Recorded seen;
  std::string err;
  ASSERT_EQ(runner.Run({R"({"script":"leave"})", R"({"script":"leave"})"}, &seen, &err), UnitRunEnd::completed) << err;
  EXPECT_EQ(seen.ends[0].end, UnitEnd::done);
  EXPECT_EQ(seen.ends[1].end, UnitEnd::done);
  EXPECT_EQ(runner.lost(), 0);
}

TEST(UnitRunner, AWorkerThatCannotGetReadyStopsTheRun) {
  FakeClock clock;
  ScriptedPool pool(&clock, 1);
  pool.start_error = "cannot import mylib";
  UnitRunner runner(&pool, &clock, Options());
  Recorded seen;
  std::string err;
  EXPECT_EQ(runner.Run({R"({"script":"ok"})"}, &seen, &err), UnitRunEnd::failed);
  EXPECT_NE(err.find("cannot import mylib"), std::string::npos) << err;
  EXPECT_NE(err.find("see the log"), std::string::npos) << err;
}

TEST(UnitRunner, AUnitOverTheMemoryLimitIsKilled) {
  FakeClock clock;
  ScriptedPool pool(&clock, 1);
  UnitRunnerOptions o = Options();
  o.memory_limit_bytes = 1LL << 30;
  UnitRunner runner(&pool, &clock, o);
  Recorded seen;
  std::string err;
  ASSERT_EQ(runner.Run({R"({"script":"grow"})", R"({"script":"ok"})"}, &seen, &err), UnitRunEnd::completed) << err;
  EXPECT_EQ(seen.ends[0].end, UnitEnd::memory);
  EXPECT_NE(seen.ends[0].detail.find("1024 MiB"), std::string::npos) << seen.ends[0].detail;
  EXPECT_EQ(seen.ends[1].end, UnitEnd::done);
}

}  // namespace
}  // namespace opsweep
