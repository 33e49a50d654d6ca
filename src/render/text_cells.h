// What the text layouts (reStructuredText, Markdown) write for a status cell, its history strip
// and a change between releases, said once: the two layouts differ only in their escaping, which
// each passes in. (The HTML page draws the same things as markup, render/html_writer.cc.)
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "render/view_model.h"

namespace opsweep::render {

// RstEscape or MarkdownEscape (render/escape.h).
using TextEscape = std::string (*)(std::string_view);

// The cell's status, then its shown sub-verdict marks: "✓ yes (OV ✗, tract ✓, ref ✓)".
std::string CellText(const CellView& cell, TextEscape escape);

// What follows a cell on a history page: " · ✗✓✓ *since torch 2.13.0*" (the strip in the cells'
// symbols, then the mark, emphasised, when there is one); "" without a history, or when the
// history is one status in every release.
std::string HistoryStripText(const PathHistory* history, TextEscape escape);

// The status of a line of the changes between releases: "✓ yes" when its status stayed (the
// text says what changed), else "✗ no → ✓ yes".
std::string StatusChangeText(const HistoryLine& line, TextEscape escape);

// A Markdown table's head (align: one char per column, 'r' right-aligned) and a row, whose cells the
// caller has escaped.
void MarkdownTableHead(std::string* out, const std::vector<std::string>& heads, std::string_view align);
void MarkdownTableRow(std::string* out, const std::vector<std::string>& cells);

}  // namespace opsweep::render
