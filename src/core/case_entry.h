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
};

}  // namespace opsweep
