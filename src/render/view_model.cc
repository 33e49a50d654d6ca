#include "render/view_model.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "render/annotations.h"
#include "render/escape.h"
#include "render/facts.h"

namespace opsweep::render {
namespace {

using snapshot::GraphBreak;
using snapshot::Outcome;
using snapshot::Record;
using snapshot::Reason;

// The order the page lists well-known environment fields in; any other field the snapshot holds
// follows, by name. Presentation only: a new path's field is shown without being listed here.
constexpr const char* kEnvironmentDisplayOrder[] = {"torch", "onnx",  "onnxscript", "onnxruntime",
                                                    "python", "numpy", "opset",      "device"};

std::string JoinLabels(const std::vector<int>& indexes, const std::vector<PathView>& paths) {
  std::string out;
  for (int index : indexes) {
    if (!out.empty()) out += ", ";
    out += paths[index].short_label;
  }
  return out;
}

// The link of a documented name: the documenting page (`api_uri`, from objects.inv) under
// --api-base; a base with "{api}" is a template for the (percent-encoded) name instead, and a
// record without a page appends the name to the base.
std::string ApiUrl(const std::string& api, const std::string& uri, const RenderOptions& options) {
  if (api.empty() || options.api_base.empty()) return "";
  const std::string encoded = UrlEncode(api);
  const auto placeholder = options.api_base.find("{api}");
  if (placeholder == std::string::npos) {
    if (uri.empty()) return options.api_base + encoded;
    const bool slash = options.api_base.back() == '/' || uri.front() == '/';
    return options.api_base + (slash ? "" : "/") + uri;
  }
  std::string url = options.api_base;
  url.replace(placeholder, 5, encoded);
  return url;
}

std::string FallbackText(const Outcome& outcome) {
  switch (outcome.status) {
    case Status::ok_breaks:
    case Status::ok:
    case Status::ok_unverified:
    case Status::ok_static:
    case Status::ok_recompiles:
      if (outcome.graph_breaks.value_or(0) > 0) {
        return *outcome.graph_breaks == 1 ? "1 graph break" : fmt::format("{} graph breaks", *outcome.graph_breaks);
      }
      return "";
    case Status::mismatch: return "output differs from eager";
    case Status::fail: return outcome.step.empty() ? "failed" : fmt::format("failed at step '{}'", outcome.step);
    case Status::crash: return "the worker crashed during the job";
    case Status::timeout: return "no result within the time limit";
    case Status::not_applicable: return "not applicable";
  }
  return "";
}

// Reason ids and their anchors in the Reasons section.
class ReasonLinks {
 public:
  ReasonLinks(const Snapshot& snapshot, AnchorSet* anchors) : snapshot_(snapshot) {
    for (const auto& [id, reason] : snapshot.reasons) anchors_[id] = anchors->Make("reason-", id);
  }
  std::optional<ReasonLink> Link(const std::string& id) const {
    if (id.empty()) return std::nullopt;
    const auto reason = snapshot_.reasons.find(id);
    const auto anchor = anchors_.find(id);
    if (reason == snapshot_.reasons.end() || anchor == anchors_.end()) return std::nullopt;
    return ReasonLink{id, reason->second.title, anchor->second};
  }
  const std::string& Anchor(const std::string& id) const { return anchors_.at(id); }

