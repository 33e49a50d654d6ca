// The command-line verbs. Each verb lives in its own file (verb_<name>.cc), adds its subcommand to
// the app and, when chosen, stores its exit status in *status. main.cc only wires them together.
#pragma once

namespace CLI {
class App;
}

namespace opsweep::cli {

void RegisterRun(CLI::App& app, int* status);       // verb_run.cc
void RegisterMerge(CLI::App& app, int* status);     // verb_merge.cc
void RegisterRender(CLI::App& app, int* status);    // verb_render.cc
void RegisterCoverage(CLI::App& app, int* status);  // verb_coverage.cc
void RegisterExplain(CLI::App& app, int* status);   // verb_explain.cc
void RegisterResults(CLI::App& app, int* status);   // verb_results.cc
void RegisterDiff(CLI::App& app, int* status);      // verb_diff.cc
void RegisterRepro(CLI::App& app, int* status);     // verb_repro.cc
void RegisterHarvest(CLI::App& app, int* status);   // verb_harvest.cc

// The tool's version, as compiled in.
const char* ToolVersion();

}  // namespace opsweep::cli
