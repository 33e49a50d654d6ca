#include "render/html_writer.h"

#include <algorithm>

#include <iterator>

#include <fmt/core.h>

#include "render/escape.h"
#include "render/page_controls.h"

namespace opsweep::render {
namespace {

std::string E(std::string_view text) { return HtmlEscape(text); }

class Page {
 public:
  explicit Page(const ViewModel& vm) : vm_(vm) { out_.reserve(64 * 1024 + 1200 * CountRows()); }

  std::string Take() { return std::move(out_); }

  void Head(std::string_view css, std::string_view page_script) { out_ += PageHead(vm_.title, css, page_script); }

  void Bar() {
    out_ += "<body>\n<a class=\"skip\" href=\"#packages\">Skip to the tables</a>\n";
    out_ += "<header class=\"bar\">\n<div class=\"bar-in\">\n";
    out_ += fmt::format("<a class=\"brand\" href=\"#top\">{} {} <span>export support</span></a>\n",
                        E(vm_.library_name), E(vm_.library_version));
    out_ += ControlsHtml(vm_);
    out_ += "</div>\n</header>\n";
  }

  void Overview() {
    out_ += "<main id=\"top\">\n<h1>" + E(vm_.title) + "</h1>\n";
    out_ += "<p class=\"lede\">" + E(vm_.lede) + "</p>\n";
    out_ += "<section class=\"cards\" aria-label=\"Supported per path\">\n";
    for (std::size_t p = 0; p < vm_.paths.size(); ++p) {
      const PathCount& card = vm_.cards[p];
      const int width = card.probed > 0 ? (1000 * card.supported / card.probed) : 0;
      out_ += "<div class=\"card\">\n<h2>" + E(vm_.paths[p].title) + "</h2>\n";
      out_ += fmt::format("<p class=\"big\">{} <small>/ {} probed</small></p>\n",
                          FormatCount(card.supported), FormatCount(card.probed));
      out_ += fmt::format("<p class=\"pct\">{} supported</p>\n", E(card.percent));
      out_ += fmt::format("<div class=\"meter\" aria-hidden=\"true\"><i style=\"width:{}.{}%\"></i></div>\n",
                          width / 10, width % 10);
      if (!vm_.paths[p].description.empty()) {
        out_ += "<p class=\"desc\">" + E(vm_.paths[p].description) + "</p>\n";
      }
      out_ += "</div>\n";
    }
    out_ += "</section>\n";
    SubVerdictCards();
    out_ += "<ul class=\"facts\">\n";
    if (!vm_.base_paths.empty()) {
      out_ += fmt::format("<li><b>{}</b><span>of {} configurations pass {}</span></li>\n",
                          FormatCount(vm_.configurations_base_pass), FormatCount(vm_.configurations), E(vm_.base_titles));
    }
    out_ += fmt::format("<li><b>{}</b><span>of {} configurations pass every path</span></li>\n",
                        FormatCount(vm_.configurations_all_pass), FormatCount(vm_.configurations));
    out_ += fmt::format(
        "<li><b>{}</b><span>configurations probed, of {} distinct operators</span></li>\n",
        FormatCount(vm_.configurations), FormatCount(vm_.operators));
    if (vm_.operators_onnx) {
      out_ += fmt::format(
          "<li><b>{}</b><span>of {} operators export to ONNX in at least one "
          "configuration</span></li>\n",
          FormatCount(*vm_.operators_onnx), FormatCount(vm_.operators));
    }
    out_ += fmt::format(
        "<li><b>{}</b><span>configurations are n/a on every path (<a href=\"#na-everywhere\">listed "
        "below</a>)</span></li>\n",
        FormatCount(vm_.configurations_na_everywhere));
    out_ += "</ul>\n";

    out_ += "<section id=\"environment\">\n<h2>Environment</h2>\n<dl class=\"env\">\n";
    for (const EnvironmentEntry& entry : vm_.environment) {
      out_ += "<div><dt>" + E(entry.label) + "</dt><dd>" + E(entry.value) + "</dd></div>\n";
    }
    out_ += "</dl>\n</section>\n";

    out_ += "<section id=\"legend\">\n<h2>Legend</h2>\n<ul class=\"legend\">\n";
    for (const LegendEntry& entry : vm_.legend) {
      const std::string label = entry.cell.status == Status::ok_breaks ? "yes, N breaks"
                                                                        : entry.cell.label;
      out_ += fmt::format(
          "<li><span class=\"c st-{}\"><b aria-hidden=\"true\">{}</b>{}</span><span "
          "class=\"m\">{}</span></li>\n",
          entry.cell.token, entry.cell.symbol, E(label), E(entry.meaning));
    }
    out_ += "</ul>\n";
    for (const std::string& note : vm_.legend_notes) out_ += "<p class=\"grp\">" + E(note) + "</p>\n";
    if (!vm_.marks_legend.empty()) {
      out_ += "<p class=\"grp\">Marks beside a cell are the same operator in other runtimes and opsets:</p>\n"
              "<ul class=\"legend marks-legend\">\n";
      for (const std::string& line : vm_.marks_legend) out_ += "<li>" + E(line) + "</li>\n";
      out_ += "</ul>\n";
    }
    out_ += "</section>\n";
  }

