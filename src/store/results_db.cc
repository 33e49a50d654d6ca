// The results database (docs/formats.md section 4).
//
// Design: opening is two-phase. An existing file is first inspected through a read-only
// connection (header bytes, integrity, the meta rows); only a file that passes is reopened for
// writing, so a foreign, newer or damaged file is never touched. A missing file is created only
// with OpenMode::read_write_create, and its schema plus meta rows are written in one transaction.
// Writes run with WAL + synchronous=FULL, each write its own transaction, so a result is on disk
// when PutResult returns and a kill -9 loses only jobs still in flight.
//
// Schema 2: runs.paths_json holds the descriptions of the run's requested paths (core/path_spec.h)
// and job keys carry each path's own harness digest and env fields. A schema-1 database (ids only,
// one key for every path) is refused, never migrated: its results must be measured again.
// Schema 3 adds runs.machine_json (util/machine.h: the CPU a run measured on). A schema-2 database
// opened for writing gains the column ('' for its runs: their machine is unknown) in the same
// transaction that marks it schema 3; opened read-only it is read as it is, with no machine.
#include "store/results_db.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>
#include <sys/stat.h>

namespace opsweep {

namespace {

constexpr const char* kFormat = "opsweep-results";
constexpr int kSchema = 3;
constexpr int kOldestReadable = 2;  // a schema-2 database is migrated (see above)
constexpr int kBusyTimeoutMs = 10000;

constexpr const char* kSchemaSql = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, started TEXT, finished TEXT, argv TEXT,
  shard TEXT, env_json TEXT, harness TEXT, registries_json TEXT, paths_json TEXT,
  machine_json TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS cases(name TEXT PRIMARY KEY, group_name TEXT NOT NULL,
  registry TEXT NOT NULL, fingerprint TEXT NOT NULL, info_json TEXT NOT NULL,
  run_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS results(case_name TEXT NOT NULL, path TEXT NOT NULL,
  job_key TEXT NOT NULL, key_fields_json TEXT NOT NULL, status TEXT NOT NULL,
  record_json TEXT NOT NULL, duration_s REAL NOT NULL, attempts INTEGER NOT NULL,
  run_id INTEGER NOT NULL, finished TEXT NOT NULL, PRIMARY KEY(case_name, path));
CREATE TABLE IF NOT EXISTS case_identities(fingerprint TEXT NOT NULL, recipe TEXT NOT NULL,
  machine_json TEXT NOT NULL, PRIMARY KEY(fingerprint, recipe, machine_json));
INSERT OR IGNORE INTO meta(key, value) VALUES('format', 'opsweep-results');
INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '3');
)sql";

// A prepared statement that finalizes itself.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK && stmt_ != nullptr; }
  sqlite3_stmt* get() const { return stmt_; }
  void Bind(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT); }
  void Bind(int i, long long v) { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  std::string Text(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, col)) : std::string();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

// The runs' columns this build reads, in RunInfo's order; a schema-2 file has no machine_json, read as ''.
std::string RunsSelect(int schema) {
  return std::string("SELECT id, started, finished, argv, shard, env_json, harness, registries_json, paths_json, ") +
         (schema >= 3 ? "machine_json" : "''") + " FROM runs";
}

// Inserts one run (its id is the database's); false with sqlite's message in *why.
bool InsertRun(sqlite3* db, const RunInfo& run, long long* id, std::string* why) {
  Stmt st(db, "INSERT INTO runs(started, finished, argv, shard, env_json, harness, registries_json, paths_json, "
              "machine_json) VALUES(?,?,?,?,?,?,?,?,?)");
  if (st.ok()) {
    int i = 0;
    for (const std::string* v : {&run.started, &run.finished, &run.argv, &run.shard, &run.env_json, &run.harness,
                                 &run.registries_json, &run.paths_json, &run.machine_json}) {
      st.Bind(++i, *v);
    }
    if (sqlite3_step(st.get()) == SQLITE_DONE) {
      *id = sqlite3_last_insert_rowid(db);
      return true;
    }
  }
  *why = sqlite3_errmsg(db);
  return false;
}

