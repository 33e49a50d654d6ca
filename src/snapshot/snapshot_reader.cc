#include "snapshot/snapshot_reader.h"

#include "snapshot/checks.h"
#include "snapshot/facts.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

namespace opsweep::snapshot {
namespace {

// The parse's DOM lives in an arena. A large survey's snapshot (17 MB) is millions of small map nodes and
// vectors, and allocating and freeing them one by one was about half of what reading one cost
// (perf, 2026-12-05); the arena hands out memory by bumping a pointer and frees it all at once.
// Only the DOM's containers come from it (nlohmann allocates objects, arrays and the string values'
// headers through AllocatorType); the characters of long strings still come from the heap.
class Arena {
 public:
  void* Allocate(std::size_t bytes, std::size_t align) {
    std::size_t pad = (align - reinterpret_cast<std::uintptr_t>(next_) % align) % align;
    if (next_ == nullptr || pad + bytes > left_) {
      const std::size_t size = std::max<std::size_t>(kBlock, bytes + align);
      blocks_.emplace_back(new char[size]);  // not make_unique: that would zero it
      next_ = blocks_.back().get();
      left_ = size;
      pad = (align - reinterpret_cast<std::uintptr_t>(next_) % align) % align;
    }
    void* p = next_ + pad;
    next_ += pad + bytes;
    left_ -= pad + bytes;
    return p;
  }

 private:
  static constexpr std::size_t kBlock = 1 << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

// The arena of the parse running on this thread (ReadSnapshot sets it for the DOM's whole life).
thread_local Arena* current_arena = nullptr;

template <class T>
struct ArenaAllocator {
  using value_type = T;
  ArenaAllocator() = default;
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>&) {}  // NOLINT: allocators convert implicitly
  T* allocate(std::size_t n) {
    if (current_arena == nullptr) throw std::logic_error("snapshot DOM allocated outside ReadSnapshot's arena");
    return static_cast<T*>(current_arena->Allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T*, std::size_t) {}  // the arena frees everything at once
  template <class U>
  bool operator==(const ArenaAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const ArenaAllocator<U>&) const { return false; }
};

// Sets the thread's arena for a scope; the DOM must be declared after it, so it dies first.
class ArenaScope {
 public:
  explicit ArenaScope(Arena* arena) : previous_(current_arena) { current_arena = arena; }
  ~ArenaScope() { current_arena = previous_; }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena* previous_;
};

using json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, double,
                                  ArenaAllocator>;

// nlohmann's DOM builder, but a syntax error is kept as text instead of thrown, so that the
// message (with line and column) can be reported as a value.
class DomParser : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  explicit DomParser(json& root) : json_sax_dom_parser(root, /*allow_exceptions_=*/false) {}
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    error = ex.what();
    return false;
  }
  std::string error;
};

bool ParseJson(std::string_view text, json* out, std::string* err) {
  DomParser sax(*out);
  const bool ok = json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json,
                                  /*strict=*/true);
  if (ok && sax.error.empty()) return true;
  std::string message = sax.error.empty() ? std::string("not valid JSON") : sax.error;
  // "[json.exception.parse_error.101] parse error at line 3, ..." -> "parse error at line 3, ..."
  if (message.rfind("[json.exception.", 0) == 0) {
    const auto close = message.find("] ");
    if (close != std::string::npos) message.erase(0, close + 2);
  }
  *err = "not valid JSON: " + message;
  return false;
}

enum class Need { kRequired, kOptional, kPresent };  // kPresent: required, may be ""

// Reads typed fields out of JSON objects; the first problem is kept in *err as
// "<where>: <problem>".
class FieldReader {
 public:
  explicit FieldReader(std::string* err) : err_(err) {}

  bool Fail(std::string_view where, std::string_view problem) {
    *err_ = where.empty() ? std::string(problem) : fmt::format("{}: {}", where, problem);
    return false;
  }

