#include "render/comparison_writer.h"

#include <fmt/core.h>

#include "render/escape.h"
#include "render/page_controls.h"
#include "render/text_cells.h"

namespace opsweep::render {
namespace {

std::string E(std::string_view text) { return HtmlEscape(text); }

std::string Pill(const CellView& cell) {
  return fmt::format("<span class=\"pill st-{}\"><b aria-hidden=\"true\">{}</b>{}</span>", cell.token, cell.symbol,
                     E(cell.label));
}

class ComparisonPage {
 public:
  explicit ComparisonPage(const ComparisonView& view) : v_(view), vm_(view.page) {}

  std::string Take() { return std::move(out_); }

  void Head(std::string_view css, std::string_view script) {
    out_ += PageHead(vm_.title, css, script);
    out_ += "<body>\n<a class=\"skip\" href=\"#operations\">Skip to the tables</a>\n";
    out_ += "<header class=\"bar\">\n<div class=\"bar-in\">\n";
    out_ += fmt::format("<a class=\"brand\" href=\"#top\">{} <span>vs</span> {}</a>\n", E(v_.libraries[0].label),
                        E(v_.libraries[1].label));
    out_ += ControlsHtml(vm_);
    out_ += "</div>\n</header>\n";
  }

  void Overview() {
    out_ += "<main id=\"top\">\n<h1>" + E(vm_.title) + "</h1>\n";
    out_ += "<p class=\"lede\">" + E(vm_.lede) + "</p>\n";
    out_ += "<section class=\"cards\" aria-label=\"Operations that deploy, per library and path\">\n";
    for (const ComparedLibrary& lib : v_.libraries) {
      for (std::size_t p = 0; p < v_.compared.size(); ++p) {
        const PathCount& card = lib.cards[p];
        const int width = card.probed > 0 ? (1000 * card.supported / card.probed) : 0;
        out_ += fmt::format("<div class=\"card\">\n<h2>{} \u00b7 {}</h2>\n", E(lib.label), E(v_.compared[p].title));
        out_ += fmt::format("<p class=\"big\">{} <small>/ {} operations</small></p>\n", FormatCount(card.supported),
                            FormatCount(card.probed));
        out_ += fmt::format("<p class=\"pct\">{} deploy</p>\n", E(card.percent));
        out_ += fmt::format("<div class=\"meter\" aria-hidden=\"true\"><i style=\"width:{}.{}%\"></i></div>\n",
                            width / 10, width % 10);
        out_ += "</div>\n";
      }
    }
    out_ += "</section>\n<ul class=\"facts\">\n";
    const ComparedLibrary &a = v_.libraries[0], &b = v_.libraries[1];
    Fact(v_.operations, "operations in the equivalence map");
    Fact(v_.offered_by_both, fmt::format("offered by both ({} by {}, {} by {})", FormatCount(a.offered), a.name,
                                         FormatCount(b.offered), b.name));
    Fact(v_.deploy_in_both_everywhere, "deploy in both libraries on every compared path");
    Fact(v_.one_only, "deploy in one library only on some path");
    Fact(a.deploys_only, fmt::format("deploy in {}, not in {}, on some path", a.name, b.name));
    Fact(b.deploys_only, fmt::format("deploy in {}, not in {}, on some path", b.name, a.name));
    out_ += "</ul>\n";

    out_ += "<section id=\"environment\">\n<h2>Surveys</h2>\n<dl class=\"env\">\n";
    for (const ComparedLibrary& lib : v_.libraries) {
      out_ += fmt::format("<div><dt>{}</dt><dd>torch {}, snapshot of {}</dd></div>\n", E(lib.label),
                          E(lib.torch.empty() ? "?" : lib.torch), E(lib.generated));
    }
    out_ += "</dl>\n";
    if (!v_.not_compared.empty()) {
      out_ += "<p class=\"grp\">Surveyed in one library only, so not compared: ";
      for (std::size_t i = 0; i < v_.not_compared.size(); ++i) out_ += (i > 0 ? "; " : "") + E(v_.not_compared[i]);
      out_ += ".</p>\n";
    }
    if (!v_.unmatched.empty()) {
      out_ += fmt::format(
          "<p class=\"grp\">{} {} of the map no record of its snapshot targets (shown as not surveyed): ",
          FormatCount(v_.unmatched.size()), v_.unmatched.size() == 1 ? "name" : "names");
      for (std::size_t i = 0; i < v_.unmatched.size(); ++i) {
        out_ += (i > 0 ? ", " : "") + std::string("<code>") + E(v_.unmatched[i]) + "</code>";
      }
      out_ += ".</p>\n";
    }
    out_ += "</section>\n";

    out_ += "<section id=\"legend\">\n<h2>Legend</h2>\n<p class=\"grp\">A cell is one library's operation on one path: "
            "<span class=\"pill st-ok\"><b aria-hidden=\"true\">\u2713</b>yes (2 of 3)</span> two of its three probed "
            "configurations are supported there, so it deploys; <span class=\"pill st-fail\"><b aria-hidden=\"true\">"
            "\u2717</b>no (0 of 2)</span> none is (the most frequent failure names the cell); <span class=\"pill "
            "st-absent\"><b aria-hidden=\"true\">\u2013</b>none</span> the library has no such operation, or no "
            "result of it. The details list every configuration with its verdict per path and what failed.</p>\n"
            "</section>\n";
  }

