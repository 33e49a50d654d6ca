// The matcher: picks the first rule (in ascending order) whose paths, steps and statuses admit the
// outcome and whose text match holds, and fills the rule's detail template.
//
// Matched text is bounded so that std::regex never sees a long input: the worker detail, the error
// type, the first 4000 characters of the root-cause message and the first 4000 of the chain, with
// colour codes stripped. Substrings are searched in that whole text; a regex is searched line by
// line (lines cut at 1000 characters), only in texts that already hold the rule's literals.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "classify/rules.h"

namespace opsweep {

struct ClassifyInput {
  // A graph-break reason: the record's path, no step and no status (only rules open to every step
  // and every status apply to it).
  std::string_view path, step;
  std::optional<Status> status;
  std::string_view detail;              // the worker's measured detail
  std::string_view error_type, message, chain;
};

struct Classification {
  const Rule* rule = nullptr;                   // nullptr: no rule matched
  std::map<std::string, std::string> captures;  // named captures of the matching line
};

class Classifier {
 public:
  explicit Classifier(const RuleSet& rules) : rules_(rules) {}

  Classification Classify(const ClassifyInput& input) const;

  // The public torch name of an aten op: the rules' public_names table, else derived
  // (linalg_x -> torch.linalg.x, fft_x -> torch.fft.x, special_x -> torch.special.x, x -> torch.x;
  // a leading '_' and a trailing '_ex' are dropped).
  std::string PublicName(std::string_view aten_op) const;

  // Fills `templ` from `vars` (environment, detail, error...) and the classification's captures,
  // adding {public_op} from the 'op' capture. `{name|fallback}` gives the fallback text when the
  // value is empty; unknown or empty placeholders without a fallback become "".
  std::string Fill(const std::string& templ, const Classification& c,
                   const std::map<std::string, std::string>& vars) const;

  const RuleSet& rules() const { return rules_; }

 private:
  const RuleSet& rules_;
};

}  // namespace opsweep
