#include "util/trim.h"

namespace opsweep {

namespace {

// std::isspace in the "C" locale, which is what every caller means (no locale reaches the engine).
bool IsBlank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace opsweep