 private:
  const Snapshot& snapshot_;
  std::map<std::string, std::string> anchors_;
};

// The detail line one path contributes, or nothing for a plain success.
std::optional<DetailLine> LineFor(const Outcome& outcome, const ReasonLinks& links) {
  DetailLine line;
  line.reason = links.Link(outcome.reason);
  for (const GraphBreak& gb : outcome.break_reasons) {
    BreakReasonView view;
    view.reason = links.Link(gb.reason);
    // A classified break reads as its reason's title; one no rule matched keeps Dynamo's own words.
    const bool classified = view.reason && gb.reason != snapshot::kUnclassifiedReason;
    view.text = classified ? view.reason->title : OneLine(gb.text);
    view.location = OneLine(gb.location);
    line.break_reasons.push_back(std::move(view));
  }
  line.text = OneLine(outcome.detail);
  const std::string error = OneLine(outcome.error);
  if (line.text.empty()) line.text = error;
  else if (error != line.text) line.error = error;
  if (line.text.empty() && line.reason) line.text = line.reason->title;
  if (line.text.empty()) line.text = FallbackText(outcome);
  line.location = OneLine(outcome.location);
  for (const std::string& fact : DynamicFacts(outcome)) line.facts.push_back(OneLine(fact));
  if (line.text.empty() && line.location.empty() && line.break_reasons.empty() && line.facts.empty()) return std::nullopt;
  return line;
}

// The statuses worth a reproducer: the job did not give what eager gives, broke the graph, or
// recompiles on every new size.
bool WantsRepro(Status status) {
  switch (status) {
    case Status::fail:
    case Status::mismatch:
    case Status::crash:
    case Status::timeout:
    case Status::ok_breaks:
    case Status::ok_recompiles:  // the script shows the recompiles and the guards behind them
      return true;
    default:
      return false;
  }
}

bool SameLine(const DetailLine& a, const DetailLine& b) {
  auto key = [](const DetailLine& line) {
    std::vector<std::string> breaks;
    for (const auto& item : line.break_reasons) {
      breaks.push_back((item.reason ? "#" + item.reason->id : item.text) + "\n" + item.location);
    }
    return std::make_tuple(line.text, line.error, line.location, line.reason ? line.reason->id : std::string(), breaks,
                           line.facts);
  };
  return key(a) == key(b);
}

struct OperatorKey {
  std::string package, section, name;
  auto operator<=>(const OperatorKey&) const = default;
};

// ---- the header: paths, title, environment, legend -----------------------------------------------

std::vector<PathView> MakePathViews(const Snapshot& snapshot) {
  std::vector<PathView> out;
  for (const PathSpec& p : snapshot.paths) {
    out.push_back({p.id, OneLine(p.title), OneLine(p.label), OneLine(p.description), OneLine(p.group), p.reproducible});
    out.back().facts = p.facts;
  }
  return out;
}

std::vector<SubVerdictView> MakeSubVerdictViews(const Snapshot& snapshot) {
  std::vector<SubVerdictView> out;
  for (int p = 0; p < static_cast<int>(snapshot.paths.size()); ++p) {
    const PathSpec& path = snapshot.paths[p];
    for (const SubVerdictSpec& sub : path.subverdicts) {
      out.push_back({p, path.id + "/" + sub.id, sub.id, OneLine(sub.title), OneLine(sub.label),
                     sub.kind == SubVerdictKind::opset, OneLine(sub.description)});
    }
  }
  return out;
}

// "ONNX in OpenVINO", "ONNX at opset 17": a sub-verdict named with its path.
std::string SubTitle(const SubVerdictView& sub, const std::vector<PathView>& paths) {
  return fmt::format("{} {} {}", paths[sub.path].title, sub.opset ? "at" : "in", sub.title);
}

// "0.9.0"; a library that is not an installed distribution has no version: "(unversioned)".
std::string LibraryVersionText(const Snapshot& snapshot) {
  return snapshot.library_version.empty() ? "(unversioned)" : OneLine(snapshot.library_version);
}

std::vector<EnvironmentEntry> MakeEnvironment(const Snapshot& snapshot) {
  std::vector<EnvironmentEntry> out;
  std::string library = snapshot.library_version;
  if (library.empty()) {
    library = "unversioned";
    if (!snapshot.library_fingerprint.empty()) library += ", sources " + snapshot.library_fingerprint.substr(0, 12);
  }
  out.push_back({snapshot.library_name, library});
  if (!snapshot.groups.empty()) {  // merge --groups: say that the other groups were not surveyed
    std::string groups;
    for (const std::string& g : snapshot.groups) groups += (groups.empty() ? "" : ", ") + g;
    out.push_back({"groups", "only " + groups + " (the survey's other groups are not in this snapshot)"});
  }
  std::set<std::string> shown;
  for (const char* key : kEnvironmentDisplayOrder) {
    shown.insert(key);
    const std::string value = snapshot.EnvironmentText(key);
    if (!value.empty()) out.push_back({key, value});
  }
  for (const auto& [key, value] : snapshot.environment.items()) {
    const std::string text = snapshot.EnvironmentText(key);
    if (shown.count(key) == 0 && !text.empty()) out.push_back({key, text});
  }
  out.push_back({"date", snapshot.generated});
  if (!snapshot.tool_name.empty()) {
    out.push_back({"merged by", snapshot.tool_version.empty() ? snapshot.tool_name
                                                              : snapshot.tool_name + " " + snapshot.tool_version});
  }
  for (auto& entry : out) {
    entry.label = OneLine(entry.label);
    entry.value = OneLine(entry.value);
  }
  return out;
}

// Whether some outcome of the snapshot has this status.
bool AnyOutcome(const Snapshot& snapshot, Status status) {
  for (const Record& record : snapshot.records) {
    for (const auto& [id, outcome] : record.paths) {
      if (outcome.status == status) return true;
    }
  }
  return false;
}

std::vector<LegendEntry> MakeLegend(const Snapshot& snapshot) {
  std::vector<LegendEntry> out;
  auto add = [&](Status status, std::optional<int> breaks, std::string meaning) {
    out.push_back({MakeCell(status, breaks), std::move(meaning)});
  };
  add(Status::ok, std::nullopt, "captured, ran and matched eager PyTorch");
  add(Status::ok_breaks, 2, "torch.compile: matched eager, but Dynamo fell back to Python at N graph breaks");
  add(Status::ok_unverified, std::nullopt,
      "random operator: captured and ran with the right output shapes and finite values; values "
      "are not compared");
  // The dynamic-shape paths' caveats, when a path reported them.
  if (AnyOutcome(snapshot, Status::ok_static)) {
    add(Status::ok_static, std::nullopt,
        "dynamic shapes: matched eager at every shape it accepts, but some dimensions are static (or "
        "limited to a range) in the captured program");
  }
  if (AnyOutcome(snapshot, Status::ok_recompiles)) {
    add(Status::ok_recompiles, std::nullopt,
        "dynamic shapes: matched eager at every shape, but torch.compile recompiles for every new size of "
        "a dimension");
  }
  add(Status::mismatch, std::nullopt, "captured and ran, but the output differs from eager");
  add(Status::fail, std::nullopt, "capture, conversion or the captured program failed");
  add(Status::crash, std::nullopt, "the worker process died during the job (e.g. a segfault)");
  add(Status::timeout, std::nullopt, "no result within the time limit; the worker was stopped");
  add(Status::not_applicable, std::nullopt,
      "not applicable: no tensor output, does not run eagerly with the probed inputs, or skipped");
  return out;
}

std::vector<std::string> MakeMarksLegend(const std::vector<SubVerdictView>& subs, const std::vector<PathView>& paths) {
  std::vector<std::string> out;
  for (const SubVerdictView& sub : subs) {
    std::string line = fmt::format("{}: {}", sub.label, SubTitle(sub, paths));
    line += sub.opset ? fmt::format(", shown where it differs from the {} column", paths[sub.path].title)
                      : ", shown whenever it ran (the file exported and passed the checker)";
    out.push_back(line);
  }
  return out;
}

void MakeHeader(const Snapshot& snapshot, ViewModel* vm) {
  vm->paths = MakePathViews(snapshot);
  vm->subverdicts = MakeSubVerdictViews(snapshot);
  vm->marks_legend = MakeMarksLegend(vm->subverdicts, vm->paths);
  vm->library_name = OneLine(snapshot.library_name);
  vm->library_version = LibraryVersionText(snapshot);
  vm->generated = OneLine(snapshot.generated);
  vm->lede = fmt::format(
      "Every surveyed public operator of {} {} was run with concrete inputs through each capture path and its "
      "output compared with eager PyTorch (snapshot of {}).",
      vm->library_name, vm->library_version, vm->generated);
  vm->tool = OneLine(snapshot.tool_version.empty() ? snapshot.tool_name : snapshot.tool_name + " " + snapshot.tool_version);
  // Grouped paths (the dynamic-shape variants) join the title by their group, not one by one.
  std::vector<PathView> ungrouped;
  std::vector<int> ungrouped_index;
  std::vector<std::string> groups;
  for (std::size_t p = 0; p < vm->paths.size(); ++p) {
    const PathView& path = vm->paths[p];
    if (path.group.empty()) {
      ungrouped.push_back(path);
      ungrouped_index.push_back(static_cast<int>(p));
    } else if (std::find(groups.begin(), groups.end(), path.group) == groups.end()) {
      groups.push_back(path.group);
    }
  }
  vm->title = fmt::format("{} {}: {} support", vm->library_name, vm->library_version,
                          JoinTitles(ungrouped.empty() ? vm->paths : ungrouped));
  if (!ungrouped.empty()) {
    for (std::size_t i = 0; i < groups.size(); ++i) vm->title += (i == 0 ? ", with " : " and ") + groups[i];
  }
  if (!ungrouped.empty() && !groups.empty()) {
    vm->base_paths = std::move(ungrouped_index);
    vm->base_titles = JoinTitles(ungrouped);
  }
  vm->environment = MakeEnvironment(snapshot);
  vm->legend = MakeLegend(snapshot);
  vm->legend_notes = MakeLegendNotes(snapshot);
  vm->has_checks = HasChecks(snapshot);
  vm->unclassified = snapshot.unclassified;
}

// Paths that produce ONNX models: some outcome of theirs lists ONNX op types.
std::vector<bool> OnnxPaths(const Snapshot& snapshot, const std::vector<PathView>& paths) {
  std::vector<bool> out(paths.size(), false);
  for (const Record& record : snapshot.records) {
    for (std::size_t p = 0; p < paths.size(); ++p) {
      if (!record.paths.at(paths[p].id).op_types.empty()) out[p] = true;
    }
  }
  return out;
}

// ---- rows ----------------------------------------------------------------------------------------

// What the search box matches: name, variant, the case's note, every reason text of the row, its checks and the
// outcomes' notes.
std::string SearchText(const RowView& row) {
  std::string text = row.name;
  if (!row.variant.empty()) text += " " + row.variant;
  if (!row.note.empty()) text += " " + row.note;
  if (!row.sub_summary.empty()) text += " " + row.sub_summary;
  std::vector<const DetailLine*> lines;
  for (const DetailLine& line : row.details) lines.push_back(&line);
  for (const DetailLine& line : row.sub_details) lines.push_back(&line);
  for (const DetailLine* pointer : lines) {
    const DetailLine& line = *pointer;
    for (const std::string* part : {&line.text, &line.error, &line.location}) {
      if (!part->empty()) text += " " + *part;
    }
    if (line.reason) text += " " + line.reason->id + " " + line.reason->title;
    for (const auto& item : line.break_reasons) {
      text += " " + item.text;
      if (!item.location.empty()) text += " " + item.location;
    }
    for (const auto& fact : line.facts) text += " " + fact;
  }
  for (const AnnotationLine& line : row.annotations) text += " " + line.text;
  return text;
}

// Adds `line` to `lines`, or its label to an equal line already there.
void AddLine(std::vector<DetailLine>* lines, DetailLine line, int path, const std::string& label) {
  auto same = std::find_if(lines->begin(), lines->end(), [&](const DetailLine& other) { return SameLine(other, line); });
  if (same != lines->end()) {
    if (std::find(same->paths.begin(), same->paths.end(), path) == same->paths.end()) same->paths.push_back(path);
    same->paths_label += ", " + label;
    return;
  }
  line.paths.push_back(path);
  line.paths_label = label;
  lines->push_back(std::move(line));
}

Outcome AsOutcome(const snapshot::SubOutcome& sub) {
  Outcome o;
  o.status = sub.status;
  o.step = sub.step;
  o.reason = sub.reason;
  o.detail = sub.detail;
  o.error = sub.error;
  o.location = sub.location;
  return o;
}

// "OpenVINO and tract fail; differs at opset 17": what the sub-verdict lines say, in one line.
std::string SubSummary(const std::vector<std::string>& failing, const std::vector<std::string>& differing) {
  auto join = [](const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
      out += items[i];
    }
    return out;
  };
  std::string out;
  if (!failing.empty()) out = "fails in " + join(failing);
  if (!differing.empty()) out += (out.empty() ? "" : "; ") + std::string("differs at ") + join(differing);
  return out;
}

// The marks of one path's cell and the sub-verdict lines they add to the row.
void AddMarks(const Outcome& outcome, int p, const std::vector<SubVerdictView>& subs, const std::vector<PathView>& paths,
              const ReasonLinks& links, CellView* cell, RowView* row, std::vector<std::string>* failing,
              std::vector<std::string>* differing) {
  for (int i = 0; i < static_cast<int>(subs.size()); ++i) {
    const SubVerdictView& sub = subs[i];
    if (sub.path != p) continue;
    const auto found = outcome.subverdicts.find(sub.id);
    if (found == outcome.subverdicts.end()) continue;
    const Outcome as_outcome = AsOutcome(found->second);
    const CellView look = MakeCell(as_outcome.status, std::nullopt);
    MarkView mark;
    mark.sub = i;
    mark.label = sub.label;
    mark.status = as_outcome.status;
    mark.token = look.token;
    mark.symbol = look.symbol;
    mark.words = look.label;
    mark.shown = !sub.opset || as_outcome.status != outcome.status;
    const std::string title = SubTitle(sub, paths);
    auto line = LineFor(as_outcome, links);
    mark.title = fmt::format("{}: {}", title, look.label);
    if (line && !line->text.empty()) mark.title += ": " + line->text;
    if (mark.shown && !IsSupported(as_outcome.status) && line) {
      AddLine(&row->sub_details, std::move(*line), p, title);
      (sub.opset ? differing : failing)->push_back(sub.title);
    } else if (mark.shown && sub.opset) {
      DetailLine works;
      works.text = look.label;
      AddLine(&row->sub_details, std::move(works), p, title);
      differing->push_back(sub.title);
    }
    cell->marks.push_back(std::move(mark));
  }
}

// A path's facts in its cell (its cell facts after the verdict's words: "yes, XNNPACK 72%") and the
// flags of a supported outcome in the row (its filters).
void AddFacts(const PathView& path, const Outcome& outcome, CellView* cell, RowView* row) {
  if (path.facts.empty()) return;
  const std::string text = OneLine(CellFactText(path.facts, outcome.facts));
  if (!text.empty()) cell->label += ", " + text;
  for (std::string& flag : SetFlags(path.id, path.facts, outcome)) row->flags.push_back(std::move(flag));
}

// A path's facts as sentences of its detail line; a plain success gets a line of its own for them.
void AddFactLines(const PathView& path, const Outcome& outcome, std::optional<DetailLine>* line) {
  std::vector<std::string> sentences = FactSentences(path.facts, outcome.facts);
  if (sentences.empty()) return;
  if (!*line) {
    *line = DetailLine{};
    (*line)->text = OneLine(sentences.front());
    sentences.erase(sentences.begin());
  }
  for (const std::string& s : sentences) (*line)->facts.push_back(OneLine(s));
}

RowView MakeRow(const Record& record, const std::vector<PathView>& paths, const std::vector<SubVerdictView>& subs,
                const ReasonLinks& links, const RenderOptions& options, const std::string& suite, AnchorSet* anchors) {
  RowView row;
  row.name = OneLine(record.name);
  row.operator_name = OneLine(record.operator_name);
  row.variant = OneLine(record.variant);
  row.package = OneLine(record.package);
  row.group = OneLine(record.group);
  row.anchor = anchors->Make("r-", record.name);
  row.api = record.api ? OneLine(*record.api) : "";
  row.api_url = ApiUrl(row.api, record.api_uri ? OneLine(*record.api_uri) : "", options);
  row.note = OneLine(record.note);
  row.random = !record.check;
  row.na_everywhere = true;
  std::vector<std::string> failing, differing;
  for (int p = 0; p < static_cast<int>(paths.size()); ++p) {
    const Outcome& outcome = record.paths.at(paths[p].id);
    row.cells.push_back(MakeCell(outcome));
    AddFacts(paths[p], outcome, &row.cells.back(), &row);
    AddMarks(outcome, p, subs, paths, links, &row.cells.back(), &row, &failing, &differing);
    row.graph_breaks += outcome.graph_breaks.value_or(0);
    row.na_everywhere = row.na_everywhere && IsNotMeasured(outcome.status);
    auto line = LineFor(outcome, links);
    AddFactLines(paths[p], outcome, &line);
    if (!line) continue;
    auto same = std::find_if(row.details.begin(), row.details.end(),
                             [&](const DetailLine& other) { return SameLine(other, *line); });
    DetailLine* target = nullptr;
    if (same != row.details.end()) {
      same->paths.push_back(p);
      target = &*same;
    } else {
      line->paths.push_back(p);
      row.details.push_back(std::move(*line));
      target = &row.details.back();
    }
    if (paths[p].reproducible && WantsRepro(outcome.status)) target->repro.push_back(ReproCommand(record.name, paths[p].id, suite));
  }
  for (DetailLine& line : row.details) line.paths_label = JoinLabels(line.paths, paths);
  row.sub_summary = SubSummary(failing, differing);
  row.annotations = MakeAnnotations(record, paths);
  for (AnnotationLine& line : row.annotations) line.paths_label = JoinLabels(line.paths, paths);
  row.fresh_unchecked = FreshUnchecked(record);
  row.search_text = SearchText(row);
  return row;
}

// ---- tallies: counts over every row --------------------------------------------------------------

// A supported outcome with a dynamic-shape caveat: the "caveat" filter.
bool IsCaveat(Status status) { return status == Status::ok_static || status == Status::ok_recompiles; }

class Tally {
 public:
  Tally(const Snapshot& snapshot, const std::vector<PathView>& paths, const std::vector<SubVerdictView>& subs)
      : snapshot_(snapshot), paths_(paths), subs_(subs), onnx_paths_(OnnxPaths(snapshot, paths)),
        status_counts_(paths.size()), path_failures_(paths.size(), 0), sub_counts_(subs.size()) {}