  void Sections() {
    out_ += "<section id=\"operations\">\n<h2>Operations</h2>\n";
    out_ += "<p id=\"no-match\" class=\"empty\" hidden>No operation matches the search and the filter.</p>\n";
    for (const OperationSection& section : v_.sections) {
      out_ += fmt::format("<section class=\"pkg\" id=\"{}\" data-group>\n", E(section.anchor));
      out_ += fmt::format(
          "<h2><a class=\"perma\" href=\"#{0}\" aria-label=\"Link to this section\">#</a>{1}"
          "<span class=\"cnt\">{2}</span></h2>\n<div class=\"sec\" data-box>\n",
          E(section.anchor), E(section.title), FormatCount(section.rows.size()));
      Table(section);
      out_ += "</div>\n</section>\n";
    }
    out_ += "</section>\n";
  }

  void Tail(std::string_view script) {
    out_ += fmt::format(
        "<footer>Generated by <code>opsweep render</code> from the snapshots of {} ({}) and {} ({}) and an "
        "equivalence map. The page is self-contained: it loads nothing from anywhere.</footer>\n</main>\n",
        E(v_.libraries[0].label), E(v_.libraries[0].generated), E(v_.libraries[1].label), E(v_.libraries[1].generated));
    out_ += ConfigScriptHtml(vm_) + "<script>";
    out_ += script;
    out_ += "</script>\n</body>\n</html>\n";
  }

 private:
  void Fact(int value, const std::string& words) {
    out_ += fmt::format("<li><b>{}</b><span>{}</span></li>\n", FormatCount(value), E(words));
  }

  void Table(const OperationSection& section) {
    const std::size_t n = vm_.paths.size();
    out_ += fmt::format("<div class=\"tw\">\n<table class=\"ops n{}\">\n<caption class=\"vh\">{}</caption>\n", n,
                        E(section.title));
    out_ += "<colgroup><col class=\"op\">";
    for (std::size_t i = 0; i < n; ++i) out_ += "<col class=\"c\">";
    out_ += "<col class=\"d\"></colgroup>\n<thead><tr class=\"grp-h\"><td></td>";
    for (const ComparedLibrary& lib : v_.libraries) {
      out_ += fmt::format("<th scope=\"colgroup\" colspan=\"{}\">{}</th>", v_.compared.size(), E(lib.label));
    }
    out_ += "<td></td></tr><tr><th scope=\"col\" class=\"op\">Operation</th>";
    for (const PathView& column : vm_.paths) {
      out_ += fmt::format("<th scope=\"col\" class=\"c\" title=\"{}\">{}</th>", E(column.group), E(column.title));
    }
    out_ += "<th scope=\"col\">Configurations</th></tr></thead>\n<tbody>\n";
    for (const OperationRow& op : section.rows) Row(op);
    out_ += "</tbody>\n</table>\n</div>\n";
  }

  void Row(const OperationRow& op) {
    const RowView& row = op.row;
    out_ += fmt::format("<tr id=\"{}\"{}>", E(row.anchor), RowDataAttributes(vm_, row));
    out_ += fmt::format("<th scope=\"row\"><a class=\"perma\" href=\"#{}\" aria-label=\"Link to {}\">#</a>{}",
                        E(row.anchor), E(row.name), E(row.name));
    if (!row.note.empty()) out_ += "<span class=\"note\">" + E(row.note) + "</span>";
    out_ += "</th>";
    for (const CellView& cell : row.cells) {
      out_ += fmt::format("<td class=\"c st-{}\"><span><b aria-hidden=\"true\">{}</b>{}</span></td>", cell.token,
                          cell.symbol, E(cell.label));
    }
    out_ += "<td class=\"d\"><ul>";
    for (int side = 0; side < 2; ++side) Side(v_.libraries[side], op.sides[side]);
    out_ += "</ul></td></tr>\n";
  }

