#include "classify/scrub.h"

#include <cctype>
#include <vector>

#include "util/home_paths.h"
#include "util/trim.h"

namespace opsweep {

namespace {

bool IsTokenEnd(char c) {
  switch (c) {
    case ' ': case '\t': case '\n': case '\r': case '"': case '\'': case '(': case ')': case '<':
    case '>': case '[': case ']': case '{': case '}': case ',': case ';': case '`': case ':':
      return true;
    default:
      return false;
  }
}

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.push_back(path.substr(i, j - i));
    i = j;
  }
  return parts;
}

// The text after the last occurrence of `marker` in `token`, or npos.
size_t AfterLast(std::string_view token, std::string_view marker) {
  size_t at = token.rfind(marker);
  return at == std::string_view::npos ? std::string_view::npos : at + marker.size();
}

// Index just past "/lib/pythonX.Y/" in token, or npos.
size_t AfterPythonLib(std::string_view token) {
  size_t pos = 0, found = std::string_view::npos;
  while ((pos = token.find("/lib/python", pos)) != std::string_view::npos) {
    size_t i = pos + 11;
    size_t j = i;
    while (j < token.size() && (std::isdigit(static_cast<unsigned char>(token[j])) || token[j] == '.')) ++j;
    if (j > i && j < token.size() && token[j] == '/') found = j + 1;
    pos = i;
  }
  return found;
}

std::string RewriteToken(std::string_view token, std::string_view library) {
  if (!library.empty()) {
    std::string marker = "/" + std::string(library) + "/";
    size_t at = token.rfind(marker);
    if (at != std::string_view::npos && at + marker.size() < token.size()) {
      return std::string(library) + "/" + std::string(token.substr(at + marker.size()));
    }
  }
  for (std::string_view marker : {"/site-packages/", "/dist-packages/"}) {
    size_t after = AfterLast(token, marker);
    if (after != std::string_view::npos) return "<site-packages>/" + std::string(token.substr(after));
  }
  if (size_t after = AfterPythonLib(token); after != std::string_view::npos) {
    return "<stdlib>/" + std::string(token.substr(after));
  }
  std::vector<std::string_view> parts = Split(token);
  auto rest_after = [&](size_t n) {
    // Rejoin the parts after the first n.
    std::string out;
    for (size_t i = n; i < parts.size(); ++i) {
      if (!out.empty()) out += "/";
      out += parts[i];
    }
    return out;
  };
  auto with_prefix = [&](const char* prefix, size_t skip) {
    std::string rest = rest_after(skip);
    return rest.empty() ? std::string(prefix) : std::string(prefix) + "/" + rest;
  };
  if (!parts.empty() && parts[0] == "root") return with_prefix("~", 1);
  if (parts.size() >= 2 && (parts[0] == "home" || parts[0] == "Users")) return with_prefix("~", 2);
  if (!parts.empty() && parts[0] == "tmp") return with_prefix("<tmp>", 1);
  if (parts.size() >= 2 && parts[0] == "var" && parts[1] == "tmp") return with_prefix("<tmp>", 2);
  if (parts.size() >= 2 && parts[0] == "private" && parts[1] == "tmp") return with_prefix("<tmp>", 2);
  if (parts.size() >= 2 && parts[0] == "var" && parts[1] == "folders") return with_prefix("<tmp>", std::min<size_t>(5, parts.size()));
  if (parts.size() >= 3 && parts[0] == "private" && parts[1] == "var" && parts[2] == "folders") {
    return with_prefix("<tmp>", std::min<size_t>(6, parts.size()));
  }
  if (parts.size() >= 3) return ".../" + std::string(parts.back());
  return std::string(token);
}

}  // namespace

std::string StripAnsi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\x1b') {
      out += c;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && !std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
      i = j;  // skip the final letter too
    }
  }
  return out;
}

std::string ScrubPaths(std::string_view text, std::string_view library) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool starts_path = text[i] == '/' && StartsPath(text, i) &&
                       i + 1 < text.size() && !IsTokenEnd(text[i + 1]) && text[i + 1] != '/';
    if (!starts_path) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && !IsTokenEnd(text[j])) ++j;
    out += RewriteToken(text.substr(i, j - i), library);
    i = j;
  }
  return out;
}

std::string MaskObjectIds(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t at = std::string_view::npos;
    size_t after = 0;
    for (std::string_view guard : {std::string_view("___check_type_id("), std::string_view("___check_obj_id(")}) {
      size_t found = text.find(guard, i);
      if (found < at) at = found, after = found + guard.size();
    }
    if (at == std::string_view::npos) break;
    // the call's closing parenthesis (arguments may hold calls and subscripts of their own)
    size_t j = after;
    for (int depth = 1; j < text.size(); ++j) {
      if (text[j] == '(') ++depth;
      if (text[j] == ')' && --depth == 0) break;
    }
    size_t digits = j;
    while (digits > after && std::isdigit(static_cast<unsigned char>(text[digits - 1]))) --digits;
    bool id_last = j < text.size() && digits < j && digits >= after + 2 && text.substr(digits - 2, 2) == ", ";
    out.append(text.substr(i, (id_last ? digits : j) - i));
    if (id_last) out += "<id>";
    i = j;
  }
  out.append(text.substr(std::min(i, text.size())));
  return out;
}

std::string CleanFirstLine(std::string_view text, std::string_view library, size_t max_chars) {
  std::string plain = StripAnsi(text);
  std::string_view rest = plain;
  std::string_view line;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view candidate = Trim(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (!candidate.empty()) {
      line = candidate;
      break;
    }
  }
  std::string cleaned(Trim(MaskObjectIds(ScrubPaths(line, library))));
  for (char& c : cleaned) {
    if (c == '\t' || c == '\r') c = ' ';
  }
  if (cleaned.size() <= max_chars || max_chars < 8) return cleaned;
  size_t limit = max_chars - 3;
  size_t cut = cleaned.rfind(' ', limit);
  if (cut == std::string::npos || cut < limit / 2) {
    cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(cleaned[cut]) & 0xC0) == 0x80) --cut;
  }
  return std::string(Trim(std::string_view(cleaned).substr(0, cut))) + "...";
}

}  // namespace opsweep
