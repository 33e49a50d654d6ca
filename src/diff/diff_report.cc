#include "diff/diff_report.h"

#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "snapshot/checks.h"

namespace opsweep::diff {
namespace {

using snapshot::GraphBreak;
using snapshot::Outcome;
using snapshot::Record;
using snapshot::Snapshot;

struct KindText {
  const char* title;
  const char* meaning;
  const char* singular;
  const char* plural;
};

KindText TextOf(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::regression:
      return {"Regressions", "supported before, not now", "regression", "regressions"};
    case ChangeKind::progression:
      return {"Progressions", "not supported before, supported now", "progression", "progressions"};
    case ChangeKind::status:
      return {"Other status changes", "another status, on the same side of supported", "status change",
              "status changes"};
    case ChangeKind::reason:
      return {"Changed reasons", "the same status for another reason", "reason change", "reason changes"};
    case ChangeKind::detail:
      return {"Changed details", "the same status and reason, other details", "detail change", "detail changes"};
  }
  return {"", "", "", ""};
}

SideLabel LabelOf(const Snapshot& s) {
  SideLabel label;
  label.library = s.library_version.empty() ? s.library_name : s.library_name + " " + s.library_version;
  label.torch = s.EnvironmentText("torch");
  label.date = s.generated;
  label.text = label.library;
  if (!label.torch.empty()) label.text += ", torch " + label.torch;
  if (!label.date.empty()) label.text += ", " + label.date;
  return label;
}

// The reason a change is filed under (see the header).
const std::string& GroupReason(const OutcomeChange& change) {
  if (change.kind == ChangeKind::progression) return change.before.reason;
  if (change.kind == ChangeKind::regression || !change.after.reason.empty()) return change.after.reason;
  return change.before.reason;
}

std::vector<PathLabel> Labels(const std::vector<std::string>& ids, const DiffReport& report) {
  std::vector<PathLabel> out;
  for (const std::string& id : ids) out.push_back({id, report.PathTitle(id)});
  return out;
}

// What an outcome says in a few words: its detail, else its error line, else its reason's title.
std::string Says(const Outcome& outcome, const DiffReport& report) {
  if (!outcome.detail.empty()) return outcome.detail;
  if (!outcome.error.empty()) return outcome.error;
  if (!outcome.reason.empty()) return report.ReasonTitle(outcome.reason);
  return "";
}

std::string Quoted(const std::string& text) { return text.empty() ? "(none)" : "\"" + text + "\""; }

std::string BreaksText(const std::optional<int>& n) { return n ? std::to_string(*n) : "unknown"; }

// "+Cast, -Identity": what is in `after` only, then what is in `before` only.
std::string SetChange(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  const std::set<std::string> a(before.begin(), before.end()), b(after.begin(), after.end());
  std::string out;
  for (const std::string& x : b) {
    if (!a.count(x)) out += (out.empty() ? "+" : ", +") + x;
  }
  for (const std::string& x : a) {
    if (!b.count(x)) out += (out.empty() ? "-" : ", -") + x;
  }
  return out.empty() ? "reordered" : out;
}

std::vector<std::string> BreakTexts(const std::vector<GraphBreak>& breaks, const DiffReport& report) {
  std::vector<std::string> out;
  for (const GraphBreak& gb : breaks) {
    out.push_back(gb.reason.empty() || gb.reason == snapshot::kUnclassifiedReason ? gb.text
                                                                                   : report.ReasonTitle(gb.reason));
  }
  return out;
}

// "fresh_inputs passed", "randomness not run: why": an outcome's checks in words.
std::vector<std::string> CheckTexts(const Outcome& o) {
  std::vector<std::string> out;
  for (const auto& [id, check] : o.checks) out.push_back(id + " " + snapshot::CheckText(check));
  return out;
}

// "delegated 0.7143", "portable {\"aten.where.self\":4}": an outcome's facts (its path's display
// fields, snapshot/facts.h) as the snapshot holds them.
std::vector<std::string> FactTexts(const Outcome& o) {
  std::vector<std::string> out;
  const nlohmann::json facts = snapshot::FactsJson(o.facts);  // named: items() refers to it
  for (const auto& [id, value] : facts.items()) out.push_back(id + " " + value.dump());
  return out;
}

// The words for a change of details: each field that differs, "; "-separated.
std::string DetailText(const OutcomeChange& c, const DiffReport& report) {
  std::vector<std::string> parts;
  for (const std::string& field : c.fields) {
    if (field == "step") parts.push_back(fmt::format("step {} -> {}", Quoted(c.before.step), Quoted(c.after.step)));
    if (field == "detail") parts.push_back(fmt::format("detail {} -> {}", Quoted(c.before.detail), Quoted(c.after.detail)));
    if (field == "error") parts.push_back(fmt::format("error {} -> {}", Quoted(c.before.error), Quoted(c.after.error)));
    if (field == "location") {
      parts.push_back(fmt::format("location {} -> {}", Quoted(c.before.location), Quoted(c.after.location)));
    }
    if (field == "graph_breaks") {
      parts.push_back(fmt::format("graph breaks {} -> {}", BreaksText(c.before.graph_breaks), BreaksText(c.after.graph_breaks)));
    }
    if (field == "break_reasons") {
      parts.push_back("break reasons " + SetChange(BreakTexts(c.before.break_reasons, report),
                                                   BreakTexts(c.after.break_reasons, report)));
    }
    if (field == "op_types") parts.push_back("ONNX ops " + SetChange(c.before.op_types, c.after.op_types));
    if (field == "checks") parts.push_back("checks " + SetChange(CheckTexts(c.before), CheckTexts(c.after)));
    if (field == "notes") parts.push_back("notes " + SetChange(c.before.notes, c.after.notes));
    if (field == "facts") parts.push_back("facts " + SetChange(FactTexts(c.before), FactTexts(c.after)));
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? "; " : "") + parts[i];
  return out;
}

std::string LineText(const OutcomeChange& c, const DiffReport& report) {
  switch (c.kind) {
    case ChangeKind::regression:
    case ChangeKind::status: {
      const std::string now = Says(c.after, report), was = Says(c.before, report);
      if (was.empty() || was == now) return now;
      return now.empty() ? "was: " + was : now + " (was: " + was + ")";
    }
    case ChangeKind::progression: {
      const std::string was = Says(c.before, report);
      return was.empty() ? "" : "was: " + was;
    }
    case ChangeKind::reason: {
      std::string text = report.ReasonTitle(c.before.reason) + " -> " + report.ReasonTitle(c.after.reason);
      const std::string now = Says(c.after, report);
      if (!now.empty() && now != report.ReasonTitle(c.after.reason)) text += ": " + now;
      return text;
    }
    case ChangeKind::detail: return DetailText(c, report);
  }
  return "";
}

RecordLine RecordText(const Record* record, const Snapshot& s, const DiffReport& report) {
  RecordLine line{record, ""};
  for (const PathSpec& path : s.paths) {
    const auto it = record->paths.find(path.id);
    if (it == record->paths.end()) continue;
    if (!line.text.empty()) line.text += ", ";
    line.text += report.PathTitle(path.id) + " " + std::string(StatusId(it->second.status));
    if (!it->second.reason.empty()) line.text += " (" + report.ReasonTitle(it->second.reason) + ")";
  }
  return line;
}

}  // namespace

