#include "store/results_text.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "util/hash.h"
#include "util/json_fields.h"

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

// A run's id in the store -> its number in the file (1..n, by start time).
using RunNumbers = std::map<long long, long long>;

// The runs something refers to, in start order, and their numbers. A case or result whose run the
// store lacks (a run deleted under it) would be written with no run, and skipped by every import:
// refuse, naming the first one, rather than write such a file.
bool NumberReferencedRuns(const ResultsContent& content, std::vector<const RunInfo*>* runs, RunNumbers* number,
                          std::string* err) {
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
  for (const RunInfo& r : content.runs) {
    if (referenced.count(r.id)) runs->push_back(&r);
  }
  std::sort(runs->begin(), runs->end(), [](const RunInfo* a, const RunInfo* b) {
    return a->started != b->started ? a->started < b->started : a->id < b->id;
  });
  for (size_t i = 0; i < runs->size(); ++i) (*number)[(*runs)[i]->id] = static_cast<long long>(i + 1);
  return true;
}

bool RunLines(const std::vector<const RunInfo*>& runs, const RunNumbers& number, std::vector<std::string>* lines,
              std::string* err) {
  for (const RunInfo* r : runs) {
    Json env, paths;
    if (!ParseText(r->env_json, fmt::format("run {}: env_json", r->id), &env, err) ||
        !ParseText(r->paths_json, fmt::format("run {}: paths_json", r->id), &paths, err)) {
      return false;
    }
    Json line;
    line["run"] = number.at(r->id);
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
    lines->push_back(Dump(line));
  }
  return true;
}

// The inventory, sorted by case name.
bool CaseLines(const std::vector<InventoryCase>& inventory, const RunNumbers& number, std::vector<std::string>* lines,
               std::string* err) {
  std::vector<const InventoryCase*> cases;
  for (const auto& c : inventory) cases.push_back(&c);
  std::sort(cases.begin(), cases.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  for (const InventoryCase* c : cases) {
    Json info;
    if (!ParseText(c->info_json, fmt::format("case '{}': info_json", c->name), &info, err)) return false;
    Json line;
    line["case"] = c->name;
    line["group"] = c->group;
    line["registry"] = c->registry;
    line["fingerprint"] = c->fingerprint;
    line["run"] = number.at(c->run_id);
    line["info"] = std::move(info);
    lines->push_back(Dump(line));
  }
  return true;
}

// Case identities (store/results_db.h), sorted, each once.
bool IdentityLines(std::vector<CaseIdentity> identities, std::vector<std::string>* lines, std::string* err) {
  std::sort(identities.begin(), identities.end(), [](const CaseIdentity& a, const CaseIdentity& b) {
    return std::tie(a.fingerprint, a.recipe, a.machine_json) < std::tie(b.fingerprint, b.recipe, b.machine_json);
  });
  identities.erase(std::unique(identities.begin(), identities.end()), identities.end());
  for (const CaseIdentity& id : identities) {
    Json machine;
    if (!ParseText(id.machine_json, fmt::format("case identity {}: machine", id.fingerprint), &machine, err)) return false;
    Json line;
    line["identity"] = id.fingerprint;
    line["recipe"] = id.recipe;
    line["machine"] = std::move(machine);
    lines->push_back(Dump(line));
  }
  return true;
}

// The results, sorted by case and path, their records' dependency maps replaced by "@<id>" and
// collected in *depsets (id -> the map, name -> digest).
bool ResultLines(const std::vector<StoredResult>& stored, const RunNumbers& number, std::vector<std::string>* lines,
                 std::map<std::string, Json>* depsets, std::string* err) {
  std::vector<const StoredResult*> results;
  for (const auto& r : stored) results.push_back(&r);
  std::sort(results.begin(), results.end(), [](const auto* a, const auto* b) {
    return a->case_name != b->case_name ? a->case_name < b->case_name : a->path < b->path;
  });
  for (const StoredResult* r : results) {
    Json key, record;
    std::string what = fmt::format("result {} / {}", r->case_name, r->path);
    if (!ParseText(r->key_fields_json, what + ": key_fields_json", &key, err) ||
        !ParseText(r->record_json, what + ": record_json", &record, err)) {
      return false;
    }
    InternDeps(&record, depsets);
    Json line;
    line["result"] = r->case_name;
    line["path"] = r->path;
    line["status"] = r->status;
    line["finished"] = r->finished;
    line["duration_s"] = r->duration_s;
    line["attempts"] = r->attempts;
    line["run"] = number.at(r->run_id);
    line["job_key"] = r->job_key;
    line["key"] = std::move(key);
    line["record"] = std::move(record);
    lines->push_back(Dump(line));
  }
  return true;
}

// Each distinct (name, digest) pair of the depsets once, with its id: a digest of the pair,
// shortened to kEntryIdChars unless two entries share the short id (then both keep it whole).
struct EntryTable {
  std::map<std::pair<std::string, std::string>, std::string> id_of;  // (name, value JSON) -> id
  std::map<std::string, const std::pair<std::string, std::string>*> by_id;  // id -> pair, sorted
};

void NameEntries(const std::map<std::string, Json>& depsets, EntryTable* table) {
  for (const auto& [id, map] : depsets) {
    for (auto it = map.begin(); it != map.end(); ++it) table->id_of.emplace(std::make_pair(it.key(), Dump(it.value())), "");
  }
  std::map<std::string, int> prefix_uses;
  for (auto& [e, id] : table->id_of) {
    id = HashHex(e.first + '\n' + e.second);  // the whole digest, shortened below
    prefix_uses[id.substr(0, kEntryIdChars)]++;
  }
  for (auto& [e, id] : table->id_of) {
    if (prefix_uses[id.substr(0, kEntryIdChars)] == 1) id.resize(kEntryIdChars);
    table->by_id.emplace(id, &e);
  }
}

// One `entry` line each, sorted by id.
void AppendEntryLines(const EntryTable& table, std::string* out) {
  for (const auto& [id, e] : table.by_id) {
    Json line;
    line["entry"] = id;
    line["name"] = e->first;
    line["value"] = Json::parse(e->second);
    *out += Dump(line) + "\n";
  }
}

// One `depset` line each, sorted by id, listing the ids of its entries in the map's order.
void AppendDepsetLines(const std::map<std::string, Json>& depsets, const EntryTable& table, std::string* out) {
  for (const auto& [id, map] : depsets) {
    Json refs = Json::array();
    for (auto it = map.begin(); it != map.end(); ++it) refs.push_back(table.id_of.at({it.key(), Dump(it.value())}));
    Json line;
    line["depset"] = id;
    line["entries"] = std::move(refs);
    *out += Dump(line) + "\n";
  }
}

void AppendLines(const std::vector<std::string>& lines, std::string* out) {
  for (const auto& l : lines) *out += l + "\n";
}

}  // namespace

