#include "render/diff_writer.h"

#include <algorithm>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "render/escape.h"
#include "snapshot/checks.h"
#include "render/view_model.h"

namespace opsweep::render {
namespace {

using diff::ChangeKind;
using diff::ChangeLine;
using diff::DiffReport;
using diff::KindSection;
using diff::ReasonGroup;
using diff::RecordLine;

std::string Id(Status s) { return std::string(StatusId(s)); }

// "ok -> fail", or "fail" when the status stayed.
std::string StatusText(const ChangeLine& line, std::string_view arrow, bool symbols) {
  auto one = [&](Status s) {
    return symbols ? MakeCell(s, std::nullopt).symbol + " " + Id(s) : Id(s);
  };
  const Status a = line.change->before.status, b = line.change->after.status;
  if (a == b) return one(b);
  return one(a) + std::string(arrow) + one(b);
}

// "ONNX, torch.export and torch.compile"; when a title has a comma of its own ("torch.export,
// dynamic shapes"), the titles are told apart by semicolons: "ONNX; torch.export, dynamic shapes;
// and ONNX, dynamic shapes".
std::string PathList(const std::vector<diff::PathLabel>& paths) {
  const bool commas =
      std::any_of(paths.begin(), paths.end(), [](const diff::PathLabel& p) { return p.title.find(',') != std::string::npos; });
  std::string out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) out += i + 1 == paths.size() ? (commas ? "; and " : " and ") : (commas ? "; " : ", ");
    out += paths[i].title;
  }
  return out;
}

std::string ComparedText(const DiffReport& r) {
  if (r.paths.empty()) return fmt::format("Compared {} cases on no common path.", FormatCount(r.compared_records));
  return fmt::format("Compared {} cases on {}.", FormatCount(r.compared_records), PathList(r.paths));
}

std::size_t Shown(const ReasonGroup& group, const DiffWriteOptions& options) {
  return options.limit > 0 ? std::min<std::size_t>(group.lines.size(), options.limit) : group.lines.size();
}

// ---- text --------------------------------------------------------------------------------------

void TextRecords(const char* title, const std::vector<RecordLine>& lines, const DiffWriteOptions& options,
                 std::string* out) {
  if (lines.empty()) return;
  *out += fmt::format("\n{}: {}\n", title, FormatCount(lines.size()));
  const std::size_t shown = options.limit > 0 ? std::min<std::size_t>(lines.size(), options.limit) : lines.size();
  for (std::size_t i = 0; i < shown; ++i) {
    *out += fmt::format("  {}: {}\n", OneLine(lines[i].record->name), OneLine(lines[i].text));
  }
  if (shown < lines.size()) *out += fmt::format("  ... and {} more\n", FormatCount(lines.size() - shown));
}

void TextPaths(const char* title, const std::vector<diff::PathLabel>& paths, std::string* out) {
  if (paths.empty()) return;
  // "; " between paths: a path's title has commas of its own ("torch.export, dynamic shapes")
  *out += fmt::format("\n{} (not compared): ", title);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    *out += fmt::format("{}{} ({})", i > 0 ? "; " : "", OneLine(paths[i].title), OneLine(paths[i].id));
  }
  *out += "\n";
}

// ---- markdown ----------------------------------------------------------------------------------

void MarkdownRecords(const char* title, const std::vector<RecordLine>& lines, const DiffWriteOptions& options,
                     std::string* out) {
  if (lines.empty()) return;
  *out += fmt::format("\n<details>\n<summary><b>{}</b>: {}</summary>\n\n", title, FormatCount(lines.size()));
  *out += "| case | outcomes |\n| --- | --- |\n";
  const std::size_t shown = options.limit > 0 ? std::min<std::size_t>(lines.size(), options.limit) : lines.size();
  for (std::size_t i = 0; i < shown; ++i) {
    *out += fmt::format("| {} | {} |\n", MarkdownCode(lines[i].record->name), MarkdownEscape(lines[i].text));
  }
  if (shown < lines.size()) *out += fmt::format("| ... and {} more | |\n", FormatCount(lines.size() - shown));
  *out += "\n</details>\n";
}

// ---- json --------------------------------------------------------------------------------------

