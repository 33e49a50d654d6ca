#include "snapshot/snapshot_writer.h"

namespace opsweep::snapshot {

namespace {

using json = nlohmann::json;

json IdOrNull(const std::string& id) { return id.empty() ? json(nullptr) : json(id); }

json BreakJson(const GraphBreak& b) {
  json out = {{"reason", IdOrNull(b.reason)}, {"text", b.text}};
  if (!b.location.empty()) out["location"] = b.location;
  return out;
}

// The optional fields of an outcome: written only when they hold something, so a snapshot without
// them keeps its bytes.
void AddChecks(const std::map<std::string, CheckResult>& from, json* out) {
  if (from.empty()) return;
  json checks = json::object();
  for (const auto& [id, check] : from) checks[id] = CheckText(check);
  (*out)["checks"] = std::move(checks);
}

void AddNotes(const Outcome& o, json* out) {
  if (!o.notes.empty()) (*out)["notes"] = o.notes;
}

json SubOutcomeJson(const SubOutcome& o) {
  json out = {{"status", StatusId(o.status)}, {"step", o.step},   {"reason", IdOrNull(o.reason)},
              {"detail", o.detail},           {"error", o.error}, {"location", o.location}};
  AddChecks(o.checks, &out);
  return out;
}

json DynamicJson(const DynamicInfo& d) {
  json specialised = json::array();
  for (const DynamicDim& dim : d.specialised) specialised.push_back({{"name", dim.name}, {"kind", dim.kind}, {"why", dim.why}});
  return {{"shapes", d.shapes},
          {"trace", d.trace},
          {"specialised", specialised},
          {"recompiles", d.recompiles ? json(*d.recompiles) : json(nullptr)},
          {"guards", d.guards}};
}

json OutcomeJson(const Outcome& o) {
  json breaks = json::array();
  for (const GraphBreak& b : o.break_reasons) breaks.push_back(BreakJson(b));
  json out = {{"status", StatusId(o.status)},
              {"step", o.step},
              {"reason", IdOrNull(o.reason)},
              {"detail", o.detail},
              {"error", o.error},
              {"location", o.location},
              {"graph_breaks", o.graph_breaks ? json(*o.graph_breaks) : json(nullptr)},
              {"break_reasons", breaks},
              {"op_types", o.op_types}};
  AddChecks(o.checks, &out);
  AddNotes(o, &out);
  // A new runtime or opset adds a key here, not a column family; outcomes without any (other
  // paths, exports that failed) carry none, so earlier snapshots keep their bytes.
  if (!o.subverdicts.empty()) {
    json subs = json::object();
    for (const auto& [id, sub] : o.subverdicts) subs[id] = SubOutcomeJson(sub);
    out["subverdicts"] = subs;
  }
  // Only the dynamic-shape paths have it: the static outcomes keep their bytes.
  if (o.dynamic) out["dynamic"] = DynamicJson(*o.dynamic);
  // Only paths that declare facts have them: other outcomes keep their bytes.
  if (!o.facts.empty()) out["facts"] = FactsJson(o.facts);
  return out;
}

json RecordJson(const Record& r) {
  json paths = json::object();
  for (const auto& [id, outcome] : r.paths) paths[id] = OutcomeJson(outcome);
  json out = {{"name", r.name},         {"operator", r.operator_name}, {"variant", r.variant}, {"package", r.package},
              {"section", r.section},   {"group", r.group},            {"target", r.target},   {"note", r.note},
              {"tags", r.tags},         {"check", r.check},            {"api", r.api ? json(*r.api) : json(nullptr)},
              {"paths", paths}};
  if (r.api_uri) out["api_uri"] = *r.api_uri;  // only with a documenting page: older snapshots read unchanged
  return out;
}

}  // namespace

std::string WriteSnapshot(const Snapshot& s) {
  json reasons = json::object();
  for (const auto& [id, r] : s.reasons) {
    reasons[id] = {{"title", r.title}, {"cause", r.cause}, {"hint", r.hint}, {"component", r.component}};
  }
  json paths = json::array();
  for (const PathSpec& p : s.paths) paths.push_back(PathSpecSnapshotJson(p));
  json records = json::array();
  for (const Record& r : s.records) records.push_back(RecordJson(r));
  json root = {
      {"schema", s.schema},
      {"generated", s.generated},
      {"tool", {{"name", s.tool_name}, {"version", s.tool_version}}},
      {"library", {{"name", s.library_name}, {"version", s.library_version}, {"fingerprint", s.library_fingerprint}}},
      {"environment", s.environment},
      {"paths", paths},
      {"cross_references", s.cross_references},
      {"reasons", reasons},
      {"unclassified", s.unclassified},
      {"records", records},
  };
  if (!s.groups.empty()) root["groups"] = s.groups;
  return root.dump(2, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace) + "\n";
}

}  // namespace opsweep::snapshot