bool WriteResultsText(const ResultsContent& content, std::string* out, std::string* err) {
  std::vector<const RunInfo*> runs;
  RunNumbers number;
  if (!NumberReferencedRuns(content, &runs, &number, err)) return false;
  std::vector<std::string> run_lines, case_lines, identity_lines, result_lines;
  std::map<std::string, Json> depsets;  // id -> the map (name -> digest)
  if (!RunLines(runs, number, &run_lines, err) || !CaseLines(content.inventory, number, &case_lines, err) ||
      !IdentityLines(content.identities, &identity_lines, err) ||
      !ResultLines(content.results, number, &result_lines, &depsets, err)) {
    return false;
  }
  EntryTable entries;
  NameEntries(depsets, &entries);

  Json header;
  header["format"] = kFormat;
  header["version"] = kResultsTextVersion;
  header["runs"] = run_lines.size();
  header["cases"] = case_lines.size();
  header["entries"] = entries.by_id.size();
  header["depsets"] = depsets.size();
  header["results"] = result_lines.size();
  // Written only where the file has identities, so the text of a store without them is as before.
  if (!identity_lines.empty()) header["identities"] = identity_lines.size();
  out->clear();
  *out += Dump(header) + "\n";
  AppendLines(run_lines, out);
  AppendLines(case_lines, out);
  AppendLines(identity_lines, out);
  AppendEntryLines(entries, out);
  AppendDepsetLines(depsets, entries, out);
  AppendLines(result_lines, out);
  return true;
}

namespace {

long long Int(const Json& j, const char* key, bool* ok) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    *ok = false;
    return 0;
  }
  return it->get<long long>();
}

enum class Shape { object, array };

