#include "snapshot/snapshot.h"

namespace opsweep::snapshot {

std::string Snapshot::EnvironmentText(const std::string& field) const {
  auto it = environment.find(field);
  if (it == environment.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number() || it->is_boolean()) return it->dump();
  return "";
}

}  // namespace opsweep::snapshot
