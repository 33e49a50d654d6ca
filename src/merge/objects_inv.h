// Sphinx's objects.inv (version 2): four '#' header lines, then zlib-compressed lines
// "name domain:role priority uri dispname". Only the names matter here: a record's `api` is the
// documented name its target is published under, so the page can link to the API reference.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace opsweep {

class ObjectsInventory {
 public:
  // Parses the file's bytes. On failure returns false with one line (no file name).
  bool Parse(std::string_view bytes, std::string* err);
  bool Has(const std::string& name) const { return names_.count(name) != 0; }
  size_t size() const { return names_.size(); }

  // The documented name for a case: the target itself; else "<library>.<package>.<last part of
  // target>"; else "<library>.<package>.<operator>". nullopt when none is documented.
  std::optional<std::string> Lookup(const std::string& target, const std::string& package,
                                    const std::string& operator_name) const;

 private:
  std::set<std::string> names_;  // Python-domain objects (py:*)
};

}  // namespace opsweep
