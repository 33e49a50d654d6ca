// Real processes: /bin/sh scripts stand in for workers. The pool appends
// "--proto-in N --proto-out M --registry R --threads T", which `sh -c SCRIPT sh` sees as $1...
#include "exec/posix_worker_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace opsweep {
namespace {

WorkerCommand Sh(const std::string& script) {
  WorkerCommand c;
  c.program = {"/bin/sh", "-c", script, "sh"};
  c.registries = {"reg.py"};
  c.threads = 3;
  c.log_dir = (std::filesystem::temp_directory_path() / ("opsweep-pool-test-" + std::to_string(getpid()))).string();
  c.env = {{"OPSWEEP_TEST_VAR", "yes"}};
  return c;
}

std::vector<WorkerEvent> WaitForExit(PosixWorkerPool* pool, int slot) {
  std::vector<WorkerEvent> all;
  std::string err;
  for (int i = 0; i < 200; ++i) {
    std::vector<WorkerEvent> events;
    EXPECT_TRUE(pool->Wait(0.1, &events, &err));
    for (auto& e : events) all.push_back(e);
    if (!all.empty() && all.back().kind == WorkerEvent::Kind::exited) break;
  }
  return all;
}

TEST(PosixWorkerPool, DeliversLinesThenTheSignalThatKilledTheWorker) {
  PosixWorkerPool pool(Sh(R"(printf '{"a":1}\n{"b":"%s %s"}\n' "$OPSWEEP_TEST_VAR" "$8" >&$4; kill -SEGV $$)"), 1);
  std::string err;
  ASSERT_TRUE(pool.Start(0, &err)) << err;
  auto events = WaitForExit(&pool, 0);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].line, R"({"a":1})");
  EXPECT_EQ(events[1].line, R"({"b":"yes 3"})");
  EXPECT_EQ(events[2].kind, WorkerEvent::Kind::exited);
  EXPECT_EQ(events[2].exit.signal, SIGSEGV);
}

TEST(PosixWorkerPool, ReportsExitCodesAndSendsLines) {
  PosixWorkerPool pool(Sh(R"(read line <&$2; echo "got $line" >&$4; exit 7)"), 1);
  std::string err;
  ASSERT_TRUE(pool.Start(0, &err)) << err;
  ASSERT_TRUE(pool.Send(0, "ping", &err));
  auto events = WaitForExit(&pool, 0);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].line, "got ping");
  EXPECT_EQ(events[1].exit.code, 7);
  EXPECT_EQ(events[1].exit.signal, 0);
}

TEST(PosixWorkerPool, KillTakesTheWholeProcessGroup) {
  PosixWorkerPool pool(Sh(R"(sleep 300 & echo $! >&$4; wait)"), 1);
  std::string err;
  ASSERT_TRUE(pool.Start(0, &err));
  std::vector<WorkerEvent> events;
  for (int i = 0; i < 50 && events.empty(); ++i) ASSERT_TRUE(pool.Wait(0.1, &events, &err));
  ASSERT_EQ(events.size(), 1u);
  int child = std::stoi(events[0].line);
  std::vector<long long> rss;
  pool.SampleMemory(&rss);
  EXPECT_GT(rss[0], 0);
  pool.Kill(0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    // Gone, or a zombie waiting for a reaper (PID 1 of a container may never reap it).
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, comm, state;
    gone = !(stat >> pid >> comm >> state) || state == "Z";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone);
  pool.SampleMemory(&rss);
  EXPECT_EQ(rss[0], -1);
}

TEST(PosixWorkerPool, ExecFailureIsAnError) {
  WorkerCommand c = Sh("");
  c.program = {"/nonexistent/python3"};
  PosixWorkerPool pool(c, 1);
  std::string err;
  EXPECT_FALSE(pool.Start(0, &err));
  EXPECT_EQ(err, "cannot execute '/nonexistent/python3': No such file or directory");
}

}  // namespace
}  // namespace opsweep
