// `opsweep render`: placeholder until its issue lands.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/verbs.h"

namespace opsweep::cli {

void RegisterRender(CLI::App& app, int* status) {
  auto* cmd = app.add_subcommand("render", "(not implemented yet)");
  cmd->callback([status] {
    fmt::print(stderr, "opsweep render: not implemented yet\n");
    *status = 2;
  });
}

}  // namespace opsweep::cli
