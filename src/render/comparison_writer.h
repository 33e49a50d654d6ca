// The comparison page of two libraries (render/comparison.h) as a self-contained HTML page, with the
// survey page's stylesheet, search, filters and URL state (assets/page.js: the columns are the
// libraries' paths, the comparison's filters are row tokens), and as Markdown for a README.
#pragma once
#include <string>

#include "render/comparison.h"

namespace opsweep::render {

// Fails (*err) only when the page assets are missing from the binary.
bool WriteComparisonHtml(const ComparisonView& view, std::string* out, std::string* err);

std::string WriteComparisonMarkdown(const ComparisonView& view);

}  // namespace opsweep::render
