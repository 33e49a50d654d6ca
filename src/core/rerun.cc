#include "core/rerun.h"

#include <fmt/core.h>

#include <algorithm>

namespace opsweep {

std::string_view RerunCauseLabel(RerunCause cause) {
  switch (cause) {
    case RerunCause::current: return "current";
    case RerunCause::new_result: return "new";
    case RerunCause::case_changed: return "case changed";
    case RerunCause::library_changed: return "library changed";
    case RerunCause::harness_changed: return "harness changed";
    case RerunCause::environment_changed: return "environment changed";
    case RerunCause::code_changed: return "library code changed";
    case RerunCause::retry: return "retried";
    case RerunCause::retry_failed: return "--retry-failed";
    case RerunCause::forced: return "--force";
  }
  return "?";
}

std::string RerunDecision::Why(size_t limit, bool migration_why_shown) const {
  std::string out;
  size_t shown = std::min(limit, reasons.size());
  const std::string with_why = fmt::format("migration {} ({}) ", migration_id, migration_why);
  for (size_t i = 0; i < shown; ++i) {
    if (!out.empty()) out += "; ";
    if (!migration_why_shown && !migration_id.empty() && reasons[i].starts_with(with_why)) {
      out += fmt::format("migration {} {}", migration_id, std::string_view(reasons[i]).substr(with_why.size()));
    } else {
      out += reasons[i];
    }
  }
  if (reasons.size() > shown) out += fmt::format("; and {} more", reasons.size() - shown);
  return out;
}

namespace {

std::string Shown(const nlohmann::ordered_json& value) {
  if (value.is_string()) {
    std::string s = value.get<std::string>();
    return s.empty() ? "(none)" : s;
  }
  return value.dump();
}

// The cause a key field stands for, and its sentence.
RerunCause FieldSentence(const std::string& field, const nlohmann::ordered_json* old_value,
                         const nlohmann::ordered_json* new_value, const nlohmann::ordered_json& new_fields,
                         std::string* sentence) {
  if (field == "case") {
    *sentence = "the case changed (its target, inputs or options)";
    return RerunCause::case_changed;
  }
  if (field == "harness") {
    std::string path = new_fields.contains("path") && new_fields["path"].is_string()
                           ? new_fields["path"].get<std::string>() : "?";
    *sentence = fmt::format("the harness code of path {} changed", path);
    return RerunCause::harness_changed;
  }
  if (field == "path") {
    *sentence = "the path changed";
    return RerunCause::case_changed;
  }
  RerunCause cause = field == "library" ? RerunCause::library_changed : RerunCause::environment_changed;
  if (!old_value) {
    *sentence = fmt::format("{} is now part of the key ({})", field, Shown(*new_value));
  } else if (!new_value) {
    *sentence = fmt::format("{} is no longer part of the key (was {})", field, Shown(*old_value));
  } else if (field == "library") {
    *sentence = fmt::format("the surveyed library changed ({} -> {})", Shown(*old_value), Shown(*new_value));
  } else {
    *sentence = fmt::format("{} {} -> {}", field, Shown(*old_value), Shown(*new_value));
  }
  return cause;
}

// Causes in order of precedence: the first listed cause of a decision decides its count.
int Rank(RerunCause c) {
  switch (c) {
    case RerunCause::case_changed: return 0;
    case RerunCause::library_changed: return 1;
    case RerunCause::harness_changed: return 2;
    case RerunCause::environment_changed: return 3;
    default: return 4;
  }
}

}  // namespace

std::vector<std::string> KeyFieldSentences(const std::string& old_fields_json, const std::string& new_fields_json,
                                           RerunCause* cause) {
  auto a = nlohmann::ordered_json::parse(old_fields_json, nullptr, false);
  auto b = nlohmann::ordered_json::parse(new_fields_json, nullptr, false);
  *cause = RerunCause::case_changed;
  if (!a.is_object() || !b.is_object()) return {"the stored job key is unreadable"};
  std::vector<std::pair<RerunCause, std::string>> found;
  for (const std::string& field : ChangedKeyFields(old_fields_json, new_fields_json)) {
    auto old_it = a.find(field);
    auto new_it = b.find(field);
    std::string sentence;
    RerunCause c = FieldSentence(field, old_it == a.end() ? nullptr : &*old_it, new_it == b.end() ? nullptr : &*new_it,
                                 b, &sentence);
    found.emplace_back(c, sentence);
  }
  if (found.empty()) return {"the job key changed"};
  std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return Rank(x.first) < Rank(y.first); });
  *cause = found.front().first;
  std::vector<std::string> out;
  for (auto& [c, s] : found) out.push_back(std::move(s));
  return out;
}

