#include "core/path_spec.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "core/status.h"

namespace opsweep {

namespace {

using json = nlohmann::json;

bool IsPathId(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-') return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

class Reader {
 public:
  Reader(const json& j, std::string where, std::string* err) : j_(j), where_(std::move(where)), err_(err) {}

  bool Fail(const std::string& problem) {
    *err_ = where_ + ": " + problem;
    return false;
  }
  bool String(const char* key, std::string* out, bool may_be_empty = false) {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_string()) return Fail(fmt::format("'{}' is missing or not a string", key));
    *out = it->get<std::string>();
    if (!may_be_empty && out->empty()) return Fail(fmt::format("'{}' is empty", key));
    return true;
  }
  bool Strings(const char* key, std::vector<std::string>* out) {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_array()) return Fail(fmt::format("'{}' is missing or not a list", key));
    std::set<std::string> seen;
    for (const json& item : *it) {
      if (!item.is_string() || item.get<std::string>().empty()) {
        return Fail(fmt::format("'{}' holds something that is not a non-empty string", key));
      }
      if (!seen.insert(item.get<std::string>()).second) {
        return Fail(fmt::format("'{}' lists '{}' twice", key, item.get<std::string>()));
      }
      out->push_back(item.get<std::string>());
    }
    return true;
  }

 private:
  const json& j_;
  std::string where_;
  std::string* err_;
};

}  // namespace

bool ParsePathSpec(const json& j, PathSpecForm form, PathSpec* out, std::string* err) {
  *out = PathSpec{};
  if (!j.is_object()) {
    *err = "a path description is not an object";
    return false;
  }
  std::string id = j.contains("id") && j["id"].is_string() ? j["id"].get<std::string>() : "?";
  Reader r(j, fmt::format("path '{}'", id), err);
  if (!r.String("id", &out->id)) return false;
  if (!IsPathId(out->id)) return r.Fail("an id is lowercase letters, digits and '-'");
  if (!r.String("title", &out->title) || !r.String("label", &out->label) ||
      !r.String("description", &out->description, /*may_be_empty=*/true) || !r.Strings("steps", &out->steps) ||
      !r.Strings("env", &out->env)) {
    return false;
  }
  for (const auto& step : out->steps) {
    if (IsCommonStep(step)) return r.Fail(fmt::format("step '{}' is common to every path; a path lists only its own", step));
  }
  for (const auto& field : out->env) {
    if (field == "case" || field == "path" || field == "harness" || field == "library") {
      return r.Fail(fmt::format("env field '{}' is a job-key tag of its own", field));
    }
  }
  auto order = j.find("order");
  if (order == j.end() || !order->is_number_integer()) return r.Fail("'order' is missing or not an integer");
  out->order = order->get<int>();
  if (auto group = j.find("group"); group != j.end() && !group->is_null()) {
    if (!group->is_string()) return r.Fail("'group' is not a string");
    out->group = group->get<std::string>();
  }
  if (auto repro = j.find("reproducible"); repro != j.end() && !repro->is_null()) {
    if (!repro->is_boolean()) return r.Fail("'reproducible' is not true or false");
    out->reproducible = repro->get<bool>();
  }
  if (!ParseFactSpecs(j, fmt::format("path '{}'", out->id), &out->facts, err)) return false;
  auto subs = j.find("subverdicts");
  if (subs == j.end() || !subs->is_array()) return r.Fail("'subverdicts' is missing or not a list");
  std::set<std::string> sub_ids;
  for (const json& s : *subs) {
    if (!s.is_object()) return r.Fail("a sub-verdict is not an object");
    SubVerdictSpec sub;
    std::string sub_id = s.contains("id") && s["id"].is_string() ? s["id"].get<std::string>() : "?";
    Reader sr(s, fmt::format("path '{}': sub-verdict '{}'", out->id, sub_id), err);
    if (!sr.String("id", &sub.id) || !sr.String("title", &sub.title) || !sr.String("label", &sub.label)) return false;
    if (!IsPathId(sub.id)) return sr.Fail("an id is lowercase letters, digits and '-'");
    // kind, description and steps came with sub-verdicts themselves; a description without them
    // (none was ever published) reads as a runtime with no steps of its own.
    if (auto kind = s.find("kind"); kind != s.end() && !kind->is_null()) {
      if (!kind->is_string() || (*kind != "runtime" && *kind != "opset")) {
        return sr.Fail("'kind' is neither \"runtime\" nor \"opset\"");
      }
      sub.kind = *kind == "opset" ? SubVerdictKind::opset : SubVerdictKind::runtime;
    }
    if (s.contains("description") && !sr.String("description", &sub.description, /*may_be_empty=*/true)) return false;
    if (s.contains("steps") && !sr.Strings("steps", &sub.steps)) return false;
    if (!sub_ids.insert(sub.id).second) return r.Fail(fmt::format("sub-verdict '{}' twice", sub.id));
    out->subverdicts.push_back(std::move(sub));
  }
  if (form == PathSpecForm::hello) {
    if (!r.String("harness", &out->harness)) return false;
    if (auto migrations = j.find("migrations"); migrations != j.end() && !migrations->is_null()) {
      if (!migrations->is_array()) return r.Fail("'migrations' is not a list");
      std::set<std::string> ids;
      for (const json& m : *migrations) {
        if (!m.is_object()) return r.Fail("a migration is not an object");
        HarnessMigration mig;
        std::string mig_id = m.contains("id") && m["id"].is_string() ? m["id"].get<std::string>() : "?";
        Reader mr(m, fmt::format("path '{}': migration '{}'", out->id, mig_id), err);
        if (!mr.String("id", &mig.id) || !mr.String("from", &mig.from) || !mr.String("to", &mig.to) ||
            !mr.String("why", &mig.why) || !mr.Strings("rerun_if_record_contains", &mig.rerun_if_record_contains)) {
          return false;  // an empty list is allowed: a change that can alter no result (a refactor)
        }
        if (mig.from == mig.to) return mr.Fail("'from' and 'to' are the same digest");
        if (!ids.insert(mig.id).second) return r.Fail(fmt::format("migration '{}' twice", mig.id));
        out->migrations.push_back(std::move(mig));
      }
    }
    auto expected = j.find("expected_seconds");
    if (expected != j.end() && !expected->is_null()) {
      if (!expected->is_number() || !(expected->get<double>() >= 0)) {
        return r.Fail("'expected_seconds' is not a number of seconds");
      }
      out->expected_seconds = expected->get<double>();
    }
  }
  return true;
}