  // A card per sub-verdict: supported of the records it ran on (a runtime runs on exported files).
  void SubVerdictCards() {
    if (vm_.sub_cards.empty()) return;
    out_ += "<section class=\"cards subs\" aria-label=\"Other runtimes and opsets\">\n";
    for (const SubVerdictCard& card : vm_.sub_cards) {
      const SubVerdictView& sub = vm_.subverdicts[card.sub];
      const PathCount& count = card.count;
      const int width = count.probed > 0 ? (1000 * count.supported / count.probed) : 0;
      out_ += fmt::format("<div class=\"card\" data-sub=\"{}\">\n<h2>{}</h2>\n", E(sub.key), E(card.title));
      out_ += fmt::format("<p class=\"big\">{} <small>/ {} {}</small></p>\n", FormatCount(count.supported),
                          FormatCount(count.probed), sub.opset ? "probed" : "exported");
      out_ += fmt::format("<p class=\"pct\">{} supported</p>\n", E(count.percent));
      out_ += fmt::format("<div class=\"meter\" aria-hidden=\"true\"><i style=\"width:{}.{}%\"></i></div>\n",
                          width / 10, width % 10);
      out_ += fmt::format("<p class=\"desc\">{} {} from the {} column.{}</p>\n", FormatCount(card.differs),
                          card.differs == 1 ? "differs" : "differ", E(vm_.paths[sub.path].title),
                          sub.description.empty() ? "" : " " + E(sub.description) + ".");
      out_ += "</div>\n";
    }
    out_ += "</section>\n";
  }

  void Releases() {
    if (!vm_.history) return;
    const HistoryView& h = *vm_.history;
    out_ += "<section id=\"releases\">\n<h2>Torch releases</h2>\n";
    out_ += fmt::format(
        "<p class=\"grp\">The same cases under {} torch releases. The tables below show {}; each of their cells "
        "carries a strip with the status under every release, oldest first, and a mark where support changed. "
        "<a href=\"#changes\">Every change between releases</a> is listed below.</p>\n",
        h.releases.size(), E(h.releases[h.current].label));
    out_ += "<div class=\"tw ts\">\n<table class=\"summary releases\">\n<thead><tr><th scope=\"col\">Release</th>"
            "<th scope=\"col\">Measured</th><th scope=\"col\">Library</th>";
    for (const PathView& path : vm_.paths) out_ += "<th scope=\"col\">" + E(path.title) + "</th>";
    out_ += "<th scope=\"col\">Environment</th></tr></thead>\n<tbody>\n";
    for (const ReleaseView& release : h.releases) {
      out_ += fmt::format("<tr{}><th scope=\"row\"><code>{}</code>{}</th><td>{}</td><td>{}</td>",
                          release.current ? " class=\"cur\"" : "", E(release.label),
                          release.current ? " <small>(shown)</small>" : "", E(release.date), E(release.library));
      for (std::size_t p = 0; p < release.counts.size(); ++p) {
        const PathCount& count = release.counts[p];
        if (!release.has_path[p]) {
          out_ += "<td><small>not surveyed</small></td>";
        } else {
          out_ += fmt::format("<td>{} / {}<small>{}</small></td>", FormatCount(count.supported),
                              FormatCount(count.probed), E(count.percent));
        }
      }
      out_ += "<td class=\"renv\">";
      for (std::size_t i = 0; i < release.environment.size(); ++i) {
        out_ += fmt::format("{}{} <code>{}</code>", i > 0 ? ", " : "", E(release.environment[i].label),
                            E(release.environment[i].value));
      }
      out_ += "</td></tr>\n";
    }
    out_ += "</tbody>\n</table>\n</div>\n</section>\n";
  }

