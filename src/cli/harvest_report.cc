#include "cli/harvest_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <vector>

namespace opsweep::cli {

namespace {

long long Count(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<long long>() : 0;
}

// "a, b, c and 4 more"
std::string Names(const nlohmann::json& names, size_t shown) {
  std::string out;
  size_t i = 0;
  for (const auto& n : names) {
    if (i == shown) break;
    std::string name = n.get<std::string>();
    if (!out.empty()) out += ", ";
    out += name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
    ++i;
  }
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

}  // namespace

std::string FormatHarvest(const nlohmann::json& s, const std::string& out_dir) {
  std::string out;
  const std::string version = s.value("version", "");
  out += fmt::format("{}{}: {} of {} public operators harvested\n", s.value("library", "?"),
                     version.empty() ? "" : " " + version, Count(s, "harvested"), Count(s, "operators"));
  const auto& by_source = s.contains("by_source") ? s["by_source"] : nlohmann::json::object();
  const auto& cases_by_source = s.contains("cases_by_source") ? s["cases_by_source"] : nlohmann::json::object();
  out += fmt::format("  {:<22}{}\n", "public operators", Count(s, "operators"));
  out += fmt::format("  {:<22}{}\n", "with >>> examples", Count(s, "with_examples"));
  out += fmt::format("  {:<22}{} (from docs {}, from tests {}), {} cases ({} from docs, {} from tests)\n", "harvested",
                     Count(s, "harvested"), Count(by_source, "docs"), Count(by_source, "tests"), Count(s, "cases"),
                     Count(cases_by_source, "docs"), Count(cases_by_source, "tests"));
  out += fmt::format("  {:<22}{}\n", "no example", Count(s, "no_example"));
  const auto& failed = s.contains("example_failed") ? s["example_failed"] : nlohmann::json::object();
  out += fmt::format("  {:<22}{}\n", "example failed", Count(failed, "count"));
  if (failed.contains("by_error")) {
    for (const auto& g : failed["by_error"]) {
      out += fmt::format("    {:>4}  {}  ({})\n", Count(g, "count"), g.value("error", ""), Names(g["operators"], 4));
    }
  }
  out += fmt::format("  {:<22}{}\n", "no tensor output", Count(s, "no_tensor_output"));
  if (s.contains("none_by_reason")) {
    std::string other;
    for (const auto& [reason, n] : s["none_by_reason"].items()) {
      if (reason == "no example" || reason == "example failed" || reason == "no tensor output") continue;
      if (!other.empty()) other += ", ";
      other += fmt::format("{} {}", reason, n.get<long long>());
    }
    if (!other.empty()) out += fmt::format("  {:<22}{}\n", "no case, other", other);
  }
  out += fmt::format("  {:<22}random (check=False) {}, measured tolerance {}, fresh-input opt-outs {}\n",
                     "checks set", Count(s, "random"), Count(s, "measured_tolerance"), Count(s, "fresh_opt_out"));
  const size_t dropped = s.contains("dropped") ? s["dropped"].size() : 0;
  if (dropped > 0) {
    out += fmt::format("  {:<22}{}\n", "dropped by the checks", dropped);
    size_t shown = 0;
    for (const auto& d : s["dropped"]) {
      if (shown++ == 5) {
        out += fmt::format("    ... and {} more (--json lists them)\n", dropped - 5);
        break;
      }
      out += fmt::format("    {}: {}\n", d.value("case", ""), d.value("why", ""));
    }
  }
  const size_t overridden = s.contains("overridden") ? s["overridden"].size() : 0;
  if (overridden > 0) out += fmt::format("  {:<22}{}\n", "overridden by hand", overridden);
  if (s.contains("test_failures") && !s["test_failures"].empty()) {
    out += fmt::format("  {:<22}{}\n", "tests cut off", s["test_failures"].size());
    for (const auto& t : s["test_failures"]) out += fmt::format("    {}: {}\n", t.value("test", ""), t.value("error", ""));
  }
  out += fmt::format("wrote {}/ (registries, harvest.pt, harvest.json)\n", out_dir);
  return out;
}

}  // namespace opsweep::cli