  bool String(const json& object, const char* key, std::string_view where, Need need, std::string* out) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
      if (need != Need::kOptional) return Fail(where, fmt::format("missing '{}'", key));
      return true;
    }
    if (!it->is_string()) return Fail(where, fmt::format("'{}' is not a string", key));
    *out = it->get<std::string>();
    if (need == Need::kRequired && out->empty()) return Fail(where, fmt::format("'{}' is empty", key));
    return true;
  }

  bool StringList(const json& object, const char* key, std::string_view where, std::vector<std::string>* out) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return true;
    if (!it->is_array()) return Fail(where, fmt::format("'{}' is not a list", key));
    for (const json& item : *it) {
      if (!item.is_string()) return Fail(where, fmt::format("'{}' holds a non-string", key));
      out->push_back(item.get<std::string>());
    }
    return true;
  }

  bool Object(const json& object, const char* key, std::string_view where, Need need, const json** out) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
      if (need != Need::kOptional) return Fail(where, fmt::format("missing '{}'", key));
      *out = nullptr;
      return true;
    }
    if (!it->is_object()) return Fail(where, fmt::format("'{}' is not an object", key));
    *out = &*it;
    return true;
  }

 private:
  std::string* err_;
};

bool ReadBreakReasons(FieldReader& fields, const json& j, const std::string& where,
                      const std::map<std::string, Reason>& reasons, Outcome* out) {
  const auto list = j.find("break_reasons");
  if (list == j.end() || list->is_null()) return true;
  if (!list->is_array()) return fields.Fail(where, "'break_reasons' is not a list");
  for (const json& item : *list) {
    // {"reason": id, "text": ...}: merge classifies every graph-break reason.
    if (!item.is_object()) return fields.Fail(where, "a break reason is not an object {\"reason\", \"text\"}");
    GraphBreak gb;
    if (!fields.String(item, "reason", where, Need::kOptional, &gb.reason) ||
        !fields.String(item, "text", where, Need::kOptional, &gb.text) ||
        !fields.String(item, "location", where, Need::kOptional, &gb.location)) {
      return false;
    }
    if (!gb.reason.empty() && reasons.find(gb.reason) == reasons.end()) {
      return fields.Fail(where, fmt::format("break reason '{}' is not in 'reasons'", gb.reason));
    }
    out->break_reasons.push_back(std::move(gb));
  }
  return true;
}

// "checks": {"<id>": "passed" | "failed[: why]" | "not run[: why]"} (snapshot/checks.h); optional.
bool ReadChecks(FieldReader& fields, const json& j, const std::string& where,
                std::map<std::string, CheckResult>* out) {
  const json* checks = nullptr;
  if (!fields.Object(j, "checks", where, Need::kOptional, &checks)) return false;
  if (checks == nullptr) return true;
  for (const auto& [id, value] : checks->items()) {
    if (!IsCheckId(id)) return fields.Fail(where, fmt::format("check id '{}' is not lowercase letters, digits, '_' or '-'", id));
    if (!value.is_string()) return fields.Fail(where, fmt::format("check '{}' is not a string", id));
    std::string problem;
    if (!ParseCheckText(value.get<std::string>(), &(*out)[id], &problem)) {
      return fields.Fail(where, fmt::format("check '{}' {}", id, problem));
    }
  }
  return true;
}

bool ReadSubOutcomes(FieldReader& fields, const json& j, const std::string& where, const PathSpec& path,
                     const std::map<std::string, Reason>& reasons, Outcome* out) {
  const json* subs = nullptr;
  if (!fields.Object(j, "subverdicts", where, Need::kOptional, &subs)) return false;
  if (subs == nullptr) return true;
  for (const auto& [id, value] : subs->items()) {
    const std::string sub_where = fmt::format("{}.subverdicts.{}", where, id);
    const SubVerdictSpec* spec = FindSubVerdict(path, id);
    if (spec == nullptr) return fields.Fail(sub_where, fmt::format("path '{}' describes no sub-verdict '{}'", path.id, id));
    if (!value.is_object()) return fields.Fail(sub_where, "is not an object");
    SubOutcome sub;
    std::string status;
    if (!fields.String(value, "status", sub_where, Need::kRequired, &status)) return false;
    const auto parsed = ParseStatus(status);
    if (!parsed) return fields.Fail(sub_where, fmt::format("unknown status '{}'", status));
    sub.status = *parsed;
    if (!fields.String(value, "step", sub_where, Need::kOptional, &sub.step) ||
        !fields.String(value, "reason", sub_where, Need::kOptional, &sub.reason) ||
        !fields.String(value, "detail", sub_where, Need::kOptional, &sub.detail) ||
        !fields.String(value, "error", sub_where, Need::kOptional, &sub.error) ||
        !fields.String(value, "location", sub_where, Need::kOptional, &sub.location) ||
        !ReadChecks(fields, value, sub_where, &sub.checks)) {
      return false;
    }
    if (!sub.step.empty() && !SubVerdictHasStep(*spec, sub.step)) {
      return fields.Fail(sub_where, fmt::format("step '{}' is not a step of sub-verdict '{}'", sub.step, id));
    }
    if (!sub.reason.empty() && reasons.find(sub.reason) == reasons.end()) {
      return fields.Fail(sub_where, fmt::format("reason '{}' is not in 'reasons'", sub.reason));
    }
    out->subverdicts[id] = std::move(sub);
  }
  return true;
}

