// `opsweep merge`: results databases -> snapshot.json (+ snapshot.timings.json).
//
// Exit status (cli/exit_status.h): 0 written, no problem; 1 the survey has problems: refused, or
// written anyway with --force; 2 an input cannot be used (an unreadable or refused database, bad
// rules, rules that do not fit the surveyed paths, a bad objects.inv) or the output cannot be
// written. Nothing is written unless everything was read and checked; the snapshot and its timings
// replace the old files only as complete files (temp file + rename), so a refusal or an error
// leaves an existing snapshot exactly as it was. Databases are opened read-only.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "classify/classifier.h"
#include "classify/rules.h"
#include "cli/exit_status.h"
#include "cli/verbs.h"
#include "merge/objects_inv.h"
#include "merge/snapshot_builder.h"
#include "merge/survey.h"
#include "util/atomic_file.h"
#include "util/read_file.h"

namespace opsweep::cli {

namespace {

struct MergeFlags {
  std::vector<std::string> db_flags;
  std::vector<std::string> db_args;
  std::string output;
  bool force = false;
  std::string objects_inv;
  std::string rules_dir;
  std::vector<std::string> registries;
  std::vector<std::string> groups;
};

bool LoadRuleSources(const std::string& dir, std::vector<RuleSource>* out, std::string* err) {
  if (dir.empty()) {
    *out = EmbeddedRuleSources();
    return true;
  }
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  if (ec) {
    *err = dir + ": cannot list the rules folder: " + ec.message();
    return false;
  }
  if (files.empty()) {
    *err = dir + ": holds no rules (*.json)";
    return false;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    RuleSource source;
    source.name = std::filesystem::path(f).filename().string();
    if (!ReadFile(f, &source.text, err)) return false;
    out->push_back(std::move(source));
  }
  return true;
}

// snapshot.json -> snapshot.timings.json; other names get ".timings.json" appended.
std::string TimingsPath(const std::string& output) {
  const std::string ext = ".json";
  if (output.size() > ext.size() && output.compare(output.size() - ext.size(), ext.size(), ext) == 0) {
    return output.substr(0, output.size() - ext.size()) + ".timings.json";
  }
  return output + ".timings.json";
}

// Continuation lines of a multi-line message, indented under its list item.
std::string Indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (char c : text) out += c == '\n' ? "\n" + indent : std::string(1, c);
  return out;
}

void PrintLines(const std::string& head, const std::vector<std::string>& lines) {
  fmt::print(stderr, "{}\n", head);
  for (const auto& l : lines) fmt::print(stderr, "  - {}\n", l);
}

int RunMerge(const MergeFlags& flags) {
  std::vector<std::string> dbs = flags.db_flags;
  dbs.insert(dbs.end(), flags.db_args.begin(), flags.db_args.end());
  if (dbs.empty()) dbs.push_back(".opsweep/results.db");

  std::vector<std::string> errors;
  std::vector<RuleSource> sources;
  RuleSet rules;
  std::string err;
  if (!LoadRuleSources(flags.rules_dir, &sources, &err) || !LoadRules(sources, &rules, &err)) {
    errors.push_back("the reason rules cannot be used:\n    " + Indented(err, "    "));
  }
  ObjectsInventory objects;
  if (!flags.objects_inv.empty()) {
    std::string bytes;
    if (!ReadFile(flags.objects_inv, &bytes, &err)) {
      errors.push_back(err);
    } else if (!objects.Parse(bytes, &err)) {
      errors.push_back(flags.objects_inv + ": " + err);
    }
  }
  std::vector<DbContents> contents;
  for (const auto& file : dbs) {
    DbContents c;
    if (!LoadDbContents(file, &c, &err)) {
      errors.push_back(err + " (left untouched)");
      continue;
    }
    contents.push_back(std::move(c));
  }
  if (!errors.empty()) {
    PrintLines(fmt::format("opsweep merge: nothing written to {}:", flags.output), errors);
    return kExitBadInput;
  }

  SurveyOptions survey_options;
  survey_options.expected_registries = flags.registries;
  survey_options.groups = flags.groups;
  Survey survey = JoinSurvey(contents, survey_options);
  if (!survey.refused.empty()) {
    fmt::print(stderr, "opsweep merge: nothing written to {}: {}\n", flags.output, survey.refused);
    return kExitBadInput;
  }
  // The rules name steps and environment fields: they must fit the paths the workers described.
  std::vector<std::string> misfits = CheckRulesAgainstPaths(rules, survey.paths);
  if (!misfits.empty()) {
    PrintLines(fmt::format("opsweep merge: nothing written to {}: the reason rules do not fit the surveyed paths:",
                           flags.output),
               misfits);
    return kExitBadInput;
  }
  Classifier classifier(rules);
  SnapshotOptions snapshot_options;
  snapshot_options.tool_version = ToolVersion();
  snapshot_options.objects = flags.objects_inv.empty() ? nullptr : &objects;
  SnapshotOutput out = BuildSnapshot(survey, classifier, snapshot_options);

  if (!survey.problems.empty()) {
    if (!flags.force) {
      PrintLines(fmt::format("opsweep merge: refusing to write {}: {} problem{}:", flags.output, survey.problems.size(),
                             survey.problems.size() == 1 ? "" : "s"),
                 survey.problems);
      fmt::print(stderr, "(--force writes the snapshot anyway; jobs without a result are shown as not measured)\n");
      return kExitFindings;
    }
    PrintLines(fmt::format("opsweep merge: warning: writing {} despite {} problem{} (--force):", flags.output,
                           survey.problems.size(), survey.problems.size() == 1 ? "" : "s"),
               survey.problems);
  }

  std::string timings_path = TimingsPath(flags.output);
  // The snapshot's folder is made only now that everything was read and checked (as render -o does).
  const std::filesystem::path folder = std::filesystem::path(flags.output).parent_path();
  if (!folder.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) {
      fmt::print(stderr, "opsweep merge: cannot create {}: {}\n", folder.string(), ec.message());
      return kExitBadInput;
    }
  }
  AtomicFile snapshot_file(flags.output);
  AtomicFile timings_file(timings_path);
  if (!snapshot_file.Write(out.snapshot_json, &err) || !timings_file.Write(out.timings_json, &err) ||
      !snapshot_file.Commit(&err) || !timings_file.Commit(&err)) {
    fmt::print(stderr, "opsweep merge: {}\n", err);
    return kExitBadInput;
  }

