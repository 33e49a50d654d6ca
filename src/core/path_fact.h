// A path's facts: what it found beyond its verdict that the page shows (a display field). The
// harness declares them in the path's description (python/opsweep/paths/facts.py, docs/formats.md
// section 1, `facts`); merge copies each fact's value from the record into the snapshot's outcome
// (snapshot/facts.h), and the page writes it (render/facts.h). Nothing in the engine names a fact:
// a new display field is one declaration in a path module.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsweep {

// The form of a fact's value, and how the page writes it. Persisted by id ("share", ...).
enum class FactKind {
  share,   // a number from 0 to 1, written as a percentage
  count,   // a whole number
  kb,      // a size in KiB
  text,    // a string
  counts,  // names with a whole number each ("aten.where.self x4")
  flag,    // true or false: only a filter of the page (the rows where the path is supported and it is set)
};

std::string_view FactKindId(FactKind kind);
std::optional<FactKind> ParseFactKind(std::string_view id);

struct FactSpec {
  std::string id;     // persisted: the snapshot's key and the filter's name; lowercase letters, digits, '_'
  std::string title;  // for the details and the filter: "share of the operators XNNPACK runs"
  FactKind kind = FactKind::text;
  std::string field;  // where the job record holds it: "executorch.delegated_share"
  std::string label;  // short, before the value in the path's cell ("XNNPACK"); "" unless `cell`
  bool cell = false;  // shown beside the verdict in the path's cell
  bool operator==(const FactSpec&) const = default;
};

// Reads a description's optional `facts` list (absent or null: none). Fails (*err starts with
// `where`) on a fact that is not an object, a missing or mistyped field, an unknown kind, an id
// that is not lowercase letters, digits and '_', an id listed twice, or a cell fact without a label
// or of kind flag.
bool ParseFactSpecs(const nlohmann::json& description, const std::string& where, std::vector<FactSpec>* out,
                    std::string* err);

// The list as descriptions carry it (keys sorted; `label` and `cell` only when set).
nlohmann::json FactSpecsJson(const std::vector<FactSpec>& facts);

// The fact with this id, or nullptr.
const FactSpec* FindFact(const std::vector<FactSpec>& facts, std::string_view id);

}  // namespace opsweep
