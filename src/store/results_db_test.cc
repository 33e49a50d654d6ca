#include "store/results_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "util/read_file.h"

namespace opsweep {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "opsweep-store-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (fs::path(path_) / name).string(); }

 private:
  std::string path_;
};

std::string ReadBytes(const std::string& file) {
  std::string bytes, err;
  EXPECT_TRUE(ReadFile(file, &bytes, &err)) << err;
  return bytes;
}

void WriteBytes(const std::string& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
}

StoredResult MakeResult(const std::string& name, const std::string& path, const std::string& status) {
  StoredResult r;
  r.case_name = name;
  r.path = path;
  r.job_key = "key-" + name + "-" + path;
  r.key_fields_json = R"({"case":"fp","path":")" + path + R"("})";
  r.status = status;
  r.record_json = R"({"status":")" + status + R"("})";
  r.duration_s = 1.25;
  r.attempts = 0;
  r.run_id = 1;
  r.finished = "2026-11-30T04:00:00Z";
  return r;
}

// Builds a complete database (one run, two cases, three results) and returns its file.
std::string MakeFullDb(const TempDir& dir, const std::string& name) {
  std::string file = dir.File(name);
  ResultsDb db;
  std::string err;
  EXPECT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
  RunInfo run;
  run.started = "2026-11-30T03:00:00Z";
  run.env_json = R"({"torch":"2.13.0"})";
  run.paths_json = R"(["onnx","export"])";
  long long id = 0;
  EXPECT_TRUE(db.BeginRun(run, &id, &err)) << err;
  EXPECT_TRUE(db.ReplaceInventory({{"a", "color", "cases_color.py", "fa", "{}", id},
                                   {"b", "geometry.epipolar", "cases_geom.py", "fb", "{}", id}},
                                  &err))
      << err;
  EXPECT_TRUE(db.PutResult(MakeResult("a", "onnx", "ok"), &err)) << err;
  EXPECT_TRUE(db.PutResult(MakeResult("a", "export", "fail"), &err)) << err;
  EXPECT_TRUE(db.PutResult(MakeResult("b", "onnx", "crash"), &err)) << err;
  EXPECT_TRUE(db.FinishRun(id, "2026-11-30T05:00:00Z", &err)) << err;
  return file;
}

TEST(ResultsDb, RoundTrip) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "r.db");
  ResultsDb db;
  std::string err;
  ASSERT_TRUE(db.Open(file, OpenMode::read_only, &err)) << err;
  std::vector<StoredResult> results;
  ASSERT_TRUE(db.LoadResults(&results, &err)) << err;
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].case_name, "a");
  EXPECT_EQ(results[0].path, "export");
  EXPECT_EQ(results[0].status, "fail");
  EXPECT_EQ(results[0].record_json, R"({"status":"fail"})");
  EXPECT_DOUBLE_EQ(results[0].duration_s, 1.25);
  EXPECT_EQ(results[0].finished, "2026-11-30T04:00:00Z");
  std::vector<InventoryCase> inv;
  ASSERT_TRUE(db.LoadInventory(&inv, &err)) << err;
  ASSERT_EQ(inv.size(), 2u);
  EXPECT_EQ(inv[1].group, "geometry.epipolar");
  EXPECT_EQ(inv[1].registry, "cases_geom.py");
  std::vector<RunInfo> runs;
  ASSERT_TRUE(db.LoadRuns(&runs, &err)) << err;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].finished, "2026-11-30T05:00:00Z");
  EXPECT_EQ(runs[0].paths_json, R"(["onnx","export"])");
  auto found = db.FindResult("b", "onnx");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->status, "crash");
  EXPECT_FALSE(db.FindResult("b", "export").has_value());
}

TEST(ResultsDb, PutResultUpsertsAndReopenKeepsData) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "r.db");
  std::string err;
  {
    ResultsDb db;
    ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
    StoredResult again = MakeResult("a", "onnx", "mismatch");
    again.attempts = 2;
    ASSERT_TRUE(db.PutResult(again, &err)) << err;
  }
  ResultsDb db;
  ASSERT_TRUE(db.Open(file, OpenMode::read_only, &err)) << err;
  std::vector<StoredResult> results;
  ASSERT_TRUE(db.LoadResults(&results, &err)) << err;
  EXPECT_EQ(results.size(), 3u);
  auto a = db.FindResult("a", "onnx");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->status, "mismatch");
  EXPECT_EQ(a->attempts, 2);
}

