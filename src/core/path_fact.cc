#include "core/path_fact.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>

namespace opsweep {

namespace {

using json = nlohmann::json;

constexpr std::pair<FactKind, std::string_view> kKinds[] = {
    {FactKind::share, "share"}, {FactKind::count, "count"},   {FactKind::kb, "kb"},
    {FactKind::text, "text"},   {FactKind::counts, "counts"}, {FactKind::flag, "flag"},
};

bool IsFactId(std::string_view id) {
  if (id.empty() || !(id.front() >= 'a' && id.front() <= 'z')) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool Text(const json& j, const char* key, bool required, std::string* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return !required;
  if (!it->is_string()) return false;
  *out = it->get<std::string>();
  return !required || !out->empty();
}

}  // namespace

std::string_view FactKindId(FactKind kind) {
  for (const auto& [k, id] : kKinds) {
    if (k == kind) return id;
  }
  return "text";
}

std::optional<FactKind> ParseFactKind(std::string_view id) {
  for (const auto& [k, name] : kKinds) {
    if (name == id) return k;
  }
  return std::nullopt;
}

bool ParseFactSpecs(const json& description, const std::string& where, std::vector<FactSpec>* out, std::string* err) {
  out->clear();
  auto list = description.find("facts");
  if (list == description.end() || list->is_null()) return true;
  auto fail = [&](const std::string& problem) {
    *err = where + ": " + problem;
    return false;
  };
  if (!list->is_array()) return fail("'facts' is not a list");
  std::set<std::string> ids;
  for (const json& f : *list) {
    if (!f.is_object()) return fail("a fact is not an object");
    FactSpec fact;
    std::string kind;
    if (!Text(f, "id", true, &fact.id)) return fail("a fact's 'id' is missing or not a string");
    const std::string at = fmt::format("fact '{}'", fact.id);
    if (!IsFactId(fact.id)) return fail(at + ": an id is lowercase letters, digits and '_'");
    if (!Text(f, "title", true, &fact.title)) return fail(at + ": 'title' is missing or not a string");
    if (!Text(f, "field", true, &fact.field)) return fail(at + ": 'field' is missing or not a string");
    if (!Text(f, "kind", true, &kind)) return fail(at + ": 'kind' is missing or not a string");
    const auto parsed = ParseFactKind(kind);
    if (!parsed) return fail(fmt::format("{}: unknown kind '{}'", at, kind));
    fact.kind = *parsed;
    if (!Text(f, "label", false, &fact.label)) return fail(at + ": 'label' is not a string");
    if (auto cell = f.find("cell"); cell != f.end() && !cell->is_null()) {
      if (!cell->is_boolean()) return fail(at + ": 'cell' is not true or false");
      fact.cell = cell->get<bool>();
    }
    if (fact.cell && (fact.label.empty() || fact.kind == FactKind::flag)) {
      return fail(at + ": a cell fact needs a label and a value to show (not a flag)");
    }
    if (!ids.insert(fact.id).second) return fail(fmt::format("fact '{}' twice", fact.id));
    out->push_back(std::move(fact));
  }
  return true;
}

json FactSpecsJson(const std::vector<FactSpec>& facts) {
  json out = json::array();
  for (const FactSpec& f : facts) {
    json j = {{"id", f.id}, {"title", f.title}, {"kind", FactKindId(f.kind)}, {"field", f.field}};
    if (!f.label.empty()) j["label"] = f.label;
    if (f.cell) j["cell"] = true;
    out.push_back(std::move(j));
  }
  return out;
}

const FactSpec* FindFact(const std::vector<FactSpec>& facts, std::string_view id) {
  for (const FactSpec& f : facts) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

}  // namespace opsweep
