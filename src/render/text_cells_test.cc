#include "render/text_cells.h"

#include <gtest/gtest.h>

#include "render/escape.h"

namespace opsweep::render {
namespace {

CellView Cell(Status status, const std::string& symbol, const std::string& label) {
  CellView cell;
  cell.status = status;
  cell.symbol = symbol;
  cell.label = label;
  return cell;
}

TEST(TextCells, CellTextListsTheShownMarksEscaped) {
  CellView cell = Cell(Status::ok, "\u2713", "yes");
  MarkView ov, hidden, ref;
  ov.label = "O*V";
  ov.symbol = "\u2717";
  hidden.label = "hidden";
  hidden.shown = false;
  ref.label = "ref";
  ref.symbol = "\u2713";
  cell.marks = {ov, hidden, ref};
  EXPECT_EQ(CellText(cell, RstEscape), "\u2713 yes (O\\*V \u2717, ref \u2713)");
  EXPECT_EQ(CellText(Cell(Status::ok, "\u2713", "yes"), MarkdownEscape), "\u2713 yes");
}

TEST(TextCells, TheStripOnlyWhereTheHistoryIsNotUniform) {
  PathHistory h;
  h.symbols = "\u2717\u2713\u2713";
  EXPECT_EQ(HistoryStripText(nullptr, RstEscape), "");
  EXPECT_EQ(HistoryStripText(&h, RstEscape), "");  // uniform by default
  h.uniform = false;
  EXPECT_EQ(HistoryStripText(&h, MarkdownEscape), " \u00b7 \u2717\u2713\u2713");
  h.mark_text = "since torch 2.13.0";
  EXPECT_EQ(HistoryStripText(&h, MarkdownEscape), " \u00b7 \u2717\u2713\u2713 *since torch 2.13.0*");
}

TEST(TextCells, AChangeShowsBothStatusesOnlyWhenTheStatusChanged) {
  HistoryLine line;
  line.before = Cell(Status::fail, "\u2717", "no");
  line.after = Cell(Status::ok, "\u2713", "yes");
  EXPECT_EQ(StatusChangeText(line, RstEscape), "\u2717 no \u2192 \u2713 yes");
  line.before = line.after;
  EXPECT_EQ(StatusChangeText(line, RstEscape), "\u2713 yes");
}

}  // namespace
}  // namespace opsweep::render
