#include "render/rst_writer.h"

#include <fmt/core.h>

#include "render/css_scope.h"
#include "render/escape.h"
#include "render/page_controls.h"
#include "render/text_cells.h"

namespace opsweep::render {
namespace {

bool IsDottedName(std::string_view name) {
  if (name.empty()) return false;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                    ch == '_' || ch == '.';
    if (!ok) return false;
  }
  return true;
}

// A list-table, written cell by cell: each cell is one line of inline text or a nested list.
class ListTable {
 public:
  ListTable(std::string* out, std::string_view caption, int header_rows, std::string_view widths,
            std::string_view css_class = "")
      : out_(out) {
    *out_ += caption.empty() ? ".. list-table::\n" : fmt::format(".. list-table:: {}\n", caption);
    if (header_rows > 0) *out_ += fmt::format("   :header-rows: {}\n", header_rows);
    if (!widths.empty()) *out_ += fmt::format("   :widths: {}\n", widths);
    if (!css_class.empty()) *out_ += fmt::format("   :class: {}\n", css_class);
    *out_ += "\n";
  }
  ~ListTable() { *out_ += "\n"; }

  void Row() { first_ = true; }
  void Cell(std::string_view text) {
    *out_ += first_ ? "   * -" : "     -";
    first_ = false;
    if (!text.empty()) *out_ += fmt::format(" {}", text);
    *out_ += "\n";
  }
  // A cell holding a bullet list (one item per entry); empty entries make an empty cell.
  void ListCell(const std::vector<std::string>& items) {
    if (items.empty()) return Cell("");
    *out_ += first_ ? "   * -" : "     -";
    first_ = false;
    for (std::size_t i = 0; i < items.size(); ++i) {
      *out_ += i == 0 ? " - " : "       - ";
      *out_ += items[i] + "\n";
    }
  }

 private:
  std::string* out_;
  bool first_ = true;
};

void Title(std::string* out, std::string_view text, char underline) {
  *out += fmt::format("{}\n{}\n\n", text, std::string(std::max<std::size_t>(text.size(), 4), underline));
}

std::string Label(std::string_view anchor) { return "opsweep-" + std::string(anchor); }

// HTML inline in a table cell, through the page's raw role (dropped by builders other than HTML).
// Raw role text cannot hold a backquote, a backslash would be read as an escape, and a line break
// would end the table's line: all are written as character references.
std::string RawHtml(std::string_view html) {
  std::string safe;
  for (char c : html) {
    if (c == '`') safe += "&#96;";
    else if (c == '\\') safe += "&#92;";
    else if (c == '\n') safe += "&#10;";
    else if (c == '\r') safe += "&#13;";
    else if (c == '\t') safe += "&#9;";
    else safe += c;
  }
  return ":opsweep-html:`" + safe + "`";
}

// A block of HTML through the raw directive, every line indented as its content.
std::string RawBlock(std::string_view html) {
  std::string out = ".. raw:: html\n\n";
  size_t start = 0;
  while (start < html.size()) {
    size_t nl = html.find('\n', start);
    if (nl == std::string_view::npos) nl = html.size();
    std::string_view line = html.substr(start, nl - start);
    if (!line.empty()) out += "   " + std::string(line);
    out += "\n";
    start = nl + 1;
  }
  return out + "\n";
}

// The empty marker by which the page's script knows a package (its section: shown while one of
// its rows is) or a box (a section holding one table: counted and folded away at 0 rows).
std::string SectionMarker(std::string_view kind) {
  return RawBlock(fmt::format("<span class=\"opsweep-{}\" hidden></span>", kind));
}

// The row's permalink, carrying the row's data for the page's script (a reStructuredText table
// row cannot carry attributes itself; the script moves them onto the row).
std::string RowMarker(const ViewModel& vm, const RowView& row) {
  return RawHtml(fmt::format("<a class=\"perma opsweep-row\" id=\"{0}\" href=\"#{0}\" aria-label=\"Link to {1}\"{2}>#</a>",
                             HtmlEscape(row.anchor), HtmlEscape(row.name), RowDataAttributes(vm, row))) +
         "\\ ";
}

std::string OperatorCell(const ViewModel& vm, const RowView& row) {
  std::string cell = RowMarker(vm, row);
  if (!row.api.empty() && IsDottedName(row.api) && IsDottedName(row.operator_name)) {
    cell += fmt::format(":py:obj:`{} <{}>`", row.operator_name, row.api);
  } else {
    cell += RstLiteral(row.operator_name);
  }
  if (!row.variant.empty()) cell += " [" + RstEscape(row.variant) + "]";
  if (!row.note.empty()) cell += " \\- " + RstEscape(row.note);
  return cell;
}

std::string DetailItem(const DetailLine& line) {
  std::string item = fmt::format("**{}:** {}", RstEscape(line.paths_label), RstEscape(line.text));
  if (!line.break_reasons.empty()) {
    std::string breaks;
    for (const BreakReasonView& reason : line.break_reasons) {
      if (!breaks.empty()) breaks += "; ";
      breaks += RstEscape(reason.text);
      if (!reason.location.empty()) breaks += " " + RstLiteral(reason.location);
    }
    item += " (" + breaks + ")";
  }
  if (!line.location.empty()) item += " " + RstLiteral(line.location);
  if (line.reason) item += fmt::format(" (:ref:`{}`)", Label(line.reason->anchor));
  for (const std::string& fact : line.facts) item += "; " + RstEscape(fact);
  for (std::size_t i = 0; i < line.repro.size(); ++i)
    item += (i == 0 ? " \u2014 reproduce: " : ", ") + RstLiteral(line.repro[i]);
  return item;
}

// A check or a note: a line in italics under the row's details.
std::string AnnotationItem(const AnnotationLine& line) {
  return fmt::format("*{}:* {}", RstEscape(line.paths_label), RstEscape(line.text));
}

// Every line of a row's details: what the paths said, what their sub-verdicts said, then checks and notes.
std::vector<std::string> DetailItems(const RowView& row) {
  std::vector<std::string> items;
  for (const DetailLine& line : row.details) items.push_back(DetailItem(line));
  for (const DetailLine& line : row.sub_details) items.push_back(DetailItem(line));
  for (const AnnotationLine& line : row.annotations) items.push_back(AnnotationItem(line));
  return items;
}

// A status cell of an operator table: its text through the status's role, which the HTML builders
// write as the page's status pill (a span of classes "pill st-<token>") and others as plain text;
// the history, when there is one, after it.
std::string StatusCell(const CellView& cell, const PathHistory* h) {
  return fmt::format(":opsweep-{}:`{}`", cell.token, CellText(cell, RstEscape)) + HistoryStripText(h, RstEscape);
}

class RstPage {
 public:
  explicit RstPage(const ViewModel& vm) : vm_(vm) {}

