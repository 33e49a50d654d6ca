// The results database (docs/formats.md section 4): SQLite in WAL mode, written by the engine only.
// One row per (case, path), committed as each job ends, so a kill -9 loses at most the jobs in
// flight. A database that lacks opsweep's meta rows is foreign and is refused, never overwritten.
#pragma once
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace opsweep {

// One stored job result (a row of `results`).
struct StoredResult {
  std::string case_name;
  std::string path;
  std::string job_key;
  std::string key_fields_json;  // object: tag -> value, see docs/formats.md
  std::string status;
  std::string record_json;      // the job record, verbatim
  double duration_s = 0;
  int attempts = 0;             // consecutive crash/timeout outcomes
  long long run_id = 0;
  std::string finished;         // UTC, ISO 8601
};

// One inventory entry (a row of `cases`).
struct InventoryCase {
  std::string name;
  std::string group;
  std::string registry;
  std::string fingerprint;
  std::string info_json;  // the worker's inventory entry, verbatim
  long long run_id = 0;
};

// One run (a row of `runs`).
struct RunInfo {
  long long id = 0;
  std::string started, finished, argv, shard, env_json, harness, registries_json;
  std::string paths_json;  // the requested paths' descriptions, as the worker's hello gave them
};

enum class OpenMode { read_only, read_write_create };

class ResultsDb {
 public:
  ResultsDb() = default;
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb& operator=(const ResultsDb&) = delete;

  // Opens (and with read_write_create, creates) the database. On failure returns false and sets
  // *err to one line naming the file and the problem (not a database, foreign, newer schema,
  // corrupt). Never modifies a file it refuses.
  bool Open(const std::string& file, OpenMode mode, std::string* err);
  const std::string& file() const { return file_; }

  // Writes. Each is its own transaction, durable when it returns true.
  bool BeginRun(const RunInfo& run, long long* run_id, std::string* err);
  bool FinishRun(long long run_id, const std::string& finished, std::string* err);
  bool ReplaceInventory(const std::vector<InventoryCase>& cases, std::string* err);
  bool PutResult(const StoredResult& result, std::string* err);

  // Reads.
  bool LoadResults(std::vector<StoredResult>* out, std::string* err) const;
  bool LoadInventory(std::vector<InventoryCase>* out, std::string* err) const;
  bool LoadRuns(std::vector<RunInfo>* out, std::string* err) const;
  std::optional<StoredResult> FindResult(const std::string& case_name, const std::string& path) const;

 private:
  sqlite3* db_ = nullptr;
  std::string file_;
};

}  // namespace opsweep
