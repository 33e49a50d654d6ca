// `opsweep run`: placeholder until its issue lands.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/verbs.h"

namespace opsweep::cli {

void RegisterRun(CLI::App& app, int* status) {
  auto* cmd = app.add_subcommand("run", "(not implemented yet)");
  cmd->callback([status] {
    fmt::print(stderr, "opsweep run: not implemented yet\n");
    *status = 2;
  });
}

}  // namespace opsweep::cli
