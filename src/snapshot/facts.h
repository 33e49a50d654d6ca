// The facts of an outcome (docs/formats.md section 5, `facts`): what its path found beyond the
// verdict, by fact id, each as its path's description declares it (core/path_fact.h). Optional: an
// outcome without facts has no `facts` key, so snapshots of paths without facts keep their bytes.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/path_fact.h"

namespace opsweep::snapshot {

using FactCounts = std::vector<std::pair<std::string, long long>>;  // sorted by name
using FactValue = std::variant<bool, long long, double, std::string, FactCounts>;
using Facts = std::map<std::string, FactValue>;

// Whether `value` has the form of a fact of `kind`: share a number in [0, 1]; count a whole number
// >= 0; kb a number >= 0; text a string; counts names with whole numbers >= 0; flag true or false.
bool FitsKind(const FactValue& value, FactKind kind);

// The value of a JSON scalar, or of an object of whole numbers (counts); false for anything else.
template <class Json>
bool FactValueFromJson(const Json& j, FactValue* out) {
  if (j.is_boolean()) {
    *out = j.template get<bool>();
  } else if (j.is_number_integer()) {
    *out = j.template get<long long>();
  } else if (j.is_number_float()) {
    *out = j.template get<double>();
  } else if (j.is_string()) {
    *out = j.template get<std::string>();
  } else if (j.is_object()) {
    FactCounts counts;
    for (const auto& [name, n] : j.items()) {
      if (!n.is_number_integer()) return false;
      counts.emplace_back(name, n.template get<long long>());
    }
    *out = std::move(counts);  // items() of an object come sorted by key
  } else {
    return false;
  }
  return true;
}

// Reads an outcome's `facts` object: every key a fact of `facts` declares, every value of its
// kind. *problem says what is wrong otherwise.
template <class Json>
bool FactsFromJson(const Json& object, const std::vector<FactSpec>& facts, Facts* out, std::string* problem) {
  out->clear();
  if (!object.is_object()) {
    *problem = "'facts' is not an object";
    return false;
  }
  for (const auto& [id, value] : object.items()) {
    const FactSpec* spec = FindFact(facts, id);
    if (spec == nullptr) {
      *problem = "fact '" + std::string(id) + "' is not one its path declares";
      return false;
    }
    FactValue v;
    if (!FactValueFromJson(value, &v) || !FitsKind(v, spec->kind)) {
      *problem = "fact '" + std::string(id) + "' is not a value of kind " + std::string(FactKindId(spec->kind));
      return false;
    }
    (*out)[id] = std::move(v);
  }
  return true;
}

// The `facts` object as the snapshot writes it.
nlohmann::json FactsJson(const Facts& facts);

}  // namespace opsweep::snapshot