bool ReadDynamic(FieldReader& fields, const json& j, const std::string& where, Outcome* out) {
  const json* d = nullptr;
  if (!fields.Object(j, "dynamic", where, Need::kOptional, &d)) return false;
  if (d == nullptr) return true;
  const std::string at = where + " dynamic";
  DynamicInfo info;
  if (!fields.StringList(*d, "shapes", at, &info.shapes) || !fields.StringList(*d, "guards", at, &info.guards)) return false;
  if (const auto trace = d->find("trace"); trace != d->end() && !trace->is_null()) {
    if (!trace->is_number_integer() || trace->get<long long>() < 0 ||
        trace->get<long long>() >= static_cast<long long>(std::max<std::size_t>(1, info.shapes.size()))) {
      return fields.Fail(at, "'trace' is not the index of one of its shapes");
    }
    info.trace = trace->get<int>();
  }
  if (const auto n = d->find("recompiles"); n != d->end() && !n->is_null()) {
    if (!n->is_number_integer() || n->get<long long>() < 0) return fields.Fail(at, "'recompiles' is not a whole number");
    info.recompiles = n->get<int>();
  }
  if (const auto list = d->find("specialised"); list != d->end() && !list->is_null()) {
    if (!list->is_array()) return fields.Fail(at, "'specialised' is not a list");
    for (const json& item : *list) {
      if (!item.is_object()) return fields.Fail(at, "a specialised dimension is not an object");
      DynamicDim dim;
      if (!fields.String(item, "name", at, Need::kRequired, &dim.name) ||
          !fields.String(item, "kind", at, Need::kRequired, &dim.kind) ||
          !fields.String(item, "why", at, Need::kOptional, &dim.why)) {
        return false;
      }
      info.specialised.push_back(std::move(dim));
    }
  }
  out->dynamic = std::move(info);
  return true;
}

// "facts": {"<fact id>": value} (snapshot/facts.h); optional. Each one its path declares, of its kind.
bool ReadFacts(FieldReader& fields, const json& j, const std::string& where, const PathSpec& path, Outcome* out) {
  const json* facts = nullptr;
  if (!fields.Object(j, "facts", where, Need::kOptional, &facts)) return false;
  if (facts == nullptr) return true;
  std::string problem;
  if (!FactsFromJson(*facts, path.facts, &out->facts, &problem)) return fields.Fail(where, problem);
  return true;
}

bool ReadOutcome(FieldReader& fields, const json& j, const std::string& where, const PathSpec& path,
                 const std::map<std::string, Reason>& reasons, Outcome* out) {
  if (!j.is_object()) return fields.Fail(where, "is not an object");
  std::string status;
  if (!fields.String(j, "status", where, Need::kRequired, &status)) return false;
  const auto parsed = ParseStatus(status);
  if (!parsed) return fields.Fail(where, fmt::format("unknown status '{}'", status));
  out->status = *parsed;
  if (!fields.String(j, "step", where, Need::kOptional, &out->step) ||
      !fields.String(j, "reason", where, Need::kOptional, &out->reason) ||
      !fields.String(j, "detail", where, Need::kOptional, &out->detail) ||
      !fields.String(j, "error", where, Need::kOptional, &out->error) ||
      !fields.String(j, "location", where, Need::kOptional, &out->location) ||
      !fields.StringList(j, "op_types", where, &out->op_types) ||
      !ReadBreakReasons(fields, j, where, reasons, out) ||
      !ReadChecks(fields, j, where, &out->checks) ||
      !fields.StringList(j, "notes", where, &out->notes) || !ReadSubOutcomes(fields, j, where, path, reasons, out) ||
      !ReadDynamic(fields, j, where, out) || !ReadFacts(fields, j, where, path, out)) {
    return false;
  }
  if (!out->step.empty() && !PathHasStep(path, out->step)) {
    return fields.Fail(where, fmt::format("step '{}' is not a step of path '{}'", out->step, path.id));
  }
  if (!out->reason.empty() && reasons.find(out->reason) == reasons.end()) {
    return fields.Fail(where, fmt::format("reason '{}' is not in 'reasons'", out->reason));
  }
  const auto breaks = j.find("graph_breaks");
  if (breaks != j.end() && !breaks->is_null()) {
    if (!breaks->is_number_integer()) return fields.Fail(where, "'graph_breaks' is not an integer");
    const auto count = breaks->get<long long>();
    if (count < 0 || count > 1000000) {
      return fields.Fail(where, fmt::format("'graph_breaks' is {} (must be 0 or more)", count));
    }
    out->graph_breaks = static_cast<int>(count);
  }
  return true;
}