  void Add(const Record& record, const RowView& row, ViewModel* vm) {
    const OperatorKey op{record.package, record.section, record.operator_name};
    operators_.insert(op);
    bool all_supported = true, base_supported = true, failed = false;
    for (std::size_t p = 0; p < paths_.size(); ++p) {
      const Status status = row.cells[p].status;
      Count(&vm->cards[p], status);
      ++status_counts_[p][status];
      all_supported = all_supported && IsSupported(status);
      if (paths_[p].group.empty()) base_supported = base_supported && IsSupported(status);
      if (IsFailure(status)) {
        ++path_failures_[p];
        failed = true;
      }
      if (onnx_paths_[p] && IsSupported(status)) operators_onnx_.insert(op);
    }
    for (std::size_t p = 0; p < paths_.size(); ++p) {
      for (const MarkView& mark : row.cells[p].marks) {
        SubCount& count = sub_counts_[mark.sub];
        Count(&count.count, mark.status);
        if (IsFailure(mark.status)) ++count.failures;
        if (mark.status != row.cells[p].status) ++count.differs;
      }
    }
    ++vm->configurations;
    if (failed) ++any_failure_;
    if (row.graph_breaks > 0) ++with_breaks_;
    if (row.fresh_unchecked) ++fresh_unchecked_;
    for (const std::string& flag : row.flags) ++flags_[flag];
    if (std::any_of(row.cells.begin(), row.cells.end(), [](const CellView& c) { return IsCaveat(c.status); })) {
      ++with_caveat_;
    }
    if (row.na_everywhere) ++vm->configurations_na_everywhere;
    if (all_supported) ++vm->configurations_all_pass;
    if (base_supported && !vm->base_paths.empty()) ++vm->configurations_base_pass;
    AddReasons(record, row, op);
  }

