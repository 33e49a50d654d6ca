#include "merge/record_facts.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace opsweep {

namespace {

using json = nlohmann::json;

// The value at a dotted field of the record; nullptr when some part is missing.
const json* At(const json& record, std::string_view field) {
  const json* at = &record;
  while (!field.empty()) {
    const std::size_t dot = field.find('.');
    const std::string key(field.substr(0, dot));
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
    field = dot == std::string_view::npos ? std::string_view() : field.substr(dot + 1);
  }
  return at;
}

double Round(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

}  // namespace

snapshot::Facts FactsOfRecord(const std::vector<FactSpec>& facts, const json& record,
                              const std::function<std::string(const std::string&)>& clean) {
  snapshot::Facts out;
  for (const FactSpec& fact : facts) {
    const json* at = At(record, fact.field);
    snapshot::FactValue value;
    if (at == nullptr || at->is_null() || !snapshot::FactValueFromJson(*at, &value)) continue;
    if (auto* d = std::get_if<double>(&value)) {
      *d = Round(*d, fact.kind == FactKind::share ? 4 : 1);
    } else if (auto* text = std::get_if<std::string>(&value)) {
      *text = clean(*text);
    } else if (auto* counts = std::get_if<snapshot::FactCounts>(&value)) {
      for (auto& [name, n] : *counts) name = clean(name);
      std::sort(counts->begin(), counts->end());
    }
    if (snapshot::FitsKind(value, fact.kind)) out[fact.id] = std::move(value);
  }
  return out;
}

}  // namespace opsweep