  void Changes() {
    if (!vm_.history) return;
    out_ += "<section id=\"changes\">\n<h2>Changes between torch releases</h2>\n";
    for (const ReleaseChangesView& change : vm_.history->changes) {
      out_ += fmt::format("<article class=\"reason chg\" id=\"{0}\">\n<h3><a class=\"perma\" href=\"#{0}\" "
                          "aria-label=\"Link to these changes\">#</a>{1} \u2192 {2}<span class=\"cnt\">{3}</span></h3>\n",
                          E(change.anchor), E(change.from), E(change.to), E(change.summary));
      if (!change.environment.empty()) {
        out_ += "<p class=\"grp\">Environment: ";
        for (std::size_t i = 0; i < change.environment.size(); ++i) {
          const HeaderChangeView& e = change.environment[i];
          out_ += fmt::format("{}{} <code>{}</code> \u2192 <code>{}</code>", i > 0 ? "; " : "", E(e.field),
                              E(e.before.empty() ? "(none)" : e.before), E(e.after.empty() ? "(none)" : e.after));
        }
        out_ += "</p>\n";
      }
      for (const HistorySection& section : change.sections) {
        out_ += fmt::format("<h4 class=\"k-{}\">{} <span class=\"cnt\">{} ({})</span></h4>\n", E(section.kind),
                            E(section.title), FormatCount(section.count), E(section.meaning));
        for (const HistoryGroup& group : section.groups) {
          out_ += fmt::format("<details{}><summary>", group.lines.size() <= 12 ? " open" : "");
          if (!group.anchor.empty()) {
            out_ += fmt::format("<a href=\"#{}\">{}</a>", E(group.anchor), E(group.title));
          } else {
            out_ += E(group.title);
          }
          if (!group.reason.empty()) out_ += " <code>" + E(group.reason) + "</code>";
          out_ += fmt::format(": {}</summary>\n<ul class=\"chl\">\n", FormatCount(group.lines.size()));
          for (const HistoryLine& line : group.lines) {
            out_ += "<li>" + NameLink(line.name, line.anchor);
            out_ += fmt::format(" <span class=\"p\">{}</span> ", E(line.path_title));
            if (line.before.status != line.after.status) {
              out_ += fmt::format("<span class=\"c st-{}\"><span>{}</span></span> \u2192 ", line.before.token,
                                  E(line.before.symbol + " " + line.before.label));
            }
            out_ += fmt::format("<span class=\"c st-{}\"><span>{}</span></span>", line.after.token,
                                E(line.after.symbol + " " + line.after.label));
            if (!line.text.empty()) out_ += " <span class=\"t\">" + E(line.text) + "</span>";
            out_ += "</li>\n";
          }
          out_ += "</ul>\n</details>\n";
        }
      }
      RecordList("New cases", change.added);
      RecordList("Removed cases", change.removed);
      for (const auto* list : {&change.added_paths, &change.removed_paths}) {
        if (list->empty()) continue;
        out_ += fmt::format("<p class=\"grp\">{} (not compared): ", list == &change.added_paths ? "New paths" : "Removed paths");
        for (std::size_t i = 0; i < list->size(); ++i) out_ += (i > 0 ? "; " : "") + E((*list)[i]);  // titles have commas
        out_ += "</p>\n";
      }
      out_ += "</article>\n";
    }
    out_ += "</section>\n";
  }

