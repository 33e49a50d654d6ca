// Escaping for everything the writers put on a page. Every string that comes from a snapshot goes
// through one of these before it reaches HTML, a <script> block, reStructuredText or Markdown;
// the writers never concatenate raw snapshot text.
#pragma once
#include <string>
#include <string_view>

namespace opsweep::render {

// HTML text and attribute values (quoted with "): & < > " ' become entities; C0 control characters
// other than tab and newline become spaces.
std::string HtmlEscape(std::string_view text);

// A JSON string literal (with its quotes) that is safe inside a <script> element: besides JSON's
// own escapes, < > & and U+2028 / U+2029 are written as \uXXXX, so neither "</script>" nor "<!--"
// can appear in the output.
std::string ScriptJsonString(std::string_view text);

// Percent-encoding for a URL component (RFC 3986 unreserved characters stay as they are).
std::string UrlEncode(std::string_view text);

// An HTML id / URL fragment made from a name: ASCII letters, digits, '_', '.' and '-' are kept,
// every other run of bytes becomes one '-'. Never empty ("x" for a name with nothing to keep).
std::string Slug(std::string_view name);

// Replaces line breaks, tabs and other control characters by single spaces and trims the ends, so
// that text fits one table cell of a line-based format.
std::string OneLine(std::string_view text);

// reStructuredText inline text: one line, with every character that can start or end inline
// markup or a construct at the start of a line escaped by a backslash.
std::string RstEscape(std::string_view text);
// reStructuredText inline literal (``text``); falls back to escaped text when `text` contains a
// backquote, which a literal cannot hold.
std::string RstLiteral(std::string_view text);

// Markdown (GitHub flavoured) text inside a table cell: one line; | and Markdown punctuation are
// backslash-escaped, < > & become entities so no raw HTML gets through.
std::string MarkdownEscape(std::string_view text);
// A Markdown code span that holds `text` verbatim (fence longer than any backquote run inside;
// | escaped for tables).
std::string MarkdownCode(std::string_view text);

}  // namespace opsweep::render
