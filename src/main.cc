// opsweep: flags and dispatch only; every verb lives in src/cli/.
#include <CLI/CLI.hpp>

#include "cli/verbs.h"

int main(int argc, char** argv) {
  CLI::App app{"opsweep: survey a PyTorch library's operators through ONNX, torch.export and torch.compile"};
  app.require_subcommand(1);
  app.set_version_flag("--version", opsweep::cli::ToolVersion());
  // Every usage error is one line: "opsweep: <problem> (see opsweep --help)".
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    std::string where = failed->get_parent() != nullptr ? " " + failed->get_name() : "";
    return "opsweep" + where + ": error: " + std::string(e.what()) + " (see opsweep" + where + " --help)\n";
  });
  int status = 0;
  opsweep::cli::RegisterRun(app, &status);
  opsweep::cli::RegisterMerge(app, &status);
  opsweep::cli::RegisterRender(app, &status);
  opsweep::cli::RegisterCoverage(app, &status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return status;
}
