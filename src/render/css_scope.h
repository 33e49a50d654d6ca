// The page's stylesheet (assets/page.css, written for a standalone page) made to style only the
// page's own parts when they are embedded in another document: the reStructuredText page inside a
// Sphinx theme. Every rule is scoped to the embedded controls (`.opsweep-page`) and to the
// operator tables (`table.opsweep`). What styled the whole standalone document is the embedding
// document's business: rules on html, body and main are dropped (the theme keeps its fonts, text
// colour and layout), and the colour variables of :root style the two scopes instead.
//
// The colours follow the scheme the theme shows, not the reader's preference alone: light, unless
// an ancestor says `data-theme="dark"` (Furo, the PyData theme), or says `data-theme="auto"` and
// the reader prefers dark (Furo's default). A theme that says nothing (alabaster, Sphinx's
// default) is light whatever the reader prefers, as the theme itself is. So the rules of a
// `prefers-color-scheme: dark` block are written twice: under `[data-theme="dark"]`, and inside
// the media block under `[data-theme="auto"]`.
//
// The stylesheet is ours and simple (rules and @media blocks, no nesting, no strings with braces),
// which is all this rewriting understands.
#pragma once
#include <string>
#include <string_view>

namespace opsweep::render {

std::string ScopeCssForEmbedding(std::string_view css);

}  // namespace opsweep::render
