#include "core/inventory_diff.h"

#include <fmt/core.h>

#include <map>

namespace opsweep {

namespace {

constexpr std::size_t kFingerprintChars = 12;

std::string Short(const std::string& fingerprint) {
  return fingerprint.size() > kFingerprintChars ? fingerprint.substr(0, kFingerprintChars) + "..." : fingerprint;
}

std::map<std::string, const CaseEntry*> ByName(const std::vector<CaseEntry>& cases) {
  std::map<std::string, const CaseEntry*> out;
  for (const CaseEntry& c : cases) out.try_emplace(c.name, &c);  // the first of a repeated name
  return out;
}

}  // namespace

std::string DescribeInventoryDifference(const std::vector<CaseEntry>& a, std::string_view a_name,
                                        const std::vector<CaseEntry>& b, std::string_view b_name) {
  const auto in_a = ByName(a);
  const auto in_b = ByName(b);
  std::string first;
  std::size_t differing = 0;
  auto note = [&](std::string clause) {
    if (differing++ == 0) first = std::move(clause);
  };
  // In a's order, then the cases only b has, in b's order.
  for (const CaseEntry& c : a) {
    const auto other = in_b.find(c.name);
    if (other == in_b.end()) {
      note(fmt::format("case '{}' is in {}'s inventory but not in {}'s (did a registry change during the run?)", c.name,
                       a_name, b_name));
    } else if (other->second->fingerprint != c.fingerprint) {
      note(fmt::format("case '{}' has fingerprint {} in {} and {} in {} (does its registry draw random inputs "
                       "without a seed, or did it change during the run?)",
                       c.name, Short(c.fingerprint), a_name, Short(other->second->fingerprint), b_name));
    }
  }
  for (const CaseEntry& c : b) {
    if (in_a.find(c.name) == in_a.end()) {
      note(fmt::format("case '{}' is in {}'s inventory but not in {}'s (did a registry change during the run?)", c.name,
                       b_name, a_name));
    }
  }
  if (differing > 1) return fmt::format("{}; {} cases differ", first, differing);
  if (differing == 1) return first;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].name != b[i].name) {
      return fmt::format("the same cases in another order: case {} is '{}' in {} and '{}' in {}", i + 1, a[i].name,
                         a_name, b[i].name, b_name);
    }
  }
  if (a.size() != b.size()) {
    // Same names at every position of the shorter list: a name is repeated in the longer one.
    const bool a_longer = a.size() > b.size();
    const CaseEntry& extra = a_longer ? a[b.size()] : b[a.size()];
    return fmt::format("case '{}' is listed twice in {}'s inventory", extra.name, a_longer ? a_name : b_name);
  }
  return "";
}

}  // namespace opsweep
