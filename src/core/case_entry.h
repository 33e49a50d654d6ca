// One case as the worker's inventory describes it (docs/formats.md section 2). The engine never
// looks inside a case beyond these fields; `info_json` keeps the whole entry verbatim.
#pragma once
#include <string>

namespace opsweep {

struct CaseEntry {
  std::string name;
  std::string group;  // package[.section]
  std::string registry;
  std::string fingerprint;
  std::string info_json;
  // Digest of what the case's inputs are computed from, except the CPU ("" from an older worker):
  // the same recipe on two machines is the same case (docs/formats.md section 4.2).
  std::string recipe;
};

}  // namespace opsweep
