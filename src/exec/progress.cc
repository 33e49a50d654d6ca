#include "exec/progress.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace opsweep {

std::string FormatDuration(double seconds) {
  long long s = std::llround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m{:02}s", s / 3600, (s / 60) % 60, s % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

Progress::Progress(Terminal* terminal, Clock* clock, size_t total, size_t reused, double expected_total_s)
    : terminal_(terminal), clock_(clock), tty_(terminal->IsTty()), total_(total), reused_(reused),
      expected_total_s_(expected_total_s), started_(clock->Now()) {}

std::string Progress::Counts() const {
  std::string out;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", StatusId(kAllStatuses[i]), counts_[i]);
  }
  return out;
}

std::string Progress::StatusText() {
  double elapsed = clock_->Now() - started_;
  int pct = total_ == 0 ? 100 : static_cast<int>(100.0 * static_cast<double>(done_) / static_cast<double>(total_));
  std::string text = fmt::format("[{}/{} {}%]", done_, total_, pct);
  std::string counts = Counts();
  if (!counts.empty()) text += " " + counts;
  if (done_ > 0 && elapsed > 0) {
    double per_min = 60.0 * static_cast<double>(done_) / elapsed;
    double eta = static_cast<double>(total_ - done_) * elapsed / static_cast<double>(done_);
    if (expected_total_s_ > 0 && expected_done_s_ > 0) {
      eta = std::max(0.0, expected_total_s_ - expected_done_s_) * elapsed / expected_done_s_;
      double expected_done = 0, actual_done = 0;
      for (const auto& [name, g] : groups_) {
        expected_done += g.expected_done;
        actual_done += g.actual_done;
      }
      if (expected_done > 0 && actual_done > 0) {
        // Job-seconds still to run, each group at its own pace; then wall seconds per job-second.
        const double overall = actual_done / expected_done;
        double remaining = 0;
        for (const auto& [name, g] : groups_) {
          const double ratio = g.recent_expected > 0 && g.recent_actual > 0 ? g.recent_actual / g.recent_expected : overall;
          remaining += std::max(0.0, g.expected_total - g.expected_done) * ratio;
        }
        eta = remaining * elapsed / actual_done;
      }
    }
    text += fmt::format(" | {:.1f} jobs/min | ETA {}", per_min, FormatDuration(eta));
  } else if (expected_total_s_ > 0) {
    // nothing measured yet: the expected seconds, shared by the workers, less what already passed
    // (never less than the longest job)
    const double expected = std::max(expected_total_s_ / workers_, longest_expected_s_);
    text += elapsed < expected ? fmt::format(" | ETA ~{} (expected)", FormatDuration(expected - elapsed))
                               : fmt::format(" | ETA -- (past the expected {})", FormatDuration(expected));
  } else {
    text += " | ETA --";
  }
  return text;
}

void Progress::Draw() {
  double now = clock_->Now();
  if (tty_) {
    std::string text = StatusText();
    size_t width = static_cast<size_t>(std::max(20, terminal_->Width() - 1));
    if (text.size() > width) text.resize(width);
    terminal_->Write("\r" + text + "\x1b[K");
    drawn_ = true;
  } else {
    terminal_->Write(prefix_ + ": " + StatusText() + "\n");
    last_plain_done_ = done_;
  }
  last_draw_ = now;
}

void Progress::Expect(const std::string& group, double expected_s) {
  if (expected_s > 0) groups_[group].expected_total += expected_s;
  longest_expected_s_ = std::max(longest_expected_s_, expected_s);
}

void Progress::OnOutcome(Status status, double expected_s, const std::string& group, double actual_s) {
  ++done_;
  if (expected_s > 0) expected_done_s_ += expected_s;
  if (auto it = groups_.find(group); it != groups_.end() && expected_s > 0 && actual_s >= 0) {
    Group& g = it->second;
    g.expected_done += expected_s;
    g.actual_done += actual_s;
    g.recent.emplace_back(expected_s, actual_s);
    g.recent_expected += expected_s;
    g.recent_actual += actual_s;
    if (g.recent.size() > kRecentOutcomes) {
      g.recent_expected -= g.recent.front().first;
      g.recent_actual -= g.recent.front().second;
      g.recent.pop_front();
    }
  }
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (kAllStatuses[i] == status) ++counts_[i];
  }
  double now = clock_->Now();
  if (tty_) {
    if (now - last_draw_ >= 0.2 || done_ == total_) Draw();
    return;
  }
  size_t step = std::max<size_t>(1, (total_ + 19) / 20);  // 5%
  if (done_ / step > last_plain_done_ / step || now - last_draw_ >= 10.0) Draw();
}

void Progress::Tick() {
  double now = clock_->Now();
  if (tty_ ? now - last_draw_ >= 1.0 : now - last_draw_ >= 10.0) Draw();
}

void Progress::Finish(std::string_view ending, std::string_view workers) {
  if (tty_ && drawn_) terminal_->Write("\r\x1b[K");
  double wall = clock_->Now() - started_;
  std::string counts = Counts();
  std::string line = fmt::format("{}: {}{} of {} jobs ran ({}); {} reused from earlier runs; wall {}{}\n", prefix_,
                                 ending.empty() ? "" : std::string(ending) + ": ", done_, total_,
                                 counts.empty() ? "none" : counts, reused_, FormatDuration(wall),
                                 workers.empty() ? "" : "; " + std::string(workers));
  terminal_->Write(line);
}

}  // namespace opsweep
