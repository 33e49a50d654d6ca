#include "core/schedule.h"

#include <algorithm>
#include <numeric>

namespace opsweep {

namespace {
// Durations below this are timer noise; a ratio against them means nothing.
constexpr double kMinRatioBase = 0.01;
}  // namespace

void DurationModel::SetDefault(const std::string& path, double seconds) {
  if (seconds >= 0) defaults_[path] = seconds;
}

double DurationModel::Default(const std::string& path) const {
  auto it = defaults_.find(path);
  return it == defaults_.end() ? kFallbackExpectedSeconds : it->second;
}

void DurationModel::Add(const std::string& case_name, const std::string& path, double seconds) {
  if (!(seconds >= 0)) return;
  by_case_[case_name][path] = seconds;
  ratios_.clear();
}

void DurationModel::AddPrior(const std::string& case_name, const std::string& path, double seconds) {
  if (!(seconds >= 0)) return;
  prior_[case_name].emplace(path, seconds);  // the first one given wins
}

std::optional<std::pair<double, size_t>> DurationModel::Ratio(const std::string& to, const std::string& from) const {
  auto key = std::make_pair(to, from);
  if (auto it = ratios_.find(key); it != ratios_.end()) return it->second;
  std::vector<double> r;
  for (const auto& [name, paths] : by_case_) {
    auto t = paths.find(to);
    auto f = paths.find(from);
    if (t == paths.end() || f == paths.end() || f->second < kMinRatioBase) continue;
    r.push_back(t->second / f->second);
  }
  std::optional<std::pair<double, size_t>> out;
  if (r.size() >= kMinRatioPairs) {
    std::sort(r.begin(), r.end());
    const size_t n = r.size();
    const double median = n % 2 == 1 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
    out = std::make_pair(median, n);
  }
  ratios_[key] = out;
  return out;
}

bool DurationModel::Measured(const std::string& case_name, const std::string& path) const {
  auto c = by_case_.find(case_name);
  return c != by_case_.end() && c->second.count(path) > 0;
}

bool DurationModel::FromPrior(const std::string& case_name, const std::string& path) const {
  if (Measured(case_name, path)) return false;
  auto c = prior_.find(case_name);
  return c != prior_.end() && c->second.count(path) > 0;
}

double DurationModel::Expected(const std::string& case_name, const std::string& path) const {
  auto c = by_case_.find(case_name);
  if (c != by_case_.end()) {
    if (auto own = c->second.find(path); own != c->second.end()) return own->second;
  }
  if (auto p = prior_.find(case_name); p != prior_.end()) {
    if (auto prior = p->second.find(path); prior != p->second.end()) return prior->second;
  }
  if (c == by_case_.end()) return Default(path);
  // Another path of the same case, through the best-supported ratio (most pairs; ties: path name).
  std::optional<double> best;
  size_t best_pairs = 0;
  for (const auto& [from, seconds] : c->second) {
    if (seconds < kMinRatioBase) continue;
    auto ratio = Ratio(path, from);
    if (ratio && ratio->second > best_pairs) {
      best = seconds * ratio->first;
      best_pairs = ratio->second;
    }
  }
  return best ? *best : Default(path);
}

std::vector<size_t> LongestFirst(const std::vector<double>& expected) {
  std::vector<size_t> order(expected.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return expected[a] > expected[b]; });
  return order;
}

}  // namespace opsweep