namespace {

// "migration m1 carries over", "migrations m1 and m2 carry over", "migrations m1, m2 and m3 carry over";
// a longer chain is counted and bounded ("19 migrations carry over, m1 to m19"): a store surveyed
// weeks ago is carried by every migration since, and the full list is in harness_migrations.json.
std::string MigrationsCarryOver(const std::vector<const HarnessMigration*>& chain) {
  if (chain.size() == 1) return fmt::format("migration {} carries over", chain.front()->id);
  if (chain.size() > 3) {
    return fmt::format("{} migrations carry over, {} to {}", chain.size(), chain.front()->id, chain.back()->id);
  }
  std::string out = "migrations ";
  for (size_t i = 0; i < chain.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == chain.size() ? " and " : ", ") + chain[i]->id;
  }
  return out + " carry over";
}

// Whether this machine itself got the stored fingerprint from `recipe` (then something besides the
// CPU changed it since, and nothing carries it).
bool OnThisMachine(const StoredJob& stored, std::string_view recipe, const std::string& here) {
  return !recipe.empty() && !here.empty() &&
         std::any_of(stored.case_identities.begin(), stored.case_identities.end(),
                     [&](const auto& id) { return id.first == recipe && id.second == here; });
}

// The machine (MachineText) on which the stored result's case fingerprint came from `recipe`, when
// that is another machine than this one; "" otherwise, and "" when this machine itself once got
// that fingerprint from that recipe (OnThisMachine).
std::string SameRecipeElsewhere(const StoredJob& stored, std::string_view recipe, const std::string& here) {
  if (recipe.empty() || here.empty() || OnThisMachine(stored, recipe, here)) return "";
  for (const auto& [r, machine] : stored.case_identities) {
    if (r == recipe && !machine.empty()) return machine;
  }
  return "";
}

// The machine on which the stored fingerprint came from an earlier recipe under which this machine
// computed `current_fingerprint`, the fingerprint it computes now; "" when there is none, and a
// recipe under which this machine also got the stored fingerprint never counts (something besides
// the CPU gave two fingerprints there).
std::string EarlierRecipeElsewhere(const StoredJob& stored, const std::string& current_fingerprint,
                                   const std::string& here) {
  if (here.empty() || current_fingerprint.empty() || !stored.identities) return "";
  auto it = stored.identities->find(current_fingerprint);
  if (it == stored.identities->end()) return "";
  for (const auto& [r, machine] : stored.case_identities) {
    if (machine.empty() || machine == here) continue;
    auto same = [&](const std::pair<std::string, std::string>& id) { return id.first == r && id.second == here; };
    if (std::none_of(it->second.begin(), it->second.end(), same)) continue;  // not computed here under r
    if (std::any_of(stored.case_identities.begin(), stored.case_identities.end(), same)) continue;
    return machine;
  }
  return "";
}

// How a stored result whose key differs from the current one still stands (DecideRerun): its
// case fingerprint computed from the same (or an earlier) recipe on another machine, and its
// harness digest carried over by the path's migrations. Both empty: nothing carries it.
struct KeyCarry {
  std::string migrations;        // MigrationsCarryOver's sentence
  std::string elsewhere;         // the other machine (MachineText)
  bool earlier_sources = false;  // `elsewhere` is of an earlier recipe (EarlierRecipeElsewhere)
};

