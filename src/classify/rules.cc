#include "classify/rules.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "util/embedded.h"

namespace opsweep {

namespace {

using json = nlohmann::json;

bool IsRuleId(std::string_view id) {
  if (id.empty() || id.front() == '-' || id.back() == '-') return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// Collects problems, each prefixed with where it was found.
class Problems {
 public:
  void Add(const std::string& where, const std::string& what) { lines_.push_back(where + ": " + what); }
  bool empty() const { return lines_.empty(); }
  std::string Joined() const {
    std::string out;
    for (const auto& l : lines_) out += (out.empty() ? "" : "\n") + l;
    return out;
  }

 private:
  std::vector<std::string> lines_;
};

bool ReadString(const json& obj, const char* key, std::string* out, const std::string& where, Problems* p,
                bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) p->Add(where, fmt::format("missing '{}'", key));
    return !required;
  }
  if (!it->is_string()) {
    p->Add(where, fmt::format("'{}' is not a string", key));
    return false;
  }
  *out = it->get<std::string>();
  if (required && out->empty()) {
    p->Add(where, fmt::format("'{}' is empty", key));
    return false;
  }
  return true;
}

bool ReadStringList(const json& obj, const char* key, std::vector<std::string>* out, const std::string& where,
                    Problems* p) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return true;
  if (!it->is_array()) {
    p->Add(where, fmt::format("'{}' is not a list", key));
    return false;
  }
  for (const json& item : *it) {
    if (!item.is_string() || item.get<std::string>().empty()) {
      p->Add(where, fmt::format("'{}' holds something that is not a non-empty string", key));
      return false;
    }
    out->push_back(item.get<std::string>());
  }
  return true;
}

// Converts Python-style named groups, (?P<name>...) or (?<name>...), to plain ECMAScript groups and
// records the name of every capturing group in order.
bool TranslateRegex(const std::string& pattern, std::string* out, std::vector<std::string>* names, std::string* err) {
  out->clear();
  names->clear();
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      *out += c;
      *out += pattern[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      *out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      *out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') *out += pattern[++i];
      continue;
    }
    if (c != '(') {
      *out += c;
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '?') {
      size_t name_start = std::string::npos;
      if (pattern.compare(i + 2, 2, "P<") == 0) name_start = i + 4;
      else if (i + 2 < pattern.size() && pattern[i + 2] == '<' && i + 3 < pattern.size() && pattern[i + 3] != '=' &&
               pattern[i + 3] != '!')
        name_start = i + 3;
      if (name_start == std::string::npos) {
        *out += c;  // (?: (?= (?! are kept as they are
        continue;
      }
      size_t close = pattern.find('>', name_start);
      if (close == std::string::npos || close == name_start) {
        *err = "a named group has no name";
        return false;
      }
      std::string name = pattern.substr(name_start, close - name_start);
      if (!std::all_of(name.begin(), name.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; })) {
        *err = "group name '" + name + "' is not an identifier";
        return false;
      }
      if (std::find(names->begin(), names->end(), name) != names->end()) {
        *err = "group name '" + name + "' is used twice";
        return false;
      }
      names->push_back(name);
      *out += '(';
      i = close;
      continue;
    }
    names->push_back("");
    *out += c;
  }
  return true;
}

// Placeholders `{name}` in a template.
std::vector<std::string> Placeholders(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = text.find('{'); i != std::string::npos; i = text.find('{', i + 1)) {
    size_t close = text.find('}', i);
    if (close == std::string::npos) break;
    std::string name = text.substr(i + 1, close - i - 1);
    name = name.substr(0, name.find('|'));  // {name|fallback}
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; })) {
      out.push_back(name);
    }
  }
  return out;
}

// A concrete sub-verdict id for a pattern: "opset*" -> "opset17" (a sample needs one).
std::string ExampleSubVerdict(const std::string& pattern) {
  if (pattern.empty() || pattern.back() != '*') return pattern;
  std::string stem = pattern.substr(0, pattern.size() - 1);
  return stem == "opset" ? "opset17" : stem + "x";
}