  fmt::print("opsweep merge: wrote {} ({} records, {} results from {} database{}) and {}\n", flags.output, out.records,
             survey.results.size(), contents.size(), contents.size() == 1 ? "" : "s", timings_path);
  for (const auto& note : survey.notes) fmt::print("note: {}\n", note);
  if (out.unclassified > 0) {
    fmt::print("{} error{} matched no rule (reason 'unclassified'; add rules, see docs/reasons.md):\n", out.unclassified,
               out.unclassified == 1 ? "" : "s");
    for (const auto& e : out.unclassified_examples) fmt::print("  - {}\n", e);
  }
  if (flags.objects_inv.empty()) {
    fmt::print("note: no --objects-inv given: API cross-references are off (api is null)\n");
  } else {
    fmt::print("cross-references: {} of {} records link to the API reference\n", out.api_links, out.records);
  }
  return survey.problems.empty() ? kExitDone : kExitFindings;  // written despite problems: --force
}

}  // namespace

void RegisterMerge(CLI::App& app, int* status) {
  auto flags = std::make_shared<MergeFlags>();
  auto* cmd = app.add_subcommand("merge", "Validate results databases and write the snapshot (snapshot.json)");
  cmd->add_option("--db", flags->db_flags, "A results database (repeatable; default .opsweep/results.db)");
  cmd->add_option("databases", flags->db_args, "More results databases (shards are joined)");
  cmd->add_option("-o,--output", flags->output, "The snapshot to write (its timings go beside it)")->required();
  cmd->add_flag("--force", flags->force, "Write the snapshot even when validation finds problems");
  cmd->add_option("--objects-inv", flags->objects_inv, "Sphinx objects.inv of the library's docs, for API links");
  cmd->add_option("--rules", flags->rules_dir, "Read the reason rules from DIR/*.json instead of the built-in ones");
  cmd->add_option("--registries", flags->registries, "The registries the survey must cover (base names compared)");
  cmd->add_option("--groups", flags->groups,
                  "Only the cases in these groups or below them, as `opsweep run --groups` probed them (repeatable, "
                  "comma-separated)")
      ->delimiter(',');
  cmd->callback([flags, status] { *status = RunMerge(*flags); });
}

}  // namespace opsweep::cli