TEST(ResultsDb, RewriteRecordsReplacesOnlyTheRecordTextOfTheSameResult) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "r.db");
  std::string err;
  ResultsDb db;
  ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
  StoredResult a = *db.FindResult("a", "onnx");
  StoredResult b = *db.FindResult("b", "onnx");
  a.record_json = R"({"status":"ok","deps":{"functions":{"x.py:f":"t:1"},"modules":{}}})";
  b.record_json = R"({"status":"crash","rewritten":true})";
  b.job_key = "another key";  // another run replaced it meanwhile: left as that run wrote it
  ASSERT_TRUE(db.RewriteRecords({&a, &b}, &err)) << err;
  StoredResult a2 = *db.FindResult("a", "onnx");
  EXPECT_EQ(a2.record_json, a.record_json);
  EXPECT_EQ(a2.run_id, MakeResult("a", "onnx", "ok").run_id);
  EXPECT_EQ(a2.finished, MakeResult("a", "onnx", "ok").finished);
  EXPECT_EQ(db.FindResult("b", "onnx")->record_json, MakeResult("b", "onnx", "crash").record_json);
  ASSERT_TRUE(db.RewriteRecords({}, &err)) << err;
  ResultsDb ro;
  ASSERT_TRUE(ro.Open(file, OpenMode::read_only, &err)) << err;
  EXPECT_FALSE(ro.RewriteRecords({&a}, &err));
}

TEST(ResultsDb, StoredOpsetsAreTheMostCommonOfTheOnnxResults) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "r.db");  // its results have no opsets
  std::string err, opsets = "x";
  ResultsDb db;
  ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
  ASSERT_TRUE(db.StoredOpsets(&opsets, &err)) << err;
  EXPECT_EQ(opsets, "");
  auto with = [](const std::string& name, const std::string& path, const std::string& opsets) {
    StoredResult r = MakeResult(name, path, "ok");
    r.key_fields_json = R"({"path":")" + path + R"(","opsets":")" + opsets + R"("})";
    return r;
  };
  ASSERT_TRUE(db.PutResult(with("a", "onnx", "17,18,25"), &err)) << err;
  ASSERT_TRUE(db.PutResult(with("b", "onnx", "17,18,25"), &err)) << err;
  ASSERT_TRUE(db.PutResult(with("c", "onnx", "18"), &err)) << err;
  // other paths do not count, nor does a key that is not JSON
  ASSERT_TRUE(db.PutResult(with("a", "export", "9"), &err)) << err;
  ASSERT_TRUE(db.PutResult(with("b", "export", "9"), &err)) << err;
  ASSERT_TRUE(db.PutResult(with("c", "export", "9"), &err)) << err;
  StoredResult broken = MakeResult("d", "onnx", "ok");
  broken.key_fields_json = "{not json";
  ASSERT_TRUE(db.PutResult(broken, &err)) << err;
  ASSERT_TRUE(db.StoredOpsets(&opsets, &err)) << err;
  EXPECT_EQ(opsets, "17,18,25");
}

TEST(ResultsDb, ReplaceInventoryReplacesAll) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "r.db");
  ResultsDb db;
  std::string err;
  ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
  ASSERT_TRUE(db.ReplaceInventory({{"c", "filters", "cases_f.py", "fc", "{}", 2}}, &err)) << err;
  std::vector<InventoryCase> inv;
  ASSERT_TRUE(db.LoadInventory(&inv, &err)) << err;
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv[0].name, "c");
  EXPECT_EQ(inv[0].run_id, 2);
}