bool ReadRecord(FieldReader& fields, const json& j, const std::string& where, const Snapshot& snapshot,
                Record* out) {
  if (!j.is_object()) return fields.Fail(where, "is not an object");
  if (!fields.String(j, "name", where, Need::kRequired, &out->name)) return false;
  const std::string named = fmt::format("{} '{}'", where, out->name);
  if (!fields.String(j, "operator", named, Need::kRequired, &out->operator_name) ||
      !fields.String(j, "package", named, Need::kRequired, &out->package) ||
      !fields.String(j, "variant", named, Need::kOptional, &out->variant) ||
      !fields.String(j, "section", named, Need::kOptional, &out->section) ||
      !fields.String(j, "group", named, Need::kOptional, &out->group) ||
      !fields.String(j, "target", named, Need::kOptional, &out->target) ||
      !fields.String(j, "note", named, Need::kOptional, &out->note) ||
      !fields.StringList(j, "tags", named, &out->tags)) {
    return false;
  }
  if (out->group.empty()) {
    out->group = out->section.empty() ? out->package : out->package + "." + out->section;
  }
  const auto check = j.find("check");
  if (check != j.end() && !check->is_null()) {
    if (!check->is_boolean()) return fields.Fail(named, "'check' is not true or false");
    out->check = check->get<bool>();
  }
  const auto api = j.find("api");
  if (api != j.end() && !api->is_null()) {
    if (!api->is_string()) return fields.Fail(named, "'api' is not a string or null");
    if (!api->get<std::string>().empty()) out->api = api->get<std::string>();
  }
  const auto api_uri = j.find("api_uri");  // absent in snapshots written before it existed
  if (api_uri != j.end() && !api_uri->is_null()) {
    if (!api_uri->is_string()) return fields.Fail(named, "'api_uri' is not a string or null");
    if (!api_uri->get<std::string>().empty()) out->api_uri = api_uri->get<std::string>();
  }
  const json* paths = nullptr;
  if (!fields.Object(j, "paths", named, Need::kRequired, &paths)) return false;
  for (const PathSpec& path : snapshot.paths) {
    const auto it = paths->find(path.id);
    if (it == paths->end()) return fields.Fail(named, fmt::format("no outcome for path '{}'", path.id));
    if (!ReadOutcome(fields, *it, fmt::format("{} paths.{}", named, path.id), path, snapshot.reasons,
                     &out->paths[path.id])) {
      return false;
    }
  }
  for (const auto& [path, value] : paths->items()) {
    if (out->paths.find(path) == out->paths.end()) {
      return fields.Fail(named, fmt::format("outcome for path '{}', which is not in 'paths'", path));
    }
  }
  return true;
}

