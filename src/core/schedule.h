// Scheduling order: longest expected job first (lit's habit), so the slow jobs start early and the
// cores stay busy to the end. The expected duration of a job is its previous measured duration
// from the store, else a per-path default.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

namespace opsweep {

// Defaults when a job has never run: onnx 4 s, export 3 s, compile 20 s, any other path 5 s.
double DefaultExpectedSeconds(std::string_view path);

double ExpectedSeconds(std::string_view path, std::optional<double> previous_duration_s);

// Indices of `expected` ordered longest first; ties keep their original (plan) order.
std::vector<size_t> LongestFirst(const std::vector<double>& expected);

}  // namespace opsweep
