#include "merge/snapshot_builder.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "classify/scrub.h"
#include "merge/case_name.h"
#include "merge/record_facts.h"
#include "snapshot/snapshot_writer.h"
#include "util/json_fields.h"

namespace opsweep {

namespace {

using json = nlohmann::json;

constexpr size_t kDetailChars = 300;
constexpr size_t kErrorChars = 300;
constexpr size_t kLocationChars = 200;
constexpr size_t kExamples = 5;

json ScalarOrNull(const json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_object() || it->is_array()) return nullptr;
  return *it;
}

std::string ScalarText(const json& v) {
  if (v.is_null()) return "";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

double Round3(double v) { return std::round(v * 1000.0) / 1000.0; }

snapshot::Reason BuiltInReason(const std::string& id) {
  if (id == kUnclassifiedReason) {
    return {"Not classified yet",
            "No reason rule matches this error yet, so the error's first line is shown as it was raised.",
            "Add a rule to rules/ (see docs/reasons.md) so that this error gets a cause and a hint.", "opsweep"};
  }
  return {"Not measured", "This job had no result when the snapshot was merged with --force.",
          "Finish the survey with `opsweep run`, then merge again.", "opsweep"};
}

class Builder {
 public:
  Builder(const Survey& survey, const Classifier& classifier, const SnapshotOptions& options)
      : survey_(survey), classifier_(classifier), options_(options) {
    const json& env = survey.env;
    library_ = Str(env.value("library", json::object()), "name");
    // Detail templates may name any env field the workers reported ({onnxscript}, {torch}, ...).
    for (const auto& [field, value] : env.items()) {
      if (field != "library") vars_[field] = ScalarText(ScalarOrNull(env, field));
    }
    vars_["library"] = library_;
    vars_["library_version"] = Str(env.value("library", json::object()), "version");
  }

  SnapshotOutput Build() {
    SnapshotOutput out;
    json timings = json::object();
    struct Keyed {
      std::tuple<std::string, std::string, std::string, std::string> key;
      snapshot::Record record;
    };
    std::vector<Keyed> keyed;
    for (const auto& [name, c] : survey_.cases) {
      CaseName parsed;
      ParseCaseName(name, &parsed);
      std::string package, section;
      SplitGroup(c.inventory.group, &package, &section);
      snapshot::Record record = RecordFor(name, c, parsed, package, section, &timings);
      keyed.push_back({{package, section, parsed.operator_name, name}, std::move(record)});
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });

    snapshot::Snapshot& s = out.snapshot;
    for (auto& k : keyed) s.records.push_back(std::move(k.record));
    for (const std::string& id : used_reasons_) {
      const Rule* rule = FindRule(id);
      s.reasons[id] = rule ? snapshot::Reason{rule->title, rule->cause, rule->hint, rule->component} : BuiltInReason(id);
    }
    Header(&s);
    out.snapshot_json = snapshot::WriteSnapshot(s);
    out.timings_json = json{{"schema", 1}, {"records", timings}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    out.records = keyed.size();
    out.unclassified = unclassified_;
    out.unclassified_examples.assign(examples_.begin(), examples_.end());
    out.api_links = api_links_;
    return out;
  }

 private:
  // What the workers measured: the library and the env fields the paths' descriptions name.
  void Header(snapshot::Snapshot* s) const {
    const json& env = survey_.env;
    json library = env.value("library", json::object());
    s->generated = survey_.newest_finished.substr(0, 10);
    s->tool_name = "opsweep";
    s->tool_version = options_.tool_version;
    s->library_name = Str(library, "name");
    s->library_version = Str(library, "version");
    s->library_fingerprint = Str(library, "fingerprint");
    for (const std::string& field : EnvFieldsOf(survey_.paths)) s->environment[field] = ScalarOrNull(env, field);
    s->paths = survey_.paths;
    for (PathSpec& p : s->paths) {  // the snapshot form
      p.harness.clear();
      p.expected_seconds.reset();
    }
    s->cross_references = options_.objects != nullptr;
    s->groups = survey_.groups;
    s->unclassified = static_cast<int>(unclassified_);
  }

  const Rule* FindRule(const std::string& id) const {
    for (const Rule& r : classifier_.rules().rules) {
      if (r.id == id) return &r;
    }
    return nullptr;
  }

  snapshot::Record RecordFor(const std::string& name, const SurveyCase& c, const CaseName& parsed,
                             const std::string& package, const std::string& section, json* timings) {
    const json& info = c.info;
    snapshot::Record r;
    r.name = name;
    r.operator_name = parsed.operator_name;
    r.variant = parsed.variant;
    r.package = package;
    r.section = section;
    r.group = c.inventory.group;
    r.target = Str(info, "target");
    r.note = CleanFirstLine(Str(info, "note"), library_, 500);
    if (auto it = info.find("tags"); it != info.end() && it->is_array()) {
      for (const json& t : *it) {
        if (t.is_string()) r.tags.push_back(t.get<std::string>());
      }
    }
    if (auto it = info.find("check"); it != info.end() && it->is_boolean()) r.check = it->get<bool>();
    if (options_.objects) {
      std::vector<std::string> names = {r.target};
      if (auto it = info.find("aliases"); it != info.end() && it->is_array()) {
        for (const json& a : *it) {
          if (a.is_string()) names.push_back(a.get<std::string>());
        }
      }
      if (auto found = options_.objects->Lookup(names, package, parsed.operator_name)) {
        r.api = found->name;
        if (!found->uri.empty()) r.api_uri = found->uri;
        ++api_links_;
      }
    }
    for (const PathSpec& path : survey_.paths) {
      auto it = survey_.results.find({name, path.id});
      if (it == survey_.results.end()) {
        r.paths[path.id] = Missing();
        continue;
      }
      r.paths[path.id] = OutcomeOf(path, it->second.record);
      const json& onnx = it->second.record.value("onnx", json::object());
      json size = onnx.is_object() ? ScalarOrNull(onnx, "size_kb") : json(nullptr);
      (*timings)[name][path.id] = {{"duration_s", Round3(it->second.row.duration_s)},
                                   {"size_kb", size.is_number() ? json(Round3(size.get<double>())) : json(nullptr)}};
    }
    return r;
  }

  snapshot::Outcome Missing() {
    used_reasons_.insert(kMissingResultReason);
    snapshot::Outcome o;
    o.status = Status::not_applicable;
    o.reason = kMissingResultReason;
    o.detail = "no result: the survey was incomplete when this snapshot was merged (--force)";
    return o;
  }

  // Graph-break reasons (any path may report them), each classified with the record's path and no
  // step or status, duplicates dropped, in the worker's order.
  std::vector<snapshot::GraphBreak> BreakReasons(const std::string& path, const json& record) {
    std::vector<snapshot::GraphBreak> out;
    auto it = record.find("break_reasons");
    if (it == record.end() || !it->is_array()) return out;
    const json frames = record.value("break_frames", json(nullptr));
    std::set<std::pair<std::string, std::string>> seen;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& r = (*it)[i];
      if (!r.is_string()) continue;
      std::string text = r.get<std::string>();
      ClassifyInput in{path, "", std::nullopt, "", "", text, ""};
      Classification c = classifier_.Classify(in);
      std::string line = CleanFirstLine(text, library_, kErrorChars);
      std::string id = c.rule ? c.rule->id : kUnclassifiedReason;
      if (!c.rule) Unclassified(path, line);
      used_reasons_.insert(id);
      if (seen.insert({id, line}).second) out.push_back({id, line, BreakLocation(frames, i)});
    }
    return out;
  }

  // break_frames[i] (parallel to break_reasons: the library frames where Dynamo broke, innermost
  // first): its first frame, or "" when unknown.
  std::string BreakLocation(const json& frames, std::size_t i) const {
    if (!frames.is_array() || i >= frames.size()) return "";
    return FirstFrame(frames[i]);
  }


  // The record's sub-verdicts (survey checked them against the path's description), each
  // classified with the rules of its sub-verdict (docs/formats.md section 6).
  std::map<std::string, snapshot::SubOutcome> SubOutcomes(const PathSpec& path, const json& record) {
    std::map<std::string, snapshot::SubOutcome> out;
    auto subs = record.find("subverdicts");
    if (subs == record.end() || !subs->is_object()) return out;
    for (const auto& [id, sub] : subs->items()) {
      const SubVerdictSpec* spec = FindSubVerdict(path, id);
      if (spec == nullptr || !sub.is_object()) continue;
      snapshot::Outcome o;  // classified like an outcome, then cut down to a sub-outcome
      o.status = ParseStatus(Str(sub, "status")).value_or(Status::not_applicable);
      o.step = Str(sub, "step");
      const std::string detail = Str(sub, "detail");
      const json& error = sub.value("error", json(nullptr));
      const std::string type = Str(error, "type"), message = Str(error, "message");
      o.error = CleanFirstLine(message.empty() ? type : message, library_, kErrorChars);
      o.location = LocationOf(error);
      o.detail = CleanFirstLine(detail, library_, kDetailChars);
      if (!IsSupported(o.status)) Classify(path.id, detail, type, message, Str(error, "chain"), &o, spec);
      out[id] = {o.status, o.step, o.reason, o.detail, o.error, o.location, ChecksOf(sub)};
    }
    return out;
  }

  snapshot::Outcome OutcomeOf(const PathSpec& spec, const json& record) {
    const std::string& path = spec.id;
    snapshot::Outcome o;
    o.status = ParseStatus(Str(record, "status")).value_or(Status::not_applicable);  // survey checked it
    o.step = Str(record, "step");
    std::string detail = Str(record, "detail");
    const json& error = record.value("error", json(nullptr));
    std::string type = Str(error, "type"), message = Str(error, "message"), chain = Str(error, "chain");
    o.error = CleanFirstLine(message.empty() ? type : message, library_, kErrorChars);

    o.location = LocationOf(error);
    o.subverdicts = SubOutcomes(spec, record);
    if (auto it = record.find("graph_breaks"); it != record.end() && it->is_number_integer()) {
      o.graph_breaks = it->get<int>();
    }
    o.break_reasons = BreakReasons(path, record);
    if (auto onnx = record.find("onnx"); onnx != record.end() && onnx->is_object()) {
      if (auto types = onnx->find("op_types"); types != onnx->end() && types->is_array()) {
        std::set<std::string> sorted;
        for (const json& t : *types) {
          if (t.is_string()) sorted.insert(t.get<std::string>());
        }
        o.op_types.assign(sorted.begin(), sorted.end());
      }
    }
    o.detail = CleanFirstLine(detail, library_, kDetailChars);
    o.dynamic = DynamicOf(record);
    o.facts = FactsOfRecord(spec.facts, record, [&](const std::string& text) {
      return CleanFirstLine(text, library_, kDetailChars);
    });
    if (!IsSupported(o.status)) Classify(path, detail, type, message, chain, &o);
    o.checks = ChecksOf(record);
    o.notes = NotesOf(record);
    return o;
  }

  // The first frame of error.<key> (innermost first, python/opsweep/evidence.py), cleaned; "".
  std::string FirstFrame(const json& frames) const {
    if (!frames.is_array() || frames.empty() || !frames.front().is_string()) return "";
    return CleanFirstLine(frames.front().get<std::string>(), library_, kLocationChars);
  }

  // Where the failure was raised: a failure raised in registry code (error.raised_in) is located at
  // its innermost registry frame, since that is the code at fault (the library frames, if any, are
  // further out); any other at its innermost library frame.
  std::string LocationOf(const json& error) const {
    if (!error.is_object()) return "";
    if (Str(error, "raised_in") == "registry") {
      std::string frame = FirstFrame(error.value("registry_frames", json(nullptr)));
      if (!frame.empty()) return frame;
    }
    return FirstFrame(error.value("frames", json(nullptr)));
  }

  // record.checks ({"<id>": {"ran", "passed", "why"}}) in the snapshot's form; survey.cc has
  // checked their shape.
  std::map<std::string, snapshot::CheckResult> ChecksOf(const json& record) const {
    std::map<std::string, snapshot::CheckResult> out;
    auto it = record.find("checks");
    if (it == record.end() || !it->is_object()) return out;
    for (const auto& [id, check] : it->items()) {
      if (!check.is_object()) continue;
      const json ran = check.value("ran", json(false));
      const json passed = check.value("passed", json(nullptr));
      snapshot::CheckResult result;
      if (!(ran.is_boolean() && ran.get<bool>())) {
        result.state = snapshot::CheckState::not_run;
      } else if (passed.is_boolean() && passed.get<bool>()) {
        result.state = snapshot::CheckState::passed;
      } else {
        result.state = snapshot::CheckState::failed;
      }
      result.why = CleanFirstLine(Str(check, "why"), library_, kDetailChars);
      out[id] = std::move(result);
    }
    return out;
  }

  // What a dynamic-shape path found (docs/formats.md section 3, record.dynamic), as the snapshot
  // keeps it: shapes as text, specialised dimensions and guards cleaned like every text.
  std::optional<snapshot::DynamicInfo> DynamicOf(const json& record) {
    auto it = record.find("dynamic");
    if (it == record.end() || !it->is_object()) return std::nullopt;
    const json& d = *it;
    snapshot::DynamicInfo info;
    if (auto shapes = d.find("shapes"); shapes != d.end() && shapes->is_array()) {
      for (const json& set : *shapes) info.shapes.push_back(ShapeText(set));
    }
    if (auto trace = d.find("trace"); trace != d.end() && trace->is_number_integer()) {
      const int t = trace->get<int>();
      if (t >= 0 && t < static_cast<int>(info.shapes.size())) info.trace = t;
    }
    if (auto n = d.find("recompiles"); n != d.end() && n->is_number_integer() && n->get<long long>() >= 0) {
      info.recompiles = n->get<int>();
    }
    if (auto list = d.find("specialised"); list != d.end() && list->is_array()) {
      for (const json& item : *list) {
        if (!item.is_object()) continue;
        snapshot::DynamicDim dim{CleanFirstLine(Str(item, "name"), library_, 40), CleanFirstLine(Str(item, "kind"), library_, 20),
                                 CleanFirstLine(Str(item, "why"), library_, kErrorChars)};
        if (!dim.name.empty() && !dim.kind.empty()) info.specialised.push_back(std::move(dim));
      }
    }
    if (auto guards = d.find("guards"); guards != d.end() && guards->is_array()) {
      for (const json& g : *guards) {
        if (!g.is_string() || info.guards.size() >= snapshot::kDynamicGuards) continue;
        std::string text = CleanFirstLine(g.get<std::string>(), library_, kErrorChars);
        if (!text.empty()) info.guards.push_back(std::move(text));
      }
    }
    return info;
  }

  // [[1,3,32,40],[1,3,3]] -> "1x3x32x40, 1x3x3" (a 0-d input is "scalar").
  static std::string ShapeText(const json& set) {
    std::string out;
    if (!set.is_array()) return out;
    for (const json& shape : set) {
      if (!out.empty()) out += ", ";
      std::string one;
      if (shape.is_array()) {
        for (const json& v : shape) {
          if (!one.empty()) one += "x";
          one += v.is_number_integer() ? std::to_string(v.get<long long>()) : "?";
        }
      }
      out += one.empty() ? "scalar" : one;
    }
    return out;
  }

  // record.notes, cleaned, empty and repeated ones dropped, in the worker's order.
  std::vector<std::string> NotesOf(const json& record) const {
    std::vector<std::string> out;
    auto it = record.find("notes");
    if (it == record.end() || !it->is_array()) return out;
    for (const json& note : *it) {
      if (!note.is_string()) continue;
      std::string text = CleanFirstLine(note.get<std::string>(), library_, kDetailChars);
      if (!text.empty() && std::find(out.begin(), out.end(), text) == out.end()) out.push_back(std::move(text));
    }
    return out;
  }

  // The reason of an outcome (or of one of its sub-verdicts) that is not supported, and its detail text.
  void Classify(const std::string& path, const std::string& detail, const std::string& type, const std::string& message,
                const std::string& chain, snapshot::Outcome* o, const SubVerdictSpec* sub = nullptr) {
    ClassifyInput in{path, o->step, o->status, detail, type, message, chain};
    if (sub != nullptr) {
      in.subverdict = sub->id;
      in.subverdict_kind = sub->kind;
    }
    Classification c = classifier_.Classify(in);
    if (!c.rule) {
      o->reason = kUnclassifiedReason;
      used_reasons_.insert(kUnclassifiedReason);
      Unclassified(sub != nullptr ? path + "/" + sub->id : path, o->error.empty() ? o->detail : o->error);
      if (o->detail.empty()) o->detail = o->error;
      return;
    }
    o->reason = c.rule->id;
    used_reasons_.insert(c.rule->id);
    if (!c.rule->detail.empty()) {
      std::map<std::string, std::string> vars = vars_;
      vars["detail"] = o->detail;
      vars["error"] = o->error;
      vars["path"] = path;
      vars["subverdict"] = sub != nullptr ? sub->id : "";
      vars["step"] = o->step;
      vars["status"] = std::string(StatusId(o->status));
      vars["graph_breaks"] = o->graph_breaks ? std::to_string(*o->graph_breaks) : "";
      o->detail = CleanFirstLine(classifier_.Fill(c.rule->detail, c, vars), library_, kDetailChars);
    }
    if (o->detail.empty()) o->detail = c.rule->title;
  }

  void Unclassified(const std::string& path, const std::string& line) {
    ++unclassified_;
    if (examples_.size() < kExamples) examples_.insert(path + ": " + (line.empty() ? "(no error text)" : line));
  }

  const Survey& survey_;
  const Classifier& classifier_;
  const SnapshotOptions& options_;
  std::string library_;
  std::map<std::string, std::string> vars_;
  std::set<std::string> used_reasons_;
  size_t unclassified_ = 0;
  std::set<std::string> examples_;
  size_t api_links_ = 0;
};

}  // namespace

SnapshotOutput BuildSnapshot(const Survey& survey, const Classifier& classifier, const SnapshotOptions& options) {
  return Builder(survey, classifier, options).Build();
}

}  // namespace opsweep
