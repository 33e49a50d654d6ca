#include "render/annotations.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include <fmt/core.h>

#include "render/escape.h"

namespace opsweep::render {
namespace {

using snapshot::Outcome;
using snapshot::Record;

// The words for a check id (presentation only: a check the harness adds later reads as "check
// '<id>' passed" until it gets words here).
struct CheckWords {
  const char* id;
  const char* passed;
  const char* failed;
  const char* not_run;
};
constexpr CheckWords kCheckWords[] = {
    {"fresh_inputs", "checked on fresh inputs", "failed on fresh inputs", "not checked on fresh inputs"},
    {"randomness", "checked that randomness survives capture", "randomness check failed", "randomness not checked"},
};
constexpr const char* kFreshInputsCheck = "fresh_inputs";

// Known checks first, in the table's order, then any other by id.
int CheckRank(const std::string& id) {
  for (std::size_t i = 0; i < std::size(kCheckWords); ++i) {
    if (id == kCheckWords[i].id) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kCheckWords));
}

AnnotationLine::Kind KindOf(snapshot::CheckState state) {
  switch (state) {
    case snapshot::CheckState::passed: return AnnotationLine::Kind::check_passed;
    case snapshot::CheckState::failed: return AnnotationLine::Kind::check_failed;
    case snapshot::CheckState::not_run: return AnnotationLine::Kind::check_not_run;
  }
  return AnnotationLine::Kind::check_not_run;
}

// Adds (kind, text) for path `p`, sharing the line of another path that says the same.
void AddAnnotation(std::vector<std::pair<int, AnnotationLine>>* lines, int rank, AnnotationLine::Kind kind,
                   std::string text, int p) {
  for (auto& [r, line] : *lines) {
    if (line.kind == kind && line.text == text) {
      line.paths.push_back(p);
      return;
    }
  }
  AnnotationLine line;
  line.kind = kind;
  line.text = std::move(text);
  line.paths.push_back(p);
  lines->push_back({rank, std::move(line)});
}

bool HasNotes(const Snapshot& snapshot) {
  for (const Record& record : snapshot.records) {
    for (const auto& [path, outcome] : record.paths) {
      if (!outcome.notes.empty()) return true;
    }
  }
  return false;
}

}  // namespace

std::string CheckLineText(const std::string& id, const snapshot::CheckResult& check) {
  std::string passed, failed, not_run;
  const int rank = CheckRank(id);
  if (rank < static_cast<int>(std::size(kCheckWords))) {
    passed = kCheckWords[rank].passed;
    failed = kCheckWords[rank].failed;
    not_run = kCheckWords[rank].not_run;
  } else {
    std::string words = id;
    std::replace(words.begin(), words.end(), '_', ' ');
    passed = fmt::format("check '{}' passed", words);
    failed = fmt::format("check '{}' failed", words);
    not_run = fmt::format("check '{}' not run", words);
  }
  const std::string why = OneLine(check.why);
  switch (check.state) {
    case snapshot::CheckState::passed: return why.empty() ? passed : passed + " (" + why + ")";
    case snapshot::CheckState::failed: return why.empty() ? failed : failed + ": " + why;
    case snapshot::CheckState::not_run: return why.empty() ? not_run : not_run + ": " + why;
  }
  return not_run;
}

std::vector<AnnotationLine> MakeAnnotations(const Record& record, const std::vector<PathView>& paths) {
  std::vector<std::pair<int, AnnotationLine>> lines;
  const int note_rank = static_cast<int>(std::size(kCheckWords)) + 1;
  for (int p = 0; p < static_cast<int>(paths.size()); ++p) {
    const Outcome& outcome = record.paths.at(paths[p].id);
    for (const auto& [id, check] : outcome.checks) {
      AddAnnotation(&lines, CheckRank(id), KindOf(check.state), CheckLineText(id, check), p);
    }
    for (const std::string& note : outcome.notes) {
      AddAnnotation(&lines, note_rank, AnnotationLine::Kind::note, "note: " + OneLine(note), p);
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<AnnotationLine> out;
  for (auto& [rank, line] : lines) out.push_back(std::move(line));
  return out;
}

bool FreshUnchecked(const Record& record) {
  for (const auto& [path, outcome] : record.paths) {
    const auto check = outcome.checks.find(kFreshInputsCheck);
    if (IsSupported(outcome.status) && check != outcome.checks.end() &&
        check->second.state == snapshot::CheckState::not_run) {
      return true;
    }
  }
  return false;
}

bool HasChecks(const Snapshot& snapshot) {
  for (const Record& record : snapshot.records) {
    for (const auto& [path, outcome] : record.paths) {
      if (!outcome.checks.empty()) return true;
    }
  }
  return false;
}

std::vector<std::string> MakeLegendNotes(const Snapshot& snapshot) {
  std::vector<std::string> out;
  if (HasChecks(snapshot)) {
    out.push_back(
        "Checks: a captured program is run on the inputs it was captured with and then on fresh inputs (other "
        "values of the same shapes and dtypes), each compared with eager; for a random operator it also runs "
        "under several seeds to check that randomness survived capture. A row's details say \"checked on fresh "
        "inputs\", or \"not checked on fresh inputs\" and why (the case opted out, nothing to vary, eager "
        "raised on them); the filter \"Not checked on fresh inputs\" shows the rows where a path says yes "
        "without that check.");
  }
  if (HasNotes(snapshot)) {
    out.push_back(
        "Notes: \"note:\" lines say what the worker observed around a job, e.g. torch state that the job left "
        "changed and the worker restored.");
  }
  return out;
}

}  // namespace opsweep::render
