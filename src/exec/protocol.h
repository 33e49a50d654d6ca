// The worker protocol, version 1 (docs/formats.md section 2): JSON lines over two dedicated pipes.
// Parsing never throws: a malformed line is an error value, which the supervisor turns into a
// `crash` record with a "protocol error: ..." detail.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/case_entry.h"

namespace opsweep {

inline constexpr int kProtocolVersion = 1;

struct HelloMessage {
  int protocol = 0;
  long long pid = 0;
  std::string harness;
  std::vector<std::string> paths;
  std::string env_json;  // hello.env, compact JSON
};

struct WorkerMessage {
  enum class Type { hello, inventory, error, result, poisoned };
  Type type = Type::hello;
  HelloMessage hello;               // hello
  std::vector<CaseEntry> cases;     // inventory
  std::string message;              // error
  long long id = 0;                 // result, poisoned
  std::string case_name, path;      // result, poisoned
  std::string status, record_json;  // result: record.status and the record, compact JSON
  std::string reason;               // poisoned
};

// Parses one line. Fails (*err says what is wrong, without the line itself) on bad JSON, an unknown
// type, a missing field, a record with an unknown or engine-only status, or duplicate case names
// in an inventory.
bool ParseWorkerMessage(std::string_view line, WorkerMessage* out, std::string* err);

std::string JobMessage(long long id, std::string_view case_name, std::string_view path);
std::string ShutdownMessage();

}  // namespace opsweep