  void Finish(ViewModel* vm) const {
    vm->operators = static_cast<int>(operators_.size());
    if (std::find(onnx_paths_.begin(), onnx_paths_.end(), true) != onnx_paths_.end()) {
      vm->operators_onnx = static_cast<int>(operators_onnx_.size());
    }
  }

  static void Count(PathCount* count, Status status) {
    if (!IsNotMeasured(status)) ++count->probed;
    if (IsSupported(status)) ++count->supported;
  }

  struct SubCount {
    PathCount count;
    int failures = 0;
    int differs = 0;
  };
  const SubCount& sub_count(std::size_t i) const { return sub_counts_[i]; }

  int any_failure() const { return any_failure_; }
  int with_breaks() const { return with_breaks_; }
  int fresh_unchecked() const { return fresh_unchecked_; }
  int with_caveat() const { return with_caveat_; }
  int flag_count(const std::string& value) const {
    auto it = flags_.find(value);
    return it == flags_.end() ? 0 : it->second;
  }
  const std::map<Status, int>& status_counts(std::size_t p) const { return status_counts_[p]; }
  int path_failures(std::size_t p) const { return path_failures_[p]; }
  const std::map<std::string, std::vector<AffectedRow>>& affected() const { return affected_; }
  int operators_affected(const std::string& id) const { return static_cast<int>(affected_operators_.at(id).size()); }

