#include "snapshot/snapshot_writer.h"

namespace opsweep::snapshot {

namespace {

using json = nlohmann::json;

json IdOrNull(const std::string& id) { return id.empty() ? json(nullptr) : json(id); }

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
  for (const GraphBreak& b : o.break_reasons) breaks.push_back({{"reason", IdOrNull(b.reason)}, {"text", b.text}});
  json out = {{"status", StatusId(o.status)},
              {"step", o.step},
              {"reason", IdOrNull(o.reason)},
              {"detail", o.detail},
              {"error", o.error},
              {"location", o.location},
              {"graph_breaks", o.graph_breaks ? json(*o.graph_breaks) : json(nullptr)},
              {"break_reasons", breaks},
              {"op_types", o.op_types}};
  // Only the dynamic-shape paths have it: the static outcomes keep their bytes.
  if (o.dynamic) out["dynamic"] = DynamicJson(*o.dynamic);
  return out;
}

json RecordJson(const Record& r) {
  json paths = json::object();
  for (const auto& [id, outcome] : r.paths) paths[id] = OutcomeJson(outcome);
  return {{"name", r.name},         {"operator", r.operator_name}, {"variant", r.variant}, {"package", r.package},
          {"section", r.section},   {"group", r.group},            {"target", r.target},   {"note", r.note},
          {"tags", r.tags},         {"check", r.check},            {"api", r.api ? json(*r.api) : json(nullptr)},
          {"paths", paths}};
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
  return root.dump(2, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace) + "\n";
}

}  // namespace opsweep::snapshot
