// Scheduling order: longest expected job first (lit's habit), so the slow jobs start early and the
// cores stay busy to the end. The same expectations weight the progress ETA.
//
// The expected duration of a job comes from what the store already holds:
//   1. its own previous measured duration;
//   1b. else its duration in another survey of the same cases (`opsweep run --durations-from`: a
//      snapshot's timings file, e.g. the committed survey under another torch): a fresh database
//      then runs the longest jobs first, and its ETA weighs jobs by what they cost there;
//   2. else the case's duration on another path, scaled by the median ratio between the two paths
//      over the cases measured on both (at least kMinRatioPairs of them): a case that took 40 s to
//      export to ONNX is expected to be slow under torch.compile too;
//   3. else the path's default: its description's expected_seconds (core/path_spec.h), and for a
//      path whose description gives none, kFallbackExpectedSeconds.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opsweep {

// The default for a path whose description names no expected duration.
inline constexpr double kFallbackExpectedSeconds = 5;

class DurationModel {
 public:
  static constexpr size_t kMinRatioPairs = 5;

  // The default of a path that has never run (negative values are ignored).
  void SetDefault(const std::string& path, double seconds);
  // The path's default, else kFallbackExpectedSeconds.
  double Default(const std::string& path) const;

  // Adds one measured duration (negative durations are ignored).
  void Add(const std::string& case_name, const std::string& path, double seconds);
  // Adds the duration of (case, path) in another survey (rule 1b; negative durations are ignored; the
  // first one added for a job is kept).
  void AddPrior(const std::string& case_name, const std::string& path, double seconds);

  // The expected seconds of (case, path) by the rules above.
  double Expected(const std::string& case_name, const std::string& path) const;
  // Whether that expectation is rule 1, the job's own measured duration (else it is derived from
  // other jobs, and can be off by a factor the measured ones are not).
  bool Measured(const std::string& case_name, const std::string& path) const;
  // Whether that expectation is rule 1b, the job's duration in another survey.
  bool FromPrior(const std::string& case_name, const std::string& path) const;

  // The median ratio path `to` / path `from` over cases measured on both, and how many cases that
  // is; nullopt below kMinRatioPairs.
  std::optional<std::pair<double, size_t>> Ratio(const std::string& to, const std::string& from) const;

 private:
  std::map<std::string, double> defaults_;
  std::map<std::string, std::map<std::string, double>> by_case_;  // case -> path -> seconds
  std::map<std::string, std::map<std::string, double>> prior_;    // the same, from another survey
  mutable std::map<std::pair<std::string, std::string>, std::optional<std::pair<double, size_t>>> ratios_;
};

// Indices of `expected` ordered longest first; ties keep their original (plan) order.
std::vector<size_t> LongestFirst(const std::vector<double>& expected);

}  // namespace opsweep
