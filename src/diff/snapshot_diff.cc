#include "diff/snapshot_diff.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include <fmt/core.h>

#include "snapshot/checks.h"

namespace opsweep::diff {
namespace {

using snapshot::GraphBreak;
using snapshot::Outcome;
using snapshot::Record;
using snapshot::Snapshot;

bool SameBreaks(const std::vector<GraphBreak>& a, const std::vector<GraphBreak>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].reason != b[i].reason || a[i].text != b[i].text || a[i].location != b[i].location) return false;
  }
  return true;
}

bool SameChecks(const std::map<std::string, snapshot::CheckResult>& a,
                const std::map<std::string, snapshot::CheckResult>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [id, check] : a) {
    const auto it = b.find(id);
    if (it == b.end() || it->second.state != check.state || it->second.why != check.why) return false;
  }
  return true;
}

std::string LibraryText(const Snapshot& s) {
  return s.library_version.empty() ? s.library_name + " (unversioned)" : s.library_name + " " + s.library_version;
}

std::string ToolText(const Snapshot& s) {
  return s.tool_version.empty() ? s.tool_name : s.tool_name + " " + s.tool_version;
}

// The environment fields of both headers: NEW's in its order, then OLD's others in theirs.
std::vector<std::string> EnvironmentFields(const Snapshot& before, const Snapshot& after) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Snapshot* s : {&after, &before}) {
    for (const auto& [key, value] : s->environment.items()) {
      if (seen.insert(key).second) out.push_back(key);
    }
  }
  return out;
}

std::vector<HeaderChange> HeaderChanges(const Snapshot& before, const Snapshot& after) {
  std::vector<HeaderChange> out;
  auto add = [&](std::string field, std::string a, std::string b) {
    if (a != b) out.push_back({std::move(field), std::move(a), std::move(b)});
  };
  add("library", LibraryText(before), LibraryText(after));
  add("library sources", before.library_fingerprint, after.library_fingerprint);
  for (const std::string& field : EnvironmentFields(before, after)) {
    add(field, before.EnvironmentText(field), after.EnvironmentText(field));
  }
  add("tool", ToolText(before), ToolText(after));
  add("date", before.generated, after.generated);
  return out;
}

// One component of a version: its leading number and the text after it.
struct Component {
  unsigned long long number = 0;
  bool has_number = false;
  std::string_view tail;
};

Component SplitComponent(std::string_view text) {
  Component c;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    c.has_number = true;
    c.number = c.number * 10 + static_cast<unsigned>(text[i] - '0');
    ++i;
  }
  c.tail = text.substr(i);
  return c;
}

std::vector<std::string_view> SplitDots(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    out.push_back(text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

// -1, 0, 1.
int CompareComponent(std::string_view a, std::string_view b) {
  const Component x = SplitComponent(a), y = SplitComponent(b);
  if (x.has_number != y.has_number) return x.has_number ? 1 : -1;
  if (x.number != y.number) return x.number < y.number ? -1 : 1;
  if (x.tail == y.tail) return 0;
  if (x.tail.empty()) return 1;  // "0" after "0rc1"
  if (y.tail.empty()) return -1;
  return x.tail < y.tail ? -1 : 1;
}

}  // namespace

std::string_view ChangeKindId(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::regression: return "regression";
    case ChangeKind::progression: return "progression";
    case ChangeKind::status: return "status";
    case ChangeKind::reason: return "reason";
    case ChangeKind::detail: return "detail";
  }
  return "detail";
}

