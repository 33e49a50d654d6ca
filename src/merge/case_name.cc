#include "merge/case_name.h"

namespace opsweep {

bool ParseCaseName(std::string_view name, CaseName* out) {
  out->operator_name = std::string(name);
  out->variant.clear();
  size_t open = name.find('[');
  if (open == std::string_view::npos) return name.find(']') == std::string_view::npos;
  std::string variant;
  size_t i = open;
  while (i < name.size()) {
    if (name[i] != '[') return false;  // text after a closing bracket
    int depth = 0;
    size_t j = i;
    for (; j < name.size(); ++j) {
      if (name[j] == '[') ++depth;
      if (name[j] == ']' && --depth == 0) break;
    }
    if (j == name.size()) return false;  // unbalanced
    if (!variant.empty()) variant += ", ";
    variant += name.substr(i + 1, j - i - 1);
    i = j + 1;
  }
  if (open == 0) return false;
  out->operator_name = std::string(name.substr(0, open));
  out->variant = variant;
  return true;
}

void SplitGroup(std::string_view group, std::string* package, std::string* section) {
  size_t dot = group.find('.');
  *package = std::string(group.substr(0, dot));
  *section = dot == std::string_view::npos ? "" : std::string(group.substr(dot + 1));
}

}  // namespace opsweep
