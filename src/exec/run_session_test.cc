#include "exec/run_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <nlohmann/json.hpp>

#include "testing/bundled_paths.h"
#include "testing/fake_clock.h"
#include "testing/fake_result_store.h"
#include "testing/fake_terminal.h"
#include "testing/fake_worker_pool.h"

namespace opsweep {
namespace {

struct Session {
  explicit Session(int slots = 2) : pool(&clock, slots), sup(&pool, &clock, {}), session(&sup, &store, &clock, &term) {}
  RunEnd Execute(RunRequest request = {}) { return session.Execute(request, &summary, &err); }
  FakeClock clock;
  FakeWorkerPool pool;
  FakeResultStore store;
  FakeTerminal term{false};
  Supervisor sup;
  RunSession session;
  RunSummary summary;
  std::string err;
};

TEST(RunSession, RunsEveryJobAndStoresItWithItsKey) {
  Session s;
  ASSERT_EQ(s.Execute(), RunEnd::completed) << s.err;
  EXPECT_EQ(s.summary.planned, 9u);
  EXPECT_EQ(s.store.results.size(), 9u);
  const StoredResult& r = s.store.results.at({"a", "onnx"});
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.job_key.size(), 32u);
  EXPECT_EQ(nlohmann::json::parse(r.key_fields_json)["case"], "fp-a");
  EXPECT_EQ(r.run_id, 1);
  EXPECT_EQ(r.attempts, 0);
  ASSERT_EQ(s.store.runs.size(), 1u);
  EXPECT_FALSE(s.store.runs[0].finished.empty());
  EXPECT_EQ(s.store.runs[0].shard, "1/1");
  auto paths = nlohmann::json::parse(s.store.runs[0].paths_json);  // the descriptions of the requested paths
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0]["id"], "onnx");
  EXPECT_EQ(paths[2]["title"], "torch.compile");
  EXPECT_TRUE(paths[1].contains("harness"));
  EXPECT_EQ(nlohmann::json::parse(r.key_fields_json)["harness"], paths[0]["harness"]);
  EXPECT_EQ(s.store.inventory.size(), 3u);
  EXPECT_TRUE(s.pool.stopped);
}

TEST(RunSession, StoresOnlyTheRequestedPathsDescriptionsInTheirOrder) {
  Session s;
  RunRequest req;
  req.plan.paths = {"compile", "onnx"};
  ASSERT_EQ(s.Execute(req), RunEnd::completed) << s.err;
  auto paths = nlohmann::json::parse(s.store.runs[0].paths_json);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0]["id"], "compile");
  EXPECT_EQ(paths[1]["id"], "onnx");
}

TEST(RunSession, DefaultDurationsComeFromThePathDescriptions) {
  Session s(1);
  s.pool.paths = {testing::TestPath("quick"), testing::TestPath("slow"), testing::TestPath("unsaid")};
  s.pool.paths[0].expected_seconds = 1;
  s.pool.paths[1].expected_seconds = 90;  // unsaid: kFallbackExpectedSeconds (5)
  RunRequest req;
  req.plan.only = {"a"};
  ASSERT_EQ(s.Execute(req), RunEnd::completed) << s.err;
  EXPECT_EQ(s.pool.jobs_sent, (std::vector<std::string>{"a|slow", "a|unsaid", "a|quick"}));
}

TEST(RunSession, AnEnvironmentFieldReRunsOnlyThePathsThatDependOnIt) {
  Session s;
  s.pool.env_json = R"({"torch":"2.13","onnxruntime":"1.32.0","opset":18})";
  ASSERT_EQ(s.Execute(), RunEnd::completed);
  Session again;
  again.store = s.store;
  again.pool.env_json = R"({"torch":"2.13","onnxruntime":"1.33.0","opset":18})";
  ASSERT_EQ(again.Execute(), RunEnd::completed);
  EXPECT_EQ(again.pool.jobs_sent, (std::vector<std::string>{"a|onnx", "b|onnx", "c|onnx"}));
  EXPECT_EQ(again.summary.reused, 6u);
}

TEST(RunSession, SchedulesLongestExpectedFirst) {
  Session s(1);
  RunRequest req;
  req.plan.paths = {"onnx", "export", "compile"};
  req.plan.only = {"a"};
  // A stored duration from an earlier run beats the per-path default.
  s.store.results[{"a", "export"}] = StoredResult{"a", "export", "stale", "{}", "ok", "{}", 50, 0, 1, ""};
  ASSERT_EQ(s.Execute(req), RunEnd::completed) << s.err;
  EXPECT_EQ(s.pool.jobs_sent, (std::vector<std::string>{"a|export", "a|compile", "a|onnx"}));
}

