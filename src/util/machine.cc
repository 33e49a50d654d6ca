#include "util/machine.h"

#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/read_file.h"
#include "util/trim.h"

namespace opsweep {

namespace {

// The flags that select float kernels (ATen's CPU capability, MKL's and oneDNN's code paths, libm's
// FMA variants), in the order they are written.
constexpr const char* kNumericFeatures[] = {"sse4_2",     "avx",         "fma",         "avx2",     "avx512f",
                                            "avx512bw",   "avx512vl",    "avx512_vnni", "avx512_bf16",
                                            "avx512_fp16", "amx_bf16",   "amx_tile"};

}  // namespace

std::string MachineFromCpuinfo(std::string_view cpuinfo) {
  std::string model, flags;
  size_t pos = 0;
  while (pos <= cpuinfo.size()) {
    size_t end = cpuinfo.find('\n', pos);
    if (end == std::string_view::npos) end = cpuinfo.size();
    std::string_view line = cpuinfo.substr(pos, end - pos);
    pos = end + 1;
    if (Trim(line).empty()) {
      if (!model.empty()) break;  // the first processor's block has ended
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key(Trim(line.substr(0, colon)));
    std::string value(Trim(line.substr(colon + 1)));
    if (key == "model name" && model.empty()) model = value;
    if (key == "flags" && flags.empty()) flags = value;
  }
  if (model.empty()) return "";
  std::set<std::string> have;
  std::istringstream in(flags);
  for (std::string f; in >> f;) have.insert(f);
  std::string features;
  for (const char* f : kNumericFeatures) {
    if (!have.count(f)) continue;
    if (!features.empty()) features += ' ';
    features += f;
  }
  return nlohmann::json{{"cpu", model}, {"features", features}}.dump();
}

std::string ThisMachine() {
  std::string text, err;
  if (!ReadFile("/proc/cpuinfo", &text, &err)) return "";
  return MachineFromCpuinfo(text);
}

std::string MachineText(const std::string& machine_json) {
  if (machine_json.empty()) return "";
  nlohmann::json j = nlohmann::json::parse(machine_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return "";
  auto cpu = j.find("cpu");
  if (cpu == j.end() || !cpu->is_string() || cpu->get<std::string>().empty()) return "";
  std::string out = cpu->get<std::string>();
  auto features = j.find("features");
  if (features != j.end() && features->is_string() && !features->get<std::string>().empty()) {
    out += ", " + features->get<std::string>();
  }
  return out;
}

}  // namespace opsweep