  void Summary() {
    out_ += "<section id=\"packages\">\n<h2>Packages</h2>\n<div class=\"tw ts\">\n<table class=\"summary\">\n";
    out_ += "<thead><tr><th scope=\"col\">Package</th><th scope=\"col\">Configurations</th>";
    for (const PathView& path : vm_.paths) out_ += "<th scope=\"col\">" + E(path.title) + "</th>";
    out_ += "<th scope=\"col\">Every path</th><th scope=\"col\">n/a everywhere</th></tr></thead>\n<tbody>\n";
    for (const PackageView& package : vm_.packages) {
      const PackageSummary& s = package.summary;
      out_ += fmt::format("<tr><th scope=\"row\"><a href=\"#{}\"><code>{}</code></a></th><td>{}</td>",
                          E(package.anchor), E(package.title), FormatCount(s.configurations));
      for (const PathCount& count : s.paths) {
        out_ += fmt::format("<td>{} / {}<small>{}</small></td>", FormatCount(count.supported),
                            FormatCount(count.probed), E(count.percent));
      }
      out_ += fmt::format("<td>{}</td><td>{}</td></tr>\n", FormatCount(s.all_pass),
                          FormatCount(s.na_everywhere));
    }
    out_ += "</tbody>\n</table>\n</div>\n</section>\n";
  }

  void Packages() {
    out_ +=
        "<p id=\"no-match\" class=\"empty\" hidden>No configuration matches the search and the "
        "filter.</p>\n";
    for (const PackageView& package : vm_.packages) {
      out_ += fmt::format("<section class=\"pkg\" id=\"{}\" data-group>\n", E(package.anchor));
      out_ += fmt::format(
          "<h2><a class=\"perma\" href=\"#{0}\" aria-label=\"Link to this package\">#</a><code>{1}</code>"
          "<span class=\"cnt\">{2} configurations</span></h2>\n",
          E(package.anchor), E(package.title), FormatCount(package.summary.configurations));
      if (package.summary.na_everywhere > 0) {
        out_ += "<p class=\"grp\">" + NaNote(package.summary) +
                " (<a href=\"#na-everywhere\">listed below</a>).</p>\n";
      }
      for (const SectionView& section : package.sections) {
        if (package.titled_sections) {
          out_ += fmt::format("<section class=\"sec\" id=\"{}\" data-box>\n", E(section.anchor));
          out_ += fmt::format(
              "<h3><a class=\"perma\" href=\"#{0}\" aria-label=\"Link to this section\">#</a>"
              "<code>{1}</code><span class=\"cnt\">{2}</span></h3>\n",
              E(section.anchor), E(section.title), FormatCount(section.rows.size()));
        } else {
          out_ += fmt::format("<div class=\"sec\" id=\"{}\" data-box>\n", E(section.anchor));
        }
        OperatorTable(section.rows, section.title, TableKind::kPaths);
        out_ += package.titled_sections ? "</section>\n" : "</div>\n";
      }
      out_ += "</section>\n";
    }
  }

  void NotApplicable() {
    out_ += "<section id=\"na-everywhere\" data-box>\n";
    out_ += fmt::format(
        "<h2><a class=\"perma\" href=\"#na-everywhere\" aria-label=\"Link to this section\">#</a>"
        "n/a on every path<span class=\"cnt\">{}</span></h2>\n",
        FormatCount(vm_.na_rows.size()));
    out_ +=
        "<p class=\"grp\">No path could probe these configurations: the operator gives no tensor "
        "output, does not run eagerly with the probed inputs, or the case is skipped. They are "
        "listed rather than hidden, because an operator that fails eagerly on valid inputs is a "
        "defect worth seeing.</p>\n";
    if (vm_.na_rows.empty()) {
      out_ += "<p>None.</p>\n";
    } else {
      OperatorTable(vm_.na_rows, "n/a on every path", TableKind::kNotApplicable);
    }
    out_ += "</section>\n";
  }

