// What a run needs of the results database, as an interface so the run session is tested with an
// in-memory fake. DbResultStore forwards to the real ResultsDb (store/results_db.h).
#pragma once
#include <string>
#include <vector>

#include "store/results_db.h"

namespace opsweep {

class ResultStore {
 public:
  virtual ~ResultStore() = default;
  virtual bool LoadResults(std::vector<StoredResult>* out, std::string* err) = 0;
  virtual bool LoadRuns(std::vector<RunInfo>* out, std::string* err) = 0;
  // The case identities (store/results_db.h); a store that keeps none has none.
  virtual bool LoadIdentities(std::vector<CaseIdentity>* out, std::string* err) {
    out->clear();
    return true;
  }
  virtual bool BeginRun(const RunInfo& run, long long* run_id, std::string* err) = 0;
  virtual bool ReplaceInventory(const std::vector<InventoryCase>& cases, std::string* err) = 0;
  virtual bool PutResult(const StoredResult& result, std::string* err) = 0;
  virtual bool FinishRun(long long run_id, const std::string& finished, std::string* err) = 0;
  // ResultsDb::RewriteRecords: the same results, their records in another encoding.
  virtual bool RewriteRecords(const std::vector<const StoredResult*>& rows, std::string* err) = 0;
};

class DbResultStore : public ResultStore {
 public:
  explicit DbResultStore(ResultsDb* db) : db_(db) {}
  bool LoadResults(std::vector<StoredResult>* out, std::string* err) override { return db_->LoadResults(out, err); }
  bool LoadRuns(std::vector<RunInfo>* out, std::string* err) override { return db_->LoadRuns(out, err); }
  bool LoadIdentities(std::vector<CaseIdentity>* out, std::string* err) override {
    return db_->LoadIdentities(out, err);
  }
  bool BeginRun(const RunInfo& run, long long* run_id, std::string* err) override {
    return db_->BeginRun(run, run_id, err);
  }
  bool ReplaceInventory(const std::vector<InventoryCase>& cases, std::string* err) override {
    return db_->ReplaceInventory(cases, err);
  }
  bool PutResult(const StoredResult& result, std::string* err) override { return db_->PutResult(result, err); }
  bool FinishRun(long long run_id, const std::string& finished, std::string* err) override {
    return db_->FinishRun(run_id, finished, err);
  }
  bool RewriteRecords(const std::vector<const StoredResult*>& rows, std::string* err) override {
    return db_->RewriteRecords(rows, err);
  }

 private:
  ResultsDb* db_;
};

// No database yet (a dry run before the first run): nothing stored, and writes are refused.
class EmptyResultStore : public ResultStore {
 public:
  bool LoadResults(std::vector<StoredResult>* out, std::string* err) override {
    out->clear();
    return true;
  }
  bool LoadRuns(std::vector<RunInfo>* out, std::string* err) override {
    out->clear();
    return true;
  }
  bool BeginRun(const RunInfo& run, long long* run_id, std::string* err) override { return Refuse(err); }
  bool ReplaceInventory(const std::vector<InventoryCase>& cases, std::string* err) override { return Refuse(err); }
  bool PutResult(const StoredResult& result, std::string* err) override { return Refuse(err); }
  bool FinishRun(long long run_id, const std::string& finished, std::string* err) override { return Refuse(err); }
  bool RewriteRecords(const std::vector<const StoredResult*>& rows, std::string* err) override {
    return rows.empty() || Refuse(err);
  }

 private:
  static bool Refuse(std::string* err) {
    *err = "there is no results database to write to";
    return false;
  }
};

}  // namespace opsweep
