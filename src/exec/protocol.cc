#include "exec/protocol.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <unordered_set>

#include "util/home_paths.h"


namespace opsweep {

namespace {

using Json = nlohmann::ordered_json;

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

bool GetString(const Json& obj, const char* key, std::string* out, std::string* err) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) {
    *err = fmt::format("'{}' message without a string '{}'", obj.value("type", "?"), key);
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

bool GetId(const Json& obj, long long* out, std::string* err) {
  auto it = obj.find("id");
  if (it == obj.end() || !it->is_number_integer()) {
    *err = fmt::format("'{}' message without an integer 'id'", obj.value("type", "?"));
    return false;
  }
  *out = it->get<long long>();
  return true;
}

// Every string of a record (keys too) without a home folder (util/home_paths.h).
void ScrubHomes(Json* j) {
  if (j->is_string()) {
    const std::string& s = j->get_ref<const std::string&>();
    if (s.find('/') != std::string::npos) *j = ScrubHomePaths(s);
  } else if (j->is_array()) {
    for (auto& item : *j) ScrubHomes(&item);
  } else if (j->is_object()) {
    Json scrubbed = Json::object();
    for (auto& [key, value] : j->items()) {
      ScrubHomes(&value);
      scrubbed[key.find('/') != std::string::npos ? ScrubHomePaths(key) : key] = std::move(value);
    }
    *j = std::move(scrubbed);
  }
}

// A record (a `result`'s, or a `poisoned` message's) with a status a worker may report.
bool ParseRecord(const Json& rec, WorkerMessage* out, std::string* err) {
  auto status = rec.find("status");
  if (status == rec.end() || !status->is_string()) {
    *err = "record without a string 'status'";
    return false;
  }
  auto parsed = ParseStatus(status->get<std::string>());
  if (!parsed || !IsWorkerStatus(*parsed)) {
    *err = fmt::format("record with status '{}', which a worker may not report", status->get<std::string>());
    return false;
  }
  out->status = *parsed;
  out->has_record = true;
  Json clean = rec;
  ScrubHomes(&clean);
  out->record_json = Dump(clean);
  return true;
}

bool ParseHello(const Json& j, HelloMessage* out, std::string* err) {
  auto proto = j.find("protocol");
  if (proto == j.end() || !proto->is_number_integer()) {
    *err = "'hello' message without an integer 'protocol'";
    return false;
  }
  out->protocol = proto->get<int>();
  if (out->protocol != kProtocolVersion) return true;  // the caller reports the version mismatch
  if (auto pid = j.find("pid"); pid != j.end() && pid->is_number_integer()) out->pid = pid->get<long long>();
  if (!GetString(j, "harness", &out->harness, err)) return false;
  auto paths = j.find("paths");
  if (paths == j.end() || !paths->is_array()) {
    *err = "'hello' message without a 'paths' list";
    return false;
  }
  if (!ParsePathSpecs(nlohmann::json::parse(Dump(*paths)), PathSpecForm::hello, &out->paths, err)) {
    *err = "'hello' message: " + *err;
    return false;
  }
  out->paths_json.clear();
  for (const auto& p : *paths) out->paths_json.push_back(Dump(p));
  auto env = j.find("env");
  if (env == j.end() || !env->is_object()) {
    *err = "'hello' message without an 'env' object";
    return false;
  }
  out->env_json = Dump(*env);
  return true;
}

bool ParseInventory(const Json& j, std::vector<CaseEntry>* out, std::string* err) {
  auto cases = j.find("cases");
  if (cases == j.end() || !cases->is_array()) {
    *err = "'inventory' message without a 'cases' list";
    return false;
  }
  out->clear();
  out->reserve(cases->size());
  std::unordered_set<std::string> seen;
  for (const auto& c : *cases) {
    if (!c.is_object()) {
      *err = "inventory entry is not an object";
      return false;
    }
    CaseEntry e;
    if (!GetString(c, "name", &e.name, err) || !GetString(c, "group", &e.group, err) ||
        !GetString(c, "fingerprint", &e.fingerprint, err)) {
      *err = "inventory entry: " + *err;
      return false;
    }
    if (auto r = c.find("registry"); r != c.end() && r->is_string()) e.registry = r->get<std::string>();
    if (auto r = c.find("recipe"); r != c.end() && r->is_string()) e.recipe = r->get<std::string>();
    if (e.name.empty()) {
      *err = "inventory entry with an empty name";
      return false;
    }
    if (!seen.insert(e.name).second) {
      *err = fmt::format("inventory lists case '{}' twice", e.name);
      return false;
    }
    e.info_json = Dump(c);
    out->push_back(std::move(e));
  }
  return true;
}

}  // namespace

bool ParseWorkerMessage(std::string_view line, WorkerMessage* out, std::string* err) {
  Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    *err = "a line that is not JSON";
    return false;
  }
  if (!j.is_object()) {
    *err = "a JSON value that is not an object";
    return false;
  }
  auto type = j.find("type");
  if (type == j.end() || !type->is_string()) {
    *err = "a message without a 'type'";
    return false;
  }
  const std::string t = type->get<std::string>();
  if (t == "hello") {
    out->type = WorkerMessage::Type::hello;
    return ParseHello(j, &out->hello, err);
  }
  if (t == "inventory") {
    out->type = WorkerMessage::Type::inventory;
    return ParseInventory(j, &out->cases, err);
  }
  if (t == "index") {
    out->type = WorkerMessage::Type::index;
    return ParseLibraryIndex(j, &out->index, err);
  }
  if (t == "error") {
    out->type = WorkerMessage::Type::error;
    return GetString(j, "message", &out->message, err);
  }
  if (t == "result" || t == "poisoned") {
    if (!GetId(j, &out->id, err) || !GetString(j, "case", &out->case_name, err) ||
        !GetString(j, "path", &out->path, err)) {
      return false;
    }
    out->has_record = false;
    out->record_json.clear();
    auto rec = j.find("record");
    if (t == "poisoned") {
      out->type = WorkerMessage::Type::poisoned;
      if (!GetString(j, "reason", &out->reason, err)) return false;
      if (rec == j.end() || rec->is_null()) return true;  // a worker that could not finish the record
      if (!rec->is_object()) {
        *err = "'poisoned' message with a 'record' that is not an object";
        return false;
      }
      return ParseRecord(*rec, out, err);
    }
    out->type = WorkerMessage::Type::result;
    if (rec == j.end() || !rec->is_object()) {
      *err = "'result' message without a 'record' object";
      return false;
    }
    return ParseRecord(*rec, out, err);
  }
  *err = fmt::format("a message of unknown type '{}'", t.size() > 40 ? t.substr(0, 40) + "..." : t);
  return false;
}

std::vector<std::string> HelloMessage::path_ids() const {
  std::vector<std::string> ids;
  for (const PathSpec& p : paths) ids.push_back(p.id);
  return ids;
}

std::string JobMessage(long long id, std::string_view case_name, std::string_view path, double timeout_s) {
  Json j;
  j["type"] = "job";
  j["id"] = id;
  j["case"] = case_name;
  j["path"] = path;
  if (timeout_s > 0) j["timeout_s"] = timeout_s;
  return Dump(j);
}

std::string ShutdownMessage() { return R"({"type":"shutdown"})"; }

}  // namespace opsweep
