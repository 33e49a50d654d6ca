#include "merge/survey.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "core/plan.h"
#include "core/status.h"
#include "snapshot/checks.h"
#include "store/results_text.h"
#include "util/read_file.h"

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

std::string ValueText(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// What the passes share besides the survey they fill.
struct JoinState {
  std::vector<std::map<std::string, std::string>> inventories;  // per database: case -> fingerprint
  std::vector<std::set<std::string>> db_paths;                   // per database: requested path ids
  std::map<std::pair<size_t, long long>, const RunInfo*> runs;   // (database, run id) -> run
  std::map<std::pair<std::string, std::string>, size_t> result_db;  // which database each result came from
};

// Path ids in the survey's order (known descriptions first), then any others by id.
std::vector<std::string> OrderedIds(const std::set<std::string>& ids, const std::vector<PathSpec>& paths) {
  std::vector<std::string> out;
  for (const PathSpec& p : paths) {
    if (ids.count(p.id)) out.push_back(p.id);
  }
  for (const auto& id : ids) {
    if (!FindPath(paths, id)) out.push_back(id);
  }
  return out;
}

// Checks a record's sub-verdicts against its path's description: each one the path describes, with
// a known status and one of its own steps. Every status may appear (the worker times a runtime out
// itself). Returns "" when they are fit for the snapshot.
std::string SubVerdictsProblem(const json& record, const PathSpec& path) {
  auto subs = record.find("subverdicts");
  if (subs == record.end() || subs->is_null()) return "";
  if (!subs->is_object()) return "subverdicts is not an object";
  for (const auto& [id, sub] : subs->items()) {
    const SubVerdictSpec* spec = FindSubVerdict(path, id);
    if (spec == nullptr) return fmt::format("sub-verdict '{}' is not one that path '{}' describes", id, path.id);
    if (!sub.is_object()) return fmt::format("sub-verdict '{}' is not an object", id);
    auto status = sub.find("status");
    if (status == sub.end() || !status->is_string()) return fmt::format("sub-verdict '{}' has no status", id);
    if (!ParseStatus(status->get<std::string>())) {
      return fmt::format("sub-verdict '{}': unknown status '{}'", id, status->get<std::string>());
    }
    auto step = sub.find("step");
    if (step != sub.end() && !step->is_null()) {
      if (!step->is_string()) return fmt::format("sub-verdict '{}': 'step' is not a string", id);
      const std::string st = step->get<std::string>();
      if (!st.empty() && !SubVerdictHasStep(*spec, st)) {
        return fmt::format("sub-verdict '{}': unknown step '{}' (not one of its steps)", id, st);
      }
    }
    auto error = sub.find("error");
    if (error != sub.end() && !error->is_null() && !error->is_object()) {
      return fmt::format("sub-verdict '{}': error is neither null nor an object", id);
    }
  }
  return "";
}

// record.checks (docs/formats.md section 3): {"<id>": {"ran": bool, "passed": bool|null, "why": text}};
// a check that ran has passed or failed. Returns "" when absent or well formed.
std::string ChecksProblem(const json& record) {
  auto checks = record.find("checks");
  if (checks == record.end() || checks->is_null()) return "";
  if (!checks->is_object()) return "checks is not an object";
  for (const auto& [id, check] : checks->items()) {
    if (!snapshot::IsCheckId(id)) return fmt::format("check id '{}' is not lowercase letters, digits, '_' or '-'", id);
    if (!check.is_object()) return fmt::format("checks.{} is not an object", id);
    auto ran = check.find("ran");
    if (ran == check.end() || !ran->is_boolean()) return fmt::format("checks.{}.ran is not true or false", id);
    auto passed = check.find("passed");
    const bool decided = passed != check.end() && passed->is_boolean();
    if (ran->get<bool>() && !decided) return fmt::format("checks.{} ran but 'passed' is not true or false", id);
    if (!ran->get<bool>() && passed != check.end() && !passed->is_null()) {
      return fmt::format("checks.{} did not run but has 'passed' {}", id, passed->dump());
    }
    auto why = check.find("why");
    if (why != check.end() && !why->is_null() && !why->is_string()) return fmt::format("checks.{}.why is not text", id);
  }
  return "";
}

// record.notes: a list of texts. record.break_frames: parallel to break_reasons, lists of frames.
std::string NotesProblem(const json& record) {
  auto notes = record.find("notes");
  if (notes == record.end() || notes->is_null()) return "";
  if (!notes->is_array()) return "notes is not a list";
  for (const json& n : *notes) {
    if (!n.is_string()) return "notes holds something that is not text";
  }
  return "";
}

std::string BreakFramesProblem(const json& record) {
  auto frames = record.find("break_frames");
  if (frames == record.end() || frames->is_null()) return "";
  if (!frames->is_array()) return "break_frames is not a list";
  for (const json& list : *frames) {
    if (!list.is_array()) return "break_frames holds something that is not a list of frames";
    for (const json& f : list) {
      if (!f.is_string()) return "break_frames holds a frame that is not text";
    }
  }
  return "";
}

// Checks one record against its path's description; returns "" when it is fit for the snapshot.
std::string RecordProblem(const StoredResult& row, const json& record, const PathSpec& path) {
  if (!record.is_object()) return "the record is not a JSON object";
  auto status = record.find("status");
  if (status == record.end() || !status->is_string()) return "the record has no status";
  std::string s = status->get<std::string>();
  if (!ParseStatus(s)) return fmt::format("unknown status '{}'", s);
  if (s != row.status) return fmt::format("status '{}' in the record but '{}' in its row", s, row.status);
  auto step = record.find("step");
  if (step != record.end() && !step->is_null()) {
    if (!step->is_string()) return "'step' is not a string";
    std::string st = step->get<std::string>();
    if (!st.empty() && !PathHasStep(path, st)) return fmt::format("unknown step '{}' (not a step of path '{}')", st, path.id);
  }
  // Any path may count graph breaks (a dynamic compile path does too).
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
  if (std::string p = SubVerdictsProblem(record, path); !p.empty()) return p;
  for (auto problem : {ChecksProblem, NotesProblem, BreakFramesProblem}) {
    if (std::string p = problem(record); !p.empty()) return p;
  }
  auto dynamic = record.find("dynamic");
  if (dynamic != record.end() && !dynamic->is_null() && !dynamic->is_object()) return "dynamic is neither null nor an object";
  return "";
}

// Pass 1: every database's inventory joins the survey's cases.
void ReadInventories(const std::vector<DbContents>& dbs, Survey* survey, JoinState* state) {
  state->inventories.resize(dbs.size());
  for (size_t i = 0; i < dbs.size(); ++i) {
    const DbContents& db = dbs[i];
    for (const RunInfo& run : db.runs) state->runs[{i, run.id}] = &run;
    if (db.inventory.empty()) {
      survey->problems.push_back(fmt::format("{}: has no inventory (no run got as far as loading the registries)", db.file));
      continue;
    }
    for (const InventoryCase& c : db.inventory) {
      state->inventories[i][c.name] = c.fingerprint;
      auto [it, fresh] = survey->cases.try_emplace(c.name);
      if (fresh) {
        it->second.inventory = c;
        json info = json::parse(c.info_json, nullptr, false);
        it->second.info = info.is_object() ? info : json::object();
      }
    }
  }
}

// Pass 2: the requested paths and their descriptions, from every run's paths_json. When runs
// describe one path differently, the run that started last wins (ties: the larger description),
// so the choice does not depend on the order the databases were named in.
void ReadRequestedPaths(const std::vector<DbContents>& dbs, Survey* survey, JoinState* state) {
  state->db_paths.resize(dbs.size());
  struct Chosen {
    PathSpec spec;
    std::string started, text;
  };
  std::map<std::string, Chosen> chosen;
  for (size_t i = 0; i < dbs.size(); ++i) {
    const DbContents& db = dbs[i];
    if (db.inventory.empty()) continue;
    for (const RunInfo& run : db.runs) {
      json list = json::parse(run.paths_json, nullptr, false);
      std::vector<PathSpec> specs;
      std::string problem;
      if (list.is_discarded() || !ParsePathSpecs(list, PathSpecForm::hello, &specs, &problem)) {
        survey->problems.push_back(fmt::format("{}: run {} has no readable path descriptions{}", db.file, run.id,
                                               problem.empty() ? "" : " (" + problem + ")"));
        continue;
      }
      for (size_t k = 0; k < specs.size(); ++k) {
        state->db_paths[i].insert(specs[k].id);
        std::string text = list[k].dump();
        auto [it, fresh] = chosen.try_emplace(specs[k].id, Chosen{specs[k], run.started, text});
        if (!fresh && std::tie(run.started, text) > std::tie(it->second.started, it->second.text)) {
          it->second = Chosen{specs[k], run.started, text};
        }
      }
    }
    if (state->db_paths[i].empty()) survey->problems.push_back(fmt::format("{}: its runs name no paths", db.file));
  }
  for (auto& [id, c] : chosen) survey->paths.push_back(std::move(c.spec));
  SortPaths(&survey->paths);
}

// Pass 3: shards must come from the same registries and probe the same paths.
void CheckShardsAgree(const std::vector<DbContents>& dbs, const JoinState& state, Survey* survey) {
  size_t first = dbs.size();
  for (size_t i = 0; i < dbs.size(); ++i) {
    if (!dbs[i].inventory.empty()) {
      first = i;
      break;
    }
  }
  for (size_t i = first + 1; i < dbs.size(); ++i) {
    if (dbs[i].inventory.empty()) continue;
    const auto& a = state.inventories[first];
    const auto& b = state.inventories[i];
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
      survey->problems.push_back(fmt::format("{} and {} come from different registries: {}", dbs[first].file, dbs[i].file, Join(parts)));
    }
    if (state.db_paths[i] != state.db_paths[first]) {
      survey->problems.push_back(fmt::format("{} and {} probed different paths: {} in {} but {} in {}", dbs[first].file,
                                             dbs[i].file, Join(OrderedIds(state.db_paths[first], survey->paths)),
                                             dbs[first].file, Join(OrderedIds(state.db_paths[i], survey->paths)),
                                             dbs[i].file));
    }
  }
}