TEST(ResultsDb, CreatesSchemaWithMetaRowsInWalMode) {
  TempDir dir;
  std::string file = dir.File("new.db");
  {
    ResultsDb db;
    std::string err;
    ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT key || '=' || value FROM meta ORDER BY key", -1, &st, nullptr), SQLITE_OK);
  std::vector<std::string> rows;
  while (sqlite3_step(st) == SQLITE_ROW) rows.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  std::string mode = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(raw);
  EXPECT_EQ(rows, (std::vector<std::string>{"format=opsweep-results", "schema=3"}));
  EXPECT_EQ(mode, "wal");
}

TEST(ResultsDb, ReadOnlyOnMissingFileFailsClearly) {
  TempDir dir;
  std::string file = dir.File("missing.db");
  ResultsDb db;
  std::string err;
  EXPECT_FALSE(db.Open(file, OpenMode::read_only, &err));
  EXPECT_NE(err.find(file), std::string::npos) << err;
  EXPECT_NE(err.find("no such results database"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(file));
  EXPECT_EQ(err.find('\n'), std::string::npos);
}

// Refusal must leave the file byte-for-byte as it was, in both modes.
void ExpectRefusedAndUnchanged(const std::string& file, const std::string& needle) {
  std::string before = ReadBytes(file);
  for (OpenMode mode : {OpenMode::read_only, OpenMode::read_write_create}) {
    ResultsDb db;
    std::string err;
    EXPECT_FALSE(db.Open(file, mode, &err)) << file;
    EXPECT_NE(err.find(file), std::string::npos) << err;
    EXPECT_NE(err.find(needle), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
  EXPECT_EQ(ReadBytes(file), before);
  EXPECT_FALSE(fs::exists(file + "-wal"));
  EXPECT_FALSE(fs::exists(file + "-journal"));
}

TEST(ResultsDb, ForeignSqliteDatabaseIsRefusedAndUnchanged) {
  TempDir dir;
  std::string file = dir.File("foreign.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE photos(id INTEGER); INSERT INTO photos VALUES(1);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  ExpectRefusedAndUnchanged(file, "not an opsweep results database");
}

TEST(ResultsDb, ForeignMetaTableIsRefused) {
  TempDir dir;
  std::string file = dir.File("foreign-meta.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('format','other-tool');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  ExpectRefusedAndUnchanged(file, "format 'other-tool'");
}

TEST(ResultsDb, NewerSchemaIsRefused) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "newer.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA wal_checkpoint(TRUNCATE); UPDATE meta SET value='4' WHERE key='schema'; PRAGMA journal_mode=DELETE;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  ExpectRefusedAndUnchanged(file, "newer than this opsweep reads");
}

TEST(ResultsDb, SchemaOneIsRefusedAsOlderAndMustBeRemeasured) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "older.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA wal_checkpoint(TRUNCATE); UPDATE meta SET value='1' WHERE key='schema'; PRAGMA journal_mode=DELETE;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  ExpectRefusedAndUnchanged(file, "schema version 1 comes from an older opsweep");
  ExpectRefusedAndUnchanged(file, "re-measure into a new database");
}

// A run that started at `started` on `machine`.
RunInfo RunOn(const std::string& started, const std::string& machine) {
  RunInfo run;
  run.started = started;
  run.env_json = "{}";
  run.paths_json = "[]";
  run.machine_json = machine;
  return run;
}

TEST(ResultsDb, RunsKeepTheMachineTheyRanOn) {
  TempDir dir;
  std::string file = dir.File("m.db");
  std::string err;
  {
    ResultsDb db;
    ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
    long long id = 0;
    ASSERT_TRUE(db.BeginRun(RunOn("2026-12-02T03:00:00Z", R"({"cpu":"Some CPU","features":"avx2 fma"})"), &id, &err))
        << err;
  }
  ResultsDb db;
  ASSERT_TRUE(db.Open(file, OpenMode::read_only, &err)) << err;
  std::vector<RunInfo> runs;
  ASSERT_TRUE(db.LoadRuns(&runs, &err)) << err;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].machine_json, R"({"cpu":"Some CPU","features":"avx2 fma"})");
}

TEST(ResultsDb, AnInventoryRecordsEachCasesIdentityUnderItsRunsMachineAndImportKeepsThem) {
  TempDir dir;
  std::string file = dir.File("id.db");
  std::string err;
  const std::string amd = R"({"cpu":"AMD EPYC","features":"avx2 fma"})";
  const std::string intel = R"({"cpu":"Intel Xeon","features":"avx2 avx512f fma"})";
  {
    ResultsDb db;
    ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
    long long one = 0, two = 0;
    ASSERT_TRUE(db.BeginRun(RunOn("2026-12-02T03:00:00Z", amd), &one, &err)) << err;
    // a recipe is recorded; an entry without one (an older worker) records nothing
    ASSERT_TRUE(db.ReplaceInventory({{"a", "g", "r.py", "fa1", R"({"name":"a","recipe":"R1"})", one},
                                     {"b", "g", "r.py", "fb1", R"({"name":"b"})", one}},
                                    &err)) << err;
    ASSERT_TRUE(db.BeginRun(RunOn("2026-12-03T03:00:00Z", intel), &two, &err)) << err;
    ASSERT_TRUE(db.ReplaceInventory({{"a", "g", "r.py", "fa2", R"({"name":"a","recipe":"R1"})", two}}, &err)) << err;
    // the same again adds nothing
    ASSERT_TRUE(db.ReplaceInventory({{"a", "g", "r.py", "fa2", R"({"name":"a","recipe":"R1"})", two}}, &err)) << err;
  }
  ResultsDb db;
  ASSERT_TRUE(db.Open(file, OpenMode::read_only, &err)) << err;
  std::vector<CaseIdentity> ids;
  ASSERT_TRUE(db.LoadIdentities(&ids, &err)) << err;
  EXPECT_EQ(ids, (std::vector<CaseIdentity>{{"fa1", "R1", amd}, {"fa2", "R1", intel}}));

  // into another database, with what the text form carries
  ResultsContent content;
  ASSERT_TRUE(db.LoadAll(&content, &err)) << err;
  EXPECT_EQ(content.identities, ids);
  ResultsDb other;
  ASSERT_TRUE(other.Open(dir.File("other.db"), OpenMode::read_write_create, &err)) << err;
  ImportSummary summary;
  ASSERT_TRUE(other.Import(content, &summary, &err)) << err;
  std::vector<CaseIdentity> imported;
  ASSERT_TRUE(other.LoadIdentities(&imported, &err)) << err;
  EXPECT_EQ(imported, ids);
}

// Runs `sql` on `file` outside opsweep (a file as another version or tool left it), WAL folded in.
void ExecRaw(const std::string& file, const std::string& sql) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, ("PRAGMA wal_checkpoint(TRUNCATE); " + sql + " PRAGMA journal_mode=DELETE;").c_str(),
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
}

TEST(ResultsDb, AFileWithoutCaseIdentitiesReadsAsHavingNone) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "old.db");
  ExecRaw(file, "DROP TABLE case_identities;");
  const std::string before = ReadBytes(file);
  std::string err;
  {
    ResultsDb db;
    ASSERT_TRUE(db.Open(file, OpenMode::read_only, &err)) << err;
    std::vector<CaseIdentity> ids{{"x", "y", "z"}};
    ASSERT_TRUE(db.LoadIdentities(&ids, &err)) << err;
    EXPECT_TRUE(ids.empty());
  }
  EXPECT_EQ(ReadBytes(file), before);  // read as it is
  ResultsDb db;
  ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;  // opened for writing: the table is added
  std::vector<CaseIdentity> ids;
  ASSERT_TRUE(db.LoadIdentities(&ids, &err)) << err;
  EXPECT_TRUE(ids.empty());
}

