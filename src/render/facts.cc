#include "render/facts.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace opsweep::render {

namespace {

double Number(const snapshot::FactValue& value) {
  if (const auto* i = std::get_if<long long>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return 0;
}

std::string ShareText(double share) {
  if (share > 0 && share < 0.005) return "<1%";
  if (share < 1 && share >= 0.995) return ">99%";
  return fmt::format("{}%", static_cast<long long>(std::lround(share * 100)));
}

std::string CountsText(const snapshot::FactCounts& counts) {
  std::vector<std::pair<std::string, long long>> ordered(counts.begin(), counts.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < ordered.size() && i < kFactNames; ++i) {
    if (i > 0) out += ", ";
    out += ordered[i].first;
    if (ordered[i].second != 1) out += fmt::format(" \u00d7{}", ordered[i].second);
  }
  if (ordered.size() > kFactNames) out += fmt::format(" and {} more", ordered.size() - kFactNames);
  return out;
}

}  // namespace

std::string FactText(const FactSpec& fact, const snapshot::FactValue& value) {
  switch (fact.kind) {
    case FactKind::share:
      return ShareText(Number(value));
    case FactKind::count:
      return fmt::format("{}", static_cast<long long>(Number(value)));
    case FactKind::kb:
      return fmt::format("{:.1f} KiB", Number(value));
    case FactKind::text:
      return std::holds_alternative<std::string>(value) ? std::get<std::string>(value) : "";
    case FactKind::counts:
      return std::holds_alternative<snapshot::FactCounts>(value) ? CountsText(std::get<snapshot::FactCounts>(value)) : "";
    case FactKind::flag:
      return std::holds_alternative<bool>(value) && std::get<bool>(value) ? "yes" : "no";
  }
  return "";
}

std::vector<std::string> FactSentences(const std::vector<FactSpec>& facts, const snapshot::Facts& values) {
  std::vector<std::string> out;
  for (const FactSpec& fact : facts) {
    if (fact.kind == FactKind::flag) continue;
    auto it = values.find(fact.id);
    if (it == values.end()) continue;
    const std::string text = FactText(fact, it->second);
    if (!text.empty()) out.push_back(fact.title + ": " + text);
  }
  return out;
}

std::string CellFactText(const std::vector<FactSpec>& facts, const snapshot::Facts& values) {
  std::string out;
  for (const FactSpec& fact : facts) {
    if (!fact.cell) continue;
    auto it = values.find(fact.id);
    if (it == values.end()) continue;
    if (!out.empty()) out += ", ";
    out += fact.label + " " + FactText(fact, it->second);
  }
  return out;
}

std::string FlagFilterValue(std::string_view path_id, std::string_view fact_id) {
  return fmt::format("{}:flag:{}", path_id, fact_id);
}

std::vector<std::string> SetFlags(std::string_view path_id, const std::vector<FactSpec>& facts,
                                  const snapshot::Outcome& outcome) {
  std::vector<std::string> out;
  if (!IsSupported(outcome.status)) return out;
  for (const FactSpec& fact : facts) {
    if (fact.kind != FactKind::flag) continue;
    auto it = outcome.facts.find(fact.id);
    if (it != outcome.facts.end() && std::holds_alternative<bool>(it->second) && std::get<bool>(it->second)) {
      out.push_back(FlagFilterValue(path_id, fact.id));
    }
  }
  return out;
}

}  // namespace opsweep::render
