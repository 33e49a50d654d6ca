#include "exec/progress.h"

#include <gtest/gtest.h>

#include "testing/fake_clock.h"
#include "testing/fake_terminal.h"

namespace opsweep {
namespace {

TEST(FormatDuration, IsCompact) {
  EXPECT_EQ(FormatDuration(12.4), "12s");
  EXPECT_EQ(FormatDuration(245), "4m05s");
  EXPECT_EQ(FormatDuration(3723), "1h02m03s");
}

TEST(Progress, TtyRedrawsOneLineWithCountsRateAndEta) {
  FakeClock clock;
  FakeTerminal term(true);
  Progress p(&term, &clock, 4, 1);
  clock.Advance(30);
  p.OnOutcome(Status::ok);
  EXPECT_EQ(term.out, "\r[1/4 25%] ok 1 | 2.0 jobs/min | ETA 1m30s\x1b[K");
  clock.Advance(30);
  p.OnOutcome(Status::crash);
  EXPECT_NE(term.out.find("\r[2/4 50%] ok 1, crash 1 | 2.0 jobs/min | ETA 1m00s"), std::string::npos);
  term.out.clear();
  p.Finish("");
  EXPECT_EQ(term.out, "\r\x1b[Kopsweep run: 2 of 4 jobs ran (ok 1, crash 1); 1 reused from earlier runs; wall 1m00s\n");
}

TEST(Progress, EtaWeighsJobsByTheirExpectedSeconds) {
  FakeClock clock;
  FakeTerminal term(false);
  // Longest first: one 90 s job, then nine 1 s jobs (99 expected seconds in all).
  Progress p(&term, &clock, 10, 0, 99);
  clock.Advance(90);
  p.OnOutcome(Status::ok, 90);
  // Counting jobs would say 9 x 90 s = 13m30s; the weights say 9 s are left at the pace so far.
  EXPECT_NE(p.StatusText().find("ETA 9s"), std::string::npos) << p.StatusText();
  clock.Advance(9);  // the rest ran twice as slow as expected: 3 of 9 expected seconds in 9 s
  for (int i = 0; i < 3; ++i) p.OnOutcome(Status::ok, 1);
  // 93 expected seconds took 99 s; 6 expected seconds remain: 6 * 99 / 93 = 6.4 s.
  EXPECT_NE(p.StatusText().find("ETA 6s"), std::string::npos) << p.StatusText();
}

TEST(Progress, EachPathsRemainingJobsGoAtThatPathsOwnPace) {
  FakeClock clock;
  FakeTerminal term(false);
  // 10 compile jobs expected 10 s each, then 10 onnx jobs expected 1 s each: durations measured
  // under an older onnx harness, which now takes 10 s a job.
  Progress p(&term, &clock, 20, 0, 110);
  for (int i = 0; i < 10; ++i) p.Expect("compile", 10);
  for (int i = 0; i < 10; ++i) p.Expect("onnx", 1);
  for (int i = 0; i < 10; ++i) {
    clock.Advance(10);
    p.OnOutcome(Status::ok, 10, "compile", 10);
  }
  EXPECT_NE(p.StatusText().find("ETA 10s"), std::string::npos) << p.StatusText();  // no onnx pace yet
  clock.Advance(10);
  p.OnOutcome(Status::ok, 1, "onnx", 10);
  // One expected onnx second took 10: the 9 left take 90 s, not the 9.8 s one pace for all gives.
  EXPECT_NE(p.StatusText().find("ETA 1m30s"), std::string::npos) << p.StatusText();
}

TEST(Progress, AGroupsPaceIsItsRecentJobsPace) {
  FakeClock clock;
  FakeTerminal term(false);
  // A new path's expectations derived from another path's durations: right for its 40 long jobs
  // (10 s each), 5 times too short for its 100 short ones (1 s expected, 5 s taken).
  Progress p(&term, &clock, 140, 0, 500);
  for (int i = 0; i < 40; ++i) p.Expect("compile-dynamic (derived)", 10);
  for (int i = 0; i < 100; ++i) p.Expect("compile-dynamic (derived)", 1);
  for (int i = 0; i < 40; ++i) {
    clock.Advance(10);
    p.OnOutcome(Status::ok, 10, "compile-dynamic (derived)", 10);
  }
  for (int i = 0; i < Progress::kRecentOutcomes; ++i) {
    clock.Advance(5);
    p.OnOutcome(Status::ok, 1, "compile-dynamic (derived)", 5);
  }
  // 68 short jobs left at the pace of the last 32 (5 s each): 340 s. The pace of all jobs so far
  // (560 s for 432 expected) would say 88 s.
  EXPECT_NE(p.StatusText().find("ETA 5m40s"), std::string::npos) << p.StatusText();
}

TEST(Progress, BeforeTheFirstJobEndsTheEtaIsTheExpectedSecondsSharedByTheWorkers) {
  FakeClock clock;
  FakeTerminal term(false);
  Progress p(&term, &clock, 3, 0, 1500);
  p.Expect("compile", 600);
  p.Expect("compile", 500);
  p.Expect("onnx", 400);
  p.SetWorkers(2);
  EXPECT_NE(p.StatusText().find("| ETA ~12m30s (expected)"), std::string::npos) << p.StatusText();
  clock.Advance(60);
  EXPECT_NE(p.StatusText().find("| ETA ~11m30s (expected)"), std::string::npos) << p.StatusText();
  p.SetWorkers(8);  // never less than the longest job
  EXPECT_NE(p.StatusText().find("| ETA ~9m00s (expected)"), std::string::npos) << p.StatusText();
  clock.Advance(600);  // slower than expected: no made-up figure
  EXPECT_NE(p.StatusText().find("| ETA -- (past the expected 10m00s)"), std::string::npos) << p.StatusText();
  // once a job has ended, the measured pace decides
  p.OnOutcome(Status::ok, 600, "compile", 120);
  EXPECT_EQ(p.StatusText().find("(expected)"), std::string::npos) << p.StatusText();
}

TEST(Progress, PlainOutputPrintsEveryFivePercentOrTenSeconds) {
  FakeClock clock;
  FakeTerminal term(false);
  Progress p(&term, &clock, 100, 0);
  for (int i = 0; i < 4; ++i) p.OnOutcome(Status::ok);
  EXPECT_EQ(term.out, "opsweep run: [1/100 1%] ok 1 | ETA --\n");  // the first, at time 0
  term.out.clear();
  p.OnOutcome(Status::ok);  // 5%
  EXPECT_EQ(term.out.substr(0, 30), "opsweep run: [5/100 5%] ok 5 |");
  term.out.clear();
  clock.Advance(5);
  p.Tick();
  EXPECT_EQ(term.out, "");
  clock.Advance(6);
  p.Tick();
  EXPECT_EQ(std::count(term.out.begin(), term.out.end(), '\n'), 1);
  EXPECT_EQ(term.out.find('\r'), std::string::npos);
}

TEST(Progress, FinishSaysHowTheRunEnded) {
  FakeClock clock;
  FakeTerminal term(false);
  Progress p(&term, &clock, 3, 0);
  p.Finish("interrupted");
  EXPECT_EQ(term.out, "opsweep run: interrupted: 0 of 3 jobs ran (none); 0 reused from earlier runs; wall 0s\n");
}

}  // namespace
}  // namespace opsweep
