// The HTML page: one self-contained file. CSS and JavaScript come from src/render/assets/ (compiled
// into the binary) and are inlined; the page makes no request of any kind (a Content-Security-Policy
// with default-src 'none' makes the browser enforce it, and lets only the page's own scripts run,
// by hash). Every table is real HTML, so the page
// reads without JavaScript; the script only adds search, filters and URL state (see page.js).
#pragma once
#include <string>

#include "render/view_model.h"

namespace opsweep::render {

// Writes the page into *out. Fails (with *err) only when an asset is missing from the binary.
bool WriteHtml(const ViewModel& vm, std::string* out, std::string* err);

}  // namespace opsweep::render
