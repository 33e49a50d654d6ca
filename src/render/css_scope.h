// The page's stylesheet (assets/page.css, written for a standalone page) made to style only the
// page's own parts when they are embedded in another document: the reStructuredText page inside a
// Sphinx theme. Every rule is scoped to the embedded controls (`.opsweep-page`) and to the
// operator tables (`table.opsweep`); what styled the whole standalone document (:root, html, body
// and its variables) styles those two instead, so the theme's own page is left alone. The colour
// variables follow the theme where it says which scheme it shows (`data-theme="dark"` or
// `"light"` on an ancestor, as Furo and the PyData theme set it), else the reader's preference.
//
// The stylesheet is ours and simple (rules and @media blocks, no nesting, no strings with braces),
// which is all this rewriting understands.
#pragma once
#include <string>
#include <string_view>

namespace opsweep::render {

std::string ScopeCssForEmbedding(std::string_view css);

}  // namespace opsweep::render