  std::string Write() {
    out_ += fmt::format(
        ".. This file is generated by `opsweep render` from the snapshot of {}.\n"
        "   Do not edit it: refresh the snapshot (opsweep run, opsweep merge) and render again.\n\n",
        OneLine(vm_.generated));
    // Raw HTML for the rows' data (their permalinks), and one role per status for the pills.
    out_ += ".. role:: opsweep-html(raw)\n   :format: html\n\n";
    for (Status status : kAllStatuses) {
      const std::string_view token = StatusToken(status);
      out_ += fmt::format(".. role:: opsweep-{0}\n   :class: pill st-{0}\n\n", token);
    }
    out_ += ".. _opsweep-export-support:\n\n";
    Title(&out_, RstEscape(vm_.title), '=');
    out_ += RstEscape(vm_.lede) + "\n\n";
    Controls();
    Cards();
    Environment();
    Releases();
    Legend();
    Summary();
    for (const PackageView& package : vm_.packages) Package(package);
    NotApplicable();
    Changes();
    Reasons();
    Script();
    while (out_.size() > 1 && out_[out_.size() - 2] == '\n') out_.pop_back();
    return std::move(out_);
  }

 private:
  // The search bar of the HTML page (search box, filter, count), with the page's styles scoped to
  // its own parts (css_scope.h) and those of an embedded page; the script comes last (Script).
  void Controls() {
    const std::string_view* css = PageAsset("page.css");
    const std::string_view* embedded = PageAsset("embedded.css");
    std::string html = "<style>\n" + (css ? ScopeCssForEmbedding(*css) : std::string()) +
                       (embedded ? std::string(*embedded) : std::string()) + "</style>\n";
    html += "<div class=\"opsweep-page no-js\">\n<div class=\"bar\"><div class=\"bar-in\">\n";
    html += ControlsHtml(vm_);
    html += "</div></div>\n<p id=\"no-match\" class=\"empty\" hidden>No configuration matches the search and the "
            "filter.</p>\n</div>\n";
    out_ += RawBlock(html);
  }