 private:
  // Which rows each reason affects, and on which paths: outcome reasons and graph-break reasons.
  void AddReasons(const Record& record, const RowView& row, const OperatorKey& op) {
    std::map<std::string, std::vector<int>> by_reason;
    auto add = [&](const std::string& id, int p) {
      auto& list = by_reason[id];
      if (std::find(list.begin(), list.end(), p) == list.end()) list.push_back(p);
    };
    std::map<std::string, std::vector<std::string>> by_sub_reason;  // reason -> sub-verdict titles
    for (int p = 0; p < static_cast<int>(paths_.size()); ++p) {
      const Outcome& outcome = record.paths.at(paths_[p].id);
      if (!outcome.reason.empty()) add(outcome.reason, p);
      for (const GraphBreak& gb : outcome.break_reasons) {
        if (snapshot_.reasons.count(gb.reason)) add(gb.reason, p);
      }
      for (const SubVerdictView& sub : subs_) {
        if (sub.path != p) continue;
        auto it = outcome.subverdicts.find(sub.id);
        if (it == outcome.subverdicts.end() || it->second.reason.empty()) continue;
        auto& titles = by_sub_reason[it->second.reason];
        titles.push_back(SubTitle(sub, paths_));
      }
    }
    std::set<std::string> ids;
    for (const auto& [id, list] : by_reason) ids.insert(id);
    for (const auto& [id, list] : by_sub_reason) ids.insert(id);
    for (const std::string& id : ids) {
      std::string label;
      if (auto it = by_reason.find(id); it != by_reason.end()) {
        std::sort(it->second.begin(), it->second.end());
        label = JoinLabels(it->second, paths_);
      }
      if (auto it = by_sub_reason.find(id); it != by_sub_reason.end()) {
        for (const auto& title : it->second) label += (label.empty() ? "" : ", ") + title;
      }
      affected_[id].push_back({row.name, row.anchor, label});
      affected_operators_[id].insert(op);
    }
  }