// Pass 3b: only the cases of the groups --groups names (after the shards were compared whole). A
// prefix that matches no case is a usage error, never overridden by --force.
void KeepGroups(const SurveyOptions& options, Survey* survey) {
  if (options.groups.empty()) return;
  survey->groups = options.groups;
  std::vector<std::string_view> groups;
  for (const auto& [name, c] : survey->cases) groups.push_back(c.inventory.group);
  if (std::string unmatched = UnmatchedGroup(options.groups, groups); !unmatched.empty()) {
    survey->refused = "--groups: " + unmatched;
    return;
  }
  const size_t dropped = std::erase_if(survey->cases, [&](const auto& entry) {
    return !InGroups(entry.second.inventory.group, options.groups);
  });
  if (dropped) survey->notes.push_back(fmt::format("left out {} cases outside --groups and their results", dropped));
}

// Pass 4: the inventory covers exactly the registries --registries names.
void CheckRegistries(const SurveyOptions& options, Survey* survey) {
  if (options.expected_registries.empty()) return;
  std::set<std::string> expected;
  for (const auto& r : options.expected_registries) expected.insert(BaseName(r));
  std::set<std::string> seen;
  for (const auto& [name, c] : survey->cases) seen.insert(BaseName(c.inventory.registry));
  std::vector<std::string> missing, extra;
  std::set_difference(expected.begin(), expected.end(), seen.begin(), seen.end(), std::back_inserter(missing));
  std::set_difference(seen.begin(), seen.end(), expected.begin(), expected.end(), std::back_inserter(extra));
  if (!missing.empty()) survey->problems.push_back(fmt::format("registries named by --registries but not surveyed: {}", Few(missing)));
  if (!extra.empty()) survey->problems.push_back(fmt::format("surveyed registries not named by --registries: {}", Few(extra)));
}

