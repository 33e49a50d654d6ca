#include "store/results_text.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "util/hash.h"

namespace opsweep {

namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kFormat = "opsweep-results-text";

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

bool ParseText(const std::string& text, const std::string& what, Json* out, std::string* err) {
  *out = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) {
    *err = fmt::format("{} is not JSON", what);
    return false;
  }
  return true;
}

// The file names of a run's registries ("" entries for what is not a string).
Json RegistryNames(const std::string& registries_json) {
  Json list = Json::parse(registries_json, nullptr, false);
  Json out = Json::array();
  if (!list.is_array()) return out;
  for (const Json& r : list) {
    std::string s = r.is_string() ? r.get<std::string>() : "";
    out.push_back(s.substr(s.find_last_of('/') == std::string::npos ? 0 : s.find_last_of('/') + 1));
  }
  return out;
}

// Replaces record.deps.functions / .modules by "@<id>", collecting the maps.
void InternDeps(Json* record, std::map<std::string, Json>* depsets) {
  if (!record->is_object()) return;
  auto deps = record->find("deps");
  if (deps == record->end() || !deps->is_object()) return;
  for (const char* field : {"functions", "modules"}) {
    auto map = deps->find(field);
    if (map == deps->end() || !map->is_object() || map->empty()) continue;
    std::string id = HashHex(Dump(*map)).substr(0, 16);
    depsets->emplace(id, *map);
    *map = "@" + id;
  }
}

}  // namespace