  const Snapshot& snapshot_;
  const std::vector<PathView>& paths_;
  const std::vector<SubVerdictView>& subs_;
  std::vector<bool> onnx_paths_;
  std::set<OperatorKey> operators_, operators_onnx_;
  int any_failure_ = 0, with_breaks_ = 0, fresh_unchecked_ = 0, with_caveat_ = 0;
  std::map<std::string, int> flags_;  // rows by flag filter value (render/facts.h)
  std::vector<std::map<Status, int>> status_counts_;
  std::vector<int> path_failures_;
  std::vector<SubCount> sub_counts_;
  std::map<std::string, std::vector<AffectedRow>> affected_;
  std::map<std::string, std::set<OperatorKey>> affected_operators_;
};

// ---- placing a row: its package (summary) and section, or the n/a-everywhere list ---------------

void PlaceRow(const Record& record, RowView row, ViewModel* vm, AnchorSet* anchors) {
  // Records arrive sorted by package, section; tolerate any order.
  auto package = std::find_if(vm->packages.begin(), vm->packages.end(),
                              [&](const PackageView& pv) { return pv.name == record.package; });
  if (package == vm->packages.end()) {
    PackageView view;
    view.name = record.package;
    view.title = OneLine(vm->library_name + "." + record.package);
    view.anchor = anchors->Make("p-", record.package);
    view.summary.paths.resize(vm->paths.size());
    vm->packages.push_back(std::move(view));
    package = vm->packages.end() - 1;
  }
  PackageSummary& summary = package->summary;
  ++summary.configurations;
  if (row.na_everywhere) ++summary.na_everywhere;
  if (std::all_of(row.cells.begin(), row.cells.end(), [](const CellView& c) { return IsSupported(c.status); })) {
    ++summary.all_pass;
  }
  for (std::size_t p = 0; p < row.cells.size(); ++p) Tally::Count(&summary.paths[p], row.cells[p].status);

  if (row.na_everywhere) {
    vm->na_rows.push_back(std::move(row));
    return;
  }
  auto section = std::find_if(package->sections.begin(), package->sections.end(),
                              [&](const SectionView& s) { return s.name == record.section; });
  if (section == package->sections.end()) {
    SectionView view;
    view.name = record.section;
    // The top level of a package that also has sections gets its own title, so that no two
    // headings read the same (Sphinx warns about duplicate implicit targets).
    view.title = OneLine(record.section.empty() ? package->title + " (top level)" : package->title + "." + record.section);
    view.anchor = anchors->Make("s-", record.group.empty() ? record.package : record.group);
    package->sections.push_back(std::move(view));
    section = package->sections.end() - 1;
  }
  section->rows.push_back(std::move(row));
}

void FinishPercents(std::vector<PathCount>* counts) {
  for (PathCount& count : *counts) count.percent = FormatPercent(count.supported, count.probed);
}

void FinishPackages(ViewModel* vm) {
  FinishPercents(&vm->cards);
  for (PackageView& package : vm->packages) {
    FinishPercents(&package.summary.paths);
    package.titled_sections = package.sections.size() > 1 ||
                              (package.sections.size() == 1 && !package.sections.front().name.empty());
  }
}

// ---- filters and the Reasons section -------------------------------------------------------------

std::vector<SubVerdictCard> MakeSubCards(const ViewModel& vm, const Tally& tally) {
  std::vector<SubVerdictCard> out;
  for (std::size_t i = 0; i < vm.subverdicts.size(); ++i) {
    const Tally::SubCount& c = tally.sub_count(i);  // a sub-verdict that ran nowhere still has its card: 0 / 0
    SubVerdictCard card;
    card.sub = static_cast<int>(i);
    card.title = SubTitle(vm.subverdicts[i], vm.paths);
    card.count = c.count;
    card.count.percent = FormatPercent(c.count.supported, c.count.probed);
    card.differs = c.differs;
    out.push_back(std::move(card));
  }
  return out;
}

void AddSubVerdictFilters(const ViewModel& vm, const Tally& tally, std::vector<FilterOption>* out) {
  for (std::size_t i = 0; i < vm.subverdicts.size(); ++i) {
    const SubVerdictView& sub = vm.subverdicts[i];
    const Tally::SubCount& c = tally.sub_count(i);
    const PathView& path = vm.paths[sub.path];
    const std::string group = fmt::format("{}: other runtimes and opsets", path.title);
    const std::string title = SubTitle(sub, vm.paths);
    if (sub.opset) {
      out->push_back({sub.key + ":supported", title + ": supported", c.count.supported, group});
      out->push_back({sub.key + ":differs", fmt::format("{}: differs from the {} column", title, path.title), c.differs,
                      group});
    } else {
      out->push_back({sub.key + ":supported", fmt::format("{} runs in {}", path.title, sub.title), c.count.supported,
                      group});
      out->push_back({sub.key + ":failure", fmt::format("{} exports but fails in {}", path.title, sub.title), c.failures,
                      group});
      out->push_back({sub.key + ":differs", fmt::format("{} and the {} column disagree", sub.title, path.title),
                      c.differs, group});
    }
  }
}

std::vector<FilterOption> MakeFilters(const ViewModel& vm, const Tally& tally) {
  std::vector<FilterOption> out;
  out.push_back({"all", "All configurations", vm.configurations, ""});
  out.push_back({"failure", "Any failure", tally.any_failure(), ""});
  out.push_back({"breaks", "Graph breaks", tally.with_breaks(), ""});
  if (tally.with_caveat() > 0) {
    out.push_back({"caveat", "Dynamic shapes: static dimensions or recompiles", tally.with_caveat(), ""});
  }
  if (!vm.base_paths.empty()) {
    out.push_back({"base-ok", "Supported on " + vm.base_titles, vm.configurations_base_pass, ""});
  }
  out.push_back({"all-ok", "Supported on every path", vm.configurations_all_pass, ""});
  if (vm.has_checks) out.push_back({"not-fresh", "Not checked on fresh inputs", tally.fresh_unchecked(), ""});
  for (std::size_t p = 0; p < vm.paths.size(); ++p) {
    const PathView& path = vm.paths[p];
    out.push_back({path.id + ":supported", path.title + ": supported", vm.cards[p].supported, path.title});
    out.push_back({path.id + ":failure", path.title + ": any failure", tally.path_failures(p), path.title});
    for (Status status : kAllStatuses) {
      const auto it = tally.status_counts(p).find(status);
      if (it == tally.status_counts(p).end()) continue;
      // The cell's words, without the count or parentheses the option adds itself.
      const CellView cell = MakeCell(status, std::nullopt);
      const std::string words = status == Status::ok_breaks       ? "yes, graph breaks"
                                : status == Status::ok_unverified ? "yes, random"
                                : status == Status::ok_static     ? "yes, static dimensions"
                                : status == Status::ok_recompiles ? "yes, recompiles"
                                                                  : cell.label;
      const std::string label = fmt::format("{}: {} {}", path.title, cell.symbol, words);
      out.push_back({fmt::format("{}:{}", path.id, StatusToken(status)), label, it->second, path.title});
    }
    for (const FactSpec& fact : path.facts) {  // a flag's rows: the path runs and the flag is set
      if (fact.kind != FactKind::flag) continue;
      const std::string value = FlagFilterValue(path.id, fact.id);
      out.push_back({value, path.title + ": " + OneLine(fact.title), tally.flag_count(value), path.title});
    }
  }
  AddSubVerdictFilters(vm, tally, &out);
  return out;
}

std::vector<ReasonView> MakeReasons(const Snapshot& snapshot, const Tally& tally, const ReasonLinks& links) {
  std::vector<ReasonView> out;
  for (const auto& [id, rows] : tally.affected()) {
    const Reason& reason = snapshot.reasons.at(id);
    ReasonView view;
    view.id = OneLine(id);
    view.anchor = links.Anchor(id);
    view.title = OneLine(reason.title);
    view.cause = OneLine(reason.cause);
    view.hint = OneLine(reason.hint);
    view.component = OneLine(reason.component);
    view.operators = tally.operators_affected(id);
    view.affected = rows;
    out.push_back(std::move(view));
  }
  // Most widespread first; ties by id, so the order is stable.
  std::stable_sort(out.begin(), out.end(),
                   [](const ReasonView& a, const ReasonView& b) { return a.affected.size() > b.affected.size(); });
  return out;
}

}  // namespace