// Makes `file` what opsweep wrote before schema 3: no runs.machine_json, schema 2 in meta.
void DowngradeToSchemaTwo(const std::string& file) {
  ExecRaw(file, "ALTER TABLE runs DROP COLUMN machine_json; DROP TABLE case_identities; "
                "UPDATE meta SET value='2' WHERE key='schema';");
}

TEST(ResultsDb, SchemaTwoIsReadAsItIsAndMigratedOnlyWhenWritten) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "two.db");
  DowngradeToSchemaTwo(file);
  const std::string before = ReadBytes(file);
  std::string err;
  {
    ResultsDb db;
    ASSERT_TRUE(db.Open(file, OpenMode::read_only, &err)) << err;
    ResultsContent content;
    ASSERT_TRUE(db.LoadAll(&content, &err)) << err;
    ASSERT_EQ(content.runs.size(), 1u);
    EXPECT_EQ(content.runs[0].machine_json, "");
    EXPECT_EQ(content.results.size(), 3u);
  }
  EXPECT_EQ(ReadBytes(file), before) << "reading must not migrate";
  {
    ResultsDb db;
    ASSERT_TRUE(db.Open(file, OpenMode::read_write_create, &err)) << err;
    long long id = 0;
    ASSERT_TRUE(db.BeginRun(RunOn("2026-12-02T04:00:00Z", R"({"cpu":"B","features":""})"), &id, &err)) << err;
    std::vector<RunInfo> runs;
    ASSERT_TRUE(db.LoadRuns(&runs, &err)) << err;
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].machine_json, "") << "the old run's machine is unknown";
    EXPECT_EQ(runs[1].machine_json, R"({"cpu":"B","features":""})");
    std::vector<StoredResult> results;
    ASSERT_TRUE(db.LoadResults(&results, &err)) << err;
    EXPECT_EQ(results.size(), 3u) << "migrating keeps every result";
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT value FROM meta WHERE key='schema'", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))), "3");
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