const Json* Obj(const Json& j, const char* key, Shape shape, bool* ok) {
  auto it = j.find(key);
  if (it == j.end() || (shape == Shape::array ? !it->is_array() : !it->is_object())) {
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

// One line's warning: "line 7: <why>; skipped".
std::string Skipped(size_t number, const std::string& why) { return fmt::format("line {}: {}; skipped", number, why); }

// The reading of one file, line by line: what the lines so far declared (runs, entries, depsets),
// the results kept until every depset is known, and a warning for each line that cannot be used.
class TextReader {
 public:
  TextReader(ResultsContent* out, std::vector<std::string>* warnings) : out_(out), warnings_(warnings) {}

  // The first line: this format's header, of a version this build reads; its counts kept.
  bool ReadHeader(const Json& j, std::string* err) {
    bool ok = true;
    if (j.is_discarded() || !j.is_object() || Str(j, "format", &ok) != kFormat || !ok) {
      *err = "not an opsweep results text file (its first line is not the header)";
      return false;
    }
    version_ = Int(j, "version", &ok);
    if (!ok || version_ < 1) {
      *err = "the header has no valid version";
      return false;
    }
    if (version_ > kResultsTextVersion) {
      *err = fmt::format("version {} is newer than this build reads ({}); upgrade opsweep", version_,
                         kResultsTextVersion);
      return false;
    }
    for (const char* kind : {"runs", "cases", "entries", "depsets", "results", "identities"}) {
      bool has = true;
      long long n = Int(j, kind, &has);
      announced_[kind] = has ? n : -1;
    }
    return true;
  }

  // Any later line, by its kind (the key it has); results wait for ReadResults.
  void ReadLine(size_t number, Json j) {
    if (j.is_discarded() || !j.is_object()) {
      Skip(number, "not a JSON object");
    } else if (j.contains("result")) {
      result_lines_.emplace_back(number, std::move(j));
    } else if (j.contains("case")) {
      ReadCase(number, j);
    } else if (j.contains("identity")) {
      ReadIdentity(number, j);
    } else if (j.contains("entry")) {
      ReadEntry(number, j);
    } else if (j.contains("depset")) {
      ReadDepset(number, j);
    } else if (j.contains("run")) {
      ReadRun(number, j);
    } else {
      Skip(number, "a line of no known kind");
    }
  }

  // The results, in file order, once every depset is known; a later line for the same case and
  // path replaces an earlier one.
  void ReadResults() {
    std::map<std::pair<std::string, std::string>, size_t> seen;
    for (auto& [number, j] : result_lines_) ReadResult(number, &j, &seen);
  }

  // A warning for each kind of line the file holds fewer of than its header announced: a file cut
  // at a line boundary.
  void CheckAnnouncedCounts() {
    auto check = [&](const char* kind, size_t got) {
      long long want = announced_[kind];
      if (want >= 0 && static_cast<long long>(got) < want) {
        warnings_->push_back(
            fmt::format("the file holds {} of the {} {} its header announces (truncated?)", got, want, kind));
      }
    };
    check("runs", out_->runs.size());
    check("cases", out_->inventory.size());
    check("entries", entries_.size());
    check("depsets", depsets_.size());
    check("results", out_->results.size());
    check("identities", out_->identities.size());
  }

 private:
  void Skip(size_t number, const std::string& why) { warnings_->push_back(Skipped(number, why)); }

  void ReadCase(size_t number, const Json& j) {
    bool ok = true;
    InventoryCase c;
    c.name = Str(j, "case", &ok);
    c.group = Str(j, "group", &ok);
    c.registry = Str(j, "registry", &ok);
    c.fingerprint = Str(j, "fingerprint", &ok);
    c.run_id = Int(j, "run", &ok);
    const Json* info = Obj(j, "info", Shape::object, &ok);
    if (!ok) return Skip(number, "a case line without its fields");
    if (!runs_.count(c.run_id)) {
      return Skip(number, fmt::format("case '{}' refers to run {}, which the file lacks", c.name, c.run_id));
    }
    c.info_json = Dump(*info);
    out_->inventory.push_back(std::move(c));
  }

  void ReadIdentity(size_t number, const Json& j) {
    bool ok = true;
    CaseIdentity id;
    id.fingerprint = Str(j, "identity", &ok);
    id.recipe = Str(j, "recipe", &ok);
    const Json* machine = Obj(j, "machine", Shape::object, &ok);
    if (!ok || id.fingerprint.empty() || id.recipe.empty()) return Skip(number, "an identity line without its fields");
    id.machine_json = Dump(*machine);
    out_->identities.push_back(std::move(id));
  }

  void ReadEntry(size_t number, const Json& j) {
    bool ok = true;
    std::string id = Str(j, "entry", &ok);
    std::string name = Str(j, "name", &ok);
    if (!ok || !j.contains("value")) return Skip(number, "an entry line without its fields");
    entries_[id] = {std::move(name), j["value"]};
  }

  // Version 1: the map itself; version 2: the ids of its entry lines, in the map's order.
  void ReadDepset(size_t number, const Json& j) {
    bool ok = true;
    std::string id = Str(j, "depset", &ok);
    const Json* listed = Obj(j, "entries", version_ >= 2 ? Shape::array : Shape::object, &ok);
    if (!ok) return Skip(number, "a depset line without its fields");
    if (version_ < 2) {
      depsets_[id] = *listed;
      return;
    }
    Json map = Json::object();
    for (const Json& ref : *listed) {
      auto it = ref.is_string() ? entries_.find(ref.get<std::string>()) : entries_.end();
      if (it == entries_.end()) {
        const std::string missing = ref.is_string() ? ref.get<std::string>() : ref.dump();
        return Skip(number, fmt::format("depset {} refers to entry {}, which the file lacks before it", id, missing));
      }
      map[it->second.first] = it->second.second;
    }
    depsets_[id] = std::move(map);
  }

  void ReadRun(size_t number, const Json& j) {
    bool ok = true;
    RunInfo r;
    r.id = Int(j, "run", &ok);
    r.started = Str(j, "started", &ok);
    r.finished = Str(j, "finished", &ok);
    r.shard = Str(j, "shard", &ok);
    r.harness = Str(j, "harness", &ok);
    const Json* env = Obj(j, "env", Shape::object, &ok);
    const Json* paths = Obj(j, "paths", Shape::array, &ok);
    const Json* registries = Obj(j, "registries", Shape::array, &ok);
    if (!ok || runs_.count(r.id)) {
      return Skip(number, ok ? fmt::format("run {} listed twice", r.id) : "a run line without its fields");
    }
    r.env_json = Dump(*env);
    r.paths_json = Dump(*paths);
    r.registries_json = Dump(*registries);
    if (auto m = j.find("machine"); m != j.end() && m->is_object()) r.machine_json = Dump(*m);
    runs_.insert(r.id);
    out_->runs.push_back(std::move(r));
  }

  void ReadResult(size_t number, Json* j, std::map<std::pair<std::string, std::string>, size_t>* seen) {
    bool ok = true;
    StoredResult r;
    r.case_name = Str(*j, "result", &ok);
    r.path = Str(*j, "path", &ok);
    r.status = Str(*j, "status", &ok);
    r.finished = Str(*j, "finished", &ok);
    r.job_key = Str(*j, "job_key", &ok);
    r.attempts = static_cast<int>(Int(*j, "attempts", &ok));
    r.run_id = Int(*j, "run", &ok);
    auto duration = j->find("duration_s");
    if (duration == j->end() || !duration->is_number()) ok = false;
    const Json* key = Obj(*j, "key", Shape::object, &ok);
    Json* record = j->contains("record") && (*j)["record"].is_object() ? &(*j)["record"] : nullptr;
    if (!ok || record == nullptr) return Skip(number, "a result line without its fields");
    r.duration_s = duration->get<double>();
    if (!runs_.count(r.run_id)) {
      return Skip(number,
                  fmt::format("result {} / {} refers to run {}, which the file lacks", r.case_name, r.path, r.run_id));
    }
    std::string missing;
    if (!ExpandDeps(record, depsets_, &missing)) {
      return Skip(number, fmt::format("result {} / {} refers to depset {}, which the file lacks", r.case_name, r.path,
                                      missing));
    }
    r.key_fields_json = Dump(*key);
    r.record_json = Dump(*record);
    auto [it, fresh] = seen->emplace(std::make_pair(r.case_name, r.path), out_->results.size());
    if (!fresh) {
      Skip(number, fmt::format("result {} / {} listed twice (the later line wins)", r.case_name, r.path));
      out_->results[it->second] = std::move(r);
      return;
    }
    out_->results.push_back(std::move(r));
  }

  ResultsContent* out_;
  std::vector<std::string>* warnings_;
  long long version_ = 0;
  std::map<std::string, long long> announced_;  // kind -> the header's count, -1 when it has none
  std::set<long long> runs_;
  std::map<std::string, std::pair<std::string, Json>> entries_;  // id -> (name, value), version 2
  std::map<std::string, Json> depsets_;
  std::vector<std::pair<size_t, Json>> result_lines_;  // (line number, line)
};

}  // namespace

bool ReadResultsText(std::string_view bytes, ResultsContent* out, std::vector<std::string>* warnings, std::string* err) {
  *out = ResultsContent{};
  warnings->clear();
  if (bytes.empty()) {
    *err = "an empty file, not an opsweep results text file";
    return false;
  }
  TextReader reader(out, warnings);
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
    if (number > 1) {
      reader.ReadLine(number, std::move(j));
    } else if (!reader.ReadHeader(j, err)) {
      return false;
    }
  }
  reader.ReadResults();
  reader.CheckAnnouncedCounts();
  return true;
}

}  // namespace opsweep
