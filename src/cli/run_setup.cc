#include "cli/run_setup.h"

#include "cli/capture.h"
#include "util/read_file.h"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace opsweep::cli {

namespace fs = std::filesystem;

std::string ResolvePython(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("OPSWEEP_PYTHON"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path beside = self.parent_path() / "python3";
    if (access(beside.c_str(), X_OK) == 0) return beside.string();
  }
  return "python3";
}

std::vector<std::string> WorkerProgram(const std::string& python) {
  if (const char* cmd = std::getenv("OPSWEEP_WORKER_CMD"); cmd != nullptr && *cmd != '\0') {
    std::vector<std::string> words;
    std::istringstream in(cmd);
    std::string w;
    while (in >> w) words.push_back(w);
    if (!words.empty()) return words;
  }
  return {python, "-m", "opsweep.worker"};
}

void AddCaseSourceOptions(CLI::App* cmd, CaseSource* source) {
  cmd->add_option("--suite", source->suite,
                  "The suite to survey: a bundled suite's name, or a folder of registries (default: the one bundled "
                  "suite; required when there are several)");
  cmd->add_option("--preset", source->preset, "One of the suite's presets instead of all its registries (e.g. quick)");
  cmd->add_option("--cases", source->cases, "Registry files instead of a suite");
}

bool BundledSuites(const std::string& python, std::string* root, std::vector<std::string>* names, std::string* err) {
  std::string text;
  int status = 0;
  if (!RunAndCapture({python, "-c", "import opsweep_suites, os; print(os.path.dirname(os.path.abspath(opsweep_suites.__file__)))"},
                     Stderr::discard, &text, &status, err)) {
    return false;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (status != 0 || text.empty()) {
    *err = fmt::format("'{}' cannot import opsweep_suites, so there are no bundled suites (pass --python, --suite DIR "
                       "or --cases FILE)",
                       python);
    return false;
  }
  *root = text;
  names->clear();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(text, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory(ec) && name.rfind("_", 0) != 0 && fs::is_regular_file(entry.path() / "__init__.py", ec)) {
      names->push_back(name);
    }
  }
  std::sort(names->begin(), names->end());
  return true;
}

namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list.empty() ? "none" : list;
}

bool LooksLikeFolder(const std::string& suite) {
  std::error_code ec;
  return suite.find('/') != std::string::npos || suite == "." || suite == ".." || fs::is_directory(suite, ec);
}

bool SuiteRegistries(const std::string& dir, std::vector<std::string>* out, std::string* err) {
  std::error_code ec;
  out->clear();
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("cases_", 0) == 0 && entry.path().extension() == ".py") out->push_back(entry.path().string());
  }
  std::sort(out->begin(), out->end());
  if (out->empty()) {
    *err = fmt::format("no registries (cases_*.py) in the suite {} (pass --cases FILE)", dir);
    return false;
  }
  return true;
}

bool SuitePreset(const std::string& dir, const std::string& name, std::string* file, std::string* err) {
  std::vector<std::string> known;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "presets", ec)) {
    if (entry.path().extension() == ".py" && entry.path().stem().string().rfind("_", 0) != 0) {
      known.push_back(entry.path().stem().string());
    }
  }
  std::sort(known.begin(), known.end());
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    *err = fmt::format("unknown preset '{}' of the suite {} (known: {})", name, fs::path(dir).filename().string(),
                       JoinNames(known));
    return false;
  }
  *file = (fs::path(dir) / "presets" / (name + ".py")).string();
  return true;
}

}  // namespace

bool ResolveSuite(const std::string& python, const std::string& suite, std::string* dir, std::string* err) {
  if (!suite.empty() && LooksLikeFolder(suite)) {
    std::error_code ec;
    if (!fs::is_directory(suite, ec)) {
      *err = fmt::format("--suite {}: no such folder", suite);
      return false;
    }
    *dir = fs::absolute(suite).lexically_normal().string();
    return true;
  }
  std::string root;
  std::vector<std::string> names;
  if (!BundledSuites(python, &root, &names, err)) return false;
  if (suite.empty()) {
    if (names.size() != 1) {
      *err = names.empty() ? fmt::format("no bundled suites in {} (pass --suite DIR or --cases FILE)", root)
                           : fmt::format("{} bundled suites ({}): choose one with --suite NAME (or --cases FILE)",
                                         names.size(), JoinNames(names));
      return false;
    }
    *dir = (fs::path(root) / names.front()).string();
    return true;
  }
  if (std::find(names.begin(), names.end(), suite) == names.end()) {
    *err = fmt::format("unknown suite '{}' (bundled: {}; a folder of registries works too: --suite DIR)", suite,
                       JoinNames(names));
    return false;
  }
  *dir = (fs::path(root) / suite).string();
  return true;
}