// The changed case fingerprint carries when it came from this recipe, or an earlier one, on
// another machine (KeyCarry::elsewhere); false when it does not.
bool CarryChangedCase(const StoredJob& stored, const JobKey& current, const LibraryState& library,
                      std::string_view recipe, KeyCarry* carry) {
  carry->elsewhere = SameRecipeElsewhere(stored, recipe, library.machine);
  if (carry->elsewhere.empty() && !OnThisMachine(stored, recipe, library.machine)) {
    auto now = nlohmann::json::parse(current.fields_json, nullptr, false);
    if (now.is_object() && now.contains("case") && now["case"].is_string()) {
      carry->elsewhere = EarlierRecipeElsewhere(stored, now["case"].get<std::string>(), library.machine);
      carry->earlier_sources = !carry->elsewhere.empty();
    }
  }
  return !carry->elsewhere.empty();
}

// The decision of a migration of `chain` whose mark the stored record contains: it re-runs the
// result, naming the migration and the other key fields that changed too; none when no mark is there.
std::optional<RerunDecision> MigrationRerun(const StoredJob& stored, const JobKey& current, const PathSpec& path,
                                            const std::vector<const HarnessMigration*>& chain) {
  for (const HarnessMigration* m : chain) {
    for (const std::string& mark : m->rerun_if_record_contains) {
      if (std::find(stored.record_marks.begin(), stored.record_marks.end(), mark) == stored.record_marks.end()) continue;
      const std::string harness = fmt::format("the harness code of path {} changed", path.id);
      RerunDecision d{true, RerunCause::harness_changed,
                      {harness, fmt::format("migration {} ({}) re-runs the results whose record says '{}', "
                                            "as this one does", m->id, m->why, mark)}};
      d.migration_id = m->id;
      d.migration_why = m->why;
      // the other fields of the key that changed too (an opset list, a runtime's version)
      RerunCause ignored = RerunCause::case_changed;
      for (std::string& other : KeyFieldSentences(stored.key_fields_json, current.fields_json, &ignored)) {
        if (other != harness) d.reasons.push_back(std::move(other));
      }
      return d;
    }
  }
  return std::nullopt;
}

// What carries a stored result whose key differs (*carry; left empty when any changed field does
// not carry); a decision when one of the path's migrations re-runs it instead.
std::optional<RerunDecision> CarryChangedKey(const StoredJob& stored, const JobKey& current,
                                             const LibraryState& library, const PathSpec* path,
                                             std::string_view recipe, KeyCarry* carry) {
  bool carries = true;
  auto fields = nlohmann::json::parse(stored.key_fields_json, nullptr, false);
  for (const std::string& field : ChangedKeyFields(stored.key_fields_json, current.fields_json)) {
    if (!carries) break;
    if (field == "case") {
      carries = CarryChangedCase(stored, current, library, recipe, carry);
    } else if (field == "harness" && path != nullptr && fields.is_object() && fields.contains("harness") &&
               fields["harness"].is_string()) {
      auto chain = MigrationChain(*path, fields["harness"].get<std::string>());
      carries = chain.has_value();
      if (!carries) break;
      if (auto rerun = MigrationRerun(stored, current, *path, *chain)) return rerun;
      carry->migrations = MigrationsCarryOver(*chain);
    } else {
      carries = false;
    }
  }
  if (!carries) {
    carry->migrations.clear();
    carry->elsewhere.clear();
  }
  return std::nullopt;
}

// A changed key that nothing carries: the key's changed fields, most telling first, and the other
// machine when the case changed and the result was measured elsewhere.
RerunDecision KeyChangedDecision(const StoredJob& stored, const JobKey& current, const LibraryState& library) {
  RerunDecision d{true, RerunCause::case_changed, {}};
  d.reasons = KeyFieldSentences(stored.key_fields_json, current.fields_json, &d.cause);
  d.other_machine = d.cause == RerunCause::case_changed && !stored.machine.empty() && !library.machine.empty() &&
                    stored.machine != library.machine;
  if (d.other_machine) {
    d.reasons.insert(d.reasons.begin() + 1, "it was measured on another machine (" + stored.machine +
                                                "; this one: " + library.machine +
                                                "), where inputs computed in float32 can round differently");
  }
  return d;
}