bool FileExists(const std::string& file, off_t* size) {
  struct stat st;
  if (stat(file.c_str(), &st) != 0) return false;
  *size = st.st_size;
  return true;
}

// Reads the first bytes of the file: SQLite's magic header, checked before SQLite sees the file.
bool HasSqliteHeader(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  char buf[16] = {};
  in.read(buf, sizeof buf);
  return in.gcount() == 16 && std::string_view(buf, 16) == std::string_view("SQLite format 3\0", 16);
}

// SQLite's integrity messages span lines; an error of ours is one line.
std::string OneLine(const std::string& text) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.rfind("***", 0) == 0) continue;
    if (!out.empty()) out += "; ";
    out += line;
  }
  return out;
}

// One line for a failed SQLite call, naming "not a database" and "corrupt" plainly.
std::string Describe(sqlite3* db, int rc) {
  std::string msg = OneLine(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_NOTADB: return "not an SQLite database";
    case SQLITE_CORRUPT: return "the database is corrupt (" + msg + ")";
    default: return msg;
  }
}

bool Exec(sqlite3* db, const char* sql, std::string* err) {
  char* msg = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    *err = msg ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
    return false;
  }
  return true;
}

// Checks an open connection: integrity, then the meta rows. Returns "" when it is one of ours
// (of a schema this build reads, which *schema receives), otherwise the problem in a few words.
std::string Inspect(sqlite3* db, int* schema_out) {
  {
    Stmt check(db, "PRAGMA quick_check(1)");
    if (!check.ok()) return Describe(db, sqlite3_errcode(db));
    int rc = sqlite3_step(check.get());
    if (rc != SQLITE_ROW) return Describe(db, rc);
    std::string verdict = check.Text(0);
    if (verdict != "ok") return "the database is corrupt (" + OneLine(verdict) + ")";
  }
  {
    Stmt has(db, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name='meta'");
    if (!has.ok()) return Describe(db, sqlite3_errcode(db));
    int rc = sqlite3_step(has.get());
    if (rc != SQLITE_ROW) return Describe(db, rc);
    if (sqlite3_column_int(has.get(), 0) == 0) return "not an opsweep results database (no meta table)";
  }
  Stmt meta(db, "SELECT key, value FROM meta WHERE key IN ('format','schema')");
  if (!meta.ok()) return "not an opsweep results database (" + std::string(sqlite3_errmsg(db)) + ")";
  std::string format, schema;
  bool has_format = false, has_schema = false;
  int rc;
  while ((rc = sqlite3_step(meta.get())) == SQLITE_ROW) {
    std::string key = meta.Text(0);
    if (key == "format") { format = meta.Text(1); has_format = true; }
    if (key == "schema") { schema = meta.Text(1); has_schema = true; }
  }
  if (rc != SQLITE_DONE) return Describe(db, rc);
  if (!has_format || format != kFormat) {
    return has_format ? "not an opsweep results database (format '" + format + "')"
                      : "not an opsweep results database (no format row in meta)";
  }
  if (!has_schema) return "no schema version in meta";
  int version = 0;
  if (std::sscanf(schema.c_str(), "%d", &version) != 1 || std::to_string(version) != schema || version < 1) {
    return "unknown schema version '" + schema + "'";
  }
  if (version < kOldestReadable) {
    return "schema version " + schema + " comes from an older opsweep, whose job keys and path descriptions this one "
           "cannot read; re-measure into a new database";
  }
  if (version > kSchema) {
    return "schema version " + schema + " is newer than this opsweep reads (" + std::to_string(kSchema) +
           "); upgrade opsweep";
  }
  // The tables this build reads must exist with the columns it reads.
  const std::string runs_probe = RunsSelect(version) + " LIMIT 0";
  for (const char* sql : {runs_probe.c_str(),
                          "SELECT name, group_name, registry, fingerprint, info_json, run_id FROM cases LIMIT 0",
                          "SELECT case_name, path, job_key, key_fields_json, status, record_json, duration_s, attempts, run_id, finished FROM results LIMIT 0"}) {
    Stmt probe(db, sql);
    if (!probe.ok()) return "the schema is damaged (" + std::string(sqlite3_errmsg(db)) + ")";
  }
  *schema_out = version;
  return "";
}

void Configure(sqlite3* db) {
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 1);
}

}  // namespace