bool ResolveRegistries(const std::string& python, const CaseSource& source, std::vector<std::string>* out,
                       std::string* err) {
  out->clear();
  if (!source.cases.empty()) {
    if (!source.preset.empty() || !source.suite.empty()) {
      *err = "--cases excludes --suite and --preset (the files are the registries)";
      return false;
    }
    for (const auto& c : source.cases) {
      std::error_code ec;
      if (!fs::is_regular_file(c, ec)) {
        *err = fmt::format("--cases {}: no such file", c);
        return false;
      }
      out->push_back(fs::absolute(c).lexically_normal().string());
    }
    return true;
  }
  std::string dir;
  if (!ResolveSuite(python, source.suite, &dir, err)) return false;
  if (source.preset.empty()) return SuiteRegistries(dir, out, err);
  std::string file;
  if (!SuitePreset(dir, source.preset, &file, err)) return false;
  out->push_back(file);
  return true;
}

int AvailableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc > 0 ? static_cast<int>(hc) : 1;
}

long long TotalMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long long kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemTotal:") return kb * 1024;
  }
  return 0;
}

bool ParseOpsets(const std::vector<std::string>& items, std::string* out, std::string* err) {
  std::vector<long long> values;
  for (const auto& item : items) {
    long long v = 0;
    if (item.empty() || item.size() > 3 || !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        (v = std::stoll(item)) < 1) {
      *err = fmt::format("--opset '{}': expected ONNX opset numbers, comma-separated (e.g. 17,18,23)", item);
      return false;
    }
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  out->clear();
  for (long long v : values) *out += (out->empty() ? "" : ",") + std::to_string(v);
  return true;
}

bool OpsetsOfDatabase(const ResultsDb& db, std::string* out, std::string* note, std::string* err) {
  out->clear();
  note->clear();
  std::string stored;
  if (!db.StoredOpsets(&stored, err)) return false;
  if (stored.empty() || stored == "18") return true;
  std::vector<std::string> items;
  std::stringstream in(stored);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  if (!ParseOpsets(items, out, err)) {
    *err = "the opsets of the database's onnx results: " + *err;
    return false;
  }
  *note = fmt::format("--opset {}, as the database's onnx results were measured (give --opset to change)", *out);
  return true;
}

bool ReadPriorDurations(const std::string& file, std::vector<PriorDuration>* out, std::string* err) {
  using nlohmann::json;
  std::string text, why;
  if (!ReadFile(file, &text, &why)) {
    *err = fmt::format("--durations-from {}: cannot read the file", file);
    return false;
  }
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    *err = fmt::format("--durations-from {}: not JSON (expected a snapshot timings file, snapshot.timings.json)", file);
    return false;
  }
  auto records = doc.is_object() ? doc.find("records") : doc.end();
  if (!doc.is_object() || records == doc.end() || !records->is_object() ||
      (doc.contains("schema") && doc["schema"] != 1)) {
    *err = fmt::format("--durations-from {}: not a snapshot timings file ({{\"schema\":1,\"records\":{{...}}}}, "
                       "written by opsweep merge beside its snapshot)", file);
    return false;
  }
  for (const auto& [case_name, paths] : records->items()) {
    if (!paths.is_object()) {
      *err = fmt::format("--durations-from {}: record '{}' is not an object of paths", file, case_name);
      return false;
    }
    for (const auto& [path, timing] : paths.items()) {
      auto d = timing.is_object() ? timing.find("duration_s") : timing.end();
      if (!timing.is_object() || d == timing.end() || !(d->is_null() || d->is_number())) {
        *err = fmt::format("--durations-from {}: record '{}', path '{}': expected {{\"duration_s\": seconds}}", file,
                           case_name, path);
        return false;
      }
      if (d->is_number()) out->push_back(PriorDuration{case_name, path, d->get<double>()});
    }
  }
  return true;
}

}  // namespace opsweep::cli