TEST(RunSession, ACaseSlowOnAnotherPathIsExpectedSlowHereToo) {
  Session s(1);
  RunRequest req;
  req.plan.paths = {"compile"};
  // Five cases of an earlier survey (not in this inventory) say compile takes twice as long as onnx.
  for (int i = 1; i <= 5; ++i) {
    const std::string name = "old" + std::to_string(i);
    s.store.results[{name, "onnx"}] = StoredResult{name, "onnx", "k", "{}", "ok", "{}", 1.0 * i, 0, 1, ""};
    s.store.results[{name, "compile"}] = StoredResult{name, "compile", "k", "{}", "ok", "{}", 2.0 * i, 0, 1, ""};
  }
  // c took 30 s to export to ONNX: expected 60 s under compile, above the 20 s default of a and b.
  s.store.results[{"c", "onnx"}] = StoredResult{"c", "onnx", "k", "{}", "ok", "{}", 30, 0, 1, ""};
  ASSERT_EQ(s.Execute(req), RunEnd::completed) << s.err;
  EXPECT_EQ(s.pool.jobs_sent, (std::vector<std::string>{"c|compile", "a|compile", "b|compile"}));
}

TEST(RunSession, ReusesCurrentResultsAndRetriesACrashOnce) {
  Session s;
  s.pool.scripts["b|compile"] = FakeJobScript{FakeJobScript::Kind::exit, "", 1, ExitStatus{0, SIGSEGV}};
  ASSERT_EQ(s.Execute(), RunEnd::completed);
  EXPECT_EQ(s.store.results.at({"b", "compile"}).attempts, 1);
  EXPECT_NE(s.term.out.find("reused from earlier runs; wall 5s; workers lost 1\n"), std::string::npos) << s.term.out;

  Session again;
  again.store = s.store;
  again.pool.scripts = s.pool.scripts;
  ASSERT_EQ(again.Execute(), RunEnd::completed);
  EXPECT_EQ(again.pool.jobs_sent, (std::vector<std::string>{"b|compile"}));
  EXPECT_EQ(again.summary.reused, 8u);
  EXPECT_EQ(again.store.results.at({"b", "compile"}).attempts, 2);

  Session third;
  third.store = again.store;
  ASSERT_EQ(third.Execute(), RunEnd::completed);
  EXPECT_TRUE(third.pool.jobs_sent.empty());
  EXPECT_EQ(third.summary.reused, 9u);
}

TEST(RunSession, ARunRecordsItsMachineAndTheNextPlanSaysWhichChangedCasesRanElsewhere) {
  Session first;
  RunRequest req;
  req.plan.machine = R"({"cpu":"Old CPU","features":"avx2"})";
  ASSERT_EQ(first.Execute(req), RunEnd::completed) << first.err;
  ASSERT_EQ(first.store.runs.size(), 1u);
  EXPECT_EQ(first.store.runs[0].machine_json, req.plan.machine);

  // On another machine case a builds other input bytes (its fingerprint changes): its 3 jobs run,
  // and the plan line says they were measured elsewhere; b and c stay current.
  Session second;
  second.store = first.store;
  second.pool.fingerprints_by_start = {{0, {{"a", "fp-a-here"}}}, {1, {{"a", "fp-a-here"}}}};
  RunRequest here;
  here.plan.machine = R"({"cpu":"New CPU","features":"avx2 avx512f"})";
  ASSERT_EQ(second.Execute(here), RunEnd::completed) << second.err;
  EXPECT_NE(second.term.out.find("3 to run: 3 case changed (3 measured on another machine); 6 current"),
            std::string::npos)
      << second.term.out;
  ASSERT_EQ(second.store.runs.size(), 2u);
  EXPECT_EQ(second.store.runs[1].machine_json, here.plan.machine);

  // On the same machine a changed case is only a changed case.
  Session third;
  third.store = first.store;
  third.pool.fingerprints_by_start = second.pool.fingerprints_by_start;
  ASSERT_EQ(third.Execute(req), RunEnd::completed) << third.err;
  EXPECT_NE(third.term.out.find("3 to run: 3 case changed; 6 current"), std::string::npos) << third.term.out;
}

// The index the fake workers send: gray.py's function and module, and another function.
std::string IndexJson(const std::string& gray_digest) {
  return R"({"type":"index","version":3,"library":"kornia","functions":{"kornia/color/gray.py:rgb_to_grayscale":")" +
         gray_digest + R"(","kornia/filters/gaussian.py:gaussian_blur2d":"b1"},"modules":{"kornia/color/gray.py":"m1",)"
         R"("kornia/filters/gaussian.py":"m2"}})";
}

const char* kGrayDeps =
    R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g1"},"modules":{"kornia/color/gray.py":"m1"}})";
