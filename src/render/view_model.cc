#include "render/view_model.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "render/escape.h"

namespace opsweep::render {
namespace {

PathView MakePathView(const std::string& id, const Snapshot& snapshot) {
  if (id == "onnx") {
    std::string opset = snapshot.opset.empty() ? "" : fmt::format(", opset {}", snapshot.opset);
    return {id, "ONNX", "ONNX",
            fmt::format("torch.onnx.export (dynamo{}), onnx.checker, run in onnxruntime and "
                        "compared with eager",
                        opset)};
  }
  if (id == "export") {
    return {id, "torch.export", "export",
            "torch.export.export; the exported program is run and compared with eager"};
  }
  if (id == "compile") {
    return {id, "torch.compile", "compile",
            "torch.compile (inductor); graph breaks counted, run and compared with eager"};
  }
  return {id, id, id, ""};
}

std::string JoinTitles(const std::vector<PathView>& paths) {
  std::string out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) out += i + 1 == paths.size() ? " and " : ", ";
    out += paths[i].title;
  }
  return out;
}

// Hands out unique anchors: the slug of a name, then "-2", "-3", ... on a collision.
class AnchorSet {
 public:
  std::string Make(std::string_view prefix, std::string_view name) {
    const std::string base = std::string(prefix) + Slug(name);
    std::string anchor = base;
    for (int n = 2; !used_.insert(anchor).second; ++n) anchor = fmt::format("{}-{}", base, n);
    return anchor;
  }

 private:
  std::set<std::string> used_;
};

std::string JoinLabels(const std::vector<int>& indexes, const std::vector<PathView>& paths) {
  std::string out;
  for (int index : indexes) {
    if (!out.empty()) out += ", ";
    out += paths[index].short_label;
  }
  return out;
}

std::string ApiUrl(const std::string& api, const RenderOptions& options) {
  if (api.empty() || options.api_base.empty()) return "";
  const std::string encoded = UrlEncode(api);
  const auto placeholder = options.api_base.find("{api}");
  if (placeholder == std::string::npos) return options.api_base + encoded;
  std::string url = options.api_base;
  url.replace(placeholder, 5, encoded);
  return url;
}

std::string FallbackText(const PathOutcome& outcome) {
  switch (outcome.status) {
    case Status::kOkBreaks:
    case Status::kOk:
    case Status::kOkUnverified:
      if (outcome.graph_breaks.value_or(0) > 0) {
        return *outcome.graph_breaks == 1 ? "1 graph break"
                                          : fmt::format("{} graph breaks", *outcome.graph_breaks);
      }
      return "";
    case Status::kMismatch: return "output differs from eager";
    case Status::kFail:
      return outcome.step.empty() ? "failed" : fmt::format("failed at step '{}'", outcome.step);
    case Status::kCrash: return "the worker crashed during the job";
    case Status::kTimeout: return "no result within the time limit";
    case Status::kNotApplicable: return "not applicable";
  }
  return "";
}

std::optional<ReasonLink> LinkReason(const std::string& id, const Snapshot& snapshot,
                                     const std::map<std::string, std::string>& reason_anchors) {
  if (id.empty()) return std::nullopt;
  const auto reason = snapshot.reasons.find(id);
  const auto anchor = reason_anchors.find(id);
  if (reason == snapshot.reasons.end() || anchor == reason_anchors.end()) return std::nullopt;
  return ReasonLink{id, reason->second.title, anchor->second};
}

