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

// A case fingerprint, the recipe it was computed from and the machine that computed it (a row of
// `case_identities`, written with each inventory): on another machine the same recipe may give
// another fingerprint, and the results of this one carry over (core/rerun.h).
struct CaseIdentity {
  std::string fingerprint;
  std::string recipe;
  std::string machine_json;
  bool operator==(const CaseIdentity&) const = default;
};

// One run (a row of `runs`).
struct RunInfo {
  long long id = 0;
  std::string started, finished, argv, shard, env_json, harness, registries_json;
  std::string paths_json;  // the requested paths' descriptions, as the worker's hello gave them
  std::string machine_json;  // util/machine.h: the CPU it ran on; "" when unknown (runs of schema 2)
};

// Everything a database holds, as one value: what the text form (store/results_text.h) writes and
// reads, and what Import() adds to a database.
struct ResultsContent {
  std::vector<RunInfo> runs;
  std::vector<InventoryCase> inventory;
  std::vector<StoredResult> results;
  std::vector<CaseIdentity> identities;  // sorted
};

// What Import() did.
struct ImportSummary {
  size_t runs_added = 0;        // runs not already in the database (an identical run is reused)
  size_t results_added = 0;     // (case, path) the database had no result for
  size_t results_replaced = 0;  // results older than the imported ones (by `finished`)
  size_t results_kept = 0;      // results newer than (or as new as) the imported ones: kept
  bool inventory_replaced = false;
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
  bool is_open() const { return db_ != nullptr; }
  const std::string& file() const { return file_; }

  // Writes. Each is its own transaction, durable when it returns true.
  bool BeginRun(const RunInfo& run, long long* run_id, std::string* err);
  bool FinishRun(long long run_id, const std::string& finished, std::string* err);
  // Also records each case's identity (its fingerprint, the entry's "recipe" and the machine of the
  // run it names) when the entry has a recipe and the run a machine.
  bool ReplaceInventory(const std::vector<InventoryCase>& cases, std::string* err);
  bool PutResult(const StoredResult& result, std::string* err);
  // Replaces the record text of stored results, in one transaction: each row's record_json where its
  // (case, path) still holds the same job key and status (a result another run replaced meanwhile is
  // left as that run wrote it). For a record whose content is the same in another encoding
  // (ReencodeLineDigests, core/library_index.h); every other column stays.
  bool RewriteRecords(const std::vector<const StoredResult*>& rows, std::string* err);

  // Adds `content` in one transaction. Its runs are added (an identical run, same started, finished,
  // shard, env, harness and paths, is reused) and its run ids mapped to the database's; each
  // result replaces the stored one of its (case, path) unless that one finished later or at the
  // same time (merge's rule: the later result wins); the inventory replaces the database's when
  // the database has none, or when the imported inventory's run started later.
  bool Import(const ResultsContent& content, ImportSummary* summary, std::string* err);

  // Reads.
  bool LoadAll(ResultsContent* out, std::string* err) const;
  bool LoadResults(std::vector<StoredResult>* out, std::string* err) const;
  bool LoadInventory(std::vector<InventoryCase>* out, std::string* err) const;
  bool LoadRuns(std::vector<RunInfo>* out, std::string* err) const;
  bool LoadIdentities(std::vector<CaseIdentity>* out, std::string* err) const;  // none in an older file
  std::optional<StoredResult> FindResult(const std::string& case_name, const std::string& path) const;
  // The ONNX opsets the stored onnx results were measured with (their key field "opsets", such as
  // "17,18,25"), the most common one when they differ (ties: the smaller text); "" when no stored
  // result has one. What `opsweep run` and `opsweep explain` use when --opset is not given.
  bool StoredOpsets(std::string* out, std::string* err) const;

 private:
  sqlite3* db_ = nullptr;
  std::string file_;
  int schema_ = 0;  // of the open file (2 only when opened read-only: writing migrates it to 3)
};

}  // namespace opsweep
