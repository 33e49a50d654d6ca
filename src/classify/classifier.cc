#include "classify/classifier.h"

#include <algorithm>
#include <vector>

#include "classify/scrub.h"

namespace opsweep {

namespace {

constexpr size_t kMessageChars = 4000;
constexpr size_t kChainChars = 4000;
constexpr size_t kLineChars = 1000;

template <typename T, typename V>
bool Admits(const std::vector<T>& allowed, const V& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

std::string_view Prefix(std::string_view s, size_t n) { return s.substr(0, std::min(n, s.size())); }

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

}  // namespace

Classification Classifier::Classify(const ClassifyInput& in) const {
  std::string text;
  text.reserve(in.detail.size() + in.error_type.size() + kMessageChars + kChainChars + 4);
  text += in.detail;
  text += '\n';
  text += in.error_type;
  text += '\n';
  text += Prefix(in.message, kMessageChars);
  text += '\n';
  text += Prefix(in.chain, kChainChars);
  text = StripAnsi(text);

  std::vector<std::string_view> lines;  // split lazily, once
  auto split = [&] {
    if (!lines.empty()) return;
    std::string_view rest = text;
    while (!rest.empty()) {
      size_t nl = rest.find('\n');
      lines.push_back(Prefix(rest.substr(0, nl), kLineChars));
      if (nl == std::string_view::npos) break;
      rest = rest.substr(nl + 1);
    }
  };

  for (const Rule& rule : rules_.rules) {
    if (!Admits(rule.paths, in.path)) continue;
    // A graph-break reason has no step and no status: only rules open to every step and status apply.
    if (in.step.empty() ? !rule.steps.empty() : !Admits(rule.steps, in.step)) continue;
    if (!in.status ? !rule.statuses.empty() : !Admits(rule.statuses, *in.status)) continue;
    bool all = std::all_of(rule.substrings.begin(), rule.substrings.end(),
                           [&](const std::string& s) { return text.find(s) != std::string::npos; });
    if (!all) continue;
    bool any = rule.any.empty() || std::any_of(rule.any.begin(), rule.any.end(), [&](const std::string& s) {
                 return text.find(s) != std::string::npos;
               });
    if (!any) continue;
    Classification result;
    result.rule = &rule;
    if (!rule.compiled) return result;
    // The regex must match some line; the line whose match fills the most named groups wins (the
    // first such line on a tie), so a rule can name a cause on one line and its operator on another.
    split();
    size_t named = std::count_if(rule.group_names.begin(), rule.group_names.end(), [](const std::string& g) { return !g.empty(); });
    bool matched = false;
    size_t best = 0;
    for (std::string_view line : lines) {
      std::match_results<std::string_view::const_iterator> m;
      if (!std::regex_search(line.begin(), line.end(), m, *rule.compiled)) continue;
      std::map<std::string, std::string> captures;
      for (size_t g = 0; g < rule.group_names.size() && g + 1 < m.size(); ++g) {
        if (!rule.group_names[g].empty() && m[g + 1].matched) captures[rule.group_names[g]] = m[g + 1].str();
      }
      if (!matched || captures.size() > best) {
        matched = true;
        best = captures.size();
        result.captures = std::move(captures);
      }
      if (best == named) break;
    }
    if (matched) return result;
  }
  return {};
}

std::string Classifier::PublicName(std::string_view aten_op) const {
  std::string op(aten_op);
  if (StartsWith(op, "aten.")) op = op.substr(5);
  if (StartsWith(op, "aten::")) op = op.substr(6);
  if (auto it = rules_.public_names.find(op); it != rules_.public_names.end()) return it->second;
  std::string base = op;
  while (!base.empty() && base.front() == '_') base.erase(base.begin());
  if (EndsWith(base, "_ex")) base.resize(base.size() - 3);
  if (auto it = rules_.public_names.find(base); it != rules_.public_names.end()) return it->second;
  for (std::string_view ns : {"linalg", "fft", "special", "nn"}) {
    std::string prefix = std::string(ns) + "_";
    if (StartsWith(base, prefix) && base.size() > prefix.size()) {
      return "torch." + std::string(ns) + "." + base.substr(prefix.size());
    }
  }
  return base.empty() ? "torch." + op : "torch." + base;
}

std::string Classifier::Fill(const std::string& templ, const Classification& c,
                             const std::map<std::string, std::string>& vars) const {
  std::string out;
  for (size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] == '{') {
      size_t close = templ.find('}', i);
      if (close != std::string::npos) {
        std::string inner = templ.substr(i + 1, close - i - 1);
        size_t bar = inner.find('|');
        std::string name = inner.substr(0, bar);
        std::string fallback = bar == std::string::npos ? "" : inner.substr(bar + 1);
        bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
        });
        if (ident) {
          std::string value;
          if (auto it = c.captures.find(name); it != c.captures.end()) {
            value = it->second;
          } else if (name == "public_op") {
            if (auto op = c.captures.find("op"); op != c.captures.end()) value = PublicName(op->second);
          } else if (auto v = vars.find(name); v != vars.end()) {
            value = v->second;
          }
          out += value.empty() ? fallback : value;
          i = close;
          continue;
        }
      }
    }
    out += templ[i];
  }
  return out;
}

}  // namespace opsweep