// The detail line one path contributes, or nothing for a plain success.
std::optional<DetailLine> LineFor(const PathOutcome& outcome, const Snapshot& snapshot,
                                  const std::map<std::string, std::string>& reason_anchors) {
  DetailLine line;
  line.reason = LinkReason(outcome.reason, snapshot, reason_anchors);
  for (const GraphBreak& gb : outcome.break_reasons) {
    BreakReasonView view;
    view.reason = LinkReason(gb.reason.empty() ? gb.text : gb.reason, snapshot, reason_anchors);
    view.text = view.reason ? view.reason->title : OneLine(gb.text);
    line.break_reasons.push_back(std::move(view));
  }
  line.text = OneLine(outcome.detail);
  const std::string error = OneLine(outcome.error);
  if (line.text.empty()) line.text = error;
  else if (error != line.text) line.error = error;
  if (line.text.empty() && line.reason) line.text = line.reason->title;
  if (line.text.empty()) line.text = FallbackText(outcome);
  line.location = OneLine(outcome.location);
  if (line.text.empty() && line.location.empty() && line.break_reasons.empty()) return std::nullopt;
  return line;
}

bool SameLine(const DetailLine& a, const DetailLine& b) {
  auto key = [](const DetailLine& line) {
    std::vector<std::string> breaks;
    for (const auto& item : line.break_reasons) {
      breaks.push_back(item.reason ? "#" + item.reason->id : item.text);
    }
    return std::make_tuple(line.text, line.error, line.location,
                           line.reason ? line.reason->id : std::string(), breaks);
  };
  return key(a) == key(b);
}

struct OperatorKey {
  std::string package, section, name;
  auto operator<=>(const OperatorKey&) const = default;
};

std::vector<EnvironmentEntry> MakeEnvironment(const Snapshot& snapshot) {
  std::vector<EnvironmentEntry> out;
  out.push_back({snapshot.library_name, snapshot.library_version});
  static const char* const kKnown[] = {"torch", "onnx", "onnxscript", "onnxruntime", "python",
                                       "numpy"};
  std::set<std::string> shown;
  for (const char* key : kKnown) {
    const auto it = snapshot.environment.find(key);
    shown.insert(key);
    if (it != snapshot.environment.end() && !it->second.empty()) out.push_back({key, it->second});
  }
  for (const auto& [key, value] : snapshot.environment) {
    if (shown.count(key) == 0 && !value.empty()) out.push_back({key, value});
  }
  if (!snapshot.opset.empty()) out.push_back({"opset", snapshot.opset});
  if (!snapshot.device.empty()) out.push_back({"device", snapshot.device});
  out.push_back({"date", snapshot.generated});
  if (!snapshot.tool_name.empty()) {
    out.push_back({"merged by", snapshot.tool_version.empty()
                                    ? snapshot.tool_name
                                    : snapshot.tool_name + " " + snapshot.tool_version});
  }
  for (auto& entry : out) {
    entry.label = OneLine(entry.label);
    entry.value = OneLine(entry.value);
  }
  return out;
}

std::vector<LegendEntry> MakeLegend() {
  std::vector<LegendEntry> out;
  auto add = [&](Status status, std::optional<int> breaks, std::string meaning) {
    out.push_back({MakeCell(status, breaks), std::move(meaning)});
  };
  add(Status::kOk, std::nullopt, "captured, ran and matched eager PyTorch");
  add(Status::kOkBreaks, 2,
      "torch.compile: matched eager, but Dynamo fell back to Python at N graph breaks");
  add(Status::kOkUnverified, std::nullopt,
      "random operator: captured and ran with the right output shapes and finite values; values "
      "are not compared");
  add(Status::kMismatch, std::nullopt, "captured and ran, but the output differs from eager");
  add(Status::kFail, std::nullopt, "capture, conversion or the captured program failed");
  add(Status::kCrash, std::nullopt, "the worker process died during the job (e.g. a segfault)");
  add(Status::kTimeout, std::nullopt, "no result within the time limit; the worker was stopped");
  add(Status::kNotApplicable, std::nullopt,
      "not applicable: no tensor output, does not run eagerly with the probed inputs, or skipped");
  return out;
}

void Count(PathCount* count, Status status) {
  if (status != Status::kNotApplicable) ++count->probed;
  if (IsSupported(status)) ++count->supported;
}

void FinishPercents(std::vector<PathCount>* counts) {
  for (PathCount& count : *counts) count.percent = FormatPercent(count.supported, count.probed);
}

}  // namespace

