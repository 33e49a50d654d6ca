#include "core/plan.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "util/hash.h"

namespace opsweep {

std::string ShardSpec::ToString() const { return fmt::format("{}/{}", index, count); }

namespace {
bool ParsePositive(std::string_view text, int* out) {
  if (text.empty()) return false;
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return false;
  *out = value;
  return true;
}

std::string JoinQuoted(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}
}  // namespace

bool ParseShard(std::string_view text, ShardSpec* out, std::string* err) {
  size_t slash = text.find('/');
  int index = 0, count = 0;
  if (slash == std::string_view::npos || !ParsePositive(text.substr(0, slash), &index) ||
      !ParsePositive(text.substr(slash + 1), &count)) {
    *err = fmt::format("--shard '{}': expected I/N with whole numbers, e.g. 2/8", text);
    return false;
  }
  if (count < 1 || index < 1 || index > count) {
    *err = fmt::format("--shard '{}': I must be between 1 and N (N >= 1)", text);
    return false;
  }
  out->index = index;
  out->count = count;
  return true;
}

int ShardOfJob(std::string_view case_name, std::string_view path, int count) {
  if (count <= 1) return 1;
  std::string id;
  id.reserve(case_name.size() + path.size() + 1);
  id.append(case_name).append("|").append(path);
  std::string hex = HashHex(id);
  uint64_t low = 0;
  std::from_chars(hex.data() + 16, hex.data() + 32, low, 16);
  return static_cast<int>(low % static_cast<uint64_t>(count)) + 1;
}

bool GroupMatches(std::string_view group, std::string_view prefix) {
  if (group.size() < prefix.size() || group.substr(0, prefix.size()) != prefix) return false;
  return group.size() == prefix.size() || group[prefix.size()] == '.';
}

bool InGroups(std::string_view group, const std::vector<std::string>& prefixes) {
  return prefixes.empty() || std::any_of(prefixes.begin(), prefixes.end(),
                                         [&](const std::string& prefix) { return GroupMatches(group, prefix); });
}

std::string UnmatchedGroup(const std::vector<std::string>& prefixes, const std::vector<std::string_view>& groups) {
  for (const auto& prefix : prefixes) {
    if (prefix.empty()) return "empty group name";
    if (std::none_of(groups.begin(), groups.end(), [&](std::string_view g) { return GroupMatches(g, prefix); })) {
      return fmt::format("unknown group '{}': no case's group is or lies under it", prefix);
    }
  }
  return "";
}

bool OnlyMatches(std::string_view name, std::string_view only, bool exact) {
  return exact ? name == only : name.substr(0, only.size()) == only;
}

bool BuildPlan(const std::vector<CaseEntry>& inventory, const std::vector<std::string>& known_paths,
               const PlanRequest& request, std::vector<PlannedJob>* out, std::string* err) {
  out->clear();
  for (const auto& p : request.paths) {
    if (std::find(known_paths.begin(), known_paths.end(), p) == known_paths.end()) {
      *err = fmt::format("unknown path '{}' (the worker knows: {})", p, JoinQuoted(known_paths));
      return false;
    }
  }
  for (const auto& prefix : request.only) {
    bool any = std::any_of(inventory.begin(), inventory.end(),
                           [&](const CaseEntry& c) { return OnlyMatches(c.name, prefix, request.only_exact); });
    if (!any) {
      *err = request.only_exact ? fmt::format("--only '{}' --exact: no case has that name", prefix)
                                : fmt::format("--only '{}' matches no case in the registries", prefix);
      return false;
    }
  }
  std::vector<std::string_view> groups;
  for (const CaseEntry& c : inventory) groups.push_back(c.group);
  if (std::string unmatched = UnmatchedGroup(request.groups, groups); !unmatched.empty()) {
    *err = unmatched;
    return false;
  }
  for (size_t i = 0; i < inventory.size(); ++i) {
    const CaseEntry& c = inventory[i];
    if (!request.only.empty() &&
        std::none_of(request.only.begin(), request.only.end(),
                     [&](const std::string& p) { return OnlyMatches(c.name, p, request.only_exact); })) {
      continue;
    }
    if (!InGroups(c.group, request.groups)) continue;
    for (const auto& path : request.paths) {
      if (ShardOfJob(c.name, path, request.shard.count) != request.shard.index) continue;
      out->push_back(PlannedJob{i, c.name, path});
    }
  }
  return true;
}

}  // namespace opsweep
