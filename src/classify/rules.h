// The reason rules (docs/formats.md section 6): ordered, data-driven, compiled into the binary from
// rules/*.json (or read from --rules DIR). A rule names a user-facing cause for a failure; its id is
// stable and never reused (a file may list `retired` ids, which no rule may take again). The loader
// checks everything a rule author can get wrong (duplicate ids or orders, unknown steps or
// statuses, a regex that does not compile, a placeholder that nothing fills, a rule that would match
// everything) and reports every problem at once, one per line.
#pragma once
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace opsweep {

// A real error that the rule must classify (the tests run every sample through the classifier).
struct RuleSample {
  std::string path, step, status;  // defaults: the rule's first path/step/status, else onnx/export/fail
  std::string type, message, chain, detail;
  bool is_break_reason = false;     // classified as a graph-break reason (path compile, step explain)
};

struct Rule {
  std::string id;
  int order = 0;
  std::vector<std::string> paths, steps, statuses;  // empty = any
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

// Steps of docs/formats.md section 1 ("" is not a step: it means the job finished).
bool IsKnownStep(std::string_view step);

// Placeholders a detail template may use besides the rule's own named captures.
const std::vector<std::string>& KnownPlaceholders();

// Parses and checks all sources together. On failure returns false with every problem, one a line.
bool LoadRules(const std::vector<RuleSource>& sources, RuleSet* out, std::string* err);

// The rules compiled into the binary.
std::vector<RuleSource> EmbeddedRuleSources();

}  // namespace opsweep