SubVerdictKind GuessKind(const std::string& subverdict) {
  return subverdict.rfind("opset", 0) == 0 ? SubVerdictKind::opset : SubVerdictKind::runtime;
}

bool IsSubVerdictPattern(const std::string& pattern) {
  std::string_view id = pattern;
  if (!id.empty() && id.back() == '*') id.remove_suffix(1);
  if (id.empty() || id.front() == '-') return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

bool ReadSample(const json& j, const Rule& rule, const std::string& where, Problems* p, RuleSample* out) {
  out->subverdict = rule.subverdicts.empty() ? "" : ExampleSubVerdict(rule.subverdicts.front());
  out->subverdict_kind = GuessKind(out->subverdict);
  out->path = rule.paths.empty() ? "" : rule.paths.front();
  out->step = rule.steps.empty() ? "" : rule.steps.front();
  out->status = rule.statuses.empty() ? Status::fail : rule.statuses.front();
  if (j.is_string()) {
    out->message = j.get<std::string>();
    return true;
  }
  if (!j.is_object()) {
    p->Add(where, "a sample is a string (the error message) or an object");
    return false;
  }
  std::string status;
  if (j.contains("subverdict")) {
    if (!ReadString(j, "subverdict", &out->subverdict, where, p, false)) return false;
    out->subverdict_kind = GuessKind(out->subverdict);
  }
  bool ok = ReadString(j, "path", &out->path, where, p, false) && ReadString(j, "step", &out->step, where, p, false) &&
            ReadString(j, "status", &status, where, p, false) && ReadString(j, "type", &out->type, where, p, false) &&
            ReadString(j, "message", &out->message, where, p, false) &&
            ReadString(j, "chain", &out->chain, where, p, false) && ReadString(j, "detail", &out->detail, where, p, false);
  if (ok && !status.empty()) {
    out->status = ParseStatus(status);
    if (!out->status) {
      p->Add(where, fmt::format("a sample has the unknown status '{}'", status));
      return false;
    }
  }
  auto br = j.find("break_reason");
  if (br != j.end()) {
    if (!br->is_boolean()) {
      p->Add(where, "'break_reason' is not true or false");
      return false;
    }
    out->is_break_reason = br->get<bool>();
    if (out->is_break_reason) {
      out->step = "";
      out->status.reset();
    }
  }
  if (ok && out->message.empty() && out->chain.empty() && out->detail.empty() && out->type.empty()) {
    p->Add(where, "a sample has no text");
    return false;
  }
  return ok;
}

// Which outcomes a rule applies to, before its text is looked at: its order among the rules, and
// its paths, steps, sub-verdicts and statuses (empty: any).
void ReadRuleScope(const json& j, const std::string& where, Problems* p, Rule* rule) {
  auto order = j.find("order");
  if (order == j.end() || !order->is_number_integer()) {
    p->Add(where, "'order' is missing or not an integer");
  } else {
    rule->order = order->get<int>();
  }
  std::vector<std::string> statuses;
  ReadStringList(j, "paths", &rule->paths, where, p);
  ReadStringList(j, "steps", &rule->steps, where, p);
  ReadStringList(j, "subverdicts", &rule->subverdicts, where, p);
  for (const auto& pattern : rule->subverdicts) {
    if (!IsSubVerdictPattern(pattern)) {
      p->Add(where, fmt::format("sub-verdict '{}' is not an id (lowercase letters, digits, '-') or 'prefix*'", pattern));
    }
  }
  ReadStringList(j, "statuses", &statuses, where, p);
  for (const auto& s : statuses) {
    if (auto status = ParseStatus(s)) {
      rule->statuses.push_back(*status);
    } else {
      p->Add(where, fmt::format("unknown status '{}'", s));
    }
  }
}

// The rule's `match`: substrings, any, and a regex (translated and compiled here), which needs a
// literal besides so that most texts are ruled out without running it.
void ReadRuleMatch(const json& j, const std::string& where, Problems* p, Rule* rule) {
  auto match = j.find("match");
  if (match != j.end() && !match->is_null()) {
    if (!match->is_object()) {
      p->Add(where, "'match' is not an object");
    } else {
      for (const auto& [key, value] : match->items()) {
        if (key != "substrings" && key != "any" && key != "regex") p->Add(where, fmt::format("unknown match key '{}'", key));
      }
      ReadStringList(*match, "substrings", &rule->substrings, where, p);
      ReadStringList(*match, "any", &rule->any, where, p);
      ReadString(*match, "regex", &rule->regex, where, p, false);
    }
  }
  if (rule->regex.empty()) return;
  std::string translated, why;
  if (!TranslateRegex(rule->regex, &translated, &rule->group_names, &why)) {
    p->Add(where, "regex: " + why);
  } else {
    try {
      rule->compiled = std::make_shared<const std::regex>(translated, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      p->Add(where, fmt::format("regex does not compile: {}", e.what()));
    }
  }
  if (rule->substrings.empty() && rule->any.empty()) {
    p->Add(where, "a regex rule also needs 'substrings' or 'any' (a literal that every match contains), so most "
                  "texts are ruled out without running the regex");
  }
}

// A rule that names no text, step or status would classify every outcome.
void CheckRuleNarrowsSomething(const Rule& rule, const std::string& where, Problems* p) {
  bool has_text_match = !rule.substrings.empty() || !rule.any.empty() || !rule.regex.empty();
  if (!has_text_match && rule.steps.empty() && rule.statuses.empty()) {
    p->Add(where, "matches everything: give it a 'match', 'steps' or 'statuses'");
  }
}

// The detail may name only what the match captures.
void CheckDetailPlaceholders(const Rule& rule, const std::string& where, Problems* p) {
  for (const auto& name : Placeholders(rule.detail)) {
    if (name == "public_op" && std::find(rule.group_names.begin(), rule.group_names.end(), "op") == rule.group_names.end()) {
      p->Add(where, "detail uses '{public_op}' but the regex has no 'op' group");
    }
  }
}

// The rule's `sample` (required) and `samples` (optional): real error texts it classifies.
void ReadRuleSamples(const json& j, const std::string& where, Problems* p, Rule* rule) {
  auto sample = j.find("sample");
  if (sample == j.end()) {
    p->Add(where, "missing 'sample' (a real error text that this rule classifies)");
  } else {
    RuleSample s;
    if (ReadSample(*sample, *rule, where, p, &s)) rule->samples.push_back(std::move(s));
  }
  auto samples = j.find("samples");
  if (samples == j.end()) return;
  if (!samples->is_array()) {
    p->Add(where, "'samples' is not a list");
    return;
  }
  for (const json& item : *samples) {
    RuleSample s;
    if (ReadSample(item, *rule, where, p, &s)) rule->samples.push_back(std::move(s));
  }
}

void CheckRuleKeysKnown(const json& j, const std::string& where, Problems* p) {
  static const std::set<std::string> kKnown = {"id",       "order", "paths", "subverdicts", "steps",
                                               "statuses", "match", "title", "cause",       "detail",
                                               "hint",     "component", "sample", "samples", "note"};
  for (const auto& [key, value] : j.items()) {
    if (!kKnown.count(key)) p->Add(where, fmt::format("unknown key '{}'", key));
  }
}

void ReadRule(const json& j, const std::string& file, size_t index, Problems* p, RuleSet* set) {
  std::string where = fmt::format("{}: rules[{}]", file, index);
  if (!j.is_object()) {
    p->Add(where, "is not an object");
    return;
  }
  Rule rule;
  rule.file = file;
  if (!ReadString(j, "id", &rule.id, where, p, true)) return;
  where = fmt::format("{}: rule '{}'", file, rule.id);
  if (!IsRuleId(rule.id)) p->Add(where, "an id is lowercase letters, digits and '-'");
  ReadRuleScope(j, where, p, &rule);
  ReadString(j, "title", &rule.title, where, p, true);
  ReadString(j, "cause", &rule.cause, where, p, true);
  ReadString(j, "hint", &rule.hint, where, p, true);
  ReadString(j, "component", &rule.component, where, p, true);
  ReadString(j, "detail", &rule.detail, where, p, false);
  ReadRuleMatch(j, where, p, &rule);
  CheckRuleNarrowsSomething(rule, where, p);
  CheckDetailPlaceholders(rule, where, p);
  ReadRuleSamples(j, where, p, &rule);
  CheckRuleKeysKnown(j, where, p);
  set->rules.push_back(std::move(rule));
}

}  // namespace

bool SubVerdictPatternMatches(std::string_view pattern, std::string_view id) {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    return id.size() > pattern.size() && id.substr(0, pattern.size()) == pattern;
  }
  return pattern == id;
}