ResultsDb::~ResultsDb() {
  if (db_) sqlite3_close_v2(db_);
}

bool ResultsDb::Open(const std::string& file, OpenMode mode, std::string* err) {
  if (db_) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
  file_ = file;
  auto fail = [&](const std::string& why) {
    *err = file + ": " + why;
    return false;
  };

  off_t size = 0;
  bool exists = FileExists(file, &size);
  if (!exists && mode == OpenMode::read_only) return fail("no such results database");
  if (exists) {
    if (size == 0) return fail("empty file, not an opsweep results database");
    if (!HasSqliteHeader(file)) return fail("not an SQLite database");
    // Inspect through a read-only connection first: a refused file must stay byte-for-byte as it was.
    sqlite3* ro = nullptr;
    int rc = sqlite3_open_v2(file.c_str(), &ro, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      std::string why = Describe(ro, rc);
      sqlite3_close_v2(ro);
      return fail("cannot open: " + why);
    }
    Configure(ro);
    std::string problem = Inspect(ro, &schema_);
    if (!problem.empty()) {
      sqlite3_close_v2(ro);
      return fail(problem);
    }
    if (mode == OpenMode::read_only) {
      db_ = ro;
      return true;
    }
    sqlite3_close_v2(ro);
  }

  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = Describe(db_, rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return fail("cannot open for writing: " + why);
  }
  Configure(db_);
  std::string why;
  if (!Exec(db_, "PRAGMA journal_mode=WAL", &why) || !Exec(db_, "PRAGMA synchronous=FULL", &why) ||
      !Exec(db_, "BEGIN IMMEDIATE", &why)) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return fail("cannot prepare for writing: " + why);
  }
  // A schema-2 file gains runs.machine_json and becomes schema 3, or stays as it was.
  const bool migrate = exists && schema_ == 2;
  if ((migrate && !Exec(db_,
                        "ALTER TABLE runs ADD COLUMN machine_json TEXT NOT NULL DEFAULT '';"
                        "UPDATE meta SET value='3' WHERE key='schema';",
                        &why)) ||
      !Exec(db_, kSchemaSql, &why) || !Exec(db_, "COMMIT", &why)) {
    Exec(db_, "ROLLBACK", &why);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return fail("cannot create the schema: " + why);
  }
  // Another process may have created the file between our checks: inspect what is there now.
  std::string problem = Inspect(db_, &schema_);
  if (!problem.empty()) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return fail(problem);
  }
  return true;
}

bool ResultsDb::BeginRun(const RunInfo& run, long long* run_id, std::string* err) {
  if (!db_) { *err = "results database is not open"; return false; }
  std::string why;
  if (!InsertRun(db_, run, run_id, &why)) { *err = file_ + ": " + why; return false; }
  return true;
}

bool ResultsDb::FinishRun(long long run_id, const std::string& finished, std::string* err) {
  if (!db_) { *err = "results database is not open"; return false; }
  Stmt st(db_, "UPDATE runs SET finished=? WHERE id=?");
  if (!st.ok()) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  st.Bind(1, finished);
  st.Bind(2, run_id);
  if (sqlite3_step(st.get()) != SQLITE_DONE) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  if (sqlite3_changes(db_) != 1) { *err = file_ + ": no run " + std::to_string(run_id); return false; }
  return true;
}

