#include "core/schedule.h"

#include <algorithm>
#include <numeric>

namespace opsweep {

double DefaultExpectedSeconds(std::string_view path) {
  if (path == "onnx") return 4;
  if (path == "export") return 3;
  if (path == "compile") return 20;
  return 5;
}

double ExpectedSeconds(std::string_view path, std::optional<double> previous_duration_s) {
  if (previous_duration_s && *previous_duration_s >= 0) return *previous_duration_s;
  return DefaultExpectedSeconds(path);
}

std::vector<size_t> LongestFirst(const std::vector<double>& expected) {
  std::vector<size_t> order(expected.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return expected[a] > expected[b]; });
  return order;
}

}  // namespace opsweep