const std::vector<std::string>& FixedPlaceholders() {
  static const std::vector<std::string> kNames = {"public_op", "detail",  "error",          "graph_breaks", "path",
                                                  "subverdict", "step",   "status",         "library",
                                                  "library_version"};
  return kNames;
}

std::vector<std::string> CheckRulesAgainstPaths(const RuleSet& rules, const std::vector<PathSpec>& paths) {
  std::vector<std::string> problems;
  for (const Rule& rule : rules.rules) {
    std::vector<PathSpec> applies;
    for (const PathSpec& path : paths) {
      if (rule.paths.empty() || std::find(rule.paths.begin(), rule.paths.end(), path.id) != rule.paths.end()) {
        applies.push_back(path);
      }
    }
    if (applies.empty()) continue;  // none of its paths was surveyed: it cannot apply
    const std::string where = fmt::format("{}: rule '{}'", rule.file, rule.id);
    if (!rule.subverdicts.empty()) {
      std::vector<const SubVerdictSpec*> subs;
      for (const PathSpec& path : applies) {
        for (const SubVerdictSpec& sub : path.subverdicts) {
          if (std::any_of(rule.subverdicts.begin(), rule.subverdicts.end(),
                          [&](const std::string& pattern) { return SubVerdictPatternMatches(pattern, sub.id); })) {
            subs.push_back(&sub);
          }
        }
      }
      if (subs.empty()) continue;  // none of its sub-verdicts was surveyed
      // A pattern ("opset*") names a family whose members need not share their steps (opset 17 is made
      // at "convert", opset 25 at "export"), and a survey may hold some members only: there, a step of
      // the path itself is known too. A step of neither (a typo) is still a problem.
      const bool family = std::any_of(rule.subverdicts.begin(), rule.subverdicts.end(),
                                      [](const std::string& p) { return p.find('*') != std::string::npos; });
      for (const std::string& step : rule.steps) {
        if (family && std::any_of(applies.begin(), applies.end(), [&](const PathSpec& p) { return PathHasStep(p, step); })) {
          continue;
        }
        if (std::none_of(subs.begin(), subs.end(), [&](const SubVerdictSpec* s) { return SubVerdictHasStep(*s, step); })) {
          std::string ids;
          for (const SubVerdictSpec* s : subs) ids += (ids.empty() ? "" : ", ") + s->id;
          problems.push_back(fmt::format("{}: unknown step '{}' (not a step of sub-verdict {})", where, step, ids));
        }
      }
    }
    for (const std::string& step : rule.subverdicts.empty() ? rule.steps : std::vector<std::string>{}) {
      bool known = std::any_of(applies.begin(), applies.end(), [&](const PathSpec& p) { return PathHasStep(p, step); });
      if (!known) {
        std::string ids;
        for (const PathSpec& p : applies) ids += (ids.empty() ? "" : ", ") + p.id;
        problems.push_back(fmt::format("{}: unknown step '{}' (not a common step nor a step of {})", where, step, ids));
      }
    }
    std::set<std::string> filled(FixedPlaceholders().begin(), FixedPlaceholders().end());
    for (const auto& g : rule.group_names) {
      if (!g.empty()) filled.insert(g);
    }
    for (const auto& field : EnvFieldsOf(applies)) filled.insert(field);
    for (const auto& name : Placeholders(rule.detail)) {
      if (!filled.count(name)) problems.push_back(fmt::format("{}: detail uses '{{{}}}', which nothing fills", where, name));
    }
  }
  return problems;
}

