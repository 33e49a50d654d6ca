// The reStructuredText page for a Sphinx site: the same content as the HTML page (cards, legend,
// environment, package summary, one `list-table` per package section, details, n/a rows, reasons),
// and, for Sphinx's HTML builders, the same search, filters and URL state: raw HTML carries the
// page's search bar, its stylesheet scoped to the page's own parts (css_scope.h), its script, the
// status pills and each row's data (page_controls.h). Other builders drop the raw parts and keep
// the tables. Operators with an API cross-reference (a name the inventory has) use :py:obj: so
// that Sphinx links them; everything from the snapshot is escaped (escape.h).
#pragma once
#include <string>

#include "render/view_model.h"

namespace opsweep::render {

std::string WriteRst(const ViewModel& vm);

}  // namespace opsweep::render
