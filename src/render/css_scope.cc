#include "render/css_scope.h"

#include <cctype>
#include <string>
#include <vector>

namespace opsweep::render {
namespace {

constexpr std::string_view kPage = ".opsweep-page";
constexpr std::string_view kTable = "table.opsweep";

std::string Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::vector<std::string> SplitSelectors(std::string_view list) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '(' || list[i] == '[') ++depth;
    if (list[i] == ')' || list[i] == ']') --depth;
    if (list[i] == ',' && depth == 0) {
      out.push_back(Trim(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(list.substr(start)));
  return out;
}

// The first compound's element name: "thead" for "thead th", "" for ".x" or "[hidden]".
std::string ElementOf(const std::string& sel) {
  size_t n = 0;
  while (n < sel.size() && (std::isalnum(static_cast<unsigned char>(sel[n])) || sel[n] == '-')) ++n;
  return sel.substr(0, n);
}

void Scope(const std::string& sel, std::vector<std::string>* out) {
  const std::string element = ElementOf(sel);
  if (sel == ":root" || sel == "html" || sel == "body") {
    out->push_back(std::string(kPage));
    out->push_back(std::string(kTable));
  } else if (sel == "*") {
    for (std::string_view s : {kPage, kTable}) {
      out->push_back(std::string(s));
      out->push_back(std::string(s) + " *");
    }
  } else if (element == "main") {
    // the standalone page's column: the embedding document lays out its own
  } else if (element == "table") {
    out->push_back(std::string(kTable) + sel.substr(5));
  } else if (element == "th" || element == "td" || element == "thead" || element == "tbody" || element == "tr") {
    out->push_back(std::string(kTable) + " " + sel);
  } else if (sel.rfind(".no-js ", 0) == 0) {
    out->push_back(std::string(kPage) + ".no-js " + sel.substr(7));
  } else {
    out->push_back(std::string(kPage) + " " + sel);
    out->push_back(std::string(kTable) + " " + sel);
  }
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

void Rules(std::string_view css, bool in_dark_media, std::string* out) {
  size_t i = 0;
  while (i < css.size()) {
    if (css.compare(i, 2, "/*") == 0) {  // comments are dropped
      size_t end = css.find("*/", i + 2);
      i = end == std::string_view::npos ? css.size() : end + 2;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(css[i]))) {
      ++i;
      continue;
    }
    size_t open = css.find('{', i);
    if (open == std::string_view::npos) break;
    const std::string prelude = Trim(css.substr(i, open - i));
    if (prelude.rfind("@media", 0) == 0) {
      // find the matching close brace of the block
      int depth = 1;
      size_t j = open + 1;
      for (; j < css.size() && depth > 0; ++j) {
        if (css[j] == '{') ++depth;
        if (css[j] == '}') --depth;
      }
      const bool dark = prelude.find("prefers-color-scheme: dark") != std::string::npos;
      std::string inner;
      Rules(css.substr(open + 1, j - open - 2), dark, &inner);
      *out += prelude + " {\n" + inner + "}\n";
      if (dark) {  // the theme's own dark scheme wins over the reader's preference
        std::string forced;
        Rules(css.substr(open + 1, j - open - 2), true, &forced);
        size_t pos = 0;
        const std::string from = std::string(kPage) + ", " + std::string(kTable) + " {";
        const std::string to = "[data-theme=\"dark\"] " + std::string(kPage) + ", [data-theme=\"dark\"] " +
                               std::string(kTable) + " {";
        std::string only;
        while ((pos = forced.find(from, pos)) != std::string::npos) {
          size_t end = forced.find("}\n", pos);
          only += to + forced.substr(pos + from.size(), end + 2 - pos - from.size());
          pos = end + 2;
        }
        *out += only;
      }
      i = j;
      continue;
    }
    size_t close = css.find('}', open);
    if (close == std::string_view::npos) break;
    const std::string body = Trim(css.substr(open + 1, close - open - 1));
    std::vector<std::string> scoped;
    for (const std::string& sel : SplitSelectors(prelude)) Scope(sel, &scoped);
    if (!scoped.empty()) *out += Join(scoped) + " { " + body + " }\n";
    if (!in_dark_media && prelude == ":root") {  // the theme's own light scheme wins too
      *out += "[data-theme=\"light\"] " + std::string(kPage) + ", [data-theme=\"light\"] " + std::string(kTable) +
              " { " + body + " }\n";
    }
    i = close + 1;
  }
}

}  // namespace

std::string ScopeCssForEmbedding(std::string_view css) {
  std::string out =
      "/* opsweep page styles, scoped to the embedded controls and tables (written by opsweep render) */\n";
  Rules(css, false, &out);
  // A theme may give sections and tables a display of their own, which would beat the browser's
  // [hidden] rule: the search and filters hide them with that attribute.
  out += "section[hidden], div.section[hidden], table.opsweep tr[hidden] { display: none !important; }\n";
  return out;
}

}  // namespace opsweep::render