std::optional<ChangeKind> Classify(const Outcome& before, const Outcome& after, std::vector<std::string>* fields) {
  std::vector<std::string> local;
  std::vector<std::string>& differ = fields ? *fields : local;
  differ.clear();
  if (before.status != after.status) differ.push_back("status");
  if (before.step != after.step) differ.push_back("step");
  if (before.reason != after.reason) differ.push_back("reason");
  if (before.detail != after.detail) differ.push_back("detail");
  if (before.error != after.error) differ.push_back("error");
  if (before.location != after.location) differ.push_back("location");
  if (before.graph_breaks != after.graph_breaks) differ.push_back("graph_breaks");
  if (!SameBreaks(before.break_reasons, after.break_reasons)) differ.push_back("break_reasons");
  if (before.op_types != after.op_types) differ.push_back("op_types");
  if (!SameChecks(before.checks, after.checks)) differ.push_back("checks");
  if (before.notes != after.notes) differ.push_back("notes");
  if (before.facts != after.facts) differ.push_back("facts");
  if (differ.empty()) return std::nullopt;
  const bool was = IsSupported(before.status), is = IsSupported(after.status);
  if (was && !is) return ChangeKind::regression;
  if (!was && is) return ChangeKind::progression;
  if (before.status != after.status) return ChangeKind::status;
  if (before.reason != after.reason) return ChangeKind::reason;
  return ChangeKind::detail;
}

int SnapshotDiff::Count(ChangeKind kind) const {
  return static_cast<int>(
      std::count_if(changes.begin(), changes.end(), [kind](const OutcomeChange& c) { return c.kind == kind; }));
}

bool SnapshotDiff::HasRegression() const { return Count(ChangeKind::regression) > 0; }

bool SnapshotDiff::HasChange() const {
  return !changes.empty() || !added_records.empty() || !removed_records.empty() || !added_paths.empty() ||
         !removed_paths.empty();
}

bool Comparable(const Snapshot& before, const Snapshot& after, std::string* err) {
  if (before.library_name == after.library_name) return true;
  *err = fmt::format("OLD is a survey of {}, NEW of {}: snapshots of different libraries are not compared",
                     before.library_name.empty() ? "(no library)" : before.library_name,
                     after.library_name.empty() ? "(no library)" : after.library_name);
  return false;
}

SnapshotDiff Compare(const Snapshot& before, const Snapshot& after) {
  SnapshotDiff diff;
  diff.header = HeaderChanges(before, after);
  for (const PathSpec& path : after.paths) {
    if (FindPath(before.paths, path.id)) {
      diff.paths.push_back(path.id);
    } else {
      diff.added_paths.push_back(path.id);
    }
  }
  for (const PathSpec& path : before.paths) {
    if (!FindPath(after.paths, path.id)) diff.removed_paths.push_back(path.id);
  }

  std::unordered_map<std::string_view, const Record*> old_records;
  old_records.reserve(before.records.size());
  for (const Record& record : before.records) old_records.emplace(record.name, &record);
  std::unordered_map<std::string_view, bool> in_new;
  in_new.reserve(after.records.size());
  for (const Record& record : after.records) {
    in_new.emplace(record.name, true);
    const auto old = old_records.find(record.name);
    if (old == old_records.end()) {
      diff.added_records.push_back(&record);
      continue;
    }
    ++diff.compared_records;
    for (const std::string& path : diff.paths) {
      const auto a = old->second->paths.find(path);
      const auto b = record.paths.find(path);
      if (a == old->second->paths.end() || b == record.paths.end()) continue;  // a reader-checked snapshot has both
      OutcomeChange change;
      const auto kind = Classify(a->second, b->second, &change.fields);
      if (!kind) continue;
      change.kind = *kind;
      change.record = record.name;
      change.path = path;
      change.before = a->second;
      change.after = b->second;
      diff.changes.push_back(std::move(change));
    }
  }
  for (const Record& record : before.records) {
    if (!in_new.count(record.name)) diff.removed_records.push_back(&record);
  }
  return diff;
}

std::string TorchRelease(const Snapshot& snapshot) {
  std::string torch = snapshot.EnvironmentText("torch");
  const auto plus = torch.find('+');
  if (plus != std::string::npos) torch.resize(plus);
  return torch;
}

bool ReleaseLess(std::string_view a, std::string_view b) {
  const auto x = SplitDots(a), y = SplitDots(b);
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const std::string_view p = i < x.size() ? x[i] : std::string_view("0");
    const std::string_view q = i < y.size() ? y[i] : std::string_view("0");
    const int c = CompareComponent(p, q);
    if (c != 0) return c < 0;
  }
  return false;
}

}  // namespace opsweep::diff
