#include "render/text_cells.h"

namespace opsweep::render {

std::string CellText(const CellView& cell, TextEscape escape) {
  std::string text = cell.symbol + " " + escape(cell.label);
  std::string marks;
  for (const MarkView& mark : cell.marks) {
    if (!mark.shown) continue;
    marks += (marks.empty() ? "" : ", ") + escape(mark.label) + " " + mark.symbol;
  }
  return marks.empty() ? text : text + " (" + marks + ")";
}

std::string HistoryStripText(const PathHistory* history, TextEscape escape) {
  if (history == nullptr || history->uniform) return "";
  std::string text = " \u00b7 " + escape(history->symbols);
  if (!history->mark_text.empty()) text += " *" + escape(history->mark_text) + "*";
  return text;
}

std::string StatusChangeText(const HistoryLine& line, TextEscape escape) {
  if (line.before.status == line.after.status) return CellText(line.after, escape);
  return CellText(line.before, escape) + " \u2192 " + CellText(line.after, escape);
}

void MarkdownTableHead(std::string* out, const std::vector<std::string>& heads, std::string_view align) {
  std::string head = "|", rule = "|";
  for (std::size_t i = 0; i < heads.size(); ++i) {
    head += " " + heads[i] + " |";
    rule += i < align.size() && align[i] == 'r' ? " ---: |" : " --- |";
  }
  *out += head + "\n" + rule + "\n";
}

void MarkdownTableRow(std::string* out, const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const std::string& cell : cells) row += cell.empty() ? " |" : " " + cell + " |";
  *out += row + "\n";
}

}  // namespace opsweep::render
