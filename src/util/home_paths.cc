#include "util/home_paths.h"

#include <cctype>

namespace opsweep {

namespace {

bool IsTokenStart(char c) {
  switch (c) {
    case ' ': case '\t': case '\n': case '\r': case '"': case '\'': case '(': case '<': case '[':
    case '=': case ',': case ';': case '{': case '`':
      return true;
    default:
      return false;
  }
}

// The length of the home prefix at `i` ("/root/", "/home/alice/"), or 0.
size_t HomePrefix(std::string_view text, size_t i) {
  std::string_view rest = text.substr(i);
  if (rest.substr(0, 6) == "/root/") return 6;
  for (std::string_view top : {std::string_view("/home/"), std::string_view("/Users/")}) {
    if (rest.substr(0, top.size()) != top) continue;
    size_t end = rest.find('/', top.size());
    if (end == std::string_view::npos || end == top.size()) return 0;
    for (size_t k = top.size(); k < end; ++k) {
      if (std::isspace(static_cast<unsigned char>(rest[k])) || rest[k] == '"' || rest[k] == '\'') return 0;
    }
    return end + 1;
  }
  return 0;
}

}  // namespace

bool StartsPath(std::string_view text, size_t i) {
  if (i == 0 || IsTokenStart(text[i - 1])) return true;
  // -I/root/include: a short option glued to the path, itself at a token start
  return i >= 2 && std::isalpha(static_cast<unsigned char>(text[i - 1])) && text[i - 2] == '-' &&
         (i == 2 || IsTokenStart(text[i - 3]));
}

std::string ScrubHomePaths(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '/' && StartsPath(text, i)) {
      if (size_t n = HomePrefix(text, i); n > 0) {
        out += "~/";
        i += n;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace opsweep