namespace {

// Records the identity of every inventory case that names a recipe, under the machine of the run
// it belongs to (case_identities; an identity already known is kept). Inside a transaction.
constexpr const char* kRecordIdentitiesSql = R"sql(
INSERT OR IGNORE INTO case_identities(fingerprint, recipe, machine_json)
  SELECT c.fingerprint, json_extract(c.info_json, '$.recipe'), r.machine_json FROM cases c JOIN runs r ON r.id = c.run_id
  WHERE json_valid(c.info_json) AND json_type(c.info_json, '$.recipe') = 'text'
    AND json_extract(c.info_json, '$.recipe') != '' AND r.machine_json != '';
)sql";

bool InsertIdentities(sqlite3* db, const std::vector<CaseIdentity>& identities, std::string* why) {
  Stmt st(db, "INSERT OR IGNORE INTO case_identities(fingerprint, recipe, machine_json) VALUES(?,?,?)");
  if (!st.ok()) {
    *why = sqlite3_errmsg(db);
    return false;
  }
  for (const CaseIdentity& id : identities) {
    sqlite3_reset(st.get());
    st.Bind(1, id.fingerprint);
    st.Bind(2, id.recipe);
    st.Bind(3, id.machine_json);
    if (sqlite3_step(st.get()) != SQLITE_DONE) {
      *why = sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace

namespace {

// BEGIN IMMEDIATE; Fail(why) rolls back and says "<file>: <why>" in *err (and returns false).
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& file, std::string* err) : db_(db), file_(file), err_(err) {}
  bool Begin() {
    std::string why;
    if (Exec(db_, "BEGIN IMMEDIATE", &why)) return true;
    *err_ = file_ + ": " + why;
    return false;
  }
  bool Fail(const std::string& what) {
    std::string ignored;
    Exec(db_, "ROLLBACK", &ignored);
    *err_ = file_ + ": " + what;
    return false;
  }

 private:
  sqlite3* db_;
  const std::string& file_;
  std::string* err_;
};

}  // namespace

bool ResultsDb::RewriteRecords(const std::vector<const StoredResult*>& rows, std::string* err) {
  if (!db_) { *err = "results database is not open"; return false; }
  if (rows.empty()) return true;
  std::string why;
  Transaction tx(db_, file_, err);
  if (!tx.Begin()) return false;
  auto rollback = [&](const std::string& what) { return tx.Fail(what); };
  {
    Stmt st(db_, "UPDATE results SET record_json=? WHERE case_name=? AND path=? AND job_key=? AND status=?");
    if (!st.ok()) return rollback(sqlite3_errmsg(db_));
    for (const StoredResult* r : rows) {
      sqlite3_reset(st.get());
      st.Bind(1, r->record_json);
      st.Bind(2, r->case_name);
      st.Bind(3, r->path);
      st.Bind(4, r->job_key);
      st.Bind(5, r->status);
      if (sqlite3_step(st.get()) != SQLITE_DONE) {
        return rollback("result '" + r->case_name + "' [" + r->path + "]: " + sqlite3_errmsg(db_));
      }
    }
  }
  if (!Exec(db_, "COMMIT", &why)) return rollback(why);
  return true;
}

bool ResultsDb::ReplaceInventory(const std::vector<InventoryCase>& cases, std::string* err) {
  if (!db_) { *err = "results database is not open"; return false; }
  std::string why;
  Transaction tx(db_, file_, err);
  if (!tx.Begin()) return false;
  auto rollback = [&](const std::string& what) { return tx.Fail(what); };
  if (!Exec(db_, "DELETE FROM cases", &why)) return rollback(why);
  {
    Stmt st(db_, "INSERT INTO cases(name, group_name, registry, fingerprint, info_json, run_id) VALUES(?,?,?,?,?,?)");
    if (!st.ok()) return rollback(sqlite3_errmsg(db_));
    for (const InventoryCase& c : cases) {
      sqlite3_reset(st.get());
      st.Bind(1, c.name);
      st.Bind(2, c.group);
      st.Bind(3, c.registry);
      st.Bind(4, c.fingerprint);
      st.Bind(5, c.info_json);
      st.Bind(6, c.run_id);
      if (sqlite3_step(st.get()) != SQLITE_DONE) return rollback("case '" + c.name + "': " + sqlite3_errmsg(db_));
    }
  }
  if (!Exec(db_, kRecordIdentitiesSql, &why)) return rollback(why);
  if (!Exec(db_, "COMMIT", &why)) return rollback(why);
  return true;
}

bool ResultsDb::PutResult(const StoredResult& r, std::string* err) {
  if (!db_) { *err = "results database is not open"; return false; }
  // A single statement outside BEGIN is its own (durable, synchronous=FULL) transaction.
  Stmt st(db_, "INSERT OR REPLACE INTO results(case_name, path, job_key, key_fields_json, status, record_json, "
               "duration_s, attempts, run_id, finished) VALUES(?,?,?,?,?,?,?,?,?,?)");
  if (!st.ok()) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  st.Bind(1, r.case_name);
  st.Bind(2, r.path);
  st.Bind(3, r.job_key);
  st.Bind(4, r.key_fields_json);
  st.Bind(5, r.status);
  st.Bind(6, r.record_json);
  st.Bind(7, r.duration_s);
  st.Bind(8, static_cast<long long>(r.attempts));
  st.Bind(9, r.run_id);
  st.Bind(10, r.finished);
  if (sqlite3_step(st.get()) != SQLITE_DONE) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  return true;
}

namespace {
StoredResult ReadResult(const Stmt& st) {
  StoredResult r;
  r.case_name = st.Text(0);
  r.path = st.Text(1);
  r.job_key = st.Text(2);
  r.key_fields_json = st.Text(3);
  r.status = st.Text(4);
  r.record_json = st.Text(5);
  r.duration_s = sqlite3_column_double(st.get(), 6);
  r.attempts = sqlite3_column_int(st.get(), 7);
  r.run_id = sqlite3_column_int64(st.get(), 8);
  r.finished = st.Text(9);
  return r;
}
constexpr const char* kResultColumns =
    "SELECT case_name, path, job_key, key_fields_json, status, record_json, duration_s, attempts, run_id, finished FROM results";
}  // namespace

bool ResultsDb::LoadResults(std::vector<StoredResult>* out, std::string* err) const {
  if (!db_) { *err = "results database is not open"; return false; }
  Stmt st(db_, (std::string(kResultColumns) + " ORDER BY case_name, path").c_str());
  if (!st.ok()) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  out->clear();
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) out->push_back(ReadResult(st));
  if (rc != SQLITE_DONE) { *err = file_ + ": reading results: " + Describe(db_, rc); return false; }
  return true;
}

