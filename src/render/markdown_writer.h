// The Markdown page for a repository README (GitHub flavoured): cards, environment, legend,
// package summary, one table per package section, n/a rows and reasons. Cells are escaped so that
// `|`, Markdown punctuation and raw HTML in snapshot texts stay text (escape.h).
#pragma once
#include <string>

#include "render/view_model.h"

namespace opsweep::render {

std::string WriteMarkdown(const ViewModel& vm);

}  // namespace opsweep::render