std::string JoinTitles(const std::vector<PathView>& paths) {
  std::string out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) out += i + 1 == paths.size() ? " and " : ", ";
    out += paths[i].title;
  }
  return out;
}

std::string AnchorSet::Make(std::string_view prefix, std::string_view name) {
  const std::string base = std::string(prefix) + Slug(name);
  std::string anchor = base;
  for (int n = 2; !used_.insert(anchor).second; ++n) anchor = fmt::format("{}-{}", base, n);
  return anchor;
}

std::string ReproCommand(std::string_view case_name, std::string_view path_id, std::string_view suite) {
  auto quote = [](std::string_view word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '/';
    });
    if (plain) return std::string(word);
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  };
  std::string command = "opsweep repro " + quote(case_name) + " --path " + quote(path_id);
  if (!suite.empty()) command += " --suite " + quote(suite);
  return command;
}

std::string_view StatusToken(Status status) {
  return status == Status::not_applicable ? std::string_view("na") : StatusId(status);
}

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
  return fmt::format("{} of its {} configurations {} n/a on every path", FormatCount(summary.na_everywhere),
                     FormatCount(summary.configurations), summary.na_everywhere == 1 ? "is" : "are");
}

CellView MakeCell(Status status, std::optional<int> graph_breaks) {
  CellView cell;
  cell.status = status;
  cell.token = std::string(StatusToken(status));
  const int breaks = graph_breaks.value_or(0);
  const std::string breaks_text = breaks == 1 ? "1 break" : fmt::format("{} breaks", breaks);
  switch (status) {
    case Status::ok:
      cell.symbol = "\u2713";
      cell.label = "yes";
      break;
    case Status::ok_breaks:
      cell.symbol = "\u2713";
      cell.label = graph_breaks ? "yes, " + breaks_text : "yes, graph breaks";
      break;
    case Status::ok_unverified:
      cell.symbol = "\u2713";
      cell.label = breaks > 0 ? "yes (random), " + breaks_text : "yes (random)";
      break;
    case Status::mismatch:
      cell.symbol = "\u2260";
      cell.label = "mismatch";
      break;
    case Status::fail:
      cell.symbol = "\u2717";
      cell.label = "no";
      break;
    case Status::not_applicable:
      cell.symbol = "\u2013";
      cell.label = "n/a";
      break;
    case Status::crash:
      cell.symbol = "\u26a0";
      cell.label = "crash";
      break;
    case Status::timeout:
      cell.symbol = "\u25f7";
      cell.label = "timeout";
      break;
    case Status::ok_static:
      cell.symbol = "\u2713";
      cell.label = "yes, static dims";
      break;
    case Status::ok_recompiles:
      cell.symbol = "\u2713";
      cell.label = "yes, recompiles";
      break;
  }
  return cell;
}

