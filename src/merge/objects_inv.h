// Sphinx's objects.inv (version 2): four '#' header lines, then zlib-compressed lines
// "name domain:role priority uri dispname". A record's `api` is the documented name its target is
// published under and `api_uri` the page (and anchor) that documents it, so the page can link to
// the API reference. Sphinx lists an object under the module that documents it
// (lib.geometry.epipolar.find_fundamental), which may not be the name a case's target is known
// by (lib.geometry.find_fundamental): lookups try every public name the object has.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsweep {

struct ApiRef {
  std::string name;  // the documented name, as the inventory lists it
  std::string uri;   // the documenting page relative to the docs root, "$" resolved: "geometry.html#lib..."
  bool operator==(const ApiRef&) const = default;
};

class ObjectsInventory {
 public:
  // Parses the file's bytes. On failure returns false with one line (no file name).
  bool Parse(std::string_view bytes, std::string* err);
  bool Has(const std::string& name) const { return uris_.count(name) != 0; }
  size_t size() const { return uris_.size(); }

  // The documented entry for a case: the first of `names` (its target, then every other public
  // name the object has, as the harness lists them) that the inventory has; else, for each of
  // them, "<library>.<package>.<last part>"; else "<library>.<package>.<operator>". nullopt when
  // none is documented.
  std::optional<ApiRef> Lookup(const std::vector<std::string>& names, const std::string& package,
                               const std::string& operator_name) const;

 private:
  std::map<std::string, std::string> uris_;  // Python-domain objects (py:*): name -> uri
};

}  // namespace opsweep