nlohmann::json OutcomeJson(const snapshot::Outcome& o) {
  nlohmann::json breaks = nlohmann::json::array();
  for (const auto& gb : o.break_reasons) {
    breaks.push_back({{"reason", gb.reason}, {"text", gb.text}, {"location", gb.location}});
  }
  nlohmann::json checks = nlohmann::json::object();
  for (const auto& [id, check] : o.checks) checks[id] = snapshot::CheckText(check);
  nlohmann::json out = {{"status", Id(o.status)},
          {"step", o.step},
          {"checks", checks},
          {"notes", o.notes},
          {"reason", o.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.reason)},
          {"detail", o.detail},
          {"error", o.error},
          {"location", o.location},
          {"graph_breaks", o.graph_breaks ? nlohmann::json(*o.graph_breaks) : nlohmann::json(nullptr)},
          {"break_reasons", breaks},
          {"op_types", o.op_types}};
  if (!o.facts.empty()) out["facts"] = snapshot::FactsJson(o.facts);  // only paths with facts: others keep their bytes
  return out;
}

nlohmann::json SideJson(const diff::SideLabel& side) {
  return {{"library", side.library}, {"torch", side.torch}, {"date", side.date}};
}

nlohmann::json RecordsJson(const std::vector<RecordLine>& lines) {
  nlohmann::json out = nlohmann::json::array();
  for (const RecordLine& line : lines) {
    nlohmann::json paths = nlohmann::json::object();
    for (const auto& [id, outcome] : line.record->paths) {
      paths[id] = {{"status", Id(outcome.status)},
                   {"reason", outcome.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(outcome.reason)}};
    }
    out.push_back({{"case", line.record->name}, {"paths", paths}});
  }
  return out;
}

nlohmann::json PathsJson(const std::vector<diff::PathLabel>& paths) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : paths) out.push_back(p.id);
  return out;
}

}  // namespace

std::string WriteDiffText(const DiffReport& r, const DiffWriteOptions& options) {
  std::string out = fmt::format("opsweep diff: {}\n  old: {}\n  new: {}\n", OneLine(r.summary), OneLine(r.before.text),
                                OneLine(r.after.text));
  if (!r.header.empty()) {
    std::size_t width = 0;
    for (const auto& h : r.header) width = std::max(width, OneLine(h.field).size());
    out += "\nEnvironment changes:\n";
    for (const auto& h : r.header) {
      out += fmt::format("  {:<{}}  {} -> {}\n", OneLine(h.field), width, h.before.empty() ? "(none)" : OneLine(h.before),
                         h.after.empty() ? "(none)" : OneLine(h.after));
    }
  }
  out += "\n" + ComparedText(r) + "\n";
  for (const KindSection& section : r.sections) {
    out += fmt::format("\n{}: {} ({})\n", section.title, FormatCount(section.count), section.meaning);
    for (const ReasonGroup& group : section.groups) {
      out += group.reason.empty() ? fmt::format("  {}: {}\n", OneLine(group.title), FormatCount(group.lines.size()))
                                  : fmt::format("  {} [{}]: {}\n", OneLine(group.title), OneLine(group.reason),
                                                FormatCount(group.lines.size()));
      const std::size_t shown = Shown(group, options);
      std::size_t name_w = 0, path_w = 0, status_w = 0;
      for (std::size_t i = 0; i < shown; ++i) {
        const ChangeLine& line = group.lines[i];
        name_w = std::max(name_w, std::min<std::size_t>(OneLine(line.change->record).size(), 48));
        path_w = std::max(path_w, OneLine(line.path_title).size());
        status_w = std::max(status_w, StatusText(line, " -> ", false).size());
      }
      for (std::size_t i = 0; i < shown; ++i) {
        const ChangeLine& line = group.lines[i];
        std::string row = fmt::format("    {:<{}}  {:<{}}  {:<{}}", OneLine(line.change->record), name_w,
                                      OneLine(line.path_title), path_w, StatusText(line, " -> ", false), status_w);
        if (!line.text.empty()) row += "  " + OneLine(line.text);
        while (!row.empty() && row.back() == ' ') row.pop_back();
        out += row + "\n";
      }
      if (shown < group.lines.size()) out += fmt::format("    ... and {} more\n", FormatCount(group.lines.size() - shown));
    }
  }
  TextRecords("New cases", r.added_records, options, &out);
  TextRecords("Removed cases", r.removed_records, options, &out);
  TextPaths("New paths", r.added_paths, &out);
  TextPaths("Removed paths", r.removed_paths, &out);
  return out;
}

