// The worker protocol, version 2 (docs/formats.md section 2): JSON lines over two dedicated pipes.
// Parsing never throws: a malformed line is an error value, which the supervisor turns into a
// `crash` record with a "protocol error: ..." detail.
//
// Version 2: hello.paths holds every path's description (core/path_spec.h), not only its id, and a
// `poisoned` message may carry the record of the job that was running (the job finished; the
// interpreter is what can no longer be trusted).
// Version 3: after `inventory` the worker sends `index`, the current digests of the surveyed
// library's functions and modules (core/library_index.h); records carry `deps`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/case_entry.h"
#include "core/library_index.h"
#include "core/path_spec.h"
#include "core/status.h"

namespace opsweep {

inline constexpr int kProtocolVersion = 3;

struct HelloMessage {
  int protocol = 0;
  long long pid = 0;
  std::string harness;                  // digest of the common harness modules
  std::vector<PathSpec> paths;          // in the worker's order
  std::vector<std::string> paths_json;  // each description as the worker sent it (compact JSON)
  std::string env_json;                 // hello.env, compact JSON

  std::vector<std::string> path_ids() const;
};

struct WorkerMessage {
  enum class Type { hello, inventory, index, error, result, poisoned };
  Type type = Type::hello;
  HelloMessage hello;               // hello
  std::vector<CaseEntry> cases;     // inventory
  LibraryIndex index;               // index
  std::string message;              // error
  long long id = 0;                 // result, poisoned
  std::string case_name, path;      // result, poisoned
  bool has_record = false;          // result: always; poisoned: when it carries the job's record
  Status status = Status::ok;       // record.status
  std::string record_json;          // the record, compact JSON
  std::string reason;               // poisoned
};

// Parses one line. Fails (*err says what is wrong, without the line itself) on bad JSON, an unknown
// type, a missing field, a record with an unknown or engine-only status, a bad path description,
// or duplicate case names in an inventory.
bool ParseWorkerMessage(std::string_view line, WorkerMessage* out, std::string* err);

// A job for a worker. timeout_s > 0 is the job's time limit (the worker's sub-verdicts keep out of its
// end, so the path's own verdict is not lost to a slow one); 0 leaves the field out (no limit).
std::string JobMessage(long long id, std::string_view case_name, std::string_view path, double timeout_s = 0);
std::string ShutdownMessage();

}  // namespace opsweep