  void Reasons() {
    out_ += "<section id=\"reasons\">\n<h2>Reasons</h2>\n";
    out_ += fmt::format(
        "<p class=\"grp\">{} reasons explain the failures above, most widespread first. ",
        FormatCount(vm_.reasons.size()));
    if (vm_.unclassified > 0) {
      out_ += fmt::format(
          "{} errors matched no rule; they show their own first line.", FormatCount(vm_.unclassified));
    }
    out_ += "</p>\n";
    for (const ReasonView& reason : vm_.reasons) {
      out_ += fmt::format("<article class=\"reason\" id=\"{}\">\n", E(reason.anchor));
      out_ += fmt::format(
          "<h3><a class=\"perma\" href=\"#{0}\" aria-label=\"Link to this reason\">#</a>"
          "<code>{1}</code>{2}</h3>\n<dl>\n",
          E(reason.anchor), E(reason.id), E(reason.title));
      if (!reason.cause.empty()) out_ += "<dt>Cause</dt><dd>" + E(reason.cause) + "</dd>\n";
      if (!reason.hint.empty()) out_ += "<dt>What to do</dt><dd>" + E(reason.hint) + "</dd>\n";
      if (!reason.component.empty()) {
        out_ += "<dt>Who can fix it</dt><dd><code>" + E(reason.component) + "</code></dd>\n";
      }
      out_ += "</dl>\n";
      out_ += fmt::format(
          "<details{}><summary>Affects {} configuration{} of {} operator{}</summary>\n<ul class=\"aff\">\n",
          reason.affected.size() <= 12 ? " open" : "", FormatCount(reason.affected.size()),
          reason.affected.size() == 1 ? "" : "s", FormatCount(reason.operators),
          reason.operators == 1 ? "" : "s");
      for (const AffectedRow& row : reason.affected) {
        out_ += fmt::format("<li><a href=\"#{}\"><code>{}</code></a> <span>({})</span></li>\n",
                            E(row.anchor), E(row.name), E(row.paths_label));
      }
      out_ += "</ul>\n</details>\n</article>\n";
    }
    out_ += "</section>\n";
  }

  void Tail(std::string_view page_script) {
    out_ += fmt::format(
        "<footer>Generated by <code>opsweep render</code> from the snapshot of {}{}. The page is "
        "self-contained: it loads nothing from anywhere.</footer>\n</main>\n",
        E(vm_.generated), vm_.tool.empty() ? "" : " (merged by " + E(vm_.tool) + ")");
    out_ += ConfigScriptHtml(vm_) + "<script>";
    out_ += page_script;
    out_ += "</script>\n</body>\n</html>\n";
  }

 private:
  enum class TableKind { kPaths, kNotApplicable };

  std::string NameLink(const std::string& name, const std::string& anchor) const {
    return anchor.empty() ? "<code>" + E(name) + "</code>"
                          : fmt::format("<a href=\"#{}\"><code>{}</code></a>", E(anchor), E(name));
  }

  void RecordList(const char* title, const std::vector<HistoryRecordLine>& lines) {
    if (lines.empty()) return;
    out_ += fmt::format("<h4>{} <span class=\"cnt\">{}</span></h4>\n<details{}><summary>{} {}</summary>\n<ul class=\"chl\">\n",
                        title, FormatCount(lines.size()), lines.size() <= 12 ? " open" : "", FormatCount(lines.size()),
                        lines.size() == 1 ? "case" : "cases");
    for (const HistoryRecordLine& line : lines) {
      out_ += "<li>" + NameLink(line.name, line.anchor) + " <span class=\"t\">" + E(line.text) + "</span></li>\n";
    }
    out_ += "</ul>\n</details>\n";
  }

  std::size_t CountRows() const {
    std::size_t n = vm_.na_rows.size();
    for (const auto& package : vm_.packages) {
      for (const auto& section : package.sections) n += section.rows.size();
    }
    return n;
  }