namespace {

// Distinct names in their first order, joined with ", ".
std::string JoinNames(const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  for (const auto& n : names) {
    if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
  }
  std::string out;
  for (const auto& n : seen) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string> NamesOfKind(const snapshot::DynamicInfo& d, std::initializer_list<std::string_view> kinds) {
  std::vector<std::string> out;
  for (const auto& dim : d.specialised) {
    if (std::find(kinds.begin(), kinds.end(), dim.kind) != kinds.end()) out.push_back(OneLine(dim.name));
  }
  return out;
}

std::string KindWords(const std::string& kind) {
  if (kind == "constant") return "static";
  if (kind == "range") return "limited";
  if (kind == "assert") return "fixed by a run-time assert";
  if (kind == "guard") return "fixed by a guard the program does not keep";
  return kind;
}

}  // namespace

CellView MakeCell(const snapshot::Outcome& outcome) {
  CellView cell = MakeCell(outcome.status, outcome.graph_breaks);
  if (!outcome.dynamic) return cell;
  const snapshot::DynamicInfo& d = *outcome.dynamic;
  if (outcome.status == Status::ok_static) {
    std::vector<std::string> parts;
    const std::string fixed = JoinNames(NamesOfKind(d, {"constant"}));
    const std::string limited = JoinNames(NamesOfKind(d, {"range"}));
    if (!fixed.empty()) parts.push_back("static in " + fixed);
    if (!limited.empty()) parts.push_back(limited + " limited");
    if (!parts.empty()) cell.label = "yes, " + JoinNames(parts);
  } else if (outcome.status == Status::ok_recompiles) {
    const std::string names = JoinNames(NamesOfKind(d, {"constant"}));
    if (!names.empty()) cell.label = "yes, recompiles per " + names;
  }
  return cell;
}

std::vector<std::string> DynamicFacts(const snapshot::Outcome& outcome) {
  std::vector<std::string> out;
  if (!outcome.dynamic || outcome.status == Status::ok || outcome.status == Status::not_applicable) return out;
  const snapshot::DynamicInfo& d = *outcome.dynamic;
  if (!d.shapes.empty()) {
    std::string shapes;
    for (std::size_t i = 0; i < d.shapes.size(); ++i) {
      if (i > 0) shapes += ", then ";
      shapes += d.shapes[i] + (static_cast<int>(i) == d.trace ? " (traced)" : "");
    }
    out.push_back("shapes: " + shapes);
  }
  for (const auto& dim : d.specialised) {
    out.push_back(dim.name + " " + KindWords(dim.kind) + (dim.why.empty() ? "" : ": " + dim.why));
  }
  std::string guards;
  for (std::size_t i = 0; i < d.guards.size() && i < 3; ++i) guards += (i > 0 ? "; " : "") + d.guards[i];
  if (d.recompiles) {
    out.push_back(fmt::format("{} recompile{}{}", *d.recompiles, *d.recompiles == 1 ? "" : "s",
                              guards.empty() ? "" : ": " + guards));
  } else if (d.specialised.empty() && !guards.empty() && IsFailure(outcome.status)) {
    // a capture that gave up: the guards it recorded first say where the library fixed a size
    out.push_back("guards recorded: " + guards);
  }
  return out;
}

ViewModel BuildViewModel(const Snapshot& snapshot, const RenderOptions& options) {
  ViewModel vm;
  MakeHeader(snapshot, &vm);
  vm.cards.resize(vm.paths.size());
  AnchorSet anchors;
  const ReasonLinks links(snapshot, &anchors);  // reason anchors first: they keep their plain slugs
  Tally tally(snapshot, vm.paths, vm.subverdicts);
  for (const Record& record : snapshot.records) {
    RowView row = MakeRow(record, vm.paths, vm.subverdicts, links, options, snapshot.library_name, &anchors);
    tally.Add(record, row, &vm);
    PlaceRow(record, std::move(row), &vm, &anchors);
  }
  tally.Finish(&vm);
  FinishPackages(&vm);
  vm.sub_cards = MakeSubCards(vm, tally);
  vm.filters = MakeFilters(vm, tally);
  vm.reasons = MakeReasons(snapshot, tally, links);
  return vm;
}

}  // namespace opsweep::render