const char* kBlurDeps =
    R"({"functions":{"kornia/filters/gaussian.py:gaussian_blur2d":"b1"},"modules":{"kornia/filters/gaussian.py":"m2"}})";

// A run where case a ran gray.py and b and c ran gaussian.py, on every path.
Session RunWithDeps() {
  Session s;
  s.pool.index_json = IndexJson("g1");
  for (const char* path : {"onnx", "export", "compile"}) {
    s.pool.scripts[std::string("a|") + path].deps_json = kGrayDeps;
    s.pool.scripts[std::string("b|") + path].deps_json = kBlurDeps;
    s.pool.scripts[std::string("c|") + path].deps_json = kBlurDeps;
  }
  EXPECT_EQ(s.Execute(), RunEnd::completed) << s.err;
  return s;
}

TEST(RunSession, AnEditedFunctionReprobesExactlyTheJobsThatRanIt) {
  Session first = RunWithDeps();
  ASSERT_EQ(first.store.results.size(), 9u);

  Session same;
  same.store = first.store;
  same.pool.index_json = IndexJson("g1");
  ASSERT_EQ(same.Execute(), RunEnd::completed) << same.err;
  EXPECT_TRUE(same.pool.jobs_sent.empty());
  EXPECT_NE(same.term.out.find("9 jobs planned (from 3 cases x 3 paths): 0 to run; 9 current"), std::string::npos)
      << same.term.out;

  Session edited;
  edited.store = first.store;
  edited.pool.index_json = IndexJson("g2");  // rgb_to_grayscale's body changed
  std::vector<std::string> explained;
  RunRequest req;
  req.explain = [&](const std::string& line) { explained.push_back(line); };
  ASSERT_EQ(edited.Execute(req), RunEnd::completed) << edited.err;
  std::vector<std::string> sent = edited.pool.jobs_sent;
  std::sort(sent.begin(), sent.end());
  EXPECT_EQ(sent, (std::vector<std::string>{"a|compile", "a|export", "a|onnx"}));
  EXPECT_NE(edited.term.out.find("3 to run: 3 library code changed; 6 current"), std::string::npos) << edited.term.out;
  EXPECT_EQ(explained, (std::vector<std::string>{"a onnx: kornia/color/gray.py:rgb_to_grayscale changed",
                                                 "a export: kornia/color/gray.py:rgb_to_grayscale changed",
                                                 "a compile: kornia/color/gray.py:rgb_to_grayscale changed"}));
}

// A version-4 index: token digests, and the digests of lines records measured before it hold.
std::string IndexV4Json(const std::string& gray_tokens, const std::string& gray_lines, const std::string& blur_lines) {
  return R"({"type":"index","version":4,"library":"kornia","functions":{"kornia/color/gray.py:rgb_to_grayscale":")" +
         gray_tokens + R"(","kornia/filters/gaussian.py:gaussian_blur2d":"t:b9"},"line_functions":{)" +
         R"("kornia/color/gray.py:rgb_to_grayscale":")" + gray_lines +
         R"(","kornia/filters/gaussian.py:gaussian_blur2d":")" + blur_lines +
         R"("},"modules":{"kornia/color/gray.py":"m1","kornia/filters/gaussian.py":"m2"}})";
}

TEST(RunSession, CurrentRecordsOfLinesTakeTokenDigestsSoThatACommentReprobesNothing) {
  Session first = RunWithDeps();  // its records hold digests of lines: g1, b1
  // gray's lines unchanged, gaussian's changed
  Session dry;
  dry.store = first.store;
  dry.pool.index_json = IndexV4Json("t:g9", "g1", "b2");
  RunRequest req;
  req.dry_run = DryRun::yes;
  ASSERT_EQ(dry.Execute(req), RunEnd::completed) << dry.err;
  EXPECT_EQ(dry.store.rewrites, 0);  // a dry run writes nothing
  EXPECT_NE(dry.term.out.find("6 to run: 6 library code changed; 3 current"), std::string::npos) << dry.term.out;

  Session v4;
  v4.store = first.store;
  v4.pool.index_json = IndexV4Json("t:g9", "g1", "b2");
  ASSERT_EQ(v4.Execute(), RunEnd::completed) << v4.err;
  EXPECT_EQ(v4.store.rewrites, 3);  // a's three records, current; b's and c's ran again
  EXPECT_NE(v4.term.out.find("3 current records now list their functions by token digests"), std::string::npos)
      << v4.term.out;
  const StoredResult& a = v4.store.results.at({"a", "onnx"});
  EXPECT_NE(a.record_json.find(R"("kornia/color/gray.py:rgb_to_grayscale":"t:g9")"), std::string::npos) << a.record_json;
  EXPECT_EQ(a.job_key, first.store.results.at({"a", "onnx"}).job_key);
  EXPECT_EQ(a.run_id, first.store.results.at({"a", "onnx"}).run_id);  // the same result, not a new one

  // a comment in rgb_to_grayscale: its lines change, its tokens do not
  Session comment;
  comment.store = v4.store;
  comment.pool.index_json = IndexV4Json("t:g9", "g3", "b2");
  ASSERT_EQ(comment.Execute(), RunEnd::completed) << comment.err;
  EXPECT_TRUE(comment.pool.jobs_sent.empty());
  EXPECT_EQ(comment.store.rewrites, v4.store.rewrites);  // nothing left to re-encode
}