// Pass 5: readable results only, the later of duplicates, only for inventory cases and asked paths.
void KeepReadableResults(const std::vector<DbContents>& dbs, Survey* survey, JoinState* state) {
  size_t stale = 0, unasked = 0;
  std::vector<std::string> bad_records;
  for (size_t i = 0; i < dbs.size(); ++i) {
    for (const StoredResult& row : dbs[i].results) {
      if (!survey->cases.count(row.case_name)) {
        if (!survey->groups.empty() && state->inventories[i].count(row.case_name)) continue;  // outside --groups
        ++stale;
        continue;
      }
      const PathSpec* path = FindPath(survey->paths, row.path);
      if (path == nullptr) {
        ++unasked;
        continue;
      }
      json record = json::parse(row.record_json, nullptr, false);
      std::string problem = record.is_discarded() ? "the record is not valid JSON" : RecordProblem(row, record, *path);
      if (!problem.empty()) {
        bad_records.push_back(fmt::format("{}: {} / {}: {}", dbs[i].file, row.case_name, row.path, problem));
        continue;
      }
      auto key = std::make_pair(row.case_name, row.path);
      auto it = survey->results.find(key);
      if (it != survey->results.end()) {
        const StoredResult& old = it->second.row;
        bool later = row.finished > old.finished || (row.finished == old.finished && row.record_json > old.record_json);
        if (!later) continue;
      }
      survey->results[key] = SurveyResult{row, std::move(record), dbs[i].file};
      state->result_db[key] = i;
    }
  }
  for (const auto& line : bad_records) survey->problems.push_back(line);
  if (stale) survey->notes.push_back(fmt::format("left out {} stored results of cases that are no longer in the inventory", stale));
  if (unasked) survey->notes.push_back(fmt::format("left out {} stored results of paths that the runs did not ask for", unasked));
}