bool WriteResultsText(const ResultsContent& content, std::string* out, std::string* err) {
  // A case or result whose run the store lacks (a run deleted under it) would be written with no
  // run, and skipped by every import: refuse, naming the first one, rather than write such a file.
  std::set<long long> held, referenced;
  for (const RunInfo& r : content.runs) held.insert(r.id);
  for (const auto& c : content.inventory) {
    if (!held.count(c.run_id)) {
      *err = fmt::format("the store is inconsistent: case '{}' refers to run {}, which it does not hold", c.name,
                         c.run_id);
      return false;
    }
    referenced.insert(c.run_id);
  }
  for (const auto& r : content.results) {
    if (!held.count(r.run_id)) {
      *err = fmt::format("the store is inconsistent: result {} / {} refers to run {}, which it does not hold",
                         r.case_name, r.path, r.run_id);
      return false;
    }
    referenced.insert(r.run_id);
  }
  std::vector<const RunInfo*> runs;
  for (const RunInfo& r : content.runs) {
    if (referenced.count(r.id)) runs.push_back(&r);
  }
  std::sort(runs.begin(), runs.end(), [](const RunInfo* a, const RunInfo* b) {
    return a->started != b->started ? a->started < b->started : a->id < b->id;
  });
  std::map<long long, long long> number;
  for (size_t i = 0; i < runs.size(); ++i) number[runs[i]->id] = static_cast<long long>(i + 1);
  auto run_of = [&](long long id) { return number.at(id); };

  std::vector<std::string> run_lines, case_lines, result_lines;
  for (const RunInfo* r : runs) {
    Json env, paths;
    if (!ParseText(r->env_json, fmt::format("run {}: env_json", r->id), &env, err) ||
        !ParseText(r->paths_json, fmt::format("run {}: paths_json", r->id), &paths, err)) {
      return false;
    }
    Json line;
    line["run"] = run_of(r->id);
    line["started"] = r->started;
    line["finished"] = r->finished;
    line["shard"] = r->shard;
    line["harness"] = r->harness;
    line["registries"] = RegistryNames(r->registries_json);
    line["env"] = std::move(env);
    line["paths"] = std::move(paths);
    // The machine is written when known (runs of schema 2 have none), so older files stay valid.
    Json machine = Json::parse(r->machine_json, nullptr, false);
    if (machine.is_object()) line["machine"] = std::move(machine);
    run_lines.push_back(Dump(line));
  }

  std::vector<const InventoryCase*> cases;
  for (const auto& c : content.inventory) cases.push_back(&c);
  std::sort(cases.begin(), cases.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  for (const InventoryCase* c : cases) {
    Json info;
    if (!ParseText(c->info_json, fmt::format("case '{}': info_json", c->name), &info, err)) return false;
    Json line;
    line["case"] = c->name;
    line["group"] = c->group;
    line["registry"] = c->registry;
    line["fingerprint"] = c->fingerprint;
    line["run"] = run_of(c->run_id);
    line["info"] = std::move(info);
    case_lines.push_back(Dump(line));
  }

  // Case identities (store/results_db.h), sorted; written only where the file has some, so the
  // text of a store without them is as before.
  std::vector<CaseIdentity> identities = content.identities;
  std::sort(identities.begin(), identities.end(), [](const CaseIdentity& a, const CaseIdentity& b) {
    return std::tie(a.fingerprint, a.recipe, a.machine_json) < std::tie(b.fingerprint, b.recipe, b.machine_json);
  });
  identities.erase(std::unique(identities.begin(), identities.end()), identities.end());
  std::vector<std::string> identity_lines;
  for (const CaseIdentity& id : identities) {
    Json machine;
    if (!ParseText(id.machine_json, fmt::format("case identity {}: machine", id.fingerprint), &machine, err)) return false;
    Json line;
    line["identity"] = id.fingerprint;
    line["recipe"] = id.recipe;
    line["machine"] = std::move(machine);
    identity_lines.push_back(Dump(line));
  }

  std::vector<const StoredResult*> results;
  for (const auto& r : content.results) results.push_back(&r);
  std::sort(results.begin(), results.end(), [](const auto* a, const auto* b) {
    return a->case_name != b->case_name ? a->case_name < b->case_name : a->path < b->path;
  });
  std::map<std::string, Json> depsets;  // id -> the map (name -> digest)
  for (const StoredResult* r : results) {
    Json key, record;
    std::string what = fmt::format("result {} / {}", r->case_name, r->path);
    if (!ParseText(r->key_fields_json, what + ": key_fields_json", &key, err) ||
        !ParseText(r->record_json, what + ": record_json", &record, err)) {
      return false;
    }
    InternDeps(&record, &depsets);
    Json line;
    line["result"] = r->case_name;
    line["path"] = r->path;
    line["status"] = r->status;
    line["finished"] = r->finished;
    line["duration_s"] = r->duration_s;
    line["attempts"] = r->attempts;
    line["run"] = run_of(r->run_id);
    line["job_key"] = r->job_key;
    line["key"] = std::move(key);
    line["record"] = std::move(record);
    result_lines.push_back(Dump(line));
  }

  // Each distinct (name, digest) pair of the depsets once, as an `entry` line; a depset lists the
  // ids of its entries in the map's order.
  std::map<std::pair<std::string, std::string>, std::string> entry_id;  // (name, value JSON) -> id
  for (const auto& [id, map] : depsets) {
    for (auto it = map.begin(); it != map.end(); ++it) entry_id.emplace(std::make_pair(it.key(), Dump(it.value())), "");
  }
  std::map<std::string, int> prefix_uses;
  for (auto& [e, id] : entry_id) {
    id = HashHex(e.first + '\n' + e.second);  // the whole digest, shortened below
    prefix_uses[id.substr(0, kEntryIdChars)]++;
  }
  std::map<std::string, const std::pair<std::string, std::string>*> entries;  // id -> pair, sorted
  for (auto& [e, id] : entry_id) {
    // the short id unless two entries share it (then both keep the whole digest)
    if (prefix_uses[id.substr(0, kEntryIdChars)] == 1) id.resize(kEntryIdChars);
    entries.emplace(id, &e);
  }

  Json header;
  header["format"] = kFormat;
  header["version"] = kResultsTextVersion;
  header["runs"] = run_lines.size();
  header["cases"] = case_lines.size();
  header["entries"] = entries.size();
  header["depsets"] = depsets.size();
  header["results"] = result_lines.size();
  if (!identity_lines.empty()) header["identities"] = identity_lines.size();
  out->clear();
  *out += Dump(header) + "\n";
  for (const auto& l : run_lines) *out += l + "\n";
  for (const auto& l : case_lines) *out += l + "\n";
  for (const auto& l : identity_lines) *out += l + "\n";
  for (const auto& [id, e] : entries) {
    Json line;
    line["entry"] = id;
    line["name"] = e->first;
    line["value"] = Json::parse(e->second);
    *out += Dump(line) + "\n";
  }
  for (const auto& [id, map] : depsets) {
    Json refs = Json::array();
    for (auto it = map.begin(); it != map.end(); ++it) refs.push_back(entry_id.at({it.key(), Dump(it.value())}));
    Json line;
    line["depset"] = id;
    line["entries"] = std::move(refs);
    *out += Dump(line) + "\n";
  }
  for (const auto& l : result_lines) *out += l + "\n";
  return true;
}

namespace {

std::string Str(const Json& j, const char* key, bool* ok) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) {
    *ok = false;
    return "";
  }
  return it->get<std::string>();
}

long long Int(const Json& j, const char* key, bool* ok) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    *ok = false;
    return 0;
  }
  return it->get<long long>();
}