bool ReadHeader(FieldReader& fields, const json& root, Snapshot* out) {
  const auto schema = root.find("schema");
  if (schema == root.end()) return fields.Fail("", "not an opsweep snapshot (no 'schema')");
  if (!schema->is_number_integer()) return fields.Fail("", "'schema' is not an integer");
  out->schema = schema->get<int>();
  if (out->schema != kSchema) {
    return fields.Fail("", fmt::format("snapshot schema {} is not supported (this opsweep reads {}{})", out->schema,
                                       kSchema,
                                       out->schema < kSchema ? "; scripts/migrate_snapshot_v1.py converts schema 1"
                                                             : "; upgrade opsweep"));
  }
  if (!fields.String(root, "generated", "", Need::kRequired, &out->generated)) return false;

  const json* tool = nullptr;
  const json* library = nullptr;
  const json* environment = nullptr;
  if (!fields.Object(root, "tool", "", Need::kOptional, &tool) ||
      !fields.Object(root, "library", "", Need::kRequired, &library) ||
      !fields.Object(root, "environment", "", Need::kRequired, &environment)) {
    return false;
  }
  if (tool != nullptr && (!fields.String(*tool, "name", "tool", Need::kOptional, &out->tool_name) ||
                          !fields.String(*tool, "version", "tool", Need::kOptional, &out->tool_version))) {
    return false;
  }
  // A library that is not an installed distribution (a user's own module) has no version.
  if (!fields.String(*library, "name", "library", Need::kRequired, &out->library_name) ||
      !fields.String(*library, "version", "library", Need::kPresent, &out->library_version) ||
      !fields.String(*library, "fingerprint", "library", Need::kOptional, &out->library_fingerprint)) {
    return false;
  }
  for (const auto& [key, value] : environment->items()) {
    if (value.is_object() || value.is_array()) return fields.Fail("environment", fmt::format("'{}' is not a value", key));
  }
  out->environment = *environment;

  const auto paths = root.find("paths");
  if (paths == root.end() || !paths->is_array() || paths->empty()) {
    return fields.Fail("", "missing or empty 'paths' (a list of path descriptions)");
  }
  std::string problem;
  if (!ParsePathSpecs(*paths, PathSpecForm::snapshot, &out->paths, &problem)) return fields.Fail("paths", problem);

  const auto cross = root.find("cross_references");
  if (cross != root.end() && !cross->is_null()) {
    if (!cross->is_boolean()) return fields.Fail("", "'cross_references' is not true or false");
    out->cross_references = cross->get<bool>();
  }
  const auto groups = root.find("groups");
  if (groups != root.end() && !groups->is_null()) {
    if (!groups->is_array()) return fields.Fail("", "'groups' is not a list of group names");
    for (const auto& g : *groups) {
      if (!g.is_string() || g.get<std::string>().empty()) return fields.Fail("", "'groups' is not a list of group names");
      out->groups.push_back(g.get<std::string>());
    }
  }
  const auto unclassified = root.find("unclassified");
  if (unclassified != root.end() && !unclassified->is_null()) {
    if (!unclassified->is_number_integer() || unclassified->get<long long>() < 0) {
      return fields.Fail("", "'unclassified' is not a count");
    }
    out->unclassified = unclassified->get<int>();
  }

  const json* reasons = nullptr;
  if (!fields.Object(root, "reasons", "", Need::kRequired, &reasons)) return false;
  for (const auto& [id, value] : reasons->items()) {
    const std::string where = fmt::format("reasons.{}", id);
    if (!value.is_object()) return fields.Fail(where, "is not an object");
    Reason& reason = out->reasons[id];
    if (!fields.String(value, "title", where, Need::kRequired, &reason.title) ||
        !fields.String(value, "cause", where, Need::kOptional, &reason.cause) ||
        !fields.String(value, "hint", where, Need::kOptional, &reason.hint) ||
        !fields.String(value, "component", where, Need::kOptional, &reason.component)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool ReadSnapshot(std::string_view text, Snapshot* out, std::string* err) {
  Arena arena;
  ArenaScope scope(&arena);
  json root;
  if (!ParseJson(text, &root, err)) return false;
  FieldReader fields(err);
  if (!root.is_object()) return fields.Fail("", "not an opsweep snapshot (not a JSON object)");
  Snapshot snapshot;
  if (!ReadHeader(fields, root, &snapshot)) return false;

  const auto records = root.find("records");
  if (records == root.end() || !records->is_array()) return fields.Fail("", "missing 'records' (a list)");
  std::set<std::string> names;
  snapshot.records.reserve(records->size());
  for (std::size_t i = 0; i < records->size(); ++i) {
    Record record;
    if (!ReadRecord(fields, (*records)[i], fmt::format("records[{}]", i), snapshot, &record)) return false;
    if (!names.insert(record.name).second) {
      return fields.Fail(fmt::format("records[{}]", i), fmt::format("duplicate record name '{}'", record.name));
    }
    snapshot.records.push_back(std::move(record));
  }
  *out = std::move(snapshot);
  return true;
}

}  // namespace opsweep::snapshot
