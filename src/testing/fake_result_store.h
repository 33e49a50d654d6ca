// An in-memory ResultStore.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "exec/result_store.h"

namespace opsweep {

class FakeResultStore : public ResultStore {
 public:
  bool LoadResults(std::vector<StoredResult>* out, std::string* err) override {
    out->clear();
    for (const auto& [k, v] : results) out->push_back(v);
    return true;
  }
  bool LoadRuns(std::vector<RunInfo>* out, std::string* err) override {
    *out = runs;
    return true;
  }
  bool BeginRun(const RunInfo& run, long long* run_id, std::string* err) override {
    runs.push_back(run);
    *run_id = static_cast<long long>(runs.size());
    runs.back().id = *run_id;
    return true;
  }
  bool ReplaceInventory(const std::vector<InventoryCase>& cases, std::string* err) override {
    inventory = cases;
    return true;
  }
  bool PutResult(const StoredResult& result, std::string* err) override {
    if (fail_puts) {
      *err = "disk full";
      return false;
    }
    results[{result.case_name, result.path}] = result;
    ++puts;
    return true;
  }
  bool FinishRun(long long run_id, const std::string& finished, std::string* err) override {
    runs[static_cast<size_t>(run_id - 1)].finished = finished;
    return true;
  }

  bool RewriteRecords(const std::vector<const StoredResult*>& rows, std::string* err) override {
    for (const StoredResult* r : rows) {
      auto it = results.find({r->case_name, r->path});
      if (it != results.end() && it->second.job_key == r->job_key && it->second.status == r->status) {
        it->second.record_json = r->record_json;
        ++rewrites;
      }
    }
    return true;
  }

  std::map<std::pair<std::string, std::string>, StoredResult> results;
  std::vector<RunInfo> runs;
  std::vector<InventoryCase> inventory;
  int puts = 0;
  int rewrites = 0;
  bool fail_puts = false;
};

}  // namespace opsweep
