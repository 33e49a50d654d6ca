// The parts of the page that its script (assets/page.js) reads, written alike by every writer
// that carries the script: the standalone HTML page and the reStructuredText page inside Sphinx.
// The search box, the filter and the count; the script's configuration; and the data attributes
// of a row (statuses, sub-verdicts, graph breaks, search text, history tokens), which the script
// filters on. Writing them once keeps the two pages' search and filters the same.
#pragma once
#include <string>
#include <string_view>

#include "render/view_model.h"

namespace opsweep::render {

// An asset compiled into the binary (assets/page.css, page.js, embedded.css); nullptr when missing.
const std::string_view* PageAsset(std::string_view name);

// The standalone page's stylesheet and script (the script as inlined: after a newline). Fails
// (*err) when the binary lacks them.
bool StandalonePageAssets(std::string_view* css, std::string* script, std::string* err);

// The document up to <body>: the content security policy that lets run only the page's two scripts
// (the class switch and `page_script`, by hash), the title and the stylesheet.
std::string PageHead(std::string_view title, std::string_view css, std::string_view page_script);

// The search box (#q), the filter (#f, one option per filter of the view model, grouped) in a
// `div.controls`, then the count (#count).
std::string ControlsHtml(const ViewModel& vm);

// The script's configuration block (#opsweep-config): the path ids, in column order, and the
// number of configurations.
std::string ConfigScriptHtml(const ViewModel& vm);

// A row's attributes, each with its leading space: data-name, data-s, data-b, data-v, data-nf,
// data-h, data-x (the last four only when the row has them) and data-q, HTML-escaped.
std::string RowDataAttributes(const ViewModel& vm, const RowView& row);

}  // namespace opsweep::render