  void Script() {
    const std::string_view* js = PageAsset("page.js");
    out_ += RawBlock(ConfigScriptHtml(vm_) + "<script>\n" + (js ? std::string(*js) : std::string()) + "</script>\n");
  }

  void Cards() {
    {
      ListTable table(&out_, "Supported per path", 1, "");
      table.Row();
      for (const char* head : {"Path", "Supported", "Probed", "Share", "What is probed"}) table.Cell(head);
      for (std::size_t p = 0; p < vm_.paths.size(); ++p) {
        const PathCount& card = vm_.cards[p];
        table.Row();
        table.Cell(RstEscape(vm_.paths[p].title));
        table.Cell(FormatCount(card.supported));
        table.Cell(FormatCount(card.probed));
        table.Cell(RstEscape(card.percent));
        table.Cell(RstEscape(vm_.paths[p].description));
      }
    }
    if (!vm_.sub_cards.empty()) {
      // A runtime runs on files that exported and passed the checker: its "probed" is "exported".
      ListTable table(&out_, "Other runtimes and opsets", 1, "");
      table.Row();
      for (const char* head : {"Where", "Supported", "Exported / probed", "Share", "Differ"}) table.Cell(head);
      for (const SubVerdictCard& card : vm_.sub_cards) {
        table.Row();
        table.Cell(RstEscape(card.title));
        table.Cell(FormatCount(card.count.supported));
        table.Cell(FormatCount(card.count.probed));
        table.Cell(RstEscape(card.count.percent));
        table.Cell(FormatCount(card.differs));
      }
    }
    if (!vm_.base_paths.empty()) {
      out_ += fmt::format("- **{}** of {} configurations pass {}.\n", FormatCount(vm_.configurations_base_pass),
                          FormatCount(vm_.configurations), RstEscape(vm_.base_titles));
    }
    out_ += fmt::format("- **{}** of {} configurations pass every path.\n",
                        FormatCount(vm_.configurations_all_pass), FormatCount(vm_.configurations));
    out_ += fmt::format("- **{}** configurations probed, of **{}** distinct operators.\n",
                        FormatCount(vm_.configurations), FormatCount(vm_.operators));
    if (vm_.operators_onnx) {
      out_ += fmt::format(
          "- **{}** of {} operators export to ONNX in at least one configuration.\n",
          FormatCount(*vm_.operators_onnx), FormatCount(vm_.operators));
    }
    out_ += fmt::format(
        "- **{}** configurations are n/a on every path (:ref:`opsweep-na-everywhere`).\n\n",
        FormatCount(vm_.configurations_na_everywhere));
  }

  void Environment() {
    Title(&out_, "Environment", '-');
    ListTable table(&out_, "", 0, "30 70");
    for (const EnvironmentEntry& entry : vm_.environment) {
      table.Row();
      table.Cell(RstEscape(entry.label));
      table.Cell(RstLiteral(entry.value));
    }
  }

  void Releases() {
    if (!vm_.history) return;
    const HistoryView& h = *vm_.history;
    out_ += ".. _opsweep-releases:\n\n";
    Title(&out_, "Torch releases", '-');
    out_ += fmt::format(
        "The tables show {}. Where a cell's history is not one status throughout, it adds a strip (the {}) and "
        "a mark where support changed; every change between releases is listed in :ref:`opsweep-changes`.\n\n",
        RstEscape(h.releases[h.current].label), RstEscape(h.strip_legend));
    ListTable table(&out_, "", 1, "");
    table.Row();
    for (const char* head : {"Release", "Measured", "Library"}) table.Cell(head);
    for (const PathView& path : vm_.paths) table.Cell(RstEscape(path.title));
    table.Cell("Environment");
    for (const ReleaseView& release : h.releases) {
      table.Row();
      table.Cell(RstEscape(release.label) + (release.current ? " (shown)" : ""));
      table.Cell(RstEscape(release.date));
      table.Cell(RstEscape(release.library));
      for (std::size_t p = 0; p < release.counts.size(); ++p) {
        const PathCount& c = release.counts[p];
        table.Cell(release.has_path[p] ? fmt::format("{} / {} ({})", FormatCount(c.supported), FormatCount(c.probed),
                                                     RstEscape(c.percent))
                                       : "not surveyed");
      }
      std::string environment;
      for (const EnvironmentEntry& e : release.environment) {
        environment += (environment.empty() ? "" : ", ") + RstEscape(e.label) + " " + RstLiteral(e.value);
      }
      table.Cell(environment);
    }
  }

