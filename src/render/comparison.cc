#include "render/comparison.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/core.h>

#include "render/escape.h"
#include "util/trim.h"

namespace opsweep::render {
namespace {

using snapshot::Outcome;
using snapshot::Record;
using snapshot::Snapshot;

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    out.push_back(Trim(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start)));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// "a.b.C", "a.b.c_d": what a record's target looks like.
bool IsDottedName(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  char previous = '.';
  for (char c : name) {
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!word && c != '.') return false;
    if (c == '.' && previous == '.') return false;
    if (previous == '.' && std::isdigit(static_cast<unsigned char>(c))) return false;
    previous = c;
  }
  return true;
}

bool Fail(int line, const std::string& what, std::string* err) {
  *err = fmt::format("equivalence map, line {}: {}", line, what);
  return false;
}

// The id part of a column: the library's name, lower case, with anything but [a-z0-9_] as "_"
// (a filter value is "<column>:supported", so neither ":" nor "/" may appear).
std::string ColumnPrefix(std::string_view library) {
  std::string out;
  for (char c : library) {
    const unsigned char u = static_cast<unsigned char>(c);
    out += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  return out;
}

bool Surveyed(const Outcome& outcome) { return outcome.reason != snapshot::kMissingResultReason; }
bool Probed(const Outcome& outcome) { return Surveyed(outcome) && outcome.status != Status::not_applicable; }

// The aggregate of one library's configurations of an operation on one path.
struct Tally {
  int surveyed = 0;  // configurations with a result
  int probed = 0;    // ... that are not n/a
  int supported = 0;
  std::map<Status, int> statuses;  // of the probed ones
  bool offered = false;
};

bool Deploys(const Tally& t) { return t.supported > 0; }
// Probed without one supported configuration: "does not deploy", as measured.
bool Refused(const Tally& t) { return t.probed > 0 && t.supported == 0; }

CellView AggregateCell(const Tally& t) {
  if (!t.offered || t.surveyed == 0) {
    CellView cell;
    cell.status = Status::not_applicable;
    cell.token = "absent";
    cell.symbol = "\u2013";
    cell.label = t.offered ? "not surveyed" : "none";
    return cell;
  }
  if (t.probed == 0) return MakeCell(Status::not_applicable, std::nullopt);
  // The cell's status: when a configuration deploys, "ok" if one is ok, else the most frequent
  // supported status; when none does, the most frequent failure (ties: the first in Status order).
  Status status = Status::not_applicable;
  if (t.supported > 0 && t.statuses.count(Status::ok)) {
    status = Status::ok;
  } else {
    int best = 0;
    for (const auto& [s, count] : t.statuses) {
      if ((t.supported == 0 || IsSupported(s)) && count > best) {
        best = count;
        status = s;
      }
    }
  }
  CellView cell = MakeCell(status, std::nullopt);
  if (status == Status::ok_breaks) cell.label = "yes, graph breaks";
  if (t.probed > 1 || t.supported != t.probed) cell.label += fmt::format(" ({} of {})", t.supported, t.probed);
  return cell;
}

std::string ProblemText(const PathView& path, const Outcome& outcome, const Snapshot& snapshot) {
  std::string text = outcome.detail;
  if (text.empty()) text = outcome.error;
  if (text.empty() && !outcome.reason.empty()) {
    auto it = snapshot.reasons.find(outcome.reason);
    text = it != snapshot.reasons.end() ? it->second.title : outcome.reason;
  }
  std::string out = path.short_label + ": " + MakeCell(outcome.status, outcome.graph_breaks).label;
  if (!text.empty()) out += ", " + OneLine(text);
  if (!outcome.location.empty()) out += " (" + outcome.location + ")";
  return out;
}

class Builder {
 public:
  Builder(std::array<const Snapshot*, 2> snapshots, const EquivalenceMap& map) : s_(snapshots), map_(map) {}

  bool Build(ComparisonView* view, std::string* err) {
    if (!ComparedPaths(view, err)) return false;
    IndexRecords();
    Libraries(view);
    Columns(view);
    Rows(view);
    Counts(view);
    Filters(view);
    Words(view);
    return true;
  }

 private:
  bool ComparedPaths(ComparisonView* view, std::string* err) {
    std::set<std::string> second;
    for (const PathSpec& p : s_[1]->paths) second.insert(p.id);
    std::set<std::string> first;
    for (const PathSpec& p : s_[0]->paths) {
      first.insert(p.id);
      if (!second.count(p.id)) {
        view->not_compared.push_back(fmt::format("{}: {}", s_[0]->library_name, p.title));
        continue;
      }
      PathView v;
      v.id = p.id;
      v.title = p.title;
      v.short_label = p.label.empty() ? p.title : p.label;
      v.description = p.description;
      view->compared.push_back(v);
    }
    for (const PathSpec& p : s_[1]->paths) {
      if (!first.count(p.id)) view->not_compared.push_back(fmt::format("{}: {}", s_[1]->library_name, p.title));
    }
    if (view->compared.empty()) {
      *err = fmt::format("the snapshots of {} and {} share no path: nothing to compare", s_[0]->library_name,
                         s_[1]->library_name);
      return false;
    }
    return true;
  }

  void IndexRecords() {
    for (int side = 0; side < 2; ++side) {
      for (std::size_t i = 0; i < s_[side]->records.size(); ++i) {
        by_target_[side][s_[side]->records[i].target].push_back(i);
      }
    }
  }

  void Libraries(ComparisonView* view) {
    for (int side = 0; side < 2; ++side) {
      ComparedLibrary& lib = view->libraries[side];
      const Snapshot& s = *s_[side];
      lib.name = s.library_name;
      lib.version = s.library_version;
      lib.label = s.library_version.empty() ? s.library_name : s.library_name + " " + s.library_version;
      lib.torch = s.EnvironmentText("torch");
      lib.generated = s.generated;
    }
  }

  void Columns(ComparisonView* view) {
    for (int side = 0; side < 2; ++side) {
      for (const PathView& path : view->compared) {
        PathView column = path;
        column.id = ColumnPrefix(view->libraries[side].name) + "-" + path.id;
        column.group = view->libraries[side].label;
        column.short_label = view->libraries[side].name + " " + path.short_label;
        view->page.paths.push_back(column);
      }
    }
  }

  void Rows(ComparisonView* view) {
    std::map<std::string, std::size_t> section_index;
    for (const EquivalenceEntry& entry : map_.entries) {
      const std::string title = entry.section.empty() ? "Operations" : entry.section;
      auto [it, added] = section_index.emplace(title, view->sections.size());
      if (added) {
        OperationSection section;
        section.title = title;
        section.anchor = anchors_.Make("s-", title);
        view->sections.push_back(std::move(section));
      }
      view->sections[it->second].rows.push_back(Row(entry, *view));
      for (int side = 0; side < 2; ++side) {
        for (const std::string& name : view->sections[it->second].rows.back().sides[side].unmatched) {
          view->unmatched.push_back(fmt::format("{} (line {})", name, entry.line));
        }
      }
    }
  }

  OperationRow Row(const EquivalenceEntry& entry, const ComparisonView& view) {
    OperationRow op;
    RowView& row = op.row;
    row.name = entry.operation;
    row.operator_name = entry.operation;
    row.anchor = anchors_.Make("r-", entry.operation);
    row.note = entry.note;
    const std::size_t npaths = view.compared.size();
    std::array<std::vector<Tally>, 2> tallies;
    std::string search = entry.operation + " " + entry.note;
    for (int side = 0; side < 2; ++side) {
      ComparedSide& s = op.sides[side];
      s.callables = entry.callables[side];
      s.offered = !s.callables.empty();
      tallies[side].assign(npaths, Tally{});
      for (Tally& t : tallies[side]) t.offered = s.offered;
      std::set<std::size_t> seen;  // a record reached through two callables counts once
      for (const std::string& callable : s.callables) {
        search += " " + callable;
        auto it = by_target_[side].find(callable);
        if (it == by_target_[side].end()) {
          s.unmatched.push_back(callable);
          continue;
        }
        for (std::size_t index : it->second) {
          if (!seen.insert(index).second) continue;
          s.configs.push_back(Config(*s_[side], s_[side]->records[index], view, &tallies[side]));
          search += " " + s.configs.back().name;
          for (const std::string& problem : s.configs.back().problems) search += " " + problem;
        }
      }
    }
    for (int side = 0; side < 2; ++side) {
      for (std::size_t p = 0; p < npaths; ++p) row.cells.push_back(AggregateCell(tallies[side][p]));
    }
    // The row's tokens: which library deploys where the other does not.
    bool only[2] = {false, false};
    bool both_everywhere = op.sides[0].offered && op.sides[1].offered;
    for (std::size_t p = 0; p < npaths; ++p) {
      const Tally &a = tallies[0][p], &b = tallies[1][p];
      if (Deploys(a) && Refused(b)) only[0] = true;
      if (Deploys(b) && Refused(a)) only[1] = true;
      if (!Deploys(a) || !Deploys(b)) both_everywhere = false;
    }
    if (only[0] || only[1]) row.tokens.push_back("one-only");
    for (int side = 0; side < 2; ++side) {
      if (only[side]) row.tokens.push_back("only-" + ColumnPrefix(view.libraries[side].name));
    }
    if (both_everywhere) row.tokens.push_back("both");
    if (op.sides[0].offered != op.sides[1].offered) row.tokens.push_back("offered-one");
    row.search_text = OneLine(search);
    return op;
  }

  ComparedConfig Config(const Snapshot& snapshot, const Record& record, const ComparisonView& view,
                        std::vector<Tally>* tallies) {
    ComparedConfig config;
    config.name = record.name;
    config.target = record.target;
    config.surveyed = false;
    for (std::size_t p = 0; p < view.compared.size(); ++p) {
      const PathView& path = view.compared[p];
      auto it = record.paths.find(path.id);
      if (it == record.paths.end() || !Surveyed(it->second)) {
        CellView cell;
        cell.token = "absent";
        cell.symbol = "\u2013";
        cell.label = "not surveyed";
        config.cells.push_back(cell);
        continue;
      }
      const Outcome& outcome = it->second;
      config.surveyed = true;
      config.cells.push_back(MakeCell(outcome.status, outcome.graph_breaks));
      Tally& t = (*tallies)[p];
      ++t.surveyed;
      if (Probed(outcome)) {
        ++t.probed;
        ++t.statuses[outcome.status];
        if (IsSupported(outcome.status)) ++t.supported;
      }
      if (Probed(outcome) && !IsSupported(outcome.status)) {
        config.problems.push_back(ProblemText(path, outcome, snapshot));
      }
    }
    return config;
  }

  void Counts(ComparisonView* view) {
    const std::size_t npaths = view->compared.size();
    for (int side = 0; side < 2; ++side) view->libraries[side].cards.assign(npaths, PathCount{});
    for (const OperationSection& section : view->sections) {
      for (const OperationRow& op : section.rows) {
        ++view->operations;
        const RowView& row = op.row;
        const bool both = op.sides[0].offered && op.sides[1].offered;
        if (both) ++view->offered_by_both;
        auto has = [&](const char* token) {
          return std::find(row.tokens.begin(), row.tokens.end(), token) != row.tokens.end();
        };
        if (has("both")) ++view->deploy_in_both_everywhere;
        if (has("one-only")) ++view->one_only;
        for (int side = 0; side < 2; ++side) {
          ComparedLibrary& lib = view->libraries[side];
          if (op.sides[side].offered) ++lib.offered;
          if (has(("only-" + ColumnPrefix(lib.name)).c_str())) ++lib.deploys_only;
          for (std::size_t p = 0; p < npaths; ++p) {
            const CellView& cell = row.cells[side * npaths + p];
            if (cell.token == "absent" || cell.status == Status::not_applicable) continue;
            ++lib.cards[p].probed;
            if (IsSupported(cell.status)) ++lib.cards[p].supported;
          }
        }
      }
    }
    for (ComparedLibrary& lib : view->libraries) {
      for (PathCount& c : lib.cards) c.percent = FormatPercent(c.supported, c.probed);
    }
  }

  // The filter: the comparison's own choices, then each column's supported and failure.
  void Filters(ComparisonView* view) {
    ViewModel& page = view->page;
    page.configurations = view->operations;
    page.unit = "operations";
    std::vector<const RowView*> rows;
    for (const OperationSection& section : view->sections) {
      for (const OperationRow& op : section.rows) rows.push_back(&op.row);
    }
    auto count_token = [&](const std::string& token) {
      return static_cast<int>(std::count_if(rows.begin(), rows.end(), [&](const RowView* r) {
        return std::find(r->tokens.begin(), r->tokens.end(), token) != r->tokens.end();
      }));
    };
    page.filters.push_back({"all", "All operations", view->operations, ""});
    const std::string a = view->libraries[0].name, b = view->libraries[1].name;
    const std::vector<std::pair<std::string, std::string>> tokens = {
        {"one-only", "Deploys in one library only"},
        {"only-" + ColumnPrefix(a), "Deploys in " + a + ", not in " + b},
        {"only-" + ColumnPrefix(b), "Deploys in " + b + ", not in " + a},
        {"both", "Deploys in both on every path"},
        {"offered-one", "Offered by one library only"},
    };
    for (const auto& [token, label] : tokens) {
      page.filters.push_back({token, label, count_token(token), ""});
      page.row_tokens.push_back(token);
    }
    for (std::size_t c = 0; c < page.paths.size(); ++c) {
      const PathView& column = page.paths[c];
      int supported = 0, failed = 0;
      for (const RowView* r : rows) {
        if (IsSupported(r->cells[c].status) && r->cells[c].token != "absent") ++supported;
        if (IsFailure(r->cells[c].status)) ++failed;
      }
      const std::string group = column.group + ": " + column.title;
      page.filters.push_back({column.id + ":supported", "deploys", supported, group});
      page.filters.push_back({column.id + ":failure", "does not deploy", failed, group});
    }
  }

  void Words(ComparisonView* view) {
    ViewModel& page = view->page;
    const ComparedLibrary &a = view->libraries[0], &b = view->libraries[1];
    page.library_name = a.label + " and " + b.label;
    page.title = fmt::format("{} and {}: which deploys, operation by operation", a.label, b.label);
    const std::string paths = JoinTitles(view->compared);
    page.lede = fmt::format(
        "{} operations that both libraries or one of them offer, each with every surveyed configuration's verdict "
        "on {} in {} (torch {}) and {} (torch {}). An operation deploys on a path when at least one of its "
        "configurations is supported there; a cell counts supported of probed configurations.",
        FormatCount(view->operations), paths, a.label, a.torch.empty() ? "?" : a.torch, b.label,
        b.torch.empty() ? "?" : b.torch);
    page.generated = std::max(a.generated, b.generated);
  }

  std::array<const Snapshot*, 2> s_;
  const EquivalenceMap& map_;
  std::array<std::map<std::string, std::vector<std::size_t>>, 2> by_target_;
  AnchorSet anchors_;
};

}  // namespace

