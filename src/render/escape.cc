#include "render/escape.h"

#include <algorithm>

#include <fmt/core.h>

namespace opsweep::render {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }
bool IsAsciiAlnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiPunct(unsigned char c) { return c > 0x20 && c < 0x7f && !IsAsciiAlnum(c); }

// True when `text` opens with something reStructuredText reads as an enumerator ("1. ", "a) ").
bool StartsWithEnumerator(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && IsAsciiAlnum(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i + 1 > text.size()) return false;
  if (text[i] != '.' && text[i] != ')') return false;
  return i + 1 == text.size() || text[i + 1] == ' ';
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t':
      case '\n': out += ch; break;
      default:
        out += IsControl(static_cast<unsigned char>(ch)) ? ' ' : ch;
    }
  }
  return out;
}

std::string ScriptJsonString(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default:
        if (IsControl(c)) {
          out += fmt::format("\\u{:04x}", c);
        } else if (c == 0xe2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
                   (static_cast<unsigned char>(text[i + 2]) == 0xa8 ||
                    static_cast<unsigned char>(text[i + 2]) == 0xa9)) {
          out += static_cast<unsigned char>(text[i + 2]) == 0xa8 ? "\\u2028" : "\\u2029";
          i += 2;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string UrlEncode(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsAsciiAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string Slug(std::string_view name) {
  std::string out;
  bool dash_pending = false;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsAsciiAlnum(c) || c == '_' || c == '.' || c == '-') {
      if (dash_pending && !out.empty()) out += '-';
      dash_pending = false;
      out += ch;
    } else {
      dash_pending = true;
    }
  }
  return out.empty() ? std::string("x") : out;
}

// The length of a Unicode line or paragraph separator (U+0085, U+2028, U+2029) at text[i], else 0.
std::size_t UnicodeBreakAt(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  if (at(i) == 0xc2 && i + 1 < text.size() && at(i + 1) == 0x85) return 2;
  if (at(i) == 0xe2 && i + 2 < text.size() && at(i + 1) == 0x80 && (at(i + 2) == 0xa8 || at(i + 2) == 0xa9)) {
    return 3;
  }
  return 0;
}

std::string OneLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space_pending = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const auto c = static_cast<unsigned char>(ch);
    if (const std::size_t n = UnicodeBreakAt(text, i); n > 0) {
      space_pending = true;
      i += n - 1;
      continue;
    }
    if (IsControl(c) || c == ' ') {
      space_pending = true;
      continue;
    }
    if (space_pending && !out.empty()) out += ' ';
    space_pending = false;
    out += ch;
  }
  return out;
}

std::string RstEscape(std::string_view text) {
  const std::string line = OneLine(text);
  std::string out;
  out.reserve(line.size() + 8);
  if (!line.empty() && (IsAsciiPunct(static_cast<unsigned char>(line[0])) ||
                        StartsWithEnumerator(line))) {
    // A leading bullet, enumerator, comment marker or transition would turn into block markup.
    out += '\\';
    out += line[0];
    if (line[0] == '\\') out += '\\';
  } else if (!line.empty()) {
    out += line[0];
  }
  for (std::size_t i = 1; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == '\\' || ch == '`' || ch == '*' || ch == '_' || ch == '|') out += '\\';
    // A paragraph ending in ':' followed by our next line could read as a literal-block marker.
    if (ch == ':' && i + 1 == line.size()) out += '\\';
    out += ch;
  }
  return out;
}

std::string RstLiteral(std::string_view text) {
  const std::string line = OneLine(text);
  if (line.empty()) return "";
  if (line.find('`') != std::string::npos || line.front() == ' ' || line.back() == '\\') {
    return RstEscape(line);
  }
  return "``" + line + "``";
}

std::string MarkdownEscape(std::string_view text) {
  const std::string line = OneLine(text);
  std::string out;
  out.reserve(line.size() + 8);
  for (char ch : line) {
    switch (ch) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '~':
        out += '\\';
        out += ch;
        break;
      default: out += ch;
    }
  }
  return out;
}

std::string MarkdownCode(std::string_view text) {
  const std::string line = OneLine(text);
  if (line.empty()) return "";
  std::size_t longest = 0, run = 0;
  for (char ch : line) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string body;
  for (char ch : line) {
    if (ch == '|') body += '\\';
    body += ch;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = line.front() == '`' || line.back() == '`';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

}  // namespace opsweep::render