bool ParsePathSpecs(const json& list, PathSpecForm form, std::vector<PathSpec>* out, std::string* err) {
  out->clear();
  if (!list.is_array()) {
    *err = "the path descriptions are not a list";
    return false;
  }
  std::set<std::string> ids;
  for (const json& j : list) {
    PathSpec spec;
    if (!ParsePathSpec(j, form, &spec, err)) return false;
    if (!ids.insert(spec.id).second) {
      *err = fmt::format("path '{}' is described twice", spec.id);
      return false;
    }
    out->push_back(std::move(spec));
  }
  return true;
}

json PathSpecSnapshotJson(const PathSpec& path) {
  json subs = json::array();
  for (const auto& s : path.subverdicts) {
    subs.push_back({{"id", s.id},
                    {"label", s.label},
                    {"title", s.title},
                    {"kind", SubVerdictKindId(s.kind)},
                    {"description", s.description},
                    {"steps", s.steps}});
  }
  json out = {{"id", path.id},       {"title", path.title}, {"label", path.label}, {"description", path.description},
              {"steps", path.steps}, {"env", path.env},     {"subverdicts", subs}, {"order", path.order}};
  if (!path.group.empty()) out["group"] = path.group;  // optional: ungrouped paths keep their bytes
  if (path.reproducible) out["reproducible"] = true;    // optional, likewise
  if (!path.facts.empty()) out["facts"] = FactSpecsJson(path.facts);  // optional, likewise
  return out;
}

std::optional<std::vector<const HarnessMigration*>> MigrationChain(const PathSpec& path, std::string_view from) {
  // Walk back from the current digest: each step takes the migration that ends where we stand.
  // A digest visited twice ends the walk (a cycle can only come from a damaged file).
  std::vector<const HarnessMigration*> chain;
  std::set<std::string> seen{path.harness};
  std::string at = path.harness;
  while (at != from) {
    const HarnessMigration* step = nullptr;
    for (const HarnessMigration& m : path.migrations) {
      if (m.to == at) {
        step = &m;
        break;
      }
    }
    if (!step || !seen.insert(step->from).second) return std::nullopt;
    chain.push_back(step);
    at = step->from;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

bool CarriesOver(const std::vector<const HarnessMigration*>& chain, std::string_view record_text, std::string* mark,
                 const HarnessMigration** by) {
  for (const HarnessMigration* m : chain) {
    for (const std::string& needle : m->rerun_if_record_contains) {
      if (record_text.find(needle) != std::string_view::npos) {
        if (mark) *mark = needle;
        if (by) *by = m;
        return false;
      }
    }
  }
  return true;
}

std::vector<std::string> MigrationMarks(const std::vector<PathSpec>& paths) {
  std::set<std::string> marks;
  for (const PathSpec& p : paths) {
    for (const HarnessMigration& m : p.migrations) marks.insert(m.rerun_if_record_contains.begin(), m.rerun_if_record_contains.end());
  }
  return {marks.begin(), marks.end()};
}

void SortPaths(std::vector<PathSpec>* paths) {
  std::stable_sort(paths->begin(), paths->end(), [](const PathSpec& a, const PathSpec& b) {
    return a.order != b.order ? a.order < b.order : a.id < b.id;
  });
}

const PathSpec* FindPath(const std::vector<PathSpec>& paths, std::string_view id) {
  for (const PathSpec& p : paths) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

bool PathHasStep(const PathSpec& path, std::string_view step) {
  return IsCommonStep(step) || std::find(path.steps.begin(), path.steps.end(), step) != path.steps.end();
}

std::string_view SubVerdictKindId(SubVerdictKind kind) { return kind == SubVerdictKind::opset ? "opset" : "runtime"; }

const SubVerdictSpec* FindSubVerdict(const PathSpec& path, std::string_view id) {
  for (const SubVerdictSpec& s : path.subverdicts) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

bool SubVerdictHasStep(const SubVerdictSpec& sub, std::string_view step) {
  return std::find(sub.steps.begin(), sub.steps.end(), step) != sub.steps.end();
}

std::vector<std::string> EnvFieldsOf(const std::vector<PathSpec>& paths) {
  std::vector<std::string> out;
  for (const PathSpec& p : paths) {
    for (const auto& f : p.env) {
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    }
  }
  return out;
}

}  // namespace opsweep
