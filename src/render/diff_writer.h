// The three layouts of a diff report (diff/diff_report.h): plain text for a terminal or a CI log,
// GitHub-flavoured Markdown for a pull-request comment, JSON for tools (docs/diff.md). They only lay
// the report out; every number, group and order comes from the report. Every text that came from
// a snapshot (names, details, errors, titles) is escaped for its format: control characters never
// reach a terminal, and no Markdown or HTML markup gets through into a comment.
#pragma once
#include <string>

#include "diff/diff_report.h"

namespace opsweep::render {

struct DiffWriteOptions {
  // At most this many changes listed per reason group; the rest are counted ("... and 12 more").
  // 0: no limit.
  int limit = 0;
};

std::string WriteDiffText(const diff::DiffReport& report, const DiffWriteOptions& options);
std::string WriteDiffMarkdown(const diff::DiffReport& report, const DiffWriteOptions& options);
// Keys sorted, indent 2, trailing newline; `limit` does not apply (tools get every change).
std::string WriteDiffJson(const diff::DiffReport& report);

}  // namespace opsweep::render
