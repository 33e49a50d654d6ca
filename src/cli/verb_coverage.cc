// `opsweep coverage`: placeholder until its issue lands.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/verbs.h"

namespace opsweep::cli {

void RegisterCoverage(CLI::App& app, int* status) {
  auto* cmd = app.add_subcommand("coverage", "(not implemented yet)");
  cmd->callback([status] {
    fmt::print(stderr, "opsweep coverage: not implemented yet\n");
    *status = 2;
  });
}

}  // namespace opsweep::cli
