#include "merge/survey.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "classify/rules.h"
#include "core/status.h"

namespace opsweep {

namespace {

using json = nlohmann::json;

constexpr size_t kNamedExamples = 5;

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "a, b, c and 4 more"
std::string Few(const std::vector<std::string>& items, size_t limit = kNamedExamples) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += fmt::format(" and {} more", items.size() - limit);
  return out;
}

// "1 case", "2 cases"
std::string Count(size_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "(none)" : out;
}

// The paths in canonical order: the reference's three first, then others by name.
std::vector<std::string> CanonicalPaths(const std::set<std::string>& paths) {
  std::vector<std::string> out;
  for (const char* p : {"onnx", "export", "compile"}) {
    if (paths.count(p)) out.push_back(p);
  }
  for (const auto& p : paths) {
    if (p != "onnx" && p != "export" && p != "compile") out.push_back(p);
  }
  return out;
}

std::string ValueText(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Checks one record; returns "" when it is fit for the snapshot.
std::string RecordProblem(const StoredResult& row, const json& record) {
  if (!record.is_object()) return "the record is not a JSON object";
  auto status = record.find("status");
  if (status == record.end() || !status->is_string()) return "the record has no status";
  std::string s = status->get<std::string>();
  if (!IsKnownStatus(s)) return fmt::format("unknown status '{}'", s);
  if (s != row.status) return fmt::format("status '{}' in the record but '{}' in its row", s, row.status);
  auto step = record.find("step");
  if (step != record.end() && !step->is_null()) {
    if (!step->is_string()) return "'step' is not a string";
    std::string st = step->get<std::string>();
    if (!st.empty() && !IsKnownStep(st)) return fmt::format("unknown step '{}'", st);
  }
  auto breaks = record.find("graph_breaks");
  if (breaks != record.end() && !breaks->is_null()) {
    if (!breaks->is_number_integer()) return fmt::format("graph_breaks is {} (must be a whole number, 0 or more)", breaks->dump());
    if (breaks->get<long long>() < 0) return fmt::format("graph_breaks is {} (must be 0 or more)", breaks->dump());
  }
  if (s == "ok-breaks" && (breaks == record.end() || breaks->is_null())) return "status ok-breaks without a graph_breaks count";
  auto reasons = record.find("break_reasons");
  if (reasons != record.end() && !reasons->is_null()) {
    if (!reasons->is_array()) return "break_reasons is not a list";
    for (const json& r : *reasons) {
      if (!r.is_string()) return "break_reasons holds something that is not text";
    }
  }
  auto error = record.find("error");
  if (error != record.end() && !error->is_null() && !error->is_object()) return "error is neither null nor an object";
  return "";
}

}  // namespace

bool IsSupportedStatus(std::string_view status) {
  return status == "ok" || status == "ok-breaks" || status == "ok-unverified";
}

bool LoadDbContents(const std::string& file, DbContents* out, std::string* err) {
  ResultsDb db;
  if (!db.Open(file, OpenMode::read_only, err)) return false;
  out->file = file;
  return db.LoadInventory(&out->inventory, err) && db.LoadRuns(&out->runs, err) && db.LoadResults(&out->results, err);
}

Survey JoinSurvey(const std::vector<DbContents>& dbs, const SurveyOptions& options) {
  Survey survey;
  survey.databases = dbs.size();
  if (dbs.empty()) {
    survey.problems.push_back("no results database to merge");
    return survey;
  }

  // Per database: its inventory (name -> fingerprint) and the paths its runs asked for.
  std::vector<std::map<std::string, std::string>> inventories(dbs.size());
  std::vector<std::set<std::string>> db_paths(dbs.size());
  std::map<std::pair<size_t, long long>, const RunInfo*> runs;
  std::set<std::string> all_paths;
  for (size_t i = 0; i < dbs.size(); ++i) {
    const DbContents& db = dbs[i];
    for (const RunInfo& run : db.runs) runs[{i, run.id}] = &run;
    if (db.inventory.empty()) {
      survey.problems.push_back(fmt::format("{}: has no inventory (no run got as far as loading the registries)", db.file));
      continue;
    }
    for (const InventoryCase& c : db.inventory) {
      inventories[i][c.name] = c.fingerprint;
      auto [it, fresh] = survey.cases.try_emplace(c.name);
      if (fresh) {
        it->second.inventory = c;
        json info = json::parse(c.info_json, nullptr, false);
        it->second.info = info.is_object() ? info : json::object();
      }
    }
    // The requested paths: every path any run of this database asked for.
    for (const RunInfo& run : db.runs) {
      json paths = json::parse(run.paths_json, nullptr, false);
      if (!paths.is_array()) {
        survey.problems.push_back(fmt::format("{}: run {} has no readable list of paths", db.file, run.id));
        continue;
      }
      for (const json& p : paths) {
        if (p.is_string()) db_paths[i].insert(p.get<std::string>());
      }
    }
    if (db_paths[i].empty()) survey.problems.push_back(fmt::format("{}: its runs name no paths", db.file));
    all_paths.insert(db_paths[i].begin(), db_paths[i].end());
  }
  survey.paths = CanonicalPaths(all_paths);

  // Shards must come from the same registries and probe the same paths.
  size_t first = dbs.size();
  for (size_t i = 0; i < dbs.size(); ++i) {
    if (!dbs[i].inventory.empty()) {
      first = i;
      break;
    }
  }
  for (size_t i = first + 1; i < dbs.size(); ++i) {
    if (dbs[i].inventory.empty()) continue;
    const auto& a = inventories[first];
    const auto& b = inventories[i];
    std::vector<std::string> only_a, only_b, changed;
    for (const auto& [name, fp] : a) {
      auto it = b.find(name);
      if (it == b.end()) only_a.push_back(name);
      else if (it->second != fp) changed.push_back(name);
    }
    for (const auto& [name, fp] : b) {
      if (!a.count(name)) only_b.push_back(name);
    }
    if (!only_a.empty() || !only_b.empty() || !changed.empty()) {
      std::vector<std::string> parts;
      if (!only_a.empty()) parts.push_back(fmt::format("{} only in {} ({})", Count(only_a.size(), "case"), dbs[first].file, Few(only_a)));
      if (!only_b.empty()) parts.push_back(fmt::format("{} only in {} ({})", only_b.size(), dbs[i].file, Few(only_b)));
      if (!changed.empty()) parts.push_back(fmt::format("{} defined differently ({})", changed.size(), Few(changed)));
      survey.problems.push_back(fmt::format("{} and {} come from different registries: {}", dbs[first].file, dbs[i].file, Join(parts)));
    }
    if (db_paths[i] != db_paths[first]) {
      survey.problems.push_back(fmt::format("{} and {} probed different paths: {} in {} but {} in {}", dbs[first].file,
                                            dbs[i].file, Join(CanonicalPaths(db_paths[first])), dbs[first].file,
                                            Join(CanonicalPaths(db_paths[i])), dbs[i].file));
    }
  }
  if (!options.expected_registries.empty()) {
    std::set<std::string> expected;
    for (const auto& r : options.expected_registries) expected.insert(BaseName(r));
    std::set<std::string> seen;
    for (const auto& [name, c] : survey.cases) seen.insert(BaseName(c.inventory.registry));
    std::vector<std::string> missing, extra;
    std::set_difference(expected.begin(), expected.end(), seen.begin(), seen.end(), std::back_inserter(missing));
    std::set_difference(seen.begin(), seen.end(), expected.begin(), expected.end(), std::back_inserter(extra));
    if (!missing.empty()) survey.problems.push_back(fmt::format("registries named by --registries but not surveyed: {}", Few(missing)));
    if (!extra.empty()) survey.problems.push_back(fmt::format("surveyed registries not named by --registries: {}", Few(extra)));
  }

  // Results: readable ones only, the later of duplicates, only for inventory cases and asked paths.
  std::set<std::string> asked(survey.paths.begin(), survey.paths.end());
  size_t stale = 0, unasked = 0;
  std::vector<std::string> bad_records;
  std::map<std::pair<std::string, std::string>, size_t> result_db;  // which database each result came from
  for (size_t i = 0; i < dbs.size(); ++i) {
    for (const StoredResult& row : dbs[i].results) {
      if (!survey.cases.count(row.case_name)) {
        ++stale;
        continue;
      }
      if (!asked.count(row.path)) {
        ++unasked;
        continue;
      }
      json record = json::parse(row.record_json, nullptr, false);
      std::string problem = record.is_discarded() ? "the record is not valid JSON" : RecordProblem(row, record);
      if (!problem.empty()) {
        bad_records.push_back(fmt::format("{}: {} / {}: {}", dbs[i].file, row.case_name, row.path, problem));
        continue;
      }
      auto key = std::make_pair(row.case_name, row.path);
      auto it = survey.results.find(key);
      if (it != survey.results.end()) {
        const StoredResult& old = it->second.row;
        bool later = row.finished > old.finished || (row.finished == old.finished && row.record_json > old.record_json);
        if (!later) continue;
      }
      survey.results[key] = SurveyResult{row, std::move(record), dbs[i].file};
      result_db[key] = i;
    }
  }
  for (const auto& line : bad_records) survey.problems.push_back(line);
  if (stale) survey.notes.push_back(fmt::format("left out {} stored results of cases that are no longer in the inventory", stale));
  if (unasked) survey.notes.push_back(fmt::format("left out {} stored results of paths that the runs did not ask for", unasked));

  // Environments: every key field but the case and the path must agree across all results.
  struct Seen {
    size_t count = 0;
    std::set<std::string> files;
  };
  std::map<std::string, std::map<std::string, Seen>> fields;  // field -> value -> where
  std::vector<std::string> unreadable_keys;
  for (const auto& [key, result] : survey.results) {
    json kf = json::parse(result.row.key_fields_json, nullptr, false);
    if (!kf.is_object()) {
      unreadable_keys.push_back(key.first + " / " + key.second);
      continue;
    }
    for (const auto& [field, value] : kf.items()) {
      if (field == "case" || field == "path") continue;
      Seen& seen = fields[field][ValueText(value)];
      ++seen.count;
      seen.files.insert(result.db_file);
    }
  }
  if (!unreadable_keys.empty()) {
    survey.problems.push_back(fmt::format("{} {} unreadable key fields: {}", Count(unreadable_keys.size(), "result"),
                                          unreadable_keys.size() == 1 ? "has" : "have", Few(unreadable_keys)));
  }
  for (const auto& [field, values] : fields) {
    size_t total = 0;
    for (const auto& [v, seen] : values) total += seen.count;
    bool differs = values.size() > 1 || total != survey.results.size() - unreadable_keys.size();
    if (!differs) continue;
    std::vector<std::string> parts;
    for (const auto& [value, seen] : values) {
      std::vector<std::string> files(seen.files.begin(), seen.files.end());
      parts.push_back(fmt::format("'{}' in {} ({})", value.size() > 80 ? value.substr(0, 77) + "..." : value,
                                  Count(seen.count, "result"), Few(files, 3)));
    }
    size_t missing = survey.results.size() - unreadable_keys.size() - total;
    if (missing) parts.push_back(fmt::format("missing in {}", Count(missing, "result")));
    survey.problems.push_back(fmt::format("results were measured under different environments: {} is {}", field, Join(parts)));
  }

  // Completeness: every inventory case has a result for every asked path.
  std::vector<std::string> missing;
  for (const auto& [name, c] : survey.cases) {
    for (const auto& path : survey.paths) {
      if (!survey.results.count({name, path})) missing.push_back(name + " / " + path);
    }
  }
  if (!missing.empty()) {
    survey.problems.push_back(fmt::format("the survey is incomplete: {} of {} jobs have no result ({}); finish it with "
                                          "`opsweep run` and merge again",
                                          missing.size(), survey.cases.size() * survey.paths.size(), Few(missing)));
  }

  // The header describes what the workers measured: the environment of the run of the newest result.
  const SurveyResult* newest = nullptr;
  for (const auto& [key, result] : survey.results) {
    if (!newest || result.row.finished > newest->row.finished) newest = &result;
  }
  const RunInfo* header_run = nullptr;
  if (newest) {
    survey.newest_finished = newest->row.finished;
    auto it = runs.find({result_db[{newest->row.case_name, newest->row.path}], newest->row.run_id});
    if (it != runs.end()) header_run = it->second;
  }
  if (!header_run) {
    for (size_t i = 0; i < dbs.size() && !header_run; ++i) {
      if (!dbs[i].runs.empty()) header_run = &dbs[i].runs.back();
    }
  }
  if (header_run) {
    json env = json::parse(header_run->env_json, nullptr, false);
    if (env.is_object()) {
      survey.env = env;
    } else {
      survey.problems.push_back("the run that measured the newest result has no readable environment (runs.env_json)");
    }
    if (survey.newest_finished.empty()) survey.newest_finished = header_run->started;
  } else {
    survey.problems.push_back("no run is recorded, so the measured environment is unknown");
  }
  return survey;
}

}  // namespace opsweep