std::string WriteDiffMarkdown(const DiffReport& r, const DiffWriteOptions& options) {
  std::string out = fmt::format("### opsweep diff: {}\n\n", MarkdownEscape(r.summary));
  out += "| | old | new |\n| --- | --- | --- |\n";
  out += fmt::format("| snapshot | {} | {} |\n", MarkdownEscape(r.before.text), MarkdownEscape(r.after.text));
  for (const auto& h : r.header) {
    out += fmt::format("| {} | {} | {} |\n", MarkdownEscape(h.field), h.before.empty() ? "" : MarkdownCode(h.before),
                       h.after.empty() ? "" : MarkdownCode(h.after));
  }
  out += "\n" + MarkdownEscape(ComparedText(r)) + "\n";
  for (const KindSection& section : r.sections) {
    out += fmt::format("\n#### {}: {} ({})\n", section.title, FormatCount(section.count), section.meaning);
    for (const ReasonGroup& group : section.groups) {
      // <summary> is HTML: its text is HTML-escaped; the table below is Markdown.
      out += fmt::format("\n<details{}>\n<summary><b>{}</b>{}: {}</summary>\n\n",
                         section.kind == ChangeKind::regression ? " open" : "", HtmlEscape(OneLine(group.title)),
                         group.reason.empty() ? "" : " (<code>" + HtmlEscape(OneLine(group.reason)) + "</code>)",
                         FormatCount(group.lines.size()));
      out += "| case | path | status | what changed |\n| --- | --- | --- | --- |\n";
      const std::size_t shown = Shown(group, options);
      for (std::size_t i = 0; i < shown; ++i) {
        const ChangeLine& line = group.lines[i];
        out += fmt::format("| {} | {} | {} | {} |\n", MarkdownCode(line.change->record), MarkdownEscape(line.path_title),
                           MarkdownEscape(StatusText(line, " \u2192 ", true)), MarkdownEscape(line.text));
      }
      if (shown < group.lines.size()) {
        out += fmt::format("| ... and {} more | | | |\n", FormatCount(group.lines.size() - shown));
      }
      out += "\n</details>\n";
    }
  }
  MarkdownRecords("New cases", r.added_records, options, &out);
  MarkdownRecords("Removed cases", r.removed_records, options, &out);
  for (const auto* list : {&r.added_paths, &r.removed_paths}) {
    if (list->empty()) continue;
    out += fmt::format("\n{} (not compared): ", list == &r.added_paths ? "New paths" : "Removed paths");
    for (std::size_t i = 0; i < list->size(); ++i) {
      out += (i > 0 ? "; " : "") + MarkdownEscape((*list)[i].title) + " (" + MarkdownCode((*list)[i].id) + ")";
    }
    out += "\n";
  }
  return out;
}

std::string WriteDiffJson(const DiffReport& r) {
  nlohmann::json changes = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::object();
  for (ChangeKind kind : diff::kAllChangeKinds) counts[std::string(diff::ChangeKindId(kind))] = 0;
  for (const KindSection& section : r.sections) {
    counts[std::string(diff::ChangeKindId(section.kind))] = section.count;
    for (const ReasonGroup& group : section.groups) {
      for (const ChangeLine& line : group.lines) {
        const diff::OutcomeChange& c = *line.change;
        changes.push_back({{"kind", std::string(diff::ChangeKindId(c.kind))},
                           {"case", c.record},
                           {"path", c.path},
                           {"group", group.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(group.reason)},
                           {"fields", c.fields},
                           {"text", line.text},
                           {"old", OutcomeJson(c.before)},
                           {"new", OutcomeJson(c.after)}});
      }
    }
  }
  counts["new_cases"] = r.added_records.size();
  counts["removed_cases"] = r.removed_records.size();
  nlohmann::json header = nlohmann::json::array();
  for (const auto& h : r.header) header.push_back({{"field", h.field}, {"old", h.before}, {"new", h.after}});
  const nlohmann::json doc = {
      {"format", "opsweep-diff"},
      {"schema", 1},
      {"summary", r.summary},
      {"old", SideJson(r.before)},
      {"new", SideJson(r.after)},
      {"environment", header},
      {"compared_cases", r.compared_records},
      {"paths", {{"compared", PathsJson(r.paths)}, {"new", PathsJson(r.added_paths)}, {"removed", PathsJson(r.removed_paths)}}},
      {"counts", counts},
      {"changes", changes},
      {"new_cases", RecordsJson(r.added_records)},
      {"removed_cases", RecordsJson(r.removed_records)},
      {"regression", r.regression},
      {"change", r.change},
  };
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace opsweep::render
