#include "render/css_scope.h"

#include <cctype>
#include <string>
#include <vector>

#include "util/trim.h"

namespace opsweep::render {
namespace {

constexpr std::string_view kScopes[] = {".opsweep-page", "table.opsweep"};
constexpr std::string_view kDarkMedia = "prefers-color-scheme: dark";

std::vector<std::string> SplitSelectors(std::string_view list) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '(' || list[i] == '[') ++depth;
    if (list[i] == ')' || list[i] == ']') --depth;
    if (list[i] == ',' && depth == 0) {
      out.emplace_back(Trim(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.emplace_back(Trim(list.substr(start)));
  return out;
}

// The first compound's element name: "thead" for "thead th", "" for ".x" or "[hidden]".
std::string ElementOf(const std::string& sel) {
  size_t n = 0;
  while (n < sel.size() && (std::isalnum(static_cast<unsigned char>(sel[n])) || sel[n] == '-')) ++n;
  return sel.substr(0, n);
}

// The scoped forms of one selector of the standalone page (none: the embedding document's own).
void Scope(const std::string& sel, std::vector<std::string>* out) {
  const std::string element = ElementOf(sel);
  if (sel == ":root") {
    for (std::string_view s : kScopes) out->push_back(std::string(s));
  } else if (element == "html" || element == "body" || element == "main") {
    // the standalone document, its column and its scrolling: the embedding document has its own
  } else if (sel == "*") {
    for (std::string_view s : kScopes) {
      out->push_back(std::string(s));
      out->push_back(std::string(s) + " *");
    }
  } else if (element == "table") {
    out->push_back(std::string(kScopes[1]) + sel.substr(5));
  } else if (element == "th" || element == "td" || element == "thead" || element == "tbody" || element == "tr") {
    out->push_back(std::string(kScopes[1]) + " " + sel);
  } else if (sel.rfind(".no-js ", 0) == 0) {
    out->push_back(std::string(kScopes[0]) + ".no-js " + sel.substr(7));
  } else {
    for (std::string_view s : kScopes) out->push_back(std::string(s) + " " + sel);
  }
}

std::string Join(const std::vector<std::string>& parts, std::string_view prefix) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += ", ";
    out += std::string(prefix) + p;
  }
  return out;
}

// Which scheme a block of rules belongs to: the page's default (light), or a dark media block.
enum class Scheme { light, dark };

// One rule, scoped, each selector behind `prefix` (a theme's attribute selector, or nothing); ""
// when no selector is left. The variables' rule states the scheme to the browser (form controls).
std::string ScopedRule(const std::string& prelude, std::string body, Scheme scheme, std::string_view prefix) {
  std::vector<std::string> scoped;
  for (const std::string& sel : SplitSelectors(prelude)) Scope(sel, &scoped);
  if (scoped.empty()) return "";
  if (prelude == ":root") {
    const std::string both = "color-scheme: light dark;";
    const std::string one = scheme == Scheme::dark ? "color-scheme: dark;" : "color-scheme: light;";
    if (size_t at = body.find(both); at != std::string::npos) {
      body.replace(at, both.size(), one);
    } else {
      body = one + " " + body;
    }
  }
  return Join(scoped, prefix) + " { " + body + " }\n";
}

struct Block {
  std::string media;  // "" for a top-level rule, else the @media prelude
  std::vector<std::pair<std::string, std::string>> rules;  // prelude, body
};

// The stylesheet as top-level rules and @media blocks, comments dropped.
std::vector<Block> Parse(std::string_view css) {
  std::vector<Block> blocks;
  auto rules_of = [](std::string_view text, std::vector<std::pair<std::string, std::string>>* rules) {
    size_t i = 0;
    while (i < text.size()) {
      if (text.compare(i, 2, "/*") == 0) {
        size_t end = text.find("*/", i + 2);
        i = end == std::string_view::npos ? text.size() : end + 2;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(text[i]))) {
        ++i;
        continue;
      }
      size_t open = text.find('{', i);
      size_t close = open == std::string_view::npos ? open : text.find('}', open);
      if (close == std::string_view::npos) return;
      rules->emplace_back(Trim(text.substr(i, open - i)), Trim(text.substr(open + 1, close - open - 1)));
      i = close + 1;
    }
  };
  size_t i = 0;
  while (i < css.size()) {
    if (css.compare(i, 2, "/*") == 0) {
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
    const std::string prelude(Trim(css.substr(i, open - i)));
    if (prelude.rfind("@media", 0) == 0) {
      int depth = 1;
      size_t j = open + 1;
      for (; j < css.size() && depth > 0; ++j) {
        if (css[j] == '{') ++depth;
        if (css[j] == '}') --depth;
      }
      Block block{prelude, {}};
      rules_of(css.substr(open + 1, j - open - 2), &block.rules);
      blocks.push_back(std::move(block));
      i = j;
      continue;
    }
    size_t close = css.find('}', open);
    if (close == std::string_view::npos) break;
    blocks.push_back({"", {{prelude, std::string(Trim(css.substr(open + 1, close - open - 1)))}}});
    i = close + 1;
  }
  return blocks;
}

}  // namespace

std::string ScopeCssForEmbedding(std::string_view css) {
  std::string out =
      "/* opsweep page styles, scoped to the embedded controls and tables (written by opsweep render) */\n";
  for (const Block& block : Parse(css)) {
    if (block.media.empty()) {
      for (const auto& [prelude, body] : block.rules) out += ScopedRule(prelude, body, Scheme::light, "");
      continue;
    }
    const bool dark = block.media.find(kDarkMedia) != std::string::npos;
    std::string inner;
    for (const auto& [prelude, body] : block.rules) {
      inner += ScopedRule(prelude, body, dark ? Scheme::dark : Scheme::light, dark ? "[data-theme=\"auto\"] " : "");
    }
    if (!inner.empty()) out += block.media + " {\n" + inner + "}\n";
    if (dark) {  // a theme that shows its dark scheme, whatever the reader prefers
      for (const auto& [prelude, body] : block.rules) {
        out += ScopedRule(prelude, body, Scheme::dark, "[data-theme=\"dark\"] ");
      }
    }
  }
  return out;
}

}  // namespace opsweep::render
