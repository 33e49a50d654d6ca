// opsweep: flags and dispatch only; every verb lives in src/cli/.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <string>
#include <string_view>

#include "cli/exit_status.h"
#include "cli/verbs.h"

namespace {

bool IsVerb(const CLI::App& app, const std::string& word) {
  for (const CLI::App* verb : app.get_subcommands({})) {
    if (verb->check_name(word)) return true;
  }
  return false;
}

// "run, merge, render and coverage"
std::string VerbList(const CLI::App& app) {
  std::string out;
  const auto verbs = app.get_subcommands({});
  for (std::size_t i = 0; i < verbs.size(); ++i) {
    if (i > 0) out += i + 1 == verbs.size() ? " and " : ", ";
    out += verbs[i]->get_name();
  }
  return out;
}

}  // namespace

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
  opsweep::cli::RegisterExplain(app, &status);
  opsweep::cli::RegisterResults(app, &status);
  opsweep::cli::RegisterDiff(app, &status);
  opsweep::cli::RegisterRepro(app, &status);
  opsweep::cli::RegisterHarvest(app, &status);
  // The first word names the verb: one that does not exist is named as such, with the list.
  if (argc > 1 && argv[1][0] != '-' && !IsVerb(app, argv[1])) {
    fmt::print(stderr, "opsweep: error: '{}' is not a command; the commands are {} (see opsweep --help)\n", argv[1],
               VerbList(app));
    return opsweep::cli::kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the one-line message
    return opsweep::cli::kExitBadInput;
  }
  return status;
}