TEST(RunSession, APlanLineCountsEveryCause) {
  Session first = RunWithDeps();
  Session next;
  next.store = first.store;
  next.store.results.erase({"c", "onnx"});  // never measured
  next.pool.index_json = IndexJson("g2");
  next.pool.cases = {"a", "b", "c", "d"};   // d is new
  ASSERT_EQ(next.Execute(), RunEnd::completed) << next.err;
  EXPECT_NE(next.term.out.find("12 jobs planned (from 4 cases x 3 paths): 7 to run: 4 new, 3 library code changed; "
                                "5 current"),
            std::string::npos)
      << next.term.out;
}

TEST(RunSession, ADryRunPlansAndExplainsButProbesAndWritesNothing) {
  Session first = RunWithDeps();
  Session dry;
  dry.store = first.store;
  dry.pool.index_json = IndexJson("g2");
  std::vector<std::string> explained;
  RunRequest req;
  req.dry_run = DryRun::yes;
  req.explain = [&](const std::string& line) { explained.push_back(line); };
  ASSERT_EQ(dry.Execute(req), RunEnd::completed) << dry.err;
  EXPECT_TRUE(dry.pool.jobs_sent.empty());
  EXPECT_EQ(dry.pool.started, 1);  // one worker, for the inventory and the index
  EXPECT_TRUE(dry.pool.stopped);
  EXPECT_EQ(dry.store.runs.size(), first.store.runs.size());  // no run recorded
  EXPECT_EQ(dry.store.puts, first.store.puts);  // no result stored
  EXPECT_EQ(dry.summary.to_run, 3u);
  EXPECT_EQ(explained.size(), 3u);
  EXPECT_NE(dry.term.out.find("3 to run: 3 library code changed; 6 current (dry run: nothing probed, no result written)"),
            std::string::npos)
      << dry.term.out;
}

TEST(RunSession, WithoutAnIndexTheLibraryFingerprintDecides) {
  // A worker of a library it cannot index (none) sends an unknown index: stored results with deps
  // are current only while the whole library is unchanged.
  Session first;
  first.pool.env_json = R"({"torch":"2.13","library":{"name":"kornia","version":"0.9.0","fingerprint":"L1"}})";
  ASSERT_EQ(first.Execute(), RunEnd::completed);
  Session next;
  next.store = first.store;
  next.pool.env_json = R"({"torch":"2.13","library":{"name":"kornia","version":"0.9.0","fingerprint":"L2"}})";
  next.pool.index_json = R"({"type":"index","version":3,"library":"kornia","functions":{},"modules":{}})";
  ASSERT_EQ(next.Execute(), RunEnd::completed);
  EXPECT_EQ(next.pool.jobs_sent.size(), 9u);  // the records have no deps: any library change counts
}

TEST(RunSession, ANewPathHarnessReRunsThatPathOnly) {
  Session s;
  ASSERT_EQ(s.Execute(), RunEnd::completed);
  Session again;
  again.store = s.store;
  again.pool.paths[2].harness = "edited";  // compile's module changed
  ASSERT_EQ(again.Execute(), RunEnd::completed);
  EXPECT_EQ(again.pool.jobs_sent, (std::vector<std::string>{"a|compile", "b|compile", "c|compile"}));
}

TEST(RunSession, UnknownPathIsABadRequest) {
  Session s;
  RunRequest req;
  req.plan.paths = {"tflite"};
  EXPECT_EQ(s.Execute(req), RunEnd::bad_request);
  EXPECT_EQ(s.err, "unknown path 'tflite' (the worker knows: onnx, export, compile)");
  EXPECT_TRUE(s.store.runs.empty());
}

TEST(RunSession, StoreFailureStopsTheRunButFinishesIt) {
  Session s;
  s.store.fail_puts = true;
  EXPECT_EQ(s.Execute(), RunEnd::failed);
  EXPECT_EQ(s.err, "disk full");
  ASSERT_EQ(s.store.runs.size(), 1u);
  EXPECT_FALSE(s.store.runs[0].finished.empty());
}

}  // namespace
}  // namespace opsweep
