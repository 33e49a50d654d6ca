#include "snapshot/checks.h"

#include <array>
#include <utility>

namespace opsweep::snapshot {

namespace {

constexpr std::array<std::pair<CheckState, std::string_view>, 3> kStates = {{
    {CheckState::passed, "passed"},
    {CheckState::failed, "failed"},
    {CheckState::not_run, "not run"},
}};

constexpr std::string_view kSeparator = ": ";

}  // namespace

std::string_view CheckStateText(CheckState state) {
  for (const auto& [s, text] : kStates) {
    if (s == state) return text;
  }
  return "not run";
}

std::string CheckText(const CheckResult& check) {
  std::string text(CheckStateText(check.state));
  if (!check.why.empty()) text += std::string(kSeparator) + check.why;
  return text;
}

bool ParseCheckText(std::string_view text, CheckResult* out, std::string* err) {
  for (const auto& [state, word] : kStates) {
    if (text.substr(0, word.size()) != word) continue;
    const std::string_view rest = text.substr(word.size());
    if (rest.empty()) {
      *out = {state, ""};
      return true;
    }
    if (rest.substr(0, kSeparator.size()) == kSeparator && rest.size() > kSeparator.size()) {
      *out = {state, std::string(rest.substr(kSeparator.size()))};
      return true;
    }
  }
  *err = "does not start with 'passed', 'failed' or 'not run' (then optionally ': ' and why)";
  return false;
}

bool IsCheckId(std::string_view id) {
  if (id.empty()) return false;
  for (char ch : id) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace opsweep::snapshot
