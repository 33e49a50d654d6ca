// The reStructuredText page for a Sphinx site: the same content as the HTML page (cards, legend,
// environment, package summary, one `list-table` per package section, details, n/a rows, reasons),
// without the interactive parts. Operators with an API cross-reference use :py:obj: so that Sphinx
// links them; everything from the snapshot is escaped (escape.h).
#pragma once
#include <string>

#include "render/view_model.h"

namespace opsweep::render {

std::string WriteRst(const ViewModel& vm);

}  // namespace opsweep::render