  void Changes() {
    if (!vm_.history) return;
    out_ += ".. _opsweep-changes:\n\n";
    Title(&out_, "Changes between torch releases", '-');
    for (const ReleaseChangesView& change : vm_.history->changes) {
      out_ += fmt::format(".. _{}:\n\n", Label(change.anchor));
      Title(&out_, RstEscape(change.from) + " \u2192 " + RstEscape(change.to) + ": " + RstEscape(change.summary), '~');
      if (!change.environment.empty()) {
        std::string env;
        for (const HeaderChangeView& e : change.environment) {
          env += (env.empty() ? "" : "; ") + RstEscape(e.field) + " " +
                 (e.before.empty() ? "(none)" : RstLiteral(e.before)) + " \u2192 " +
                 (e.after.empty() ? "(none)" : RstLiteral(e.after));
        }
        out_ += "Environment: " + env + "\n\n";
      }
      for (const HistorySection& section : change.sections) {
        out_ += fmt::format("**{}** ({}, {}):\n\n", RstEscape(section.title), FormatCount(section.count),
                            RstEscape(section.meaning));
        for (const HistoryGroup& group : section.groups) {
          const std::string title = group.anchor.empty()
                                        ? RstEscape(group.title)
                                        : fmt::format("{} (:ref:`{}`)", RstEscape(group.title), Label(group.anchor));
          out_ += fmt::format("- {}: {}\n\n", title, FormatCount(group.lines.size()));
          for (const HistoryLine& line : group.lines) {
            out_ += fmt::format("  - {} {}: {}{}\n", RstLiteral(line.name), RstEscape(line.path_title),
                                StatusChangeText(line, RstEscape),
                                line.text.empty() ? "" : " \u2014 " + RstEscape(line.text));
          }
          out_ += "\n";
        }
      }
      for (const auto& [title, lines] : {std::pair{"New cases", &change.added}, {"Removed cases", &change.removed}}) {
        if (lines->empty()) continue;
        out_ += fmt::format("**{}** ({}):\n\n", title, FormatCount(lines->size()));
        for (const HistoryRecordLine& line : *lines) {
          out_ += fmt::format("- {}: {}\n", RstLiteral(line.name), RstEscape(line.text));
        }
        out_ += "\n";
      }
      for (const auto& [title, list] : {std::pair{"New paths", &change.added_paths}, {"Removed paths", &change.removed_paths}}) {
        if (list->empty()) continue;
        std::string names;
        for (const std::string& p : *list) names += (names.empty() ? "" : "; ") + RstEscape(p);  // titles have commas
        out_ += fmt::format("**{}** (not compared): {}\n\n", title, names);
      }
    }
  }

  void Legend() {
    Title(&out_, "Legend", '-');
    LegendTable();
    for (const std::string& note : vm_.legend_notes) out_ += RstEscape(note) + "\n\n";
  }

  void LegendTable() {
    ListTable table(&out_, "", 1, "25 75");
    table.Row();
    table.Cell("Cell");
    table.Cell("Meaning");
    for (const LegendEntry& entry : vm_.legend) {
      table.Row();
      const std::string label =
          entry.cell.status == Status::ok_breaks ? "yes, N breaks" : entry.cell.label;
      table.Cell(entry.cell.symbol + " " + RstEscape(label));
      table.Cell(RstEscape(entry.meaning));
    }
    if (!vm_.marks_legend.empty()) {
      table.Row();
      table.Cell("Marks");
      std::vector<std::string> items;
      for (const std::string& line : vm_.marks_legend) items.push_back(RstEscape(line));
      table.ListCell(items);
    }
  }

  void Summary() {
    Title(&out_, "Packages", '-');
    ListTable table(&out_, "", 1, "");
    table.Row();
    table.Cell("Package");
    table.Cell("Configurations");
    for (const PathView& path : vm_.paths) table.Cell(RstEscape(path.title));
    table.Cell("Every path");
    table.Cell("n/a everywhere");
    for (const PackageView& package : vm_.packages) {
      const PackageSummary& s = package.summary;
      table.Row();
      table.Cell(fmt::format(":ref:`{}`", Label(package.anchor)));
      table.Cell(FormatCount(s.configurations));
      for (const PathCount& count : s.paths) {
        table.Cell(fmt::format("{} / {} ({})", FormatCount(count.supported),
                               FormatCount(count.probed), RstEscape(count.percent)));
      }
      table.Cell(FormatCount(s.all_pass));
      table.Cell(FormatCount(s.na_everywhere));
    }
  }

