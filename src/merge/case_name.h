// How a case's name and group become the page's operator, variant, package and section.
//   name  "RandomCrop[p=0.5][random]" -> operator "RandomCrop", variant "p=0.5, random"
//   group "geometry.epipolar"         -> package "geometry", section "epipolar" ("color" -> "color", "")
#pragma once
#include <string>
#include <string_view>

namespace opsweep {

struct CaseName {
  std::string operator_name;
  std::string variant;  // bracket contents joined by ", "; "" when there is none
};

// Brackets may nest ("Resize[size=(8, [2])]"). Returns false (and the whole name as operator) when
// the brackets do not balance or text follows a closing bracket.
bool ParseCaseName(std::string_view name, CaseName* out);

void SplitGroup(std::string_view group, std::string* package, std::string* section);

}  // namespace opsweep
