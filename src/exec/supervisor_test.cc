#include "exec/supervisor.h"

#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include "testing/fake_clock.h"
#include "testing/fake_worker_pool.h"

namespace opsweep {
namespace {

class Recorder : public RunObserver {
 public:
  bool OnOutcome(const JobOutcome& o, std::string* err) override {
    outcomes.push_back(o);
    return true;
  }
  std::string Detail(size_t i) const { return nlohmann::json::parse(outcomes[i].record_json).value("detail", ""); }
  std::vector<JobOutcome> outcomes;
};

std::vector<SupervisedJob> Jobs(std::initializer_list<const char*> names, const char* path = "onnx") {
  std::vector<SupervisedJob> jobs;
  for (const char* n : names) jobs.push_back({n, path});
  return jobs;
}

struct Fixture {
  explicit Fixture(int slots, SupervisorOptions options = {}) : pool(&clock, slots), sup(&pool, &clock, options) {}
  RunEnd Open() {
    HelloMessage hello;
    std::vector<CaseEntry> inv;
    LibraryIndex index;
    return sup.Open(&hello, &inv, &index, &err);
  }
  RunEnd Run(const std::vector<SupervisedJob>& jobs) {
    RunEnd e = Open();
    if (e != RunEnd::completed) return e;
    return sup.Run(jobs, &rec, &err);
  }
  FakeClock clock;
  FakeWorkerPool pool;
  Supervisor sup;
  Recorder rec;
  std::string err;
};

TEST(Supervisor, OpenReturnsHelloAndInventory) {
  FakeClock clock;
  FakeWorkerPool pool(&clock, 2);
  Supervisor sup(&pool, &clock, {});
  HelloMessage hello;
  std::vector<CaseEntry> inv;
  LibraryIndex index;
  std::string err;
  ASSERT_EQ(sup.Open(&hello, &inv, &index, &err), RunEnd::completed) << err;
  EXPECT_EQ(hello.harness, "h1");
  EXPECT_TRUE(index.known);
  EXPECT_EQ(index.library, "lib");
  ASSERT_EQ(inv.size(), 3u);
  EXPECT_EQ(inv[2].fingerprint, "fp-c");
  EXPECT_EQ(pool.started, 1);  // only the first worker until jobs are known
}

TEST(Supervisor, HandsOutJobsInTheGivenOrderOnEveryWorker) {
  Fixture f(2);
  f.pool.scripts["a|onnx"].seconds = 5;
  ASSERT_EQ(f.Run(Jobs({"a", "b", "c", "d"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "b|onnx", "c|onnx", "d|onnx"}));
  ASSERT_EQ(f.rec.outcomes.size(), 4u);
  EXPECT_EQ(f.pool.started, 2);
  // a (5 s) ran on one worker while b, c, d (1 s each) ran on the other.
  EXPECT_EQ(f.rec.outcomes.back().job, 0u);
  EXPECT_DOUBLE_EQ(f.rec.outcomes.back().duration_s, 5);
  EXPECT_EQ(f.sup.restarts(), 0);
}

TEST(Supervisor, StartsNoMoreWorkersThanJobs) {
  Fixture f(8);
  ASSERT_EQ(f.Run(Jobs({"a", "b"})), RunEnd::completed);
  EXPECT_EQ(f.pool.started, 2);
}

TEST(Supervisor, TimeoutKillsTheWorkerAndRecordsTimeout) {
  SupervisorOptions o;
  o.job_timeout_s = 30;
  Fixture f(1, o);
  f.pool.scripts["b|onnx"].kind = FakeJobScript::Kind::hang;
  ASSERT_EQ(f.Run(Jobs({"a", "b", "c"})), RunEnd::completed) << f.err;
  ASSERT_EQ(f.rec.outcomes.size(), 3u);
  EXPECT_EQ(f.rec.outcomes[1].status, Status::timeout);
  EXPECT_EQ(f.rec.Detail(1), "no result after 30 s; the worker's process group was killed");
  EXPECT_DOUBLE_EQ(f.rec.outcomes[1].duration_s, 30);
  EXPECT_EQ(f.rec.outcomes[2].status, Status::ok);  // on a replacement worker
  EXPECT_EQ(f.pool.killed, 1);
  EXPECT_EQ(f.pool.started, 2);
  EXPECT_EQ(f.sup.restarts(), 1);
}

TEST(Supervisor, AnswerJustBeforeTheDeadlineIsKept) {
  SupervisorOptions o;
  o.job_timeout_s = 10;
  Fixture f(1, o);
  f.pool.scripts["a|onnx"].seconds = 9.999;
  ASSERT_EQ(f.Run(Jobs({"a"})), RunEnd::completed);
  EXPECT_EQ(f.rec.outcomes[0].status, Status::ok);
}

TEST(Supervisor, WorkerDeathIsACrashNamingTheSignalOrCode) {
  Fixture f(1);
  f.pool.scripts["a|onnx"] = FakeJobScript{FakeJobScript::Kind::exit, "", 1, ExitStatus{0, SIGSEGV}};
  f.pool.scripts["b|onnx"] = FakeJobScript{FakeJobScript::Kind::exit, "", 1, ExitStatus{7, 0}};
  ASSERT_EQ(f.Run(Jobs({"a", "b", "c"})), RunEnd::completed);
  EXPECT_EQ(f.rec.outcomes[0].status, Status::crash);
  EXPECT_EQ(f.rec.Detail(0), "worker exited with signal 11 (SIGSEGV) during the job");
  EXPECT_EQ(f.rec.Detail(1), "worker exited with code 7 during the job");
  EXPECT_EQ(f.rec.outcomes[2].status, Status::ok);
  EXPECT_EQ(f.sup.restarts(), 2);
}

TEST(Supervisor, PoisonedJobIsRequeuedNotBlamedOnTheNext) {
  Fixture f(1);
  FakeJobScript s;
  s.kind = FakeJobScript::Kind::poison;
  s.poison_times = 1;
  f.pool.scripts["a|onnx"] = s;
  ASSERT_EQ(f.Run(Jobs({"a", "b"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "a|onnx", "b|onnx"}));
  ASSERT_EQ(f.rec.outcomes.size(), 2u);
  EXPECT_EQ(f.rec.outcomes[0].status, Status::ok);
  EXPECT_EQ(f.rec.outcomes[1].status, Status::ok);
}

TEST(Supervisor, APoisonedWorkerWithTheJobsRecordKeepsItAndIsReplaced) {
  Fixture f(1);
  FakeJobScript s;
  s.kind = FakeJobScript::Kind::poison;
  s.poison_with_record = true;
  s.status = "fail";
  s.reason = "inference mode changed from False to True";
  f.pool.scripts["a|onnx"] = s;
  ASSERT_EQ(f.Run(Jobs({"a", "b"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "b|onnx"}));  // not re-run
  ASSERT_EQ(f.rec.outcomes.size(), 2u);
  EXPECT_EQ(f.rec.outcomes[0].status, Status::fail);  // the job's own outcome, not a crash
  auto record = nlohmann::json::parse(f.rec.outcomes[0].record_json);
  EXPECT_EQ(record["detail"], "measured");
  EXPECT_EQ(record["notes"], nlohmann::json::array({"the worker was found poisoned after this job (inference mode "
                                                     "changed from False to True) and was replaced"}));
  EXPECT_EQ(f.rec.outcomes[1].status, Status::ok);
  EXPECT_EQ(f.pool.started, 2);  // replaced
  EXPECT_EQ(f.sup.restarts(), 1);
}

TEST(Supervisor, PoisoningTwiceWithoutARecordIsACrash) {
  Fixture f(1);
  FakeJobScript s;
  s.kind = FakeJobScript::Kind::poison;
  s.reason = "default dtype changed to float64";
  f.pool.scripts["a|onnx"] = s;
  ASSERT_EQ(f.Run(Jobs({"a", "b"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.rec.outcomes[0].status, Status::crash);
  EXPECT_EQ(f.rec.Detail(0), "poisoned the worker twice: default dtype changed to float64");
  EXPECT_EQ(f.rec.outcomes[1].status, Status::ok);
  EXPECT_EQ(f.sup.restarts(), 2);
}

TEST(Supervisor, ProtocolGarbageIsACrash) {
  Fixture f(1);
  f.pool.scripts["a|onnx"].kind = FakeJobScript::Kind::garbage;
  ASSERT_EQ(f.Run(Jobs({"a", "b"})), RunEnd::completed);
  EXPECT_EQ(f.rec.outcomes[0].status, Status::crash);
  EXPECT_EQ(f.rec.Detail(0), "protocol error: a line that is not JSON");
  EXPECT_EQ(f.pool.killed, 1);
}

TEST(Supervisor, RestartCapStopsTheRun) {
  SupervisorOptions o;
  o.max_restarts = 2;
  Fixture f(1, o);
  for (const char* c : {"a", "b", "c", "d"}) {
    f.pool.scripts[std::string(c) + "|onnx"] = FakeJobScript{FakeJobScript::Kind::exit, "", 1, ExitStatus{0, SIGSEGV}};
  }
  EXPECT_EQ(f.Run(Jobs({"a", "b", "c", "d"})), RunEnd::stopped);
  EXPECT_EQ(f.rec.outcomes.size(), 3u);  // the job that hit the cap still has its record
  EXPECT_NE(f.err.find("more than the cap of 2"), std::string::npos);
}

TEST(Supervisor, MemoryLimitKillsTheWorker) {
  SupervisorOptions o;
  o.memory_limit_bytes = 1024LL * 1024 * 1024;
  Fixture f(1, o);
  FakeJobScript s;
  s.kind = FakeJobScript::Kind::memory;
  s.rss_bytes = 2LL * 1024 * 1024 * 1024;
  f.pool.scripts["a|onnx"] = s;
  ASSERT_EQ(f.Run(Jobs({"a", "b"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.rec.outcomes[0].status, Status::crash);
  EXPECT_EQ(f.rec.Detail(0), "worker exceeded the memory limit of 1024 MiB");
  EXPECT_LT(f.rec.outcomes[0].duration_s, 3);
  EXPECT_EQ(f.rec.outcomes[1].status, Status::ok);
}

TEST(Supervisor, AJobOverTheLimitInAWarmWorkerIsRetriedInAFreshOne) {
  SupervisorOptions o;
  o.memory_limit_bytes = 1024LL * 1024 * 1024;
  o.recycle_bytes = 0;  // keep the warm worker's growth
  Fixture f(1, o);
  f.pool.scripts["a|onnx"].leak_bytes = 700LL * 1024 * 1024;
  f.pool.scripts["b|onnx"].peak_bytes = 500LL * 1024 * 1024;  // 1,200 MiB after a, 500 MiB alone
  f.pool.scripts["b|onnx"].seconds = 10;
  ASSERT_EQ(f.Run(Jobs({"a", "b", "c"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "b|onnx", "b|onnx", "c|onnx"}));
  ASSERT_EQ(f.rec.outcomes.size(), 3u);
  EXPECT_EQ(f.rec.outcomes[1].job, 1u);
  EXPECT_EQ(f.rec.outcomes[1].status, Status::ok);  // measured in the fresh worker, and saying so
  EXPECT_EQ(nlohmann::json::parse(f.rec.outcomes[1].record_json)["notes"][0],
            "measured as the first job of a fresh worker: a worker that had run 1 other job crossed the memory "
            "limit of 1024 MiB with it");
  EXPECT_FALSE(nlohmann::json::parse(f.rec.outcomes[2].record_json).contains("notes"));
  EXPECT_EQ(f.pool.started, 2);
  EXPECT_EQ(f.sup.restarts(), 1);
}

TEST(Supervisor, AJobOverTheLimitInAFreshWorkerTooIsACrashSayingSo) {
  SupervisorOptions o;
  o.memory_limit_bytes = 1024LL * 1024 * 1024;
  o.recycle_bytes = 0;
  Fixture f(1, o);
  f.pool.scripts["b|onnx"].peak_bytes = 2LL * 1024 * 1024 * 1024;
  f.pool.scripts["b|onnx"].seconds = 10;
  ASSERT_EQ(f.Run(Jobs({"a", "b", "c"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "b|onnx", "b|onnx", "c|onnx"}));
  ASSERT_EQ(f.rec.outcomes.size(), 3u);
  EXPECT_EQ(f.rec.outcomes[1].status, Status::crash);
  EXPECT_EQ(f.rec.Detail(1), "worker exceeded the memory limit of 1024 MiB, again as the first job of a fresh worker");
  EXPECT_EQ(f.rec.outcomes[2].status, Status::ok);
}

TEST(Supervisor, AMemoryRetryWaitsForAFreshWorkerRatherThanAnIdleWarmOne) {
  SupervisorOptions o;
  o.memory_limit_bytes = 1024LL * 1024 * 1024;
  o.recycle_bytes = 0;
  Fixture f(2, o);
  f.pool.scripts["a|onnx"].leak_bytes = 700LL * 1024 * 1024;
  f.pool.scripts["b|onnx"].leak_bytes = 700LL * 1024 * 1024;  // both workers are warm and grown
  f.pool.scripts["c|onnx"].peak_bytes = 500LL * 1024 * 1024;
  f.pool.scripts["c|onnx"].seconds = 10;
  f.pool.cases = {"a", "b", "c", "d"};
  ASSERT_EQ(f.Run(Jobs({"a", "b", "c", "d"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "b|onnx", "c|onnx", "d|onnx", "c|onnx"}));
  ASSERT_EQ(f.rec.outcomes.size(), 4u);
  for (const auto& out : f.rec.outcomes) EXPECT_EQ(out.status, Status::ok) << out.job;  // c would not fit beside b
  EXPECT_EQ(f.pool.started, 3);
}

TEST(Supervisor, AWorkerGrownPastTheRecycleSizeIsReplacedBetweenJobsWithoutCountingALoss) {
  SupervisorOptions o;
  o.memory_limit_bytes = 1024LL * 1024 * 1024;  // recycles above 512 MiB by default
  Fixture f(1, o);
  f.pool.scripts["a|onnx"].leak_bytes = 700LL * 1024 * 1024;
  f.pool.scripts["b|onnx"].peak_bytes = 500LL * 1024 * 1024;
  f.pool.scripts["b|onnx"].seconds = 10;
  ASSERT_EQ(f.Run(Jobs({"a", "b", "c"})), RunEnd::completed) << f.err;
  EXPECT_EQ(f.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "b|onnx", "c|onnx"}));  // b ran once, lean
  for (const auto& out : f.rec.outcomes) EXPECT_EQ(out.status, Status::ok) << out.job;
  EXPECT_EQ(f.pool.started, 2);
  EXPECT_EQ(f.sup.recycled(), 1);
  EXPECT_EQ(f.sup.restarts(), 0);
}

TEST(Supervisor, RegistryErrorIsForwarded) {
  Fixture f(1);
  f.pool.startup_error = "cases_x.py: duplicate case name 'x' (cases_x.py:3 and cases_y.py:9)";
  EXPECT_EQ(f.Open(), RunEnd::failed);
  EXPECT_EQ(f.err, f.pool.startup_error);
}

// A second worker whose registry drew other inputs (another fingerprint) stops the run, and the
// message names the case, both fingerprints and both workers.
TEST(Supervisor, AWorkerWithOtherCasesStopsTheRunNamingTheCase) {
  Fixture f(2);
  f.pool.fingerprints_by_start[1] = {{"b", "fp-b-other"}};
  EXPECT_EQ(f.Run(Jobs({"a", "b", "c", "a"})), RunEnd::failed);
  EXPECT_EQ(f.err,
            "worker 1 loaded different cases than worker 0: case 'b' has fingerprint fp-b-other in worker 1 and "
            "fp-b in worker 0 (does its registry draw random inputs without a seed, or did it change during the run?)");
}

// A replacement started in the first worker's slot is compared with that slot's first inventory.
TEST(Supervisor, AReplacementWorkerWithOtherCasesIsNamedAsSuch) {
  Fixture f(1);
  f.pool.scripts["a|onnx"].kind = FakeJobScript::Kind::exit;
  f.pool.scripts["a|onnx"].exit = ExitStatus{7, 0};
  f.pool.fingerprints_by_start[1] = {{"c", "fp-c-2"}};
  EXPECT_EQ(f.Run(Jobs({"a", "b"})), RunEnd::failed);
  EXPECT_EQ(f.err,
            "worker 0 now loaded different cases than worker 0 at its first start: case 'c' has fingerprint fp-c-2 in "
            "worker 0 now and fp-c in worker 0 at its first start (does its registry draw random inputs without a "
            "seed, or did it change during the run?)");
}

TEST(Supervisor, StartupDeadlineIsAnError) {
  SupervisorOptions o;
  o.startup_timeout_s = 120;
  Fixture f(1, o);
  f.pool.startup_hangs = true;
  EXPECT_EQ(f.Open(), RunEnd::failed);
  EXPECT_NE(f.err.find("was not ready within 120 s"), std::string::npos);
  EXPECT_DOUBLE_EQ(f.clock.now, 1120);
  EXPECT_EQ(f.pool.killed, 1);
}

TEST(Supervisor, RefusesAnotherProtocolVersion) {
  Fixture f(1);
  f.pool.protocol = 1;
  EXPECT_EQ(f.Open(), RunEnd::failed);
  EXPECT_EQ(f.err, "the worker speaks protocol 1; this engine speaks protocol 3 (upgrade the one that is older)");
}

TEST(Supervisor, AWorkerMustSendItsIndexAfterTheInventory) {
  Fixture f(1);
  f.pool.index_json = "";  // a worker that stops after the inventory never gets ready
  SupervisorOptions o;
  EXPECT_EQ(f.Open(), RunEnd::failed);
  EXPECT_NE(f.err.find("no hello, inventory and index"), std::string::npos) << f.err;
  Fixture g(1);
  g.pool.index_json = R"({"type":"inventory","cases":[]})";
  EXPECT_EQ(g.Open(), RunEnd::failed);
  EXPECT_EQ(g.err, "worker 0: expected 'index' after 'inventory', got 'inventory'");
}

TEST(Supervisor, SpawnFailureIsAnError) {
  Fixture f(1);
  f.pool.fail_start_after = 0;
  EXPECT_EQ(f.Open(), RunEnd::failed);
  EXPECT_EQ(f.err, "cannot start a worker: cannot execute 'fake': No such file or directory");
}

TEST(Supervisor, InterruptStopsHandingOutJobs) {
  Fixture f(1);
  f.pool.interrupt_at = 1002.7;  // ready at 1000.5, jobs of 1 s each
  EXPECT_EQ(f.Run(Jobs({"a", "b", "c", "d"})), RunEnd::interrupted);
  EXPECT_EQ(f.rec.outcomes.size(), 2u);
  EXPECT_EQ(f.pool.jobs_sent.size(), 3u);
}

TEST(Supervisor, ObserverFailureStopsTheRun) {
  class Failing : public RunObserver {
    bool OnOutcome(const JobOutcome&, std::string* err) override {
      *err = "database is locked";
      return false;
    }
  } failing;
  FakeClock clock;
  FakeWorkerPool pool(&clock, 1);
  Supervisor sup(&pool, &clock, {});
  HelloMessage hello;
  std::vector<CaseEntry> inv;
  LibraryIndex index;
  std::string err;
  ASSERT_EQ(sup.Open(&hello, &inv, &index, &err), RunEnd::completed);
  auto jobs = Jobs({"a", "b"});
  EXPECT_EQ(sup.Run(jobs, &failing, &err), RunEnd::failed);
  EXPECT_EQ(err, "database is locked");
}

}  // namespace
}  // namespace opsweep
