// The checks of a captured program beyond its trace inputs, as the snapshot carries them
// (docs/formats.md section 5, an outcome's "checks"): one short text per check id, e.g.
//   {"fresh_inputs": "passed", "randomness": "not run: eager gives the same outputs under 9 seeds ..."}
// The text is a state, `passed`, `failed` or `not run`, then optionally ": " and why (what differed,
// why it did not run, or a remark on a pass). One string per check keeps the snapshot short and its
// diffs readable; this file is the only place that writes or parses it.
//
// Check ids come from the harness (record.checks, docs/formats.md section 3: `fresh_inputs`,
// `randomness`); this layer knows none by name, so a new check needs no change here.
#pragma once
#include <string>
#include <string_view>

namespace opsweep::snapshot {

enum class CheckState { passed, failed, not_run };

struct CheckResult {
  CheckState state = CheckState::not_run;
  std::string why;  // "" when there is nothing to add
};

// "passed", "failed", "not run".
std::string_view CheckStateText(CheckState state);

// The snapshot text of a check: "passed", "not run: <why>".
std::string CheckText(const CheckResult& check);

// Parses a snapshot text. On failure returns false with *err a short phrase (no location).
bool ParseCheckText(std::string_view text, CheckResult* out, std::string* err);

// A check id as the format allows it: lowercase letters, digits, '_' and '-', not empty.
bool IsCheckId(std::string_view id);

}  // namespace opsweep::snapshot