// Pass 6: one environment. Every key field but case and path must have one value over the results
// that carry it, and every result of a path must carry the fields the others of that path carry.
// Paths depend on different fields (an export key has no onnxruntime), and each path has its own
// harness digest, which is compared among that path's results only (a result its path's migrations
// carry over counts as measured under the current digest). Returns every key field but
// case, path and harness with the values it has over the results (pass 9 reads them).
std::map<std::string, std::set<std::string>> CheckEnvironments(Survey* survey) {
  struct Seen {
    size_t count = 0;
    std::set<std::string> files;
  };
  struct Field {
    std::map<std::string, Seen> values;
    size_t missing = 0;  // results of a path that carries the field elsewhere
  };
  std::map<std::string, Field> fields;  // "torch", or "harness (path onnx)"
  std::map<std::string, std::set<std::string>> key_values;  // "torch" -> {"2.13.0+cpu"}, no harness
  std::vector<std::string> unreadable;
  std::map<std::string, std::vector<json>> by_path;  // path -> key fields of its results
  std::map<std::string, std::vector<std::string>> files_by_path;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> marked;  // (migration, mark) -> jobs
  for (const auto& [key, result] : survey->results) {
    json kf = json::parse(result.row.key_fields_json, nullptr, false);
    if (!kf.is_object()) {
      unreadable.push_back(key.first + " / " + key.second);
      continue;
    }
    for (const auto& [field, value] : kf.items()) {
      if (field != "case" && field != "path" && field != "harness") key_values[field].insert(ValueText(value));
    }
    // A result measured under an earlier harness of its path that the path's migrations carry over
    // counts as measured under the current one (core/path_spec.h, as `opsweep run` judges it); one
    // a migration marks is stale, and said so by name rather than as another environment.
    if (const PathSpec* path = FindPath(survey->paths, key.second);
        path && !path->migrations.empty() && kf.contains("harness") && kf["harness"].is_string() &&
        kf["harness"] != path->harness) {
      auto chain = MigrationChain(*path, kf["harness"].get<std::string>());
      std::string mark;
      const HarnessMigration* by = nullptr;
      if (chain) {
        if (!CarriesOver(*chain, result.row.record_json, &mark, &by)) {
          marked[{by->id, mark}].push_back(key.first + " / " + key.second);
        }
        kf["harness"] = path->harness;
      }
    }
    by_path[key.second].push_back(std::move(kf));
    files_by_path[key.second].push_back(result.db_file);
  }
  for (const auto& [path, keys] : by_path) {
    std::set<std::string> carried;
    for (const json& kf : keys) {
      for (const auto& [field, value] : kf.items()) carried.insert(field);
    }
    for (size_t r = 0; r < keys.size(); ++r) {
      for (const std::string& field : carried) {
        if (field == "case" || field == "path") continue;
        const std::string name = field == "harness" ? fmt::format("harness (path {})", path) : field;
        auto it = keys[r].find(field);
        if (it == keys[r].end()) {
          ++fields[name].missing;
          continue;
        }
        Seen& seen = fields[name].values[ValueText(*it)];
        ++seen.count;
        seen.files.insert(files_by_path[path][r]);
      }
    }
  }
  for (const auto& [by, jobs] : marked) {
    survey->problems.push_back(fmt::format("{} measured under an earlier harness {} stale: migration {} re-runs the "
                                           "results whose record says '{}' ({}); finish them with `opsweep run` and "
                                           "merge again",
                                           Count(jobs.size(), "result"), jobs.size() == 1 ? "is" : "are", by.first,
                                           by.second, Few(jobs)));
  }
  if (!unreadable.empty()) {
    survey->problems.push_back(fmt::format("{} {} unreadable key fields: {}", Count(unreadable.size(), "result"),
                                           unreadable.size() == 1 ? "has" : "have", Few(unreadable)));
  }
  for (const auto& [field, seen] : fields) {
    if (seen.values.size() <= 1 && seen.missing == 0) continue;
    std::vector<std::string> parts;
    for (const auto& [value, where] : seen.values) {
      std::vector<std::string> files(where.files.begin(), where.files.end());
      parts.push_back(fmt::format("'{}' in {} ({})", value.size() > 80 ? value.substr(0, 77) + "..." : value,
                                  Count(where.count, "result"), Few(files, 3)));
    }
    if (seen.missing) parts.push_back(fmt::format("missing in {}", Count(seen.missing, "result")));
    survey->problems.push_back(fmt::format("results were measured under different environments: {} is {}", field, Join(parts)));
  }
  return key_values;
}