bool ResultsDb::LoadInventory(std::vector<InventoryCase>* out, std::string* err) const {
  if (!db_) { *err = "results database is not open"; return false; }
  Stmt st(db_, "SELECT name, group_name, registry, fingerprint, info_json, run_id FROM cases ORDER BY name");
  if (!st.ok()) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  out->clear();
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    InventoryCase c;
    c.name = st.Text(0);
    c.group = st.Text(1);
    c.registry = st.Text(2);
    c.fingerprint = st.Text(3);
    c.info_json = st.Text(4);
    c.run_id = sqlite3_column_int64(st.get(), 5);
    out->push_back(std::move(c));
  }
  if (rc != SQLITE_DONE) { *err = file_ + ": reading the inventory: " + Describe(db_, rc); return false; }
  return true;
}

bool ResultsDb::LoadRuns(std::vector<RunInfo>* out, std::string* err) const {
  if (!db_) { *err = "results database is not open"; return false; }
  Stmt st(db_, (RunsSelect(schema_) + " ORDER BY id").c_str());
  if (!st.ok()) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  out->clear();
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    RunInfo r;
    r.id = sqlite3_column_int64(st.get(), 0);
    r.started = st.Text(1);
    r.finished = st.Text(2);
    r.argv = st.Text(3);
    r.shard = st.Text(4);
    r.env_json = st.Text(5);
    r.harness = st.Text(6);
    r.registries_json = st.Text(7);
    r.paths_json = st.Text(8);
    r.machine_json = st.Text(9);
    out->push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) { *err = file_ + ": reading runs: " + Describe(db_, rc); return false; }
  return true;
}