  void OperatorTable(const std::vector<RowView>& rows, std::string_view caption, TableKind kind) {
    // n<count>: the stylesheet sizes the path columns by how many there are.
    out_ += fmt::format("<div class=\"tw\">\n<table class=\"ops n{}\">\n<caption class=\"vh\">{}</caption>\n",
                        kind == TableKind::kPaths ? vm_.paths.size() : 0, E(caption));
    // Column widths live on <col>: a fixed table layout takes them from there, whatever the first
    // header row is (the group row has no per-column cells).
    out_ += "<colgroup><col class=\"op\">";
    if (kind == TableKind::kPaths) {
      for (std::size_t i = 0; i < vm_.paths.size(); ++i) out_ += "<col class=\"c\">";
    } else {
      out_ += "<col class=\"pk\">";
    }
    out_ += "<col class=\"d\"></colgroup>\n<thead>";
    if (kind == TableKind::kPaths) GroupRow();
    out_ += "<tr><th scope=\"col\" class=\"op\">Operator</th>";
    if (kind == TableKind::kPaths) {
      for (const PathView& path : vm_.paths) out_ += "<th scope=\"col\" class=\"c\">" + E(path.title) + "</th>";
    } else {
      out_ += "<th scope=\"col\" class=\"pk\">Package</th>";
    }
    out_ += "<th scope=\"col\">Details</th></tr></thead>\n<tbody>\n";
    for (const RowView& row : rows) Row(row, kind);
    out_ += "</tbody>\n</table>\n</div>\n";
  }

  // A heading row over runs of path columns that share a group ("dynamic shapes"), when a path
  // has one; the other columns get an empty heading.
  void GroupRow() {
    if (std::none_of(vm_.paths.begin(), vm_.paths.end(), [](const PathView& p) { return !p.group.empty(); })) return;
    out_ += "<tr class=\"grp-h\"><td></td>";
    for (std::size_t i = 0; i < vm_.paths.size();) {
      std::size_t j = i;
      while (j < vm_.paths.size() && vm_.paths[j].group == vm_.paths[i].group) ++j;
      if (vm_.paths[i].group.empty()) {
        out_ += fmt::format("<td colspan=\"{}\"></td>", j - i);
      } else {
        out_ += fmt::format("<th scope=\"colgroup\" colspan=\"{}\">{}</th>", j - i, E(vm_.paths[i].group));
      }
      i = j;
    }
    out_ += "<td></td></tr>";
  }

  void Row(const RowView& row, TableKind kind) {
    out_ += fmt::format("<tr id=\"{}\"{}>", E(row.anchor), RowDataAttributes(vm_, row));
    out_ += fmt::format("<th scope=\"row\"><a class=\"perma\" href=\"#{}\" aria-label=\"Link to {}\">#</a>",
                        E(row.anchor), E(row.name));
    if (!row.api_url.empty()) {
      out_ += fmt::format("<a href=\"{}\" title=\"{}\"><code>{}</code></a>", E(row.api_url),
                          E(row.api), E(row.operator_name));
    } else if (!row.api.empty()) {
      out_ += fmt::format("<code title=\"{}\">{}</code>", E(row.api), E(row.operator_name));
    } else {
      out_ += "<code>" + E(row.operator_name) + "</code>";
    }
    if (!row.variant.empty()) out_ += "<span class=\"var\">" + E(row.variant) + "</span>";
    if (!row.note.empty()) out_ += "<span class=\"note\">" + E(row.note) + "</span>";
    out_ += "</th>";
    if (kind == TableKind::kPaths) {
      for (std::size_t p = 0; p < row.cells.size(); ++p) {
        const CellView& cell = row.cells[p];
        out_ += fmt::format("<td class=\"c st-{}\"><span><b aria-hidden=\"true\">{}</b>{}</span>",
                            cell.token, cell.symbol, E(cell.label));
        Marks(cell);
        if (p < row.history.size()) Strip(row.history[p]);
        out_ += "</td>";
      }
    } else {
      out_ += "<td class=\"grp\"><code>" + E(row.group) + "</code></td>";
    }
    out_ += "<td class=\"d\">";
    if (!row.details.empty() || !row.annotations.empty()) {
      out_ += "<ul>";
      for (const DetailLine& line : row.details) Detail(line);
      for (const AnnotationLine& line : row.annotations) Annotation(line);
      out_ += "</ul>";
    }
    if (!row.sub_details.empty()) {  // the details on demand of the marks
      out_ += "<details class=\"subs\"><summary>" + E(row.sub_summary) + "</summary><ul>";
      for (const DetailLine& line : row.sub_details) Detail(line);
      out_ += "</ul></details>";
    }
    out_ += "</td></tr>\n";
  }

