#include "merge/snapshot_builder.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "classify/scrub.h"
#include "merge/case_name.h"

namespace opsweep {

namespace {

using json = nlohmann::json;

constexpr size_t kDetailChars = 300;
constexpr size_t kErrorChars = 300;
constexpr size_t kExamples = 5;

std::string Str(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

json ScalarOrNull(const json& obj, const char* key) {
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

std::string Dump(const json& j) {
  return j.dump(2, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace) + "\n";
}

struct ReasonTexts {
  std::string title, cause, hint, component;
};

ReasonTexts BuiltInReason(const std::string& id) {
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
    for (const char* k : {"python", "torch", "onnx", "onnxscript", "onnxruntime", "numpy", "device"}) vars_[k] = Str(env, k);
    vars_["opset"] = ScalarText(ScalarOrNull(env, "opset"));
    vars_["library"] = library_;
    vars_["library_version"] = Str(env.value("library", json::object()), "version");
  }

  SnapshotOutput Build() {
    SnapshotOutput out;
    json records = json::array();
    json timings = json::object();
    struct Keyed {
      std::tuple<std::string, std::string, std::string, std::string> key;
      json record;
    };
    std::vector<Keyed> keyed;
    for (const auto& [name, c] : survey_.cases) {
      CaseName parsed;
      ParseCaseName(name, &parsed);
      std::string package, section;
      SplitGroup(c.inventory.group, &package, &section);
      json record = RecordFor(name, c, parsed, package, section, &timings);
      keyed.push_back({{package, section, parsed.operator_name, name}, std::move(record)});
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
    for (auto& k : keyed) records.push_back(std::move(k.record));

    json reasons = json::object();
    for (const std::string& id : used_reasons_) {
      ReasonTexts t;
      if (const Rule* rule = FindRule(id)) {
        t = {rule->title, rule->cause, rule->hint, rule->component};
      } else {
        t = BuiltInReason(id);
      }
      reasons[id] = {{"title", t.title}, {"cause", t.cause}, {"hint", t.hint}, {"component", t.component}};
    }
    const json& env = survey_.env;
    json library = env.value("library", json::object());
    json snapshot = {
        {"schema", 1},
        {"generated", survey_.newest_finished.substr(0, 10)},
        {"tool", {{"name", "opsweep"}, {"version", options_.tool_version}}},
        {"library",
         {{"name", Str(library, "name")}, {"version", Str(library, "version")}, {"fingerprint", Str(library, "fingerprint")}}},
        {"environment",
         {{"python", ScalarOrNull(env, "python")},
          {"torch", ScalarOrNull(env, "torch")},
          {"onnx", ScalarOrNull(env, "onnx")},
          {"onnxscript", ScalarOrNull(env, "onnxscript")},
          {"onnxruntime", ScalarOrNull(env, "onnxruntime")},
          {"numpy", ScalarOrNull(env, "numpy")}}},
        {"opset", ScalarOrNull(env, "opset")},
        {"device", ScalarOrNull(env, "device")},
        {"paths", survey_.paths},
        {"cross_references", options_.objects != nullptr},
        {"reasons", reasons},
        {"unclassified", unclassified_},
        {"records", records},
    };
    out.snapshot_json = Dump(snapshot);
    out.timings_json = Dump(json{{"schema", 1}, {"records", timings}});
    out.records = keyed.size();
    out.unclassified = unclassified_;
    out.unclassified_examples.assign(examples_.begin(), examples_.end());
    out.api_links = api_links_;
    return out;
  }

 private:
  const Rule* FindRule(const std::string& id) const {
    for (const Rule& r : classifier_.rules().rules) {
      if (r.id == id) return &r;
    }
    return nullptr;
  }

  json RecordFor(const std::string& name, const SurveyCase& c, const CaseName& parsed, const std::string& package,
                 const std::string& section, json* timings) {
    const json& info = c.info;
    std::string target = Str(info, "target");
    json tags = json::array();
    if (auto it = info.find("tags"); it != info.end() && it->is_array()) {
      for (const json& t : *it) {
        if (t.is_string()) tags.push_back(t);
      }
    }
    bool check = true;
    if (auto it = info.find("check"); it != info.end() && it->is_boolean()) check = it->get<bool>();
    json api = nullptr;
    if (options_.objects) {
      if (auto found = options_.objects->Lookup(target, package, parsed.operator_name)) {
        api = *found;
        ++api_links_;
      }
    }
    json paths = json::object();
    for (const std::string& path : survey_.paths) {
      auto it = survey_.results.find({name, path});
      if (it == survey_.results.end()) {
        paths[path] = Missing();
        continue;
      }
      paths[path] = Outcome(path, it->second.record);
      const json& onnx = it->second.record.value("onnx", json::object());
      json size = onnx.is_object() ? ScalarOrNull(onnx, "size_kb") : json(nullptr);
      (*timings)[name][path] = {{"duration_s", Round3(it->second.row.duration_s)},
                                {"size_kb", size.is_number() ? json(Round3(size.get<double>())) : json(nullptr)}};
    }
    return {{"name", name},
            {"operator", parsed.operator_name},
            {"variant", parsed.variant},
            {"package", package},
            {"section", section},
            {"group", c.inventory.group},
            {"target", target},
            {"note", CleanFirstLine(Str(info, "note"), library_, 500)},
            {"tags", tags},
            {"check", check},
            {"api", api},
            {"paths", paths}};
  }

  json Missing() {
    used_reasons_.insert(kMissingResultReason);
    return {{"status", "n/a"},
            {"step", ""},
            {"reason", kMissingResultReason},
            {"detail", "no result: the survey was incomplete when this snapshot was merged (--force)"},
            {"error", ""},
            {"location", ""},
            {"graph_breaks", nullptr},
            {"break_reasons", json::array()},
            {"op_types", json::array()}};
  }

  json Outcome(const std::string& path, const json& record) {
    std::string status = Str(record, "status");
    std::string step = Str(record, "step");
    std::string detail = Str(record, "detail");
    const json& error = record.value("error", json(nullptr));
    std::string type = Str(error, "type"), message = Str(error, "message"), chain = Str(error, "chain");
    std::string error_line = CleanFirstLine(message.empty() ? type : message, library_, kErrorChars);

    std::string location;
    if (error.is_object()) {
      if (auto frames = error.find("frames"); frames != error.end() && frames->is_array() && !frames->empty()) {
        // Innermost first (python/opsweep/evidence.py): the first is where the library failed.
        const json& inner = frames->front();
        if (inner.is_string()) location = CleanFirstLine(inner.get<std::string>(), library_, 200);
      }
    }

    json breaks = nullptr;
    if (auto it = record.find("graph_breaks"); it != record.end() && it->is_number_integer()) breaks = *it;
    json break_reasons = json::array();
    if (auto it = record.find("break_reasons"); it != record.end() && it->is_array()) {
      std::set<std::pair<std::string, std::string>> seen;
      for (const json& r : *it) {
        if (!r.is_string()) continue;
        std::string text = r.get<std::string>();
        ClassifyInput in{"compile", "explain", "", "", "", text, ""};
        Classification c = classifier_.Classify(in);
        std::string line = CleanFirstLine(text, library_, kErrorChars);
        std::string id = c.rule ? c.rule->id : kUnclassifiedReason;
        if (!c.rule) Unclassified(path, line);
        used_reasons_.insert(id);
        if (seen.insert({id, line}).second) break_reasons.push_back({{"reason", id}, {"text", line}});
      }
    }

    json op_types = json::array();
    if (auto onnx = record.find("onnx"); onnx != record.end() && onnx->is_object()) {
      if (auto types = onnx->find("op_types"); types != onnx->end() && types->is_array()) {
        std::set<std::string> sorted;
        for (const json& t : *types) {
          if (t.is_string()) sorted.insert(t.get<std::string>());
        }
        for (const auto& t : sorted) op_types.push_back(t);
      }
    }

    json reason = nullptr;
    std::string shown_detail = CleanFirstLine(detail, library_, kDetailChars);
    if (!IsSupportedStatus(status)) {
      ClassifyInput in{path, step, status, detail, type, message, chain};
      Classification c = classifier_.Classify(in);
      if (c.rule) {
        reason = c.rule->id;
        used_reasons_.insert(c.rule->id);
        if (!c.rule->detail.empty()) {
          std::map<std::string, std::string> vars = vars_;
          vars["detail"] = shown_detail;
          vars["error"] = error_line;
          vars["path"] = path;
          vars["step"] = step;
          vars["status"] = status;
          vars["graph_breaks"] = breaks.is_null() ? "" : breaks.dump();
          shown_detail = CleanFirstLine(classifier_.Fill(c.rule->detail, c, vars), library_, kDetailChars);
        }
        if (shown_detail.empty()) shown_detail = c.rule->title;
      } else {
        reason = kUnclassifiedReason;
        used_reasons_.insert(kUnclassifiedReason);
        Unclassified(path, error_line.empty() ? shown_detail : error_line);
        if (shown_detail.empty()) shown_detail = error_line;
      }
    }
    return {{"status", status},        {"step", step},       {"reason", reason},
            {"detail", shown_detail},  {"error", error_line}, {"location", location},
            {"graph_breaks", breaks},  {"break_reasons", break_reasons}, {"op_types", op_types}};
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
