// Progress of a run on stderr. On a TTY: one live status line redrawn in place (\r) with done/total,
// per-status counts, jobs/min and an ETA. Elsewhere (CI logs): a plain line every ~10 s or every 5%
// of the jobs, whichever comes first. Always: a final summary line.
//
// The ETA weighs jobs by their expected seconds (core/schedule.h) when the caller gives them: jobs run
// longest first, so counting jobs alone would promise a slow finish early on. It is the expected
// seconds still to run times the measured wall seconds per expected second so far. When jobs come
// in groups whose expectations can be off by different factors (a path's previous durations
// measured under an older harness; a new path's durations derived from another path's, see
// core/schedule.h), each group's remaining expected seconds are scaled by that group's own
// measured / expected ratio, once it has one, over its last kRecentOutcomes jobs: jobs run
// longest first, so the recent ones are the most like those still to run (a derived expectation
// can be right for the long jobs and 5 times too short for the short ones).
#pragma once
#include <algorithm>
#include <array>
#include <deque>
#include <utility>
#include <map>
#include <string>
#include <string_view>

#include "core/status.h"
#include "exec/clock.h"
#include "exec/terminal.h"

namespace opsweep {

// "1h02m03s", "4m05s", "12s".
std::string FormatDuration(double seconds);

class Progress {
 public:
  static constexpr size_t kRecentOutcomes = 32;

  // `expected_total_s`: the sum of the jobs' expected seconds, or 0 to count jobs only.
  Progress(Terminal* terminal, Clock* clock, size_t total, size_t reused, double expected_total_s = 0);

  // A job of `group` (a path) expected to take `expected_s`, announced before the run; optional.
  void Expect(const std::string& group, double expected_s);
  // How many jobs run at once: before the first job ends, the ETA is the expected seconds spread
  // over them ("ETA ~25m (expected)"), so a run whose first jobs take minutes says how long it will be.
  void SetWorkers(int workers) { workers_ = std::max(1, workers); }
  // What each line starts with (default "opsweep run"), for another verb that runs units of work.
  void SetPrefix(std::string prefix) { prefix_ = std::move(prefix); }
  // One job ended; `expected_s` is what it was expected to take (0 when unknown), `actual_s` what
  // it took (< 0 when unknown), `group` as given to Expect.
  void OnOutcome(Status status, double expected_s = 0, const std::string& group = "", double actual_s = -1);
  void Tick();
  // The final line; `ending` is "" for a completed run, else e.g. "interrupted"; `workers`, when
  // not empty, is appended ("workers lost 2, replaced 1 after growing past 4519 MiB").
  void Finish(std::string_view ending, std::string_view workers = "");

  // The status text shown on both kinds of terminal ("[12/40 30%] ok 10, fail 2 | 3.1 jobs/min | ETA 2m10s").
  std::string StatusText();

 private:
  void Draw();
  std::string Counts() const;

  Terminal* terminal_;
  Clock* clock_;
  bool tty_;
  size_t total_;
  size_t reused_;
  size_t done_ = 0;
  double expected_total_s_;
  double expected_done_s_ = 0;
  int workers_ = 1;
  double longest_expected_s_ = 0;  // of the jobs announced by Expect
  struct Group {
    double expected_total = 0, expected_done = 0, actual_done = 0;
    std::deque<std::pair<double, double>> recent;  // (expected, actual) of its last jobs
    double recent_expected = 0, recent_actual = 0;
  };
  std::map<std::string, Group> groups_;
  std::array<size_t, kAllStatuses.size()> counts_{};
  double started_;
  double last_draw_ = -1e9;
  size_t last_plain_done_ = 0;
  bool drawn_ = false;
  std::string prefix_ = "opsweep run";
};

}  // namespace opsweep
