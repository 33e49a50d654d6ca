#include "cli/verbs.h"

#ifndef OPSWEEP_VERSION
#define OPSWEEP_VERSION "0.0.0"
#endif

namespace opsweep::cli {
const char* ToolVersion() { return OPSWEEP_VERSION; }
}  // namespace opsweep::cli