bool ParseEquivalenceMap(std::string_view text, EquivalenceMap* map, std::string* err) {
  EquivalenceMap out;
  bool have_libraries = false;
  std::string section;
  std::set<std::string> operations;
  int number = 0;
  for (std::string_view rest = text; !rest.empty() || number == 0;) {
    const std::size_t end = rest.find('\n');
    std::string_view raw = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++number;
    const std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#') {
      if (rest.empty()) break;
      continue;
    }
    if (line.rfind("libraries:", 0) == 0) {
      if (have_libraries) return Fail(number, "a second `libraries:` line; give it once", err);
      const auto names = Split(line.substr(10), '|');
      if (names.size() != 2 || names[0].empty() || names[1].empty() || names[0] == names[1]) {
        return Fail(number, "`libraries:` names two different libraries: `libraries: A | B`", err);
      }
      out.libraries = {std::string(names[0]), std::string(names[1])};
      have_libraries = true;
    } else if (line.front() == '[') {
      if (line.back() != ']' || Trim(line.substr(1, line.size() - 2)).empty()) {
        return Fail(number, "a heading is `[Title]`", err);
      }
      section = std::string(Trim(line.substr(1, line.size() - 2)));
    } else {
      if (!have_libraries) return Fail(number, "the map starts with `libraries: A | B` (the column order)", err);
      const auto fields = Split(line, '|');
      if (fields.size() != 4) {
        return Fail(number,
                    fmt::format("{} fields where an operation has 4: `operation | {} callables | {} callables | note`",
                                fields.size(), out.libraries[0], out.libraries[1]),
                    err);
      }
      EquivalenceEntry entry;
      entry.line = number;
      entry.section = section;
      entry.operation = std::string(fields[0]);
      entry.note = std::string(fields[3]);
      if (entry.operation.empty()) return Fail(number, "the operation's name is empty", err);
      if (!operations.insert(entry.operation).second) {
        return Fail(number, fmt::format("operation `{}` is listed twice; merge the two lines", entry.operation), err);
      }
      for (int side = 0; side < 2; ++side) {
        if (fields[1 + side].empty()) continue;
        for (std::string_view name : Split(fields[1 + side], ',')) {
          if (!IsDottedName(name)) {
            return Fail(number, fmt::format("`{}` is not a dotted name such as `{}.module.function`", OneLine(name),
                                            out.libraries[side]),
                        err);
          }
          entry.callables[side].emplace_back(name);
        }
      }
      if (entry.callables[0].empty() && entry.callables[1].empty()) {
        return Fail(number, fmt::format("operation `{}` names no callable in either library", entry.operation), err);
      }
      out.entries.push_back(std::move(entry));
    }
    if (rest.empty()) break;
  }
  if (!have_libraries) return Fail(number, "no `libraries: A | B` line", err);
  if (out.entries.empty()) return Fail(number, "no operation", err);
  *map = std::move(out);
  return true;
}

bool BuildComparison(const Snapshot& first, const Snapshot& second, const EquivalenceMap& map, ComparisonView* view,
                     std::string* err) {
  if (first.library_name == second.library_name) {
    *err = fmt::format("both snapshots survey {}: a comparison is of two libraries (several releases of one make a "
                       "history page: leave out --map)",
                       first.library_name);
    return false;
  }
  std::array<const Snapshot*, 2> ordered{};
  for (const Snapshot* s : {&first, &second}) {
    for (int side = 0; side < 2; ++side) {
      if (s->library_name == map.libraries[side]) ordered[side] = s;
    }
  }
  for (int side = 0; side < 2; ++side) {
    if (ordered[side] == nullptr) {
      *err = fmt::format("the map compares {} and {}, but no snapshot given surveys {} (the snapshots survey {} and {})",
                         map.libraries[0], map.libraries[1], map.libraries[side], first.library_name,
                         second.library_name);
      return false;
    }
  }
  ComparisonView out;
  if (!Builder(ordered, map).Build(&out, err)) return false;
  *view = std::move(out);
  return true;
}

}  // namespace opsweep::render