  // One library's side of a row: what it offers, then its configurations (collapsed when many).
  void Side(const ComparedLibrary& lib, const ComparedSide& side) {
    out_ += "<li><span class=\"p\">" + E(lib.name) + ":</span> ";
    if (!side.offered) {
      out_ += "no such operation</li>";
      return;
    }
    std::string names;
    for (std::size_t i = 0; i < side.callables.size(); ++i) {
      names += (i > 0 ? ", " : "") + std::string("<code>") + E(side.callables[i]) + "</code>";
    }
    const std::size_t n = side.configs.size();
    out_ += fmt::format("<details class=\"cfg\"{}><summary>{} configuration{} of {}</summary><ul>",
                        n <= 2 ? " open" : "", FormatCount(n), n == 1 ? "" : "s", names);
    for (const ComparedConfig& config : side.configs) {
      out_ += "<li><code>" + E(config.name) + "</code>";
      if (side.callables.size() > 1) out_ += " <span class=\"loc\">" + E(config.target) + "</span>";
      out_ += " ";
      for (std::size_t p = 0; p < config.cells.size(); ++p) {
        out_ += fmt::format("<span class=\"cmp\" title=\"{}\">{} {}</span>", E(v_.compared[p].title),
                            E(v_.compared[p].short_label), Pill(config.cells[p]));
      }
      for (const std::string& problem : config.problems) out_ += "<code class=\"err\">" + E(problem) + "</code>";
      out_ += "</li>";
    }
    for (const std::string& name : side.unmatched) {
      out_ += "<li class=\"nt\"><code>" + E(name) + "</code> not surveyed (no record targets it)</li>";
    }
    out_ += "</ul></details></li>";
  }

  const ComparisonView& v_;
  const ViewModel& vm_;
  std::string out_;
};

std::string MdCell(const CellView& cell) { return CellText(cell, MarkdownEscape); }

}  // namespace

bool WriteComparisonHtml(const ComparisonView& view, std::string* out, std::string* err) {
  std::string_view css;
  std::string script;
  if (!StandalonePageAssets(&css, &script, err)) return false;
  ComparisonPage page(view);
  page.Head(css, script);
  page.Overview();
  page.Sections();
  page.Tail(script);
  *out = page.Take();
  return true;
}

std::string WriteComparisonMarkdown(const ComparisonView& view) {
  const ViewModel& vm = view.page;
  std::string out = "# " + MarkdownEscape(vm.title) + "\n\n" + MarkdownEscape(vm.lede) + "\n\n";
  std::vector<std::string> heads = {"Library"};
  for (const PathView& path : view.compared) heads.push_back(MarkdownEscape(path.title) + " (deploy / probed)");
  MarkdownTableHead(&out, heads, "l" + std::string(view.compared.size(), 'r'));
  for (const ComparedLibrary& lib : view.libraries) {
    std::vector<std::string> cells = {MarkdownEscape(lib.label) + " (torch " + MarkdownEscape(lib.torch) + ")"};
    for (const PathCount& c : lib.cards) {
      cells.push_back(fmt::format("{} / {} ({})", FormatCount(c.supported), FormatCount(c.probed), c.percent));
    }
    MarkdownTableRow(&out, cells);
  }
  out += fmt::format(
      "\n{} operations: {} offered by both, {} deploy in both on every compared path, {} deploy in one library only "
      "on some path ({} in {} only, {} in {} only).\n",
      FormatCount(view.operations), FormatCount(view.offered_by_both), FormatCount(view.deploy_in_both_everywhere),
      FormatCount(view.one_only), FormatCount(view.libraries[0].deploys_only), MarkdownEscape(view.libraries[0].name),
      FormatCount(view.libraries[1].deploys_only), MarkdownEscape(view.libraries[1].name));
  if (!view.not_compared.empty()) {
    out += "\nSurveyed in one library only, so not compared: ";
    for (std::size_t i = 0; i < view.not_compared.size(); ++i) {
      out += (i > 0 ? "; " : "") + MarkdownEscape(view.not_compared[i]);
    }
    out += ".\n";
  }
  if (!view.unmatched.empty()) {
    out += "\nNames of the map that no record targets (not surveyed): ";
    for (std::size_t i = 0; i < view.unmatched.size(); ++i) {
      out += (i > 0 ? ", " : "") + MarkdownCode(view.unmatched[i]);
    }
    out += ".\n";
  }
  out += "\nA cell counts supported of probed configurations; an operation deploys on a path when one is supported. "
         "\"none\": the library has no such operation.\n";
  for (const OperationSection& section : view.sections) {
    out += "\n## " + MarkdownEscape(section.title) + "\n\n";
    std::vector<std::string> cols = {"Operation"};
    for (const PathView& column : vm.paths) cols.push_back(MarkdownEscape(column.group + " " + column.title));
    cols.push_back("Note");
    MarkdownTableHead(&out, cols, "");
    for (const OperationRow& op : section.rows) {
      std::vector<std::string> cells = {MarkdownEscape(op.row.name)};
      for (const CellView& cell : op.row.cells) cells.push_back(MdCell(cell));
      cells.push_back(MarkdownEscape(op.row.note));
      MarkdownTableRow(&out, cells);
    }
  }
  return out;
}

}  // namespace opsweep::render