TEST(ResultsDb, RandomBytesAreRefusedAndUnchanged) {
  TempDir dir;
  std::string file = dir.File("random.db");
  std::mt19937 gen(42);
  std::string bytes(8192, '\0');
  for (char& c : bytes) c = static_cast<char>(gen() & 0xff);
  WriteBytes(file, bytes);
  ExpectRefusedAndUnchanged(file, "not an SQLite database");
}

TEST(ResultsDb, TextFileAndEmptyFileAreRefused) {
  TempDir dir;
  std::string text = dir.File("notes.db");
  WriteBytes(text, "these are my notes\n");
  ExpectRefusedAndUnchanged(text, "not an SQLite database");
  std::string empty = dir.File("empty.db");
  WriteBytes(empty, "");
  ExpectRefusedAndUnchanged(empty, "empty file");
}

TEST(ResultsDb, TruncatedDatabaseNeverCrashes) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "full.db");
  {
    // Fold the WAL into the main file so that truncating the main file cuts real data.
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }
  std::string full = ReadBytes(file);
  ASSERT_GT(full.size(), 4096u);
  std::vector<size_t> lengths = {0, 1, 15, 16, 50, 99, 100, 101, 512, 1024, 4095, 4096, 4097};
  for (size_t n = 4096; n < full.size(); n += 1024) lengths.push_back(n);
  lengths.push_back(full.size() - 1);
  for (size_t n : lengths) {
    if (n > full.size()) continue;
    std::string cut = dir.File("cut-" + std::to_string(n) + ".db");
    WriteBytes(cut, full.substr(0, n));
    ResultsDb db;
    std::string err;
    if (db.Open(cut, OpenMode::read_only, &err)) {
      std::vector<StoredResult> results;
      std::vector<InventoryCase> inv;
      std::vector<RunInfo> runs;
      db.LoadResults(&results, &err);  // may fail: must not crash
      db.LoadInventory(&inv, &err);
      db.LoadRuns(&runs, &err);
    } else {
      EXPECT_NE(err.find(cut), std::string::npos) << err;
      EXPECT_EQ(err.find('\n'), std::string::npos) << err;
      EXPECT_EQ(ReadBytes(cut), full.substr(0, n)) << "length " << n;
    }
  }
}

TEST(ResultsDb, WritesFailCleanlyWhenNotOpen) {
  ResultsDb db;
  std::string err;
  EXPECT_FALSE(db.PutResult(MakeResult("a", "onnx", "ok"), &err));
  EXPECT_FALSE(err.empty());
  std::vector<StoredResult> results;
  EXPECT_FALSE(db.LoadResults(&results, &err));
}

TEST(ResultsDb, ReadOnlyConnectionRefusesWrites) {
  TempDir dir;
  std::string file = MakeFullDb(dir, "r.db");
  ResultsDb db;
  std::string err;
  ASSERT_TRUE(db.Open(file, OpenMode::read_only, &err)) << err;
  EXPECT_FALSE(db.PutResult(MakeResult("z", "onnx", "ok"), &err));
  EXPECT_NE(err.find(file), std::string::npos);
}

}  // namespace
}  // namespace opsweep