const Json* Obj(const Json& j, const char* key, bool array, bool* ok) {
  auto it = j.find(key);
  if (it == j.end() || (array ? !it->is_array() : !it->is_object())) {
    *ok = false;
    return nullptr;
  }
  return &*it;
}

// Expands "@<id>" maps of record.deps; false when one is missing.
bool ExpandDeps(Json* record, const std::map<std::string, Json>& depsets, std::string* missing) {
  auto deps = record->find("deps");
  if (deps == record->end() || !deps->is_object()) return true;
  for (const char* field : {"functions", "modules"}) {
    auto map = deps->find(field);
    if (map == deps->end() || !map->is_string()) continue;
    std::string ref = map->get<std::string>();
    auto it = ref.size() > 1 && ref[0] == '@' ? depsets.find(ref.substr(1)) : depsets.end();
    if (it == depsets.end()) {
      *missing = ref;
      return false;
    }
    *map = it->second;
  }
  return true;
}

}  // namespace

bool ReadResultsText(std::string_view bytes, ResultsContent* out, std::vector<std::string>* warnings, std::string* err) {
  *out = ResultsContent{};
  warnings->clear();
  if (bytes.empty()) {
    *err = "an empty file, not an opsweep results text file";
    return false;
  }
  std::map<long long, bool> runs;
  long long version = 0;
  std::map<std::string, std::pair<std::string, Json>> entries;  // id -> (name, value), version 2
  std::map<std::string, Json> depsets;
  std::vector<std::pair<size_t, Json>> result_lines;  // resolved once every depset is known
  std::map<std::string, long long> announced;
  size_t start = 0, number = 0;
  while (start < bytes.size()) {
    ++number;
    size_t end = bytes.find('\n', start);
    if (end == std::string_view::npos) {
      if (number == 1) {
        *err = "not an opsweep results text file (its first line is incomplete)";
        return false;
      }
      warnings->push_back(fmt::format("line {}: incomplete (the file ends without a newline: truncated?); skipped",
                                      number));
      break;
    }
    std::string_view text = bytes.substr(start, end - start);
    start = end + 1;
    Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (number == 1) {
      bool ok = true;
      if (j.is_discarded() || !j.is_object() || Str(j, "format", &ok) != kFormat || !ok) {
        *err = "not an opsweep results text file (its first line is not the header)";
        return false;
      }
      version = Int(j, "version", &ok);
      if (!ok || version < 1) {
        *err = "the header has no valid version";
        return false;
      }
      if (version > kResultsTextVersion) {
        *err = fmt::format("version {} is newer than this build reads ({}); upgrade opsweep", version,
                           kResultsTextVersion);
        return false;
      }
      for (const char* kind : {"runs", "cases", "entries", "depsets", "results", "identities"}) {
        bool has = true;
        long long n = Int(j, kind, &has);
        announced[kind] = has ? n : -1;
      }
      continue;
    }
    auto skip = [&](const std::string& why) { warnings->push_back(fmt::format("line {}: {}; skipped", number, why)); };
    if (j.is_discarded() || !j.is_object()) {
      skip("not a JSON object");
      continue;
    }
    bool ok = true;
    if (j.contains("result")) {
      result_lines.emplace_back(number, std::move(j));
    } else if (j.contains("case")) {
      InventoryCase c;
      c.name = Str(j, "case", &ok);
      c.group = Str(j, "group", &ok);
      c.registry = Str(j, "registry", &ok);
      c.fingerprint = Str(j, "fingerprint", &ok);
      c.run_id = Int(j, "run", &ok);
      const Json* info = Obj(j, "info", false, &ok);
      if (!ok) {
        skip("a case line without its fields");
        continue;
      }
      if (!runs.count(c.run_id)) {
        skip(fmt::format("case '{}' refers to run {}, which the file lacks", c.name, c.run_id));
        continue;
      }
      c.info_json = Dump(*info);
      out->inventory.push_back(std::move(c));
    } else if (j.contains("identity")) {
      CaseIdentity id;
      id.fingerprint = Str(j, "identity", &ok);
      id.recipe = Str(j, "recipe", &ok);
      const Json* machine = Obj(j, "machine", false, &ok);
      if (!ok || id.fingerprint.empty() || id.recipe.empty()) {
        skip("an identity line without its fields");
        continue;
      }
      id.machine_json = Dump(*machine);
      out->identities.push_back(std::move(id));
    } else if (j.contains("entry")) {
      std::string id = Str(j, "entry", &ok);
      std::string name = Str(j, "name", &ok);
      if (!ok || !j.contains("value")) {
        skip("an entry line without its fields");
        continue;
      }
      entries[id] = {std::move(name), j["value"]};
    } else if (j.contains("depset")) {
      std::string id = Str(j, "depset", &ok);
      // version 1: the map itself; version 2: the ids of its entry lines, in the map's order
      const Json* listed = Obj(j, "entries", version >= 2, &ok);
      if (!ok) {
        skip("a depset line without its fields");
        continue;
      }
      if (version < 2) {
        depsets[id] = *listed;
        continue;
      }
      Json map = Json::object();
      std::string missing;
      for (const Json& ref : *listed) {
        auto it = ref.is_string() ? entries.find(ref.get<std::string>()) : entries.end();
        if (it == entries.end()) {
          missing = ref.is_string() ? ref.get<std::string>() : ref.dump();
          break;
        }
        map[it->second.first] = it->second.second;
      }
      if (!missing.empty()) {
        skip(fmt::format("depset {} refers to entry {}, which the file lacks before it", id, missing));
        continue;
      }
      depsets[id] = std::move(map);
    } else if (j.contains("run")) {
      RunInfo r;
      r.id = Int(j, "run", &ok);
      r.started = Str(j, "started", &ok);
      r.finished = Str(j, "finished", &ok);
      r.shard = Str(j, "shard", &ok);
      r.harness = Str(j, "harness", &ok);
      const Json* env = Obj(j, "env", false, &ok);
      const Json* paths = Obj(j, "paths", true, &ok);
      const Json* registries = Obj(j, "registries", true, &ok);
      if (!ok || runs.count(r.id)) {
        skip(ok ? fmt::format("run {} listed twice", r.id) : "a run line without its fields");
        continue;
      }
      r.env_json = Dump(*env);
      r.paths_json = Dump(*paths);
      r.registries_json = Dump(*registries);
      if (auto m = j.find("machine"); m != j.end() && m->is_object()) r.machine_json = Dump(*m);
      runs[r.id] = true;
      out->runs.push_back(std::move(r));
    } else {
      skip("a line of no known kind");
    }
  }
  std::map<std::pair<std::string, std::string>, size_t> seen;
  for (auto& [line, j] : result_lines) {
    bool ok = true;
    StoredResult r;
    r.case_name = Str(j, "result", &ok);
    r.path = Str(j, "path", &ok);
    r.status = Str(j, "status", &ok);
    r.finished = Str(j, "finished", &ok);
    r.job_key = Str(j, "job_key", &ok);
    r.attempts = static_cast<int>(Int(j, "attempts", &ok));
    r.run_id = Int(j, "run", &ok);
    auto duration = j.find("duration_s");
    if (duration == j.end() || !duration->is_number()) ok = false;
    const Json* key = Obj(j, "key", false, &ok);
    Json* record = j.contains("record") && j["record"].is_object() ? &j["record"] : nullptr;
    auto skip = [&, line = line](const std::string& why) {
      warnings->push_back(fmt::format("line {}: {}; skipped", line, why));
    };
    if (!ok || record == nullptr) {
      skip("a result line without its fields");
      continue;
    }
    r.duration_s = duration->get<double>();
    if (!runs.count(r.run_id)) {
      skip(fmt::format("result {} / {} refers to run {}, which the file lacks", r.case_name, r.path, r.run_id));
      continue;
    }
    std::string missing;
    if (!ExpandDeps(record, depsets, &missing)) {
      skip(fmt::format("result {} / {} refers to depset {}, which the file lacks", r.case_name, r.path, missing));
      continue;
    }
    r.key_fields_json = Dump(*key);
    r.record_json = Dump(*record);
    auto [it, fresh] = seen.emplace(std::make_pair(r.case_name, r.path), out->results.size());
    if (!fresh) {
      skip(fmt::format("result {} / {} listed twice (the later line wins)", r.case_name, r.path));
      out->results[it->second] = std::move(r);
      continue;
    }
    out->results.push_back(std::move(r));
  }
  auto check = [&](const char* kind, size_t got) {
    long long want = announced[kind];
    if (want >= 0 && static_cast<long long>(got) < want) {
      warnings->push_back(fmt::format("the file holds {} of the {} {} its header announces (truncated?)", got, want, kind));
    }
  };
  check("runs", out->runs.size());
  check("cases", out->inventory.size());
  check("entries", entries.size());
  check("depsets", depsets.size());
  check("results", out->results.size());
  check("identities", out->identities.size());
  return true;
}

}  // namespace opsweep
