// The reason rules (docs/formats.md section 6): ordered, data-driven, compiled into the binary from
// rules/*.json (or read from --rules DIR). A rule names a user-facing cause for a failure; its id is
// stable and never reused (a file may list `retired` ids, which no rule may take again). The loader
// checks everything a rule author can get wrong on its own (duplicate ids or orders, unknown
// statuses, a regex that does not compile, a rule that would match everything) and reports every
// problem at once, one per line. What depends on the paths surveyed (the steps a rule names, the
// environment placeholders its detail uses) is checked against the paths' descriptions by
// CheckRulesAgainstPaths, at merge, since no table in the engine lists paths or their steps.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/path_spec.h"
#include "core/status.h"

namespace opsweep {

// A real error that the rule must classify (the tests run every sample through the classifier).
struct RuleSample {
  // Defaults: the rule's first path, step and status; else "" (any path, no step) and fail.
  std::string path, step;
  std::optional<Status> status;     // nullopt: a graph-break reason
  std::string type, message, chain, detail;
  bool is_break_reason = false;     // classified as a graph-break reason (no step, no status)
};

struct Rule {
  std::string id;
  int order = 0;
  std::vector<std::string> paths, steps;  // empty = any
  std::vector<Status> statuses;           // empty = any
  std::vector<std::string> substrings;              // all must occur
  std::vector<std::string> any;                     // at least one must occur
  std::string regex;                                // searched line by line; named captures fill placeholders
  std::shared_ptr<const std::regex> compiled;
  std::vector<std::string> group_names;             // capture group i+1 -> its name ("" = unnamed)
  std::string title, cause, detail, hint, component;
  std::vector<RuleSample> samples;
  std::string file;                                 // the rules file it came from
};

struct RuleSet {
  std::vector<Rule> rules;                            // ascending order
  std::map<std::string, std::string> public_names;   // aten op -> public torch name
  std::vector<std::string> retired;                   // ids that may never be used again
};

struct RuleSource {
  std::string name;  // file name, for messages
  std::string text;
};

// Placeholders a detail template may use besides the rule's own named captures and the
// environment fields of the paths surveyed (`{onnxscript}`, `{torch}`, ...).
const std::vector<std::string>& FixedPlaceholders();

// Parses and checks all sources together. On failure returns false with every problem, one a line.
bool LoadRules(const std::vector<RuleSource>& sources, RuleSet* out, std::string* err);

// Checks the rules against the paths surveyed: every step a rule names must be a common step or a
// step of a path it applies to (its `paths` present among `paths`, or every one when it names
// none; a rule whose paths are all absent is not checked), and every placeholder of its detail must
// be filled by something (a capture, a fixed placeholder, or an env field of those paths). Returns
// every problem, one a line, "<file>: rule '<id>': ...".
std::vector<std::string> CheckRulesAgainstPaths(const RuleSet& rules, const std::vector<PathSpec>& paths);

// The rules compiled into the binary.
std::vector<RuleSource> EmbeddedRuleSources();

}  // namespace opsweep
