// `opsweep render SNAPSHOT --html OUT.html [--rst OUT.rst] [--md OUT.md] [--api-base URL]`
//
// Reads and validates the snapshot, builds the one view model and renders every requested format
// in memory first: a damaged snapshot writes nothing. Then each output is written to a temporary
// file beside its destination, flushed, and only when all are written are they renamed into place,
// so a reader never sees a half-written page.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/verbs.h"
#include "render/html_writer.h"
#include "render/markdown_writer.h"
#include "render/rst_writer.h"
#include "render/snapshot.h"
#include "render/view_model.h"

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
  std::string temp;  // set once written
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

bool WriteTemp(Output* output, std::string* err) {
  const std::filesystem::path target(output->path);
  const std::string temp =
      (target.parent_path() / ("." + target.filename().string() + ".tmp-" + std::to_string(getpid())))
          .string();
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = fmt::format("{}: {}", output->path, std::strerror(errno));
    return false;
  }
  output->temp = temp;
  const char* data = output->content.data();
  std::size_t left = output->content.size();
  while (left > 0) {
    const ssize_t n = write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = fmt::format("{}: {}", output->path, std::strerror(errno));
      close(fd);
      return false;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    *err = fmt::format("{}: {}", output->path, std::strerror(errno));
    return false;
  }
  return true;
}

void RemoveTemps(std::vector<Output>* outputs) {
  for (Output& output : *outputs) {
    if (!output.temp.empty()) unlink(output.temp.c_str());
    output.temp.clear();
  }
}

int Render(const RenderArgs& args) {
  if (args.html.empty() && args.rst.empty() && args.md.empty()) {
    fmt::print(stderr, "opsweep render: nothing to write: give --html, --rst and/or --md\n");
    return 2;
  }
  std::string text, err;
  if (!ReadFile(args.snapshot, &text, &err)) {
    fmt::print(stderr, "opsweep render: {}: cannot read: {}\n", args.snapshot, err);
    return 1;
  }
  render::Snapshot snapshot;
  if (!render::ParseSnapshot(text, &snapshot, &err)) {
    fmt::print(stderr, "opsweep render: {}: {}\n", args.snapshot, OneLineMessage(err));
    return 1;
  }
  const render::ViewModel vm = render::BuildViewModel(snapshot, {args.api_base});

  std::vector<Output> outputs;
  if (!args.html.empty()) {
    std::string html;
    if (!render::WriteHtml(vm, &html, &err)) {
      fmt::print(stderr, "opsweep render: {}\n", err);
      return 1;
    }
    outputs.push_back({args.html, std::move(html), ""});
  }
  if (!args.rst.empty()) outputs.push_back({args.rst, render::WriteRst(vm), ""});
  if (!args.md.empty()) outputs.push_back({args.md, render::WriteMarkdown(vm), ""});

  for (Output& output : outputs) {
    if (!WriteTemp(&output, &err)) {
      RemoveTemps(&outputs);
      fmt::print(stderr, "opsweep render: cannot write {}\n", OneLineMessage(err));
      return 1;
    }
  }
  for (Output& output : outputs) {
    if (rename(output.temp.c_str(), output.path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      RemoveTemps(&outputs);
      fmt::print(stderr, "opsweep render: cannot write {}: {}\n", output.path, why);
      return 1;
    }
    output.temp.clear();
  }
  return 0;
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