std::string Counted(int n, std::string_view singular, std::string_view plural) {
  return fmt::format("{} {}", n, n == 1 ? singular : plural);
}

std::string DiffReport::PathTitle(const std::string& id) const {
  for (const PathLabel& p : known_paths) {
    if (p.id == id) return p.title;
  }
  return id;
}

std::string DiffReport::ReasonTitle(const std::string& id) const {
  if (id.empty()) return "supported";
  const auto it = reason_titles.find(id);
  return it == reason_titles.end() ? id : it->second;
}

DiffReport BuildReport(const SnapshotDiff& diff, const Snapshot& before, const Snapshot& after) {
  DiffReport report;
  report.before = LabelOf(before);
  report.after = LabelOf(after);
  for (const Snapshot* s : {&after, &before}) {
    for (const PathSpec& p : s->paths) {
      if (report.PathTitle(p.id) == p.id) report.known_paths.push_back({p.id, p.title.empty() ? p.id : p.title});
    }
    for (const auto& [id, reason] : s->reasons) {
      if (!reason.title.empty()) report.reason_titles.emplace(id, reason.title);
    }
  }
  report.header = diff.header;
  report.paths = Labels(diff.paths, report);
  report.added_paths = Labels(diff.added_paths, report);
  report.removed_paths = Labels(diff.removed_paths, report);
  report.compared_records = diff.compared_records;
  for (const Record* r : diff.added_records) report.added_records.push_back(RecordText(r, after, report));
  for (const Record* r : diff.removed_records) report.removed_records.push_back(RecordText(r, before, report));
  report.regression = diff.HasRegression();
  report.change = diff.HasChange();

  std::vector<std::string> parts;
  for (ChangeKind kind : kAllChangeKinds) {
    KindSection section;
    section.kind = kind;
    const KindText text = TextOf(kind);
    section.title = text.title;
    section.meaning = text.meaning;
    std::map<std::string, std::size_t> group_of;  // reason -> index into section.groups
    for (const OutcomeChange& change : diff.changes) {
      if (change.kind != kind) continue;
      ++section.count;
      const std::string& reason = GroupReason(change);
      auto [it, inserted] = group_of.emplace(reason, section.groups.size());
      if (inserted) section.groups.push_back({reason, report.ReasonTitle(reason), {}});
      section.groups[it->second].lines.push_back({&change, report.PathTitle(change.path), LineText(change, report)});
    }
    if (section.count == 0) continue;
    std::stable_sort(section.groups.begin(), section.groups.end(), [](const ReasonGroup& a, const ReasonGroup& b) {
      if (a.lines.size() != b.lines.size()) return a.lines.size() > b.lines.size();
      return a.reason < b.reason;
    });
    parts.push_back(Counted(section.count, text.singular, text.plural));
    report.sections.push_back(std::move(section));
  }
  auto count = [&](std::size_t n, const char* singular, const char* plural) {
    if (n > 0) parts.push_back(Counted(static_cast<int>(n), singular, plural));
  };
  count(report.added_records.size(), "new case", "new cases");
  count(report.removed_records.size(), "removed case", "removed cases");
  count(report.added_paths.size(), "new path", "new paths");
  count(report.removed_paths.size(), "removed path", "removed paths");
  if (parts.empty()) {
    report.summary = "no change";
  } else {
    for (std::size_t i = 0; i < parts.size(); ++i) report.summary += (i > 0 ? ", " : "") + parts[i];
  }
  return report;
}

}  // namespace opsweep::diff