// The library code the result depends on changed: by its deps against the worker's index, or, with
// no deps or no index, by the library's fingerprint. None when it did not.
std::optional<RerunDecision> CodeChangedDecision(const StoredJob& stored, const LibraryState& library) {
  const bool have_index = library.index != nullptr && library.index->known;
  if (have_index && !stored.deps_json.empty()) {
    // Unparsable text is a damaged deps object: ChangedDeps says so, and the job runs again.
    const nlohmann::json deps = nlohmann::json::parse(stored.deps_json, nullptr, /*allow_exceptions=*/false);
    std::vector<DepChange> changes = ChangedDeps(deps, *library.index);
    if (changes.empty()) return std::nullopt;
    RerunDecision d{true, RerunCause::code_changed, {}};
    for (const DepChange& c : changes) d.reasons.push_back(DepChangeSentence(c));
    return d;
  }
  if (stored.library_fingerprint == library.fingerprint) return std::nullopt;
  return RerunDecision{true, RerunCause::code_changed,
                       {stored.deps_json.empty()
                            ? "the library's sources changed, and this result records no dependencies (a crash, a "
                              "timeout or a recording the worker could not trust): any change may affect it"
                            : "the library's sources changed, and the worker sent no index of them to compare the "
                              "result's dependencies with"}};
}

// A current crash or timeout of ours: retried once, then only on request.
RerunDecision EngineStatusDecision(const StoredJob& stored, RetryFailed retry) {
  if (stored.attempts < 2) {
    return {true, RerunCause::retry,
            {fmt::format("the stored {} is retried once (attempt {} of 2)", StatusId(stored.status),
                         stored.attempts + 1)}};
  }
  if (retry != RetryFailed::no) {
    return {true, RerunCause::retry_failed,
            {fmt::format("the stored {} is re-run because of {}", StatusId(stored.status),
                         retry == RetryFailed::yes ? "--retry-failed" : "--force")}};
  }
  return {false, RerunCause::current,
          {fmt::format("the stored {} is current and was already retried ({} attempts); --retry-failed re-runs it",
                       StatusId(stored.status), stored.attempts)}};
}

// A current result, saying what carried its key when something did.
RerunDecision CurrentDecision(const StoredJob& stored, const KeyCarry& carry, const PathSpec* path) {
  if (carry.migrations.empty() && carry.elsewhere.empty()) {
    return {false, RerunCause::current, {fmt::format("the stored result ({}) is current", StatusId(stored.status))}};
  }
  std::string why;
  if (!carry.elsewhere.empty()) {
    why = carry.earlier_sources
              ? fmt::format("its case's inputs were computed on another machine ({}) from earlier sources, which "
                            "gave this machine the inputs it computes now",
                            carry.elsewhere)
              : fmt::format("its case's inputs, from the same sources, were computed on another machine ({})",
                            carry.elsewhere);
  }
  if (!carry.migrations.empty()) {
    why += fmt::format("{}measured under an earlier harness of path {}, which {}", why.empty() ? "" : "; ", path->id,
                       carry.migrations);
  }
  return {false, RerunCause::current, {fmt::format("the stored result ({}) is current: {}", StatusId(stored.status), why)}};
}

}  // namespace

RerunDecision DecideRerun(const std::optional<StoredJob>& stored, const JobKey& current, const LibraryState& library,
                          RetryFailed retry, const PathSpec* path, std::string_view recipe) {
  if (!stored) return {true, RerunCause::new_result, {"no stored result"}};
  KeyCarry carry;
  if (stored->job_key != current.digest) {
    if (auto rerun = CarryChangedKey(*stored, current, library, path, recipe, &carry)) return *rerun;
    if (carry.migrations.empty() && carry.elsewhere.empty()) return KeyChangedDecision(*stored, current, library);
  }
  if (auto rerun = CodeChangedDecision(*stored, library)) return *rerun;
  if (IsEngineStatus(stored->status)) return EngineStatusDecision(*stored, retry);
  if (retry == RetryFailed::everything) {
    return {true, RerunCause::forced,
            {fmt::format("the stored result ({}) is current, and --force re-probes it", StatusId(stored->status))}};
  }
  return CurrentDecision(*stored, carry, path);
}

int NextAttempts(const std::optional<StoredJob>& stored, const RerunDecision& decision, Status new_status) {
  if (!IsEngineStatus(new_status)) return 0;
  bool same_job = decision.cause == RerunCause::retry || decision.cause == RerunCause::retry_failed;
  if (stored && same_job && IsEngineStatus(stored->status)) return stored->attempts + 1;
  return 1;
}

}  // namespace opsweep
