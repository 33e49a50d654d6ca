#include "cli/coverage_report.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <string>
#include <vector>

#include "util/json_fields.h"

namespace opsweep::cli {

namespace {

size_t Size(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? it->size() : 0;
}

double Share(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The last part of a name under its module: "PinholeCamera.project" for a method, "rgb_to_gray" for a function.
std::string Leaf(const nlohmann::json& row) {
  const std::string name = Str(row, "name");
  const std::string module = Str(row, "module");
  if (!module.empty() && name.size() > module.size() + 1 && name.compare(0, module.size() + 1, module + ".") == 0)
    return name.substr(module.size() + 1);
  return name;
}

// Rows grouped by their module, modules sorted, rows in report order (sorted by name). The detail
// is the row's `detail_key`, else its `fallback_key` (when given).
void ByModule(std::string* out, const char* title, const nlohmann::json& rows, const char* detail_key,
              const char* fallback_key = nullptr) {
  if (!rows.is_array() || rows.empty()) return;
  std::map<std::string, std::vector<const nlohmann::json*>> groups;
  for (const auto& r : rows) groups[Str(r, "module")].push_back(&r);
  *out += fmt::format("\n{} ({}), by module:\n", title, rows.size());
  for (const auto& [module, members] : groups) {
    *out += fmt::format("  {}\n", module.empty() ? "(top level)" : module);
    for (const auto* r : members) {
      std::string detail = Str(*r, detail_key);
      if (detail.empty() && fallback_key != nullptr) detail = Str(*r, fallback_key);
      if (detail.empty())
        *out += fmt::format("    {}\n", Leaf(*r));
      else
        *out += fmt::format("    {:<44} {}\n", Leaf(*r), detail);
    }
  }
}

// The cases that reach no public operator: name, registry, target and why, in report order.
void UnmatchedCases(std::string* out, const nlohmann::json& rows) {
  if (!rows.is_array() || rows.empty()) return;
  *out += fmt::format("\nCases that reach no public operator ({}): they run, but cover nothing\n", rows.size());
  for (const auto& r : rows)
    *out += fmt::format("  {:<44} {}: {}\n", fmt::format("{} ({})", Str(r, "case"), Str(r, "registry")),
                        Str(r, "target"), Str(r, "why"));
}

}  // namespace

std::string FormatCoverage(const nlohmann::json& report, const std::string& library) {
  std::string out;
  const std::string lib = report.value("library", library);
  const int total = report.value("total", 0);
  const int covered = report.value("covered", 0);
  const size_t skipped = Size(report, "skipped");
  const size_t listed = Size(report, "not_surveyed");
  const size_t missing = Size(report, "missing");
  out += fmt::format("{}: {} of {} public operators have a case ({:.1f}%): {} probed ({:.1f}%), {} skipped with a reason\n",
                     lib, covered + static_cast<int>(skipped), total, 100.0 * Share(report, "share"), covered,
                     100.0 * Share(report, "probed_share"), skipped);
  out += fmt::format("  {} listed as not surveyed (with a reason), {} with neither; {} cases in all\n", listed, missing,
                     report.value("cases", 0));
  if (report.contains("covered_by_source") && report["covered_by_source"].is_object() &&
      !report["covered_by_source"].empty()) {
    std::vector<std::string> parts;
    for (const auto& [source, n] : report["covered_by_source"].items())
      if (n.is_number_integer()) parts.push_back(fmt::format("{} {}", n.get<int>(), source));
    out += fmt::format("  probed operators by where their cases come from: {}\n", fmt::join(parts, ", "));
  }
  if (Size(report, "unmatched_cases") > 0)
    out += fmt::format("  {} cases reach no public operator (listed at the end)\n", Size(report, "unmatched_cases"));
  const auto depth = report.find("depth");
  const std::string walked =
      depth != report.end() && depth->is_number_integer() ? fmt::format("depth <= {}", depth->get<int>()) : "any depth";
  if (report.contains("modules"))
    out += fmt::format("  {} public modules walked ({})\n", report.value("modules", 0), walked);
  if (report.contains("by_kind") && report["by_kind"].is_object() && !report["by_kind"].empty()) {
    std::vector<std::string> parts;
    for (const auto& [kind, n] : report["by_kind"].items())
      parts.push_back(fmt::format("{} {}{}", n.get<int>(), kind, !kind.empty() && kind.back() == 's' ? "es" : "s"));
    out += fmt::format("  counted: {}\n", fmt::join(parts, ", "));
  }
  if (Size(report, "not_operators") > 0) {
    std::map<std::string, int> kinds;
    for (const auto& t : report["not_operators"]) ++kinds[t.value("kind", "type")];
    std::vector<std::string> parts;
    for (const auto& [kind, n] : kinds) parts.push_back(fmt::format("{} {}", n, kind));
    out += fmt::format("  not counted: {} public names that are not operators ({}); --json lists them\n",
                       Size(report, "not_operators"), fmt::join(parts, ", "));
  }
  if (report.contains("by_package") && report["by_package"].is_object() && !report["by_package"].empty()) {
    out += fmt::format("\nBy package:\n  {:<28} {:>6} {:>7} {:>8} {:>7} {:>8} {:>8}\n", "package", "total", "probed",
                       "skipped", "listed", "missing", "probed%");
    for (const auto& [pkg, c] : report["by_package"].items()) {
      const int t = c.value("total", 0);
      const int p = c.value("covered", 0);
      out += fmt::format("  {:<28} {:>6} {:>7} {:>8} {:>7} {:>8} {:>7.1f}%\n", pkg, t, p, c.value("skipped", 0),
                         c.value("not_surveyed", 0), c.value("missing", 0), t ? 100.0 * p / t : 100.0);
    }
  }
  ByModule(&out, "Skipped (a case with a skip reason)", report.value("skipped", nlohmann::json::array()), "reason");
  ByModule(&out, "Not surveyed (NOT_SURVEYED in a registry)", report.value("not_surveyed", nlohmann::json::array()),
           "reason");
  ByModule(&out, "No case yet", report.value("missing", nlohmann::json::array()), "why", "kind");
  UnmatchedCases(&out, report.value("unmatched_cases", nlohmann::json::array()));
  return out;
}

std::vector<std::string> CoverageWarnings(const nlohmann::json& report, const std::string& library) {
  std::vector<std::string> out;
  const std::string lib = report.value("library", library);
  if (report.contains("stale_not_surveyed") && report["stale_not_surveyed"].is_array())
    for (const auto& n : report["stale_not_surveyed"])
      if (n.is_string())
        out.push_back(fmt::format("NOT_SURVEYED lists '{}', which is not a public operator of {}", n.get<std::string>(), lib));
  if (report.contains("unimportable") && report["unimportable"].is_array())
    for (const auto& u : report["unimportable"])
      out.push_back(fmt::format("module {} could not be imported ({}): its names are not counted", Str(u, "module"),
                                Str(u, "error")));
  return out;
}

std::vector<std::string> FailedGates(const nlohmann::json& report, const CoverageGates& gates) {
  std::vector<std::string> out;
  const double share = 100.0 * Share(report, "share");
  const double probed = 100.0 * Share(report, "probed_share");
  if (share + 1e-9 < gates.min_percent)
    out.push_back(fmt::format("{:.1f}% have a case, below --min {:.1f}%", share, gates.min_percent));
  if (probed + 1e-9 < gates.min_probed_percent)
    out.push_back(fmt::format("{:.1f}% have a probed case, below --min-probed {:.1f}%", probed, gates.min_probed_percent));
  return out;
}

}  // namespace opsweep::cli
