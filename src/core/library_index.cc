#include "core/library_index.h"

#include <fmt/core.h>

#include <string_view>

namespace opsweep {

namespace {

constexpr int kIndexVersion = 4;  // python/opsweep/deps/index.py INDEX_VERSION
constexpr int kOldestIndexVersion = 3;  // version 3: function digests of source lines only
constexpr std::string_view kTokenDigestPrefix = "t:";  // python/opsweep/deps/index.py TOKEN_DIGEST_PREFIX
constexpr const char* kChangedDuringRun = "changed-during-run";

template <typename Json>
bool ReadDigests(const Json& message, const char* field, std::map<std::string, std::string>* out,
                 std::string* err) {
  auto it = message.find(field);
  if (it == message.end() || !it->is_object()) {
    *err = fmt::format("index: '{}' is not an object", field);
    return false;
  }
  for (const auto& [name, digest] : it->items()) {
    if (!digest.is_string()) {
      *err = fmt::format("index: the digest of '{}' is not a string", name);
      return false;
    }
    (*out)[name] = digest.template get<std::string>();
  }
  return true;
}

// `current_of(stored digest)`: the map of current digests of the same kind.
template <typename CurrentOf>
void Compare(const nlohmann::json& stored, CurrentOf current_of, DepChange::Kind kind, std::vector<DepChange>* out) {
  for (const auto& [name, digest] : stored.items()) {
    const std::map<std::string, std::string>& current = current_of(digest.template get_ref<const std::string&>());
    auto it = current.find(name);
    DepChange change{kind, name, DepChange::How::changed};
    if (it == current.end()) {
      change.how = DepChange::How::removed;
    } else if (digest == kChangedDuringRun || it->second == kChangedDuringRun) {
      change.how = DepChange::How::edited_while_running;
    } else if (digest == it->second) {
      continue;
    }
    out->push_back(std::move(change));
  }
}

template <typename Json>
bool ParseIndex(const Json& message, LibraryIndex* out, std::string* err) {
  *out = LibraryIndex{};
  if (!message.is_object()) {
    *err = "index: not a JSON object";
    return false;
  }
  auto version = message.find("version");
  if (version == message.end() || !version->is_number_integer() || version->template get<int>() < kOldestIndexVersion ||
      version->template get<int>() > kIndexVersion) {
    *err = fmt::format("index: version {} is not a version this build reads ({} to {})",
                       version == message.end() ? "(none)" : version->dump(), kOldestIndexVersion, kIndexVersion);
    return false;
  }
  auto library = message.find("library");
  if (library == message.end() || !library->is_string()) {
    *err = "index: 'library' is not a string";
    return false;
  }
  out->library = library->template get<std::string>();
  if (!ReadDigests(message, "functions", &out->functions, err) || !ReadDigests(message, "modules", &out->modules, err)) {
    return false;
  }
  if (version->template get<int>() >= 4 && !ReadDigests(message, "line_functions", &out->line_functions, err)) {
    return false;
  }
  out->known = true;
  return true;
}

}  // namespace

bool ParseLibraryIndex(const nlohmann::json& message, LibraryIndex* out, std::string* err) {
  return ParseIndex(message, out, err);
}

bool ParseLibraryIndex(const nlohmann::ordered_json& message, LibraryIndex* out, std::string* err) {
  return ParseIndex(message, out, err);
}

std::vector<DepChange> ChangedDeps(const nlohmann::json& deps, const LibraryIndex& index) {
  std::vector<DepChange> out;
  auto valid = [](const nlohmann::json& j, const char* field) {
    auto it = j.find(field);
    if (it == j.end() || !it->is_object()) return false;
    for (const auto& [name, digest] : it->items()) {
      if (!digest.is_string()) return false;
    }
    return true;
  };
  if (!deps.is_object() || !valid(deps, "functions") || !valid(deps, "modules")) {
    out.push_back(DepChange{DepChange::Kind::module, "deps", DepChange::How::changed});
    return out;
  }
  // json objects iterate sorted
  const bool by_lines = !index.line_functions.empty();  // a version-4 index; version 3 has lines only
  Compare(
      deps["functions"],
      [&](const std::string& digest) -> const std::map<std::string, std::string>& {
        bool tokens = digest.compare(0, kTokenDigestPrefix.size(), kTokenDigestPrefix) == 0;
        return tokens || !by_lines ? index.functions : index.line_functions;
      },
      DepChange::Kind::function, &out);
  Compare(
      deps["modules"], [&](const std::string&) -> const std::map<std::string, std::string>& { return index.modules; },
      DepChange::Kind::module, &out);
  return out;
}

namespace {

template <typename Json>
bool Reencode(Json* deps, const LibraryIndex& index) {
  if (index.line_functions.empty() || !deps->is_object()) return false;
  auto functions = deps->find("functions");
  if (functions == deps->end() || !functions->is_object() || functions->empty()) return false;
  for (const auto& [name, digest] : functions->items()) {
    if (!digest.is_string()) return false;
    const std::string& d = digest.template get_ref<const std::string&>();
    auto lines = index.line_functions.find(name);
    auto tokens = index.functions.find(name);
    if (d.compare(0, kTokenDigestPrefix.size(), kTokenDigestPrefix) == 0 || d == kChangedDuringRun ||
        lines == index.line_functions.end() || lines->second != d || tokens == index.functions.end() ||
        tokens->second.compare(0, kTokenDigestPrefix.size(), kTokenDigestPrefix) != 0) {
      return false;
    }
  }
  for (auto it = functions->begin(); it != functions->end(); ++it) it.value() = index.functions.at(it.key());
  return true;
}

}  // namespace

bool ReencodeLineDigests(nlohmann::json* deps, const LibraryIndex& index) { return Reencode(deps, index); }
bool ReencodeLineDigests(nlohmann::ordered_json* deps, const LibraryIndex& index) { return Reencode(deps, index); }

std::string DepChangeSentence(const DepChange& change) {
  if (change.name == "deps" && change.kind == DepChange::Kind::module) return "the record's deps are unreadable";
  bool fn = change.kind == DepChange::Kind::function;
  switch (change.how) {
    case DepChange::How::removed:
      return fn ? fmt::format("{} was removed", change.name)
                : fmt::format("{} was removed", change.name);
    case DepChange::How::edited_while_running:
      return fmt::format("{} was edited while the job ran", change.name);
    case DepChange::How::changed:
      break;
  }
  return fn ? fmt::format("{} changed", change.name) : fmt::format("module-level code of {} changed", change.name);
}

}  // namespace opsweep