bool ResultsDb::StoredOpsets(std::string* out, std::string* err) const {
  if (!db_) { *err = "results database is not open"; return false; }
  out->clear();
  Stmt st(db_, "SELECT key_fields_json FROM results WHERE path='onnx'");
  if (!st.ok()) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  std::map<std::string, size_t> counts;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    const auto fields = nlohmann::json::parse(st.Text(0), nullptr, false);
    if (!fields.is_object()) continue;
    const auto it = fields.find("opsets");
    if (it != fields.end() && it->is_string() && !it->get<std::string>().empty()) ++counts[it->get<std::string>()];
  }
  if (rc != SQLITE_DONE) { *err = file_ + ": reading results: " + Describe(db_, rc); return false; }
  size_t best = 0;
  for (const auto& [opsets, n] : counts) {
    if (n > best) {
      best = n;
      *out = opsets;
    }
  }
  return true;
}

std::optional<StoredResult> ResultsDb::FindResult(const std::string& case_name, const std::string& path) const {
  if (!db_) return std::nullopt;
  Stmt st(db_, (std::string(kResultColumns) + " WHERE case_name=? AND path=?").c_str());
  if (!st.ok()) return std::nullopt;
  sqlite3_bind_text(st.get(), 1, case_name.data(), static_cast<int>(case_name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st.get(), 2, path.data(), static_cast<int>(path.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.get()) != SQLITE_ROW) return std::nullopt;
  return ReadResult(st);
}

bool ResultsDb::LoadIdentities(std::vector<CaseIdentity>* out, std::string* err) const {
  if (!db_) { *err = "results database is not open"; return false; }
  out->clear();
  {
    // a file written by an older opsweep, opened read-only, has no such table: no identities
    Stmt has(db_, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name='case_identities'");
    if (!has.ok() || sqlite3_step(has.get()) != SQLITE_ROW) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
    if (sqlite3_column_int(has.get(), 0) == 0) return true;
  }
  Stmt st(db_, "SELECT fingerprint, recipe, machine_json FROM case_identities ORDER BY fingerprint, recipe, machine_json");
  if (!st.ok()) { *err = file_ + ": " + sqlite3_errmsg(db_); return false; }
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) out->push_back(CaseIdentity{st.Text(0), st.Text(1), st.Text(2)});
  if (rc != SQLITE_DONE) { *err = file_ + ": reading case identities: " + Describe(db_, rc); return false; }
  return true;
}

bool ResultsDb::LoadAll(ResultsContent* out, std::string* err) const {
  return LoadRuns(&out->runs, err) && LoadInventory(&out->inventory, err) && LoadResults(&out->results, err) &&
         LoadIdentities(&out->identities, err);
}

bool ResultsDb::Import(const ResultsContent& content, ImportSummary* summary, std::string* err) {
  if (!db_) { *err = "results database is not open"; return false; }
  *summary = ImportSummary{};
  ResultsContent existing;
  if (!LoadAll(&existing, err)) return false;
  std::string why;
  Transaction tx(db_, file_, err);
  if (!tx.Begin()) return false;
  auto rollback = [&](const std::string& what) { return tx.Fail(what); };
  auto same_run = [](const RunInfo& a, const RunInfo& b) {
    return a.started == b.started && a.finished == b.finished && a.shard == b.shard && a.env_json == b.env_json &&
           a.harness == b.harness && a.paths_json == b.paths_json && a.machine_json == b.machine_json;
  };
  std::map<long long, long long> ids;  // imported run id -> database run id
  std::map<long long, std::string> started;
  for (const RunInfo& r : existing.runs) started[r.id] = r.started;
  for (const RunInfo& run : content.runs) {
    long long id = 0;
    for (const RunInfo& e : existing.runs) {
      if (same_run(e, run)) id = e.id;
    }
    if (id == 0) {
      std::string why_not;
      if (!InsertRun(db_, run, &id, &why_not)) return rollback(why_not);
      ++summary->runs_added;
      started[id] = run.started;
    }
    ids[run.id] = id;
  }
  auto mapped = [&](long long run_id) {
    auto it = ids.find(run_id);
    return it == ids.end() ? 0 : it->second;
  };
  // The same rule as merge's (docs/formats.md section 5): the later `finished` wins, and on equal
  // times the larger record text, so importing shards in any order gives what merging them gives.
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> finished;
  for (const StoredResult& r : existing.results) finished[{r.case_name, r.path}] = {r.finished, r.record_json};
  {
    Stmt st(db_, "INSERT OR REPLACE INTO results(case_name, path, job_key, key_fields_json, status, record_json, "
                 "duration_s, attempts, run_id, finished) VALUES(?,?,?,?,?,?,?,?,?,?)");
    if (!st.ok()) return rollback(sqlite3_errmsg(db_));
    for (const StoredResult& r : content.results) {
      auto it = finished.find({r.case_name, r.path});
      if (it != finished.end() && it->second >= std::pair(r.finished, r.record_json)) {
        ++summary->results_kept;
        continue;
      }
      ++(it == finished.end() ? summary->results_added : summary->results_replaced);
      sqlite3_reset(st.get());
      st.Bind(1, r.case_name);
      st.Bind(2, r.path);
      st.Bind(3, r.job_key);
      st.Bind(4, r.key_fields_json);
      st.Bind(5, r.status);
      st.Bind(6, r.record_json);
      st.Bind(7, r.duration_s);
      st.Bind(8, static_cast<long long>(r.attempts));
      st.Bind(9, mapped(r.run_id));
      st.Bind(10, r.finished);
      if (sqlite3_step(st.get()) != SQLITE_DONE) return rollback(sqlite3_errmsg(db_));
    }
  }
  auto inventory_started = [&](const std::vector<InventoryCase>& inv, bool imported) {
    std::string newest;
    for (const InventoryCase& c : inv) {
      auto it = started.find(imported ? mapped(c.run_id) : c.run_id);
      if (it != started.end()) newest = std::max(newest, it->second);
    }
    return newest;
  };
  if (!content.inventory.empty() &&
      (existing.inventory.empty() || inventory_started(content.inventory, true) > inventory_started(existing.inventory, false))) {
    if (!Exec(db_, "DELETE FROM cases", &why)) return rollback(why);
    Stmt st(db_, "INSERT INTO cases(name, group_name, registry, fingerprint, info_json, run_id) VALUES(?,?,?,?,?,?)");
    if (!st.ok()) return rollback(sqlite3_errmsg(db_));
    for (const InventoryCase& c : content.inventory) {
      sqlite3_reset(st.get());
      st.Bind(1, c.name);
      st.Bind(2, c.group);
      st.Bind(3, c.registry);
      st.Bind(4, c.fingerprint);
      st.Bind(5, c.info_json);
      st.Bind(6, mapped(c.run_id));
      if (sqlite3_step(st.get()) != SQLITE_DONE) return rollback("case '" + c.name + "': " + sqlite3_errmsg(db_));
    }
    summary->inventory_replaced = true;
  }
  if (!InsertIdentities(db_, content.identities, &why) || !Exec(db_, kRecordIdentitiesSql, &why)) return rollback(why);
  if (!Exec(db_, "COMMIT", &why)) return rollback(why);
  return true;
}

}  // namespace opsweep