  void OperatorTable(const std::vector<RowView>& rows) {
    const std::size_t columns = vm_.paths.size();
    std::string widths = "25";
    for (std::size_t p = 0; p < columns; ++p) widths += " 12";
    widths += fmt::format(" {}", std::max<int>(20, 75 - 12 * static_cast<int>(columns)));
    ListTable table(&out_, "", 1, widths, "opsweep");
    table.Row();
    table.Cell("Operator");
    for (const PathView& path : vm_.paths) table.Cell(RstEscape(path.title));
    table.Cell("Details");
    for (const RowView& row : rows) {
      table.Row();
      table.Cell(OperatorCell(vm_, row));
      for (std::size_t p = 0; p < row.cells.size(); ++p) {
        table.Cell(StatusCell(row.cells[p], p < row.history.size() ? &row.history[p] : nullptr));
      }
      table.ListCell(DetailItems(row));
    }
  }

  void Package(const PackageView& package) {
    out_ += fmt::format(".. _{}:\n\n", Label(package.anchor));
    Title(&out_, RstEscape(package.title), '-');
    out_ += SectionMarker("group");
    if (!package.titled_sections) out_ += SectionMarker("box");
    if (package.summary.na_everywhere > 0) {
      out_ += NaNote(package.summary) + " (:ref:`opsweep-na-everywhere`).\n\n";
    }
    for (const SectionView& section : package.sections) {
      if (package.titled_sections) {
        out_ += fmt::format(".. _{}:\n\n", Label(section.anchor));
        Title(&out_, RstEscape(section.title), '~');
        out_ += SectionMarker("box");
      }
      OperatorTable(section.rows);
    }
  }

  void NotApplicable() {
    out_ += ".. _opsweep-na-everywhere:\n\n";
    Title(&out_, "n/a on every path", '-');
    out_ += SectionMarker("box");
    out_ +=
        "No path could probe these configurations: the operator gives no tensor output, does not "
        "run eagerly with the probed inputs, or the case is skipped.\n\n";
    if (vm_.na_rows.empty()) {
      out_ += "None.\n\n";
      return;
    }
    ListTable table(&out_, "", 1, "30 20 50", "opsweep");
    table.Row();
    table.Cell("Operator");
    table.Cell("Package");
    table.Cell("Why");
    for (const RowView& row : vm_.na_rows) {
      table.Row();
      table.Cell(OperatorCell(vm_, row));
      table.Cell(RstLiteral(row.group));
      table.ListCell(DetailItems(row));
    }
  }

  void Reasons() {
    out_ += ".. _opsweep-reasons:\n\n";
    Title(&out_, "Reasons", '-');
    out_ += fmt::format("{} reasons explain the failures above, most widespread first.",
                        FormatCount(vm_.reasons.size()));
    if (vm_.unclassified > 0) {
      out_ += fmt::format(" {} errors matched no rule; they show their own first line.",
                          FormatCount(vm_.unclassified));
    }
    out_ += "\n\n";
    for (const ReasonView& reason : vm_.reasons) {
      out_ += fmt::format(".. _{}:\n\n", Label(reason.anchor));
      Title(&out_, RstLiteral(reason.id) + ": " + RstEscape(reason.title), '~');
      if (!reason.cause.empty()) out_ += ":Cause: " + RstEscape(reason.cause) + "\n";
      if (!reason.hint.empty()) out_ += ":What to do: " + RstEscape(reason.hint) + "\n";
      if (!reason.component.empty()) {
        out_ += ":Who can fix it: " + RstLiteral(reason.component) + "\n";
      }
      // One configuration a line, continuing the field's paragraph: on one line, a reason that
      // affects hundreds of configurations exceeds docutils' line-length limit (10,000
      // characters), and docutils then drops the line with an error (Sphinx too).
      std::string affected;
      for (const AffectedRow& row : reason.affected) {
        if (!affected.empty()) affected += ",";
        affected += "\n   " + RstLiteral(row.name) + " (" + RstEscape(row.paths_label) + ")";
      }
      out_ += fmt::format(":Affects: {} configuration{} of {} operator{}:{}\n\n",
                          FormatCount(reason.affected.size()),
                          reason.affected.size() == 1 ? "" : "s", FormatCount(reason.operators),
                          reason.operators == 1 ? "" : "s", affected);
    }
  }

  const ViewModel& vm_;
  std::string out_;
};

}  // namespace

std::string WriteRst(const ViewModel& vm) { return RstPage(vm).Write(); }

}  // namespace opsweep::render