// Pass 7: every case of the inventory has a result for every requested path.
void CheckCompleteness(Survey* survey) {
  std::vector<std::string> missing;
  for (const auto& [name, c] : survey->cases) {
    for (const PathSpec& path : survey->paths) {
      if (!survey->results.count({name, path.id})) missing.push_back(name + " / " + path.id);
    }
  }
  if (!missing.empty()) {
    survey->problems.push_back(fmt::format("the survey is incomplete: {} of {} jobs have no result ({}); finish it with "
                                           "`opsweep run` and merge again",
                                           missing.size(), survey->cases.size() * survey->paths.size(), Few(missing)));
  }
}

// Pass 8: the header describes what the workers measured: the environment of the run of the
// newest result (else the last run of the first database that has one).
void ReadHeaderEnvironment(const std::vector<DbContents>& dbs, const JoinState& state, Survey* survey) {
  const SurveyResult* newest = nullptr;
  for (const auto& [key, result] : survey->results) {
    if (!newest || result.row.finished > newest->row.finished) newest = &result;
  }
  const RunInfo* header_run = nullptr;
  if (newest) {
    survey->newest_finished = newest->row.finished;
    auto it = state.runs.find({state.result_db.at({newest->row.case_name, newest->row.path}), newest->row.run_id});
    if (it != state.runs.end()) header_run = it->second;
  }
  for (size_t i = 0; i < dbs.size() && !header_run; ++i) {
    if (!dbs[i].runs.empty()) header_run = &dbs[i].runs.back();
  }
  if (!header_run) {
    survey->problems.push_back("no run is recorded, so the measured environment is unknown");
    return;
  }
  json env = json::parse(header_run->env_json, nullptr, false);
  if (env.is_object()) {
    survey->env = env;
  } else {
    survey->problems.push_back("the run that measured the newest result has no readable environment (runs.env_json)");
  }
  if (survey->newest_finished.empty()) survey->newest_finished = header_run->started;
}

