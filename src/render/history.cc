#include "render/history.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/core.h>

#include "diff/snapshot_diff.h"
#include "render/escape.h"

namespace opsweep::render {
namespace {

using snapshot::Record;

using RecordIndex = std::unordered_map<std::string_view, const Record*>;

RecordIndex IndexRecords(const Snapshot& s) {
  RecordIndex index;
  index.reserve(s.records.size());
  for (const Record& r : s.records) index.emplace(r.name, &r);
  return index;
}

// Every row of the page, wherever it sits.
std::vector<RowView*> AllRows(ViewModel* vm) {
  std::vector<RowView*> rows;
  for (PackageView& package : vm->packages) {
    for (SectionView& section : package.sections) {
      for (RowView& row : section.rows) rows.push_back(&row);
    }
  }
  for (RowView& row : vm->na_rows) rows.push_back(&row);
  return rows;
}

ReleaseView MakeRelease(const Snapshot& s, bool current, const std::vector<PathView>& paths) {
  ReleaseView view;
  view.release = OneLine(diff::TorchRelease(s));
  view.label = "torch " + view.release;
  view.torch = OneLine(s.EnvironmentText("torch"));
  view.library = OneLine(s.library_version.empty() ? s.library_name : s.library_name + " " + s.library_version);
  view.date = OneLine(s.generated);
  view.current = current;
  for (const PathView& path : paths) {
    PathCount count;
    const bool has = FindPath(s.paths, path.id) != nullptr;
    if (has) {
      for (const Record& r : s.records) {
        const auto it = r.paths.find(path.id);
        if (it == r.paths.end()) continue;
        if (!IsNotMeasured(it->second.status)) ++count.probed;
        if (IsSupported(it->second.status)) ++count.supported;
      }
    }
    count.percent = has ? FormatPercent(count.supported, count.probed) : "not surveyed";
    view.counts.push_back(count);
    view.has_path.push_back(has);
  }
  for (const auto& [key, value] : s.environment.items()) {
    const std::string text = s.EnvironmentText(key);
    if (!text.empty()) view.environment.push_back({OneLine(key), OneLine(text)});
  }
  return view;
}

// The strip, the change flag and the mark of one row on one path.
PathHistory MakePathHistory(const std::vector<const Snapshot*>& releases, const std::vector<RecordIndex>& indexes,
                            const std::vector<ReleaseView>& views, const std::string& name, const std::string& path) {
  PathHistory h;
  const HistoryCell* previous = nullptr;
  std::optional<std::size_t> last_support_change;
  for (std::size_t i = 0; i < releases.size(); ++i) {
    HistoryCell cell;
    cell.release = views[i].release;
    const auto record = indexes[i].find(name);
    if (record != indexes[i].end() && FindPath(releases[i]->paths, path) != nullptr) {
      const auto outcome = record->second->paths.find(path);
      if (outcome != record->second->paths.end()) {
        cell.present = true;
        cell.cell = MakeCell(outcome->second);
      }
    }
    h.cells.push_back(std::move(cell));
  }
  std::string words;
  for (std::size_t i = 0; i < h.cells.size(); ++i) {
    const HistoryCell& cell = h.cells[i];
    words += fmt::format("{}{} {}", i == 0 ? "torch " : ", ", cell.release, cell.present ? cell.cell.label : "not surveyed");
    h.symbols += cell.present ? cell.cell.symbol : "\u00b7";
    if (!cell.present) {
      h.uniform = false;
      continue;
    }
    if (previous != nullptr) {
      if (previous->cell.status != cell.cell.status) {
        h.changed = true;
        h.uniform = false;
      }
      if (IsSupported(previous->cell.status) != IsSupported(cell.cell.status)) last_support_change = i;
    }
    previous = &cell;
  }
  h.strip_text = words;
  if (last_support_change) {
    const HistoryCell& at = h.cells[*last_support_change];
    h.mark = IsSupported(at.cell.status) ? MarkKind::since : MarkKind::broken;
    h.mark_text = (h.mark == MarkKind::since ? "since " : "broken since ") + views[*last_support_change].label;
  }
  return h;
}

std::map<std::string, std::string> ReasonAnchors(const ViewModel& vm) {
  std::map<std::string, std::string> out;
  for (const ReasonView& r : vm.reasons) out[r.id] = r.anchor;
  return out;
}

ReleaseChangesView MakeChanges(const Snapshot& before, const Snapshot& after, const ReleaseView& from,
                               const ReleaseView& to, const std::map<std::string, std::string>& row_anchors,
                               const std::map<std::string, std::string>& reason_anchors) {
  const diff::SnapshotDiff result = diff::Compare(before, after);
  const diff::DiffReport report = diff::BuildReport(result, before, after);
  auto anchor_of = [&](const std::string& name) {
    const auto it = row_anchors.find(name);
    return it == row_anchors.end() ? std::string() : it->second;
  };
  ReleaseChangesView view;
  view.from = from.label;
  view.to = to.label;
  view.anchor = "changes-" + Slug(from.release) + "-" + Slug(to.release);
  view.summary = OneLine(report.summary);
  for (const diff::HeaderChange& h : report.header) {
    if (h.field == "date") continue;  // the releases table has the dates
    view.environment.push_back({OneLine(h.field), OneLine(h.before), OneLine(h.after)});
  }
  for (const diff::KindSection& section : report.sections) {
    HistorySection s;
    s.kind = std::string(diff::ChangeKindId(section.kind));
    s.title = section.title;
    s.meaning = section.meaning;
    s.count = section.count;
    for (const diff::ReasonGroup& group : section.groups) {
      HistoryGroup g;
      g.reason = OneLine(group.reason);
      g.title = OneLine(group.title);
      const auto anchor = reason_anchors.find(group.reason);
      if (anchor != reason_anchors.end()) g.anchor = anchor->second;
      for (const diff::ChangeLine& line : group.lines) {
        const diff::OutcomeChange& c = *line.change;
        g.lines.push_back({OneLine(c.record), anchor_of(c.record), OneLine(line.path_title),
                           MakeCell(c.before.status, c.before.graph_breaks), MakeCell(c.after.status, c.after.graph_breaks),
                           OneLine(line.text)});
      }
      s.groups.push_back(std::move(g));
    }
    view.sections.push_back(std::move(s));
  }
  for (const diff::RecordLine& r : report.added_records) {
    view.added.push_back({OneLine(r.record->name), anchor_of(r.record->name), OneLine(r.text)});
  }
  for (const diff::RecordLine& r : report.removed_records) {
    view.removed.push_back({OneLine(r.record->name), anchor_of(r.record->name), OneLine(r.text)});
  }
  for (const auto& p : report.added_paths) view.added_paths.push_back(OneLine(p.title));
  for (const auto& p : report.removed_paths) view.removed_paths.push_back(OneLine(p.title));
  return view;
}

std::string JoinReleases(const std::vector<ReleaseView>& releases) {
  std::string out;
  for (std::size_t i = 0; i < releases.size(); ++i) {
    if (i > 0) out += i + 1 == releases.size() ? " and " : ", ";
    out += releases[i].release;
  }
  return out;
}

}  // namespace

bool OrderReleases(std::vector<const Snapshot*> snapshots, std::vector<const Snapshot*>* ordered, std::string* err) {
  if (snapshots.size() < 2) {
    *err = "a history needs at least two snapshots";
    return false;
  }
  for (const Snapshot* s : snapshots) {
    if (!diff::Comparable(*snapshots.front(), *s, err)) {
      *err = fmt::format("the snapshots survey different libraries ({} and {}): a history is of one library",
                         snapshots.front()->library_name, s->library_name);
      return false;
    }
    if (diff::TorchRelease(*s).empty()) {
      *err = "a snapshot does not say its torch release (environment.torch): it cannot be placed in a history";
      return false;
    }
  }
  std::stable_sort(snapshots.begin(), snapshots.end(), [](const Snapshot* a, const Snapshot* b) {
    return diff::ReleaseLess(diff::TorchRelease(*a), diff::TorchRelease(*b));
  });
  for (std::size_t i = 1; i < snapshots.size(); ++i) {
    if (diff::TorchRelease(*snapshots[i - 1]) == diff::TorchRelease(*snapshots[i])) {
      *err = fmt::format("two snapshots of torch {}: a history has one snapshot per torch release",
                         diff::TorchRelease(*snapshots[i]));
      return false;
    }
  }
  *ordered = std::move(snapshots);
  return true;
}

void AddHistory(const std::vector<const Snapshot*>& releases, std::size_t current, ViewModel* vm) {
  HistoryView history;
  history.current = current;
  for (std::size_t i = 0; i < releases.size(); ++i) {
    history.releases.push_back(MakeRelease(*releases[i], i == current, vm->paths));
  }
  std::vector<RecordIndex> indexes;
  for (const Snapshot* s : releases) indexes.push_back(IndexRecords(*s));

  std::map<std::string, std::string> row_anchors;
  for (RowView* row : AllRows(vm)) {
    row_anchors[row->name] = row->anchor;
    for (const PathView& path : vm->paths) {
      PathHistory h = MakePathHistory(releases, indexes, history.releases, row->name, path.id);
      row->changed = row->changed || h.changed;
      row->since = row->since || h.mark == MarkKind::since;
      row->broken = row->broken || h.mark == MarkKind::broken;
      if (!h.mark_text.empty()) row->search_text += " " + path.short_label + " " + h.mark_text;
      row->history.push_back(std::move(h));
    }
    history.rows_changed += row->changed ? 1 : 0;
    history.rows_since += row->since ? 1 : 0;
    history.rows_broken += row->broken ? 1 : 0;
  }
  const auto reason_anchors = ReasonAnchors(*vm);
  for (std::size_t i = 0; i + 1 < releases.size(); ++i) {
    history.changes.push_back(MakeChanges(*releases[i], *releases[i + 1], history.releases[i],
                                          history.releases[i + 1], row_anchors, reason_anchors));
  }
  vm->filters.push_back({"changed", "Changed between releases", history.rows_changed, "History"});
  vm->filters.push_back({"since", "Works since a release", history.rows_since, "History"});
  vm->filters.push_back({"broken", "Broken since a release", history.rows_broken, "History"});
  history.strip_legend = fmt::format("status under torch {}, in that order; \u00b7 not surveyed",
                                     JoinReleases(history.releases));
  vm->lede += fmt::format(" The tables show torch {}; the history follows torch {}.", history.releases[current].release,
                          JoinReleases(history.releases));
  vm->history = std::move(history);
}

ViewModel BuildHistoryViewModel(const std::vector<const Snapshot*>& releases, std::size_t current,
                                const RenderOptions& options) {
  ViewModel vm = BuildViewModel(*releases.at(current), options);
  AddHistory(releases, current, &vm);
  return vm;
}

}  // namespace opsweep::render