  // The compact marks of a cell: the sub-verdicts it shows, each with its words for screen readers
  // and its detail in the tooltip.
  void Marks(const CellView& cell) {
    bool any = false;
    for (const MarkView& mark : cell.marks) {
      if (!mark.shown) continue;
      if (!any) out_ += "<div class=\"marks\">";
      any = true;
      out_ += fmt::format(
          "<span class=\"sv st-{}\" title=\"{}\">{}<b aria-hidden=\"true\">{}</b><i class=\"vh\"> {}</i></span>",
          mark.token, E(mark.title), E(mark.label), mark.symbol, E(mark.words));
    }
    if (any) out_ += "</div>";
  }

  void Detail(const DetailLine& line) {
    out_ += "<li><span class=\"p\">" + E(line.paths_label) + ":</span> " + E(line.text);
    if (!line.break_reasons.empty()) {
      out_ += " <span class=\"br\">(";
      for (std::size_t i = 0; i < line.break_reasons.size(); ++i) {
        const BreakReasonView& item = line.break_reasons[i];
        if (i > 0) out_ += "; ";
        if (item.reason) {
          out_ += "<a href=\"#" + E(item.reason->anchor) + "\">" + E(item.text) + "</a>";
        } else {
          out_ += E(item.text);
        }
        if (!item.location.empty()) out_ += " <span class=\"loc\">" + E(item.location) + "</span>";
      }
      out_ += ")</span>";
    }
    if (!line.location.empty()) out_ += " <span class=\"loc\">" + E(line.location) + "</span>";
    if (line.reason) {
      out_ += fmt::format(" <a class=\"rl\" href=\"#{}\" title=\"{}\">\u2192 {}</a>",
                          E(line.reason->anchor), E(line.reason->id), E(line.reason->title));
    }
    if (!line.error.empty()) out_ += "<code class=\"err\">" + E(line.error) + "</code>";
    for (const std::string& fact : line.facts) out_ += "<span class=\"dyn\">" + E(fact) + "</span>";
    for (const std::string& command : line.repro) {
      out_ += "<code class=\"repro\" title=\"writes a standalone script that shows this failure, for a bug report\">" +
              E(command) + "</code>";
    }
    out_ += "</li>";
  }

  // One cell's history: a square per release (its status, or hollow when not surveyed), and the
  // mark. The strip is one image whose name (for screen readers, and the tooltip) is the strip in
  // words; its squares are decoration.
  void Strip(const PathHistory& h) {
    out_ += fmt::format("<div class=\"hs\" role=\"img\" title=\"{}\">", E(h.strip_text));
    for (const HistoryCell& cell : h.cells) {
      out_ += fmt::format("<i class=\"h-{}\"></i>", cell.present ? cell.cell.token : "absent");
    }
    out_ += "</div>";
    if (h.mark != MarkKind::none) {
      out_ += fmt::format("<div class=\"mk mk-{}\">{}</div>", h.mark == MarkKind::since ? "since" : "broken",
                          E(h.mark_text));
    }
  }

  // A check or a note: its class says which (`ck ck-passed`, `ck ck-failed`, `ck ck-not-run`, `nt`).
  void Annotation(const AnnotationLine& line) {
    const char* css = "nt";
    switch (line.kind) {
      case AnnotationLine::Kind::check_passed: css = "ck ck-passed"; break;
      case AnnotationLine::Kind::check_failed: css = "ck ck-failed"; break;
      case AnnotationLine::Kind::check_not_run: css = "ck ck-not-run"; break;
      case AnnotationLine::Kind::note: css = "nt"; break;
    }
    out_ += fmt::format("<li class=\"{}\"><span class=\"p\">{}:</span> {}</li>", css, E(line.paths_label),
                        E(line.text));
  }

  const ViewModel& vm_;
  std::string out_;
};

}  // namespace

bool WriteHtml(const ViewModel& vm, std::string* out, std::string* err) {
  std::string_view css;
  std::string page_script;
  if (!StandalonePageAssets(&css, &page_script, err)) return false;
  Page page(vm);
  page.Head(css, page_script);
  page.Bar();
  page.Overview();
  page.Releases();
  page.Summary();
  page.Packages();
  page.NotApplicable();
  page.Changes();
  page.Reasons();
  page.Tail(page_script);
  *out = page.Take();
  return true;
}

}  // namespace opsweep::render
