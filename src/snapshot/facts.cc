#include "snapshot/facts.h"

namespace opsweep::snapshot {

namespace {

bool IsNumber(const FactValue& v, double* out) {
  if (const auto* i = std::get_if<long long>(&v)) {
    *out = static_cast<double>(*i);
    return true;
  }
  if (const auto* d = std::get_if<double>(&v)) {
    *out = *d;
    return true;
  }
  return false;
}

}  // namespace

bool FitsKind(const FactValue& value, FactKind kind) {
  double number = 0;
  switch (kind) {
    case FactKind::share:
      return IsNumber(value, &number) && number >= 0 && number <= 1;
    case FactKind::count:
      return std::holds_alternative<long long>(value) && std::get<long long>(value) >= 0;
    case FactKind::kb:
      return IsNumber(value, &number) && number >= 0;
    case FactKind::text:
      return std::holds_alternative<std::string>(value);
    case FactKind::counts:
      if (!std::holds_alternative<FactCounts>(value)) return false;
      for (const auto& [name, n] : std::get<FactCounts>(value)) {
        if (name.empty() || n < 0) return false;
      }
      return true;
    case FactKind::flag:
      return std::holds_alternative<bool>(value);
  }
  return false;
}

nlohmann::json FactsJson(const Facts& facts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, value] : facts) {
    std::visit(
        [&, &fact_id = id](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, FactCounts>) {
            nlohmann::json counts = nlohmann::json::object();
            for (const auto& [name, n] : v) counts[name] = n;
            out[fact_id] = std::move(counts);
          } else {
            out[fact_id] = v;
          }
        },
        value);
  }
  return out;
}

}  // namespace opsweep::snapshot
