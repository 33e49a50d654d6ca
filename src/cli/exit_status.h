// The exit status of every verb, one convention (docs/quickstart.md, "Exit status"):
//
//   0    done: the verb did what was asked and has nothing to report;
//   1    done with findings that need attention: merge refused (or, with --force, wrote) a survey
//        that is incomplete or inconsistent; run stopped before every planned job had a record
//        (the restart cap); coverage below --min; (to come: diff found a regression);
//   2    bad input or usage: an unknown verb or option, a bad value, an input that cannot be read
//        or is refused (a results database, a snapshot, rules, objects.inv, a registry), a worker
//        that cannot start, an output that cannot be written;
//   130  interrupted by SIGINT or SIGTERM (the shell's convention); finished results are kept.
#pragma once

namespace opsweep::cli {

inline constexpr int kExitDone = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInterrupted = 130;

}  // namespace opsweep::cli
