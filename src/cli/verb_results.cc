// `opsweep results export|import`: the committed text form of a results database
// (store/results_text.h, docs/formats.md section 4.1).
//
//   opsweep results export [--db DB] -o FILE.jsonl   the whole database, deterministic bytes, written whole
//   opsweep results import FILE.jsonl [--db DB]      into the database (created if missing), later results winning
//
// Exit status: 0 done; 1 import done, but the file was damaged (each problem on stderr; what could
// be read was imported); 2 bad input (an unreadable database or file, not this format, a newer
// version, an output that cannot be written).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <filesystem>
#include <memory>

#include "cli/exit_status.h"
#include "cli/verbs.h"
#include "store/results_db.h"
#include "store/results_text.h"
#include "util/atomic_file.h"
#include "util/read_file.h"

namespace opsweep::cli {

namespace {

namespace fs = std::filesystem;

struct ResultsOptions {
  std::string db = ".opsweep/results.db";
  std::string output;
  std::string input;
};

int Error(const char* verb, int code, const std::string& message) {
  fmt::print(stderr, "opsweep results {}: error: {}\n", verb, message);
  return code;
}

int Export(const ResultsOptions& o) {
  std::string err;
  ResultsDb db;
  if (!db.Open(o.db, OpenMode::read_only, &err)) return Error("export", kExitBadInput, err);
  ResultsContent content;
  if (!db.LoadAll(&content, &err)) return Error("export", kExitBadInput, err);
  std::string text;
  if (!WriteResultsText(content, &text, &err)) return Error("export", kExitBadInput, o.db + ": " + err);
  AtomicFile out(o.output);
  if (!out.Write(text, &err) || !out.Commit(&err)) return Error("export", kExitBadInput, err);
  fmt::print(stderr, "opsweep results export: {} results of {} cases ({} runs) written to {}\n", content.results.size(),
             content.inventory.size(), content.runs.size(), o.output);
  return kExitDone;
}

int Import(const ResultsOptions& o) {
  std::string bytes, err;
  if (!ReadFile(o.input, &bytes, &err)) return Error("import", kExitBadInput, err);
  ResultsContent content;
  std::vector<std::string> warnings;
  if (!ReadResultsText(bytes, &content, &warnings, &err)) {
    return Error("import", kExitBadInput, fmt::format("{}: {}", o.input, err));
  }
  for (const std::string& w : warnings) fmt::print(stderr, "opsweep results import: warning: {}: {}\n", o.input, w);
  fs::path db_path = fs::absolute(o.db).lexically_normal();
  std::error_code ec;
  fs::create_directories(db_path.parent_path(), ec);
  ResultsDb db;
  ImportSummary summary;
  if (!db.Open(db_path.string(), OpenMode::read_write_create, &err) || !db.Import(content, &summary, &err)) {
    return Error("import", kExitBadInput, err);
  }
  fmt::print(stderr,
             "opsweep results import: {} results read from {}: {} added, {} replaced (older), {} kept (as new or newer); "
             "{} runs added; inventory {}\n",
             content.results.size(), o.input, summary.results_added, summary.results_replaced, summary.results_kept,
             summary.runs_added, summary.inventory_replaced ? "replaced" : "kept");
  return warnings.empty() ? kExitDone : kExitFindings;
}

}  // namespace

void RegisterResults(CLI::App& app, int* status) {
  auto opts = std::make_shared<ResultsOptions>();
  auto* cmd = app.add_subcommand("results", "Export a results database to its committed text form, or import one");
  cmd->require_subcommand(1);
  auto* ex = cmd->add_subcommand("export", "Write the database as text (one line per job, deterministic bytes)");
  ex->add_option("--db", opts->db, "Results database (default .opsweep/results.db)");
  ex->add_option("-o,--output", opts->output, "The text file to write (e.g. snapshots/lib/results.jsonl)")->required();
  ex->callback([opts, status] { *status = Export(*opts); });
  auto* im = cmd->add_subcommand("import", "Add a text form's results to a database (created if missing)");
  im->add_option("file", opts->input, "The text file to read")->required();
  im->add_option("--db", opts->db, "Results database (default .opsweep/results.db)");
  im->callback([opts, status] { *status = Import(*opts); });
}

}  // namespace opsweep::cli