// Pass 9: a field the results carry in their job keys is reported as the results measured it,
// not as the header's run did: runs of different paths measure different things (a run of the
// dynamic paths alone records opsets "18", while the onnx results it did not touch were measured
// with "17,18,25"). Pass 6 has checked that each such field has one value; a field with several
// keeps the header's value (the snapshot is refused for it anyway). A number stays a number when
// the key's text is that number.
// The library is an object in the header ({name, version, fingerprint}) and a name in the keys:
// the header's stays.
void AlignHeaderWithResults(const std::map<std::string, std::set<std::string>>& key_values, Survey* survey) {
  if (!survey->env.is_object()) return;
  for (const auto& [field, texts] : key_values) {
    if (texts.size() != 1 || field == "library") continue;
    const std::string& text = *texts.begin();
    auto it = survey->env.find(field);
    if (it != survey->env.end() && ValueText(*it) == text) continue;
    if (it != survey->env.end() && it->is_number()) {
      json number = json::parse(text, nullptr, false);
      if (number.is_number() && number.dump() == text) {
        *it = number;
        continue;
      }
    }
    survey->env[field] = text;
  }
}

}  // namespace

namespace {
// The committed text form (store/results_text.h): read as it is. A damaged file is refused: merge
// never writes a snapshot from part of a survey without saying so (import it to see what remains).
bool LoadTextContents(const std::string& file, DbContents* out, std::string* err) {
  std::string bytes;
  if (!ReadFile(file, &bytes, err)) return false;
  ResultsContent content;
  std::vector<std::string> warnings;
  if (!ReadResultsText(bytes, &content, &warnings, err)) {
    *err = file + ": " + *err;
    return false;
  }
  if (!warnings.empty()) {
    *err = fmt::format("{}: damaged: {}{}", file, warnings.front(),
                       warnings.size() > 1 ? fmt::format(" (and {} more problems)", warnings.size() - 1) : "");
    return false;
  }
  out->file = file;
  out->inventory = std::move(content.inventory);
  out->runs = std::move(content.runs);
  out->results = std::move(content.results);
  return true;
}
}  // namespace

bool LoadDbContents(const std::string& file, DbContents* out, std::string* err) {
  if (file.size() > 6 && file.compare(file.size() - 6, 6, ".jsonl") == 0) return LoadTextContents(file, out, err);
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
  JoinState state;
  ReadInventories(dbs, &survey, &state);
  ReadRequestedPaths(dbs, &survey, &state);
  CheckShardsAgree(dbs, state, &survey);
  CheckRegistries(options, &survey);
  KeepGroups(options, &survey);
  KeepReadableResults(dbs, &survey, &state);
  const auto key_values = CheckEnvironments(&survey);
  CheckCompleteness(&survey);
  ReadHeaderEnvironment(dbs, state, &survey);
  AlignHeaderWithResults(key_values, &survey);
  return survey;
}

}  // namespace opsweep
