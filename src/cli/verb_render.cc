// `opsweep render SNAPSHOT --html OUT.html [--rst OUT.rst] [--md OUT.md] [--api-base URL]`
//
// Reads and validates the snapshot, builds the one view model and renders every requested format
// in memory first: a damaged snapshot writes nothing. Then every output is written to a temporary
// file beside its destination (util/atomic_file.h), and only when all are written are they
// committed (flushed and renamed into place), so a reader never sees a half-written page.
//
// Exit status (cli/exit_status.h): 0 written; 2 bad input or usage (no output asked for, a snapshot
// that cannot be read or is refused, an output that cannot be written).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/verbs.h"
#include "render/html_writer.h"
#include "render/markdown_writer.h"
#include "render/rst_writer.h"
#include "cli/exit_status.h"
#include "render/view_model.h"
#include "snapshot/snapshot_reader.h"
#include "util/atomic_file.h"

namespace opsweep::cli {
namespace {

struct RenderArgs {
  std::string snapshot;
  std::string html;
  std::string rst;
  std::string md;
  std::string api_base;
};

struct Output {
  std::string path;
  std::string content;
};

// Messages name user data (record names): keep them to one line.
std::string OneLineMessage(std::string text) {
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  }
  return text;
}

bool ReadFile(const std::string& path, std::string* out, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = std::strerror(errno);
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    *err = "read error";
    return false;
  }
  *out = std::move(buffer).str();
  return true;
}

int Render(const RenderArgs& args) {
  if (args.html.empty() && args.rst.empty() && args.md.empty()) {
    fmt::print(stderr, "opsweep render: nothing to write: give --html, --rst and/or --md\n");
    return kExitBadInput;
  }
  std::string text, err;
  if (!ReadFile(args.snapshot, &text, &err)) {
    fmt::print(stderr, "opsweep render: {}: cannot read: {}\n", args.snapshot, err);
    return kExitBadInput;
  }
  snapshot::Snapshot snapshot;
  if (!snapshot::ReadSnapshot(text, &snapshot, &err)) {
    fmt::print(stderr, "opsweep render: {}: {}\n", args.snapshot, OneLineMessage(err));
    return kExitBadInput;
  }
  const render::ViewModel vm = render::BuildViewModel(snapshot, {args.api_base});

  std::vector<Output> outputs;
  if (!args.html.empty()) {
    std::string html;
    if (!render::WriteHtml(vm, &html, &err)) {
      fmt::print(stderr, "opsweep render: {}\n", err);
      return kExitBadInput;
    }
    outputs.push_back({args.html, std::move(html)});
  }
  if (!args.rst.empty()) outputs.push_back({args.rst, render::WriteRst(vm)});
  if (!args.md.empty()) outputs.push_back({args.md, render::WriteMarkdown(vm)});

  // Every output is written to its temporary file before any is renamed into place.
  std::vector<std::unique_ptr<AtomicFile>> files;
  for (const Output& output : outputs) {
    files.push_back(std::make_unique<AtomicFile>(output.path));
    if (!files.back()->Write(output.content, &err)) {
      fmt::print(stderr, "opsweep render: cannot write {}\n", OneLineMessage(err));
      return kExitBadInput;  // the AtomicFiles remove their temporary files
    }
  }
  for (auto& file : files) {
    if (!file->Commit(&err)) {
      fmt::print(stderr, "opsweep render: cannot write {}\n", OneLineMessage(err));
      return kExitBadInput;
    }
  }
  return kExitDone;
}

}  // namespace

void RegisterRender(CLI::App& app, int* status) {
  auto args = std::make_shared<RenderArgs>();
  auto* cmd = app.add_subcommand(
      "render", "Render a snapshot as a self-contained HTML page, reStructuredText and Markdown");
  cmd->add_option("snapshot", args->snapshot, "The snapshot (snapshot.json) to render")->required();
  cmd->add_option("--html", args->html, "Write the self-contained HTML page here");
  cmd->add_option("--rst", args->rst, "Write the reStructuredText page (for Sphinx) here");
  cmd->add_option("--md", args->md, "Write the Markdown page (for a README) here");
  cmd->add_option("--api-base", args->api_base,
                  "Link operators with an API cross-reference to this URL ({api} is replaced by "
                  "the documented name; without it the name is appended)");
  cmd->callback([args, status] { *status = Render(*args); });
}

}  // namespace opsweep::cli