std::string FormatCount(long long value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string FormatPercent(int supported, int probed) {
  if (probed <= 0) return "n/a";
  // Tenths of a percent, rounded half up, in integers so that every platform agrees.
  const long long tenths = (2000LL * supported + probed) / (2LL * probed);
  return fmt::format("{}.{}%", tenths / 10, tenths % 10);
}

std::string NaNote(const PackageSummary& summary) {
  return fmt::format("{} of its {} configurations {} n/a on every path",
                     FormatCount(summary.na_everywhere), FormatCount(summary.configurations),
                     summary.na_everywhere == 1 ? "is" : "are");
}

CellView MakeCell(Status status, std::optional<int> graph_breaks) {
  CellView cell;
  cell.status = status;
  cell.token = std::string(StatusToken(status));
  const int breaks = graph_breaks.value_or(0);
  const std::string breaks_text = breaks == 1 ? "1 break" : fmt::format("{} breaks", breaks);
  switch (status) {
    case Status::kOk:
      cell.symbol = "\u2713";
      cell.label = "yes";
      break;
    case Status::kOkBreaks:
      cell.symbol = "\u2713";
      cell.label = graph_breaks ? "yes, " + breaks_text : "yes, graph breaks";
      break;
    case Status::kOkUnverified:
      cell.symbol = "\u2713";
      cell.label = breaks > 0 ? "yes (random), " + breaks_text : "yes (random)";
      break;
    case Status::kMismatch:
      cell.symbol = "\u2260";
      cell.label = "mismatch";
      break;
    case Status::kFail:
      cell.symbol = "\u2717";
      cell.label = "no";
      break;
    case Status::kNotApplicable:
      cell.symbol = "\u2013";
      cell.label = "n/a";
      break;
    case Status::kCrash:
      cell.symbol = "\u26a0";
      cell.label = "crash";
      break;
    case Status::kTimeout:
      cell.symbol = "\u25f7";
      cell.label = "timeout";
      break;
  }
  return cell;
}

ViewModel BuildViewModel(const Snapshot& snapshot, const RenderOptions& options) {
  ViewModel vm;
  for (const std::string& id : snapshot.paths) vm.paths.push_back(MakePathView(id, snapshot));
  const int path_count = static_cast<int>(vm.paths.size());
  vm.library_name = OneLine(snapshot.library_name);
  vm.library_version = OneLine(snapshot.library_version);
  vm.generated = OneLine(snapshot.generated);
  vm.lede = fmt::format(
      "Every surveyed public operator of {} {} was run with concrete inputs through each capture path and its "
      "output compared with eager PyTorch (snapshot of {}).",
      vm.library_name, vm.library_version, vm.generated);
  vm.tool = OneLine(snapshot.tool_version.empty() ? snapshot.tool_name
                                                  : snapshot.tool_name + " " + snapshot.tool_version);
  vm.title = fmt::format("{} {}: {} support", vm.library_name, vm.library_version,
                         JoinTitles(vm.paths));
  vm.environment = MakeEnvironment(snapshot);
  vm.legend = MakeLegend();
  vm.unclassified = snapshot.unclassified;
  vm.cards.resize(path_count);

  AnchorSet anchors;
  std::map<std::string, std::string> reason_anchors;
  for (const auto& [id, reason] : snapshot.reasons) {
    reason_anchors[id] = anchors.Make("reason-", id);
  }

  std::set<OperatorKey> operators, operators_onnx;
  int any_failure = 0, with_breaks = 0;
  std::vector<std::map<Status, int>> status_counts(path_count);
  std::vector<int> path_failures(path_count, 0);
  std::map<std::string, std::vector<AffectedRow>> affected;
  std::map<std::string, std::set<OperatorKey>> affected_operators;
  const auto onnx_index = std::find_if(vm.paths.begin(), vm.paths.end(),
                                       [](const PathView& p) { return p.id == "onnx"; }) -
                          vm.paths.begin();

  for (const SnapshotRecord& record : snapshot.records) {
    RowView row;
    row.name = OneLine(record.name);
    row.operator_name = OneLine(record.operator_name);
    row.variant = OneLine(record.variant);
    row.package = OneLine(record.package);
    row.group = OneLine(record.group);
    row.anchor = anchors.Make("r-", record.name);
    row.api = record.api ? OneLine(*record.api) : "";
    row.api_url = ApiUrl(row.api, options);
    row.note = OneLine(record.note);
    row.random = !record.check;

    bool all_na = true, all_supported = true;
    std::vector<std::pair<std::string, int>> reasons_here;  // reason id -> path index
    for (int p = 0; p < path_count; ++p) {
      const PathOutcome& outcome = record.paths.at(vm.paths[p].id);
      row.cells.push_back(MakeCell(outcome.status, outcome.graph_breaks));
      row.graph_breaks += outcome.graph_breaks.value_or(0);
      all_na = all_na && outcome.status == Status::kNotApplicable;
      all_supported = all_supported && IsSupported(outcome.status);
      Count(&vm.cards[p], outcome.status);
      if (!outcome.reason.empty()) reasons_here.emplace_back(outcome.reason, p);
      for (const GraphBreak& gb : outcome.break_reasons) {
        const std::string& id = gb.reason.empty() ? gb.text : gb.reason;
        if (snapshot.reasons.count(id)) reasons_here.emplace_back(id, p);
      }

      auto line = LineFor(outcome, snapshot, reason_anchors);
      if (!line) continue;
      auto same = std::find_if(row.details.begin(), row.details.end(),
                               [&](const DetailLine& other) { return SameLine(other, *line); });
      if (same != row.details.end()) {
        same->paths.push_back(p);
      } else {
        line->paths.push_back(p);
        row.details.push_back(std::move(*line));
      }
    }
    for (DetailLine& line : row.details) line.paths_label = JoinLabels(line.paths, vm.paths);
    row.na_everywhere = all_na;

    // What the search box matches: name, variant and every reason text of the row.
    row.search_text = row.name;
    if (!row.variant.empty()) row.search_text += " " + row.variant;
    for (const DetailLine& line : row.details) {
      for (const std::string* part : {&line.text, &line.error, &line.location}) {
        if (!part->empty()) row.search_text += " " + *part;
      }
      if (line.reason) row.search_text += " " + line.reason->id + " " + line.reason->title;
      for (const auto& item : line.break_reasons) row.search_text += " " + item.text;
    }

    const OperatorKey op{record.package, record.section, record.operator_name};
    operators.insert(op);
    if (onnx_index < path_count &&
        IsSupported(record.paths.at(vm.paths[onnx_index].id).status)) {
      operators_onnx.insert(op);
    }

    // Reasons: which rows each one affects, and on which paths.
    std::map<std::string, std::vector<int>> by_reason;
    for (const auto& [id, p] : reasons_here) {
      auto& list = by_reason[id];
      if (std::find(list.begin(), list.end(), p) == list.end()) list.push_back(p);
    }
    for (auto& [id, list] : by_reason) {
      std::sort(list.begin(), list.end());
      affected[id].push_back({row.name, row.anchor, JoinLabels(list, vm.paths)});
      affected_operators[id].insert(op);
    }

    ++vm.configurations;
    bool failed_somewhere = false;
    for (int p = 0; p < path_count; ++p) {
      ++status_counts[p][row.cells[p].status];
      if (IsFailure(row.cells[p].status)) {
        ++path_failures[p];
        failed_somewhere = true;
      }
    }
    if (failed_somewhere) ++any_failure;
    if (row.graph_breaks > 0) ++with_breaks;
    if (all_na) ++vm.configurations_na_everywhere;
    if (all_supported) ++vm.configurations_all_pass;

    // Package and section (records arrive sorted by package, section; tolerate any order).
    auto package = std::find_if(vm.packages.begin(), vm.packages.end(),
                                [&](const PackageView& pv) { return pv.name == record.package; });
    if (package == vm.packages.end()) {
      PackageView view;
      view.name = record.package;
      view.title = OneLine(vm.library_name + "." + record.package);
      view.anchor = anchors.Make("p-", record.package);
      view.summary.paths.resize(path_count);
      vm.packages.push_back(std::move(view));
      package = vm.packages.end() - 1;
    }
    PackageSummary& summary = package->summary;
    ++summary.configurations;
    if (all_na) ++summary.na_everywhere;
    if (all_supported) ++summary.all_pass;
    for (int p = 0; p < path_count; ++p) Count(&summary.paths[p], row.cells[p].status);

    if (all_na) {
      vm.na_rows.push_back(std::move(row));
      continue;
    }
    auto section = std::find_if(package->sections.begin(), package->sections.end(),
                                [&](const SectionView& s) { return s.name == record.section; });
    if (section == package->sections.end()) {
      SectionView view;
      view.name = record.section;
      // The top level of a package that also has sections gets its own title, so that no two
      // headings read the same (Sphinx warns about duplicate implicit targets).
      view.title = OneLine(record.section.empty() ? package->title + " (top level)"
                                                  : package->title + "." + record.section);
      view.anchor = anchors.Make("s-", record.group.empty() ? record.package : record.group);
      package->sections.push_back(std::move(view));
      section = package->sections.end() - 1;
    }
    section->rows.push_back(std::move(row));
  }

  vm.operators = static_cast<int>(operators.size());
  if (onnx_index < path_count) vm.operators_onnx = static_cast<int>(operators_onnx.size());
  FinishPercents(&vm.cards);
  for (PackageView& package : vm.packages) {
    FinishPercents(&package.summary.paths);
    package.titled_sections =
        package.sections.size() > 1 ||
        (package.sections.size() == 1 && !package.sections.front().name.empty());
  }

  vm.filters.push_back({"all", "All configurations", vm.configurations, ""});
  vm.filters.push_back({"failure", "Any failure", any_failure, ""});
  vm.filters.push_back({"breaks", "Graph breaks", with_breaks, ""});
  vm.filters.push_back({"all-ok", "Supported on every path", vm.configurations_all_pass, ""});
  for (int p = 0; p < path_count; ++p) {
    const PathView& path = vm.paths[p];
    vm.filters.push_back({path.id + ":supported", path.title + ": supported", vm.cards[p].supported,
                          path.title});
    vm.filters.push_back({path.id + ":failure", path.title + ": any failure", path_failures[p],
                          path.title});
    for (Status status : kAllStatuses) {
      const auto it = status_counts[p].find(status);
      if (it == status_counts[p].end()) continue;
      // The cell's words, without the count or parentheses the option adds itself.
      const CellView cell = MakeCell(status, std::nullopt);
      const std::string words = status == Status::kOkBreaks       ? "yes, graph breaks"
                                : status == Status::kOkUnverified ? "yes, random"
                                                                  : cell.label;
      const std::string label = fmt::format("{}: {} {}", path.title, cell.symbol, words);
      vm.filters.push_back(
          {fmt::format("{}:{}", path.id, StatusToken(status)), label, it->second, path.title});
    }
  }

  for (const auto& [id, rows] : affected) {
    const SnapshotReason& reason = snapshot.reasons.at(id);
    ReasonView view;
    view.id = OneLine(id);
    view.anchor = reason_anchors.at(id);
    view.title = OneLine(reason.title);
    view.cause = OneLine(reason.cause);
    view.hint = OneLine(reason.hint);
    view.component = OneLine(reason.component);
    view.operators = static_cast<int>(affected_operators[id].size());
    view.affected = rows;
    vm.reasons.push_back(std::move(view));
  }
  // Most widespread first; ties by id, so the order is stable.
  std::stable_sort(vm.reasons.begin(), vm.reasons.end(), [](const ReasonView& a, const ReasonView& b) {
    return a.affected.size() > b.affected.size();
  });
  return vm;
}

}  // namespace opsweep::render