bool LoadRules(const std::vector<RuleSource>& sources, RuleSet* out, std::string* err) {
  Problems problems;
  RuleSet set;
  for (const RuleSource& source : sources) {
    json doc = json::parse(source.text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      problems.Add(source.name, "not valid JSON");
      continue;
    }
    if (!doc.is_object()) {
      problems.Add(source.name, "not a rules file (not a JSON object)");
      continue;
    }
    auto version = doc.find("version");
    if (version == doc.end() || !version->is_number_integer()) {
      problems.Add(source.name, "not a rules file (no integer 'version')");
      continue;
    }
    if (version->get<int>() != 1) {
      problems.Add(source.name, fmt::format("rules version {} is not supported (this opsweep reads 1)", version->dump()));
      continue;
    }
    for (const auto& [key, value] : doc.items()) {
      if (key != "version" && key != "rules" && key != "public_names" && key != "retired" && key != "note") {
        problems.Add(source.name, fmt::format("unknown key '{}'", key));
      }
    }
    auto names = doc.find("public_names");
    if (names != doc.end()) {
      if (!names->is_object()) {
        problems.Add(source.name, "'public_names' is not an object");
      } else {
        for (const auto& [op, name] : names->items()) {
          if (!name.is_string()) {
            problems.Add(source.name, fmt::format("public_names['{}'] is not a string", op));
          } else if (!set.public_names.emplace(op, name.get<std::string>()).second) {
            problems.Add(source.name, fmt::format("public_names['{}'] is defined twice", op));
          }
        }
      }
    }
    ReadStringList(doc, "retired", &set.retired, source.name, &problems);
    auto rules = doc.find("rules");
    if (rules == doc.end() || !rules->is_array()) {
      problems.Add(source.name, "'rules' is missing or not a list");
      continue;
    }
    for (size_t i = 0; i < rules->size(); ++i) ReadRule((*rules)[i], source.name, i, &problems, &set);
  }
  std::map<std::string, const Rule*> ids;
  std::map<int, const Rule*> orders;
  std::set<std::string> retired(set.retired.begin(), set.retired.end());
  for (const Rule& r : set.rules) {
    if (auto [it, fresh] = ids.emplace(r.id, &r); !fresh) {
      problems.Add(r.file, fmt::format("rule id '{}' is used twice (also in {})", r.id, it->second->file));
    }
    if (auto [it, fresh] = orders.emplace(r.order, &r); !fresh) {
      problems.Add(r.file, fmt::format("rules '{}' and '{}' have the same order {}", it->second->id, r.id, r.order));
    }
    if (retired.count(r.id)) problems.Add(r.file, fmt::format("rule id '{}' is retired and may not be reused", r.id));
    if (r.id == "unclassified" || r.id == "missing-result") {
      problems.Add(r.file, fmt::format("rule id '{}' is reserved", r.id));
    }
  }
  if (!problems.empty()) {
    *err = problems.Joined();
    return false;
  }
  std::stable_sort(set.rules.begin(), set.rules.end(), [](const Rule& a, const Rule& b) { return a.order < b.order; });
  *out = std::move(set);
  return true;
}

std::vector<RuleSource> EmbeddedRuleSources() {
  std::vector<RuleSource> out;
  for (const EmbeddedFile& f : embedded_rules::files()) out.push_back({std::string(f.name), std::string(f.data)});
  return out;
}

}  // namespace opsweep
