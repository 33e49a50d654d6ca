#include "render/css_scope.h"

#include <gtest/gtest.h>

#include <cctype>

#include "render/page_controls.h"

namespace opsweep::render {
namespace {

bool Has(const std::string& css, std::string_view part) { return css.find(part) != std::string::npos; }

// Every selector of `css` starts with a scope, or a theme's attribute before a scope.
void ExpectEverySelectorScoped(const std::string& css) {
  size_t i = 0;
  while (i < css.size()) {
    if (std::isspace(static_cast<unsigned char>(css[i])) || css[i] == '}') {  // a media block's end
      ++i;
      continue;
    }
    if (css.compare(i, 2, "/*") == 0) {
      i = css.find("*/", i) + 2;
      continue;
    }
    const size_t open = css.find('{', i);
    ASSERT_NE(open, std::string::npos) << css.substr(i);
    const std::string prelude = css.substr(i, open - i);
    i = open + 1;
    if (prelude[0] == '@') continue;  // the rules inside are checked one by one
    size_t start = 0;
    while (start < prelude.size()) {
      size_t comma = prelude.find(", ", start);
      if (comma == std::string::npos) comma = prelude.size();
      std::string sel = prelude.substr(start, comma - start);
      start = comma + 2;
      for (std::string_view theme : {"[data-theme=\"dark\"] ", "[data-theme=\"auto\"] "}) {
        if (sel.rfind(theme, 0) == 0) sel = sel.substr(theme.size());
      }
      EXPECT_TRUE(sel.rfind(".opsweep-page", 0) == 0 || sel.rfind("table.opsweep", 0) == 0) << "'" << sel << "'";
    }
    i = css.find('}', i) + 1;
  }
}

TEST(CssScope, ScopesEveryRuleToTheEmbeddedPartsAndFollowsTheThemesScheme) {
  const std::string css = ScopeCssForEmbedding(
      "/* c */\n:root { color-scheme: light dark; --fg: #111; }\n"
      "@media (prefers-color-scheme: dark) {\n  :root { --fg: #eee; }\n  .x { color: blue; }\n}\n"
      "html { scroll-padding-top: 9px; }\nbody { margin: 0; }\nmain { max-width: 9px; }\n"
      "* { box-sizing: border-box; }\n"
      "table { width: 100%; }\nthead th, td { padding: 1px; }\n.no-js .controls { display: none; }\n"
      "a, .c > span { color: red; }\n[hidden] { display: none !important; }\n"
      "@media print {\n  .bar { position: static; }\n}\n");
  // The variables style the two scopes; light unless the theme says dark...
  EXPECT_TRUE(Has(css, ".opsweep-page, table.opsweep { color-scheme: light; --fg: #111; }")) << css;
  EXPECT_TRUE(Has(css, "[data-theme=\"dark\"] .opsweep-page, [data-theme=\"dark\"] table.opsweep { color-scheme: dark; "
                       "--fg: #eee; }")) << css;
  EXPECT_TRUE(Has(css, "[data-theme=\"dark\"] .opsweep-page .x, [data-theme=\"dark\"] table.opsweep .x { color: blue; }"))
      << css;
  // ...or says auto and the reader prefers dark; never the preference alone (a light-only theme).
  EXPECT_TRUE(Has(css, "@media (prefers-color-scheme: dark) {\n[data-theme=\"auto\"] .opsweep-page, "
                       "[data-theme=\"auto\"] table.opsweep { color-scheme: dark; --fg: #eee; }\n"
                       "[data-theme=\"auto\"] .opsweep-page .x, [data-theme=\"auto\"] table.opsweep .x { color: blue; }\n}"))
      << css;
  // The standalone document's own rules are the embedding document's business.
  for (std::string_view gone : {"scroll-padding-top", "margin: 0", "max-width: 9px", "/* c */"}) {
    EXPECT_FALSE(Has(css, gone)) << gone << "\n" << css;
  }
  EXPECT_TRUE(Has(css, ".opsweep-page, .opsweep-page *, table.opsweep, table.opsweep * { box-sizing")) << css;
  EXPECT_TRUE(Has(css, "table.opsweep { width: 100%; }")) << css;
  EXPECT_TRUE(Has(css, "table.opsweep thead th, table.opsweep td { padding: 1px; }")) << css;
  EXPECT_TRUE(Has(css, ".opsweep-page.no-js .controls { display: none; }")) << css;
  EXPECT_TRUE(Has(css, ".opsweep-page a, table.opsweep a, .opsweep-page .c > span, table.opsweep .c > span { color: red; }"))
      << css;
  EXPECT_TRUE(Has(css, ".opsweep-page [hidden], table.opsweep [hidden] { display: none !important; }")) << css;
  EXPECT_TRUE(Has(css, "@media print {\n.opsweep-page .bar, table.opsweep .bar { position: static; }\n}")) << css;
  ExpectEverySelectorScoped(css);
}

TEST(CssScope, ThePagesOwnStylesheetComesOutWholeAndScoped) {
  const std::string_view* page = PageAsset("page.css");
  ASSERT_NE(page, nullptr);
  const std::string css = ScopeCssForEmbedding(*page);
  ExpectEverySelectorScoped(css);
  for (std::string_view status : {"ok", "ok-breaks", "ok-unverified", "mismatch", "fail", "crash", "timeout", "na"}) {
    EXPECT_TRUE(Has(css, std::string("table.opsweep .pill.st-") + std::string(status) + " {")) << status;
  }
  EXPECT_TRUE(Has(css, "[data-theme=\"dark\"] .opsweep-page, [data-theme=\"dark\"] table.opsweep { color-scheme: dark;"));
  EXPECT_FALSE(Has(css, "backdrop-filter: none"));
  EXPECT_FALSE(Has(css, "scroll-padding-top")) << "html's rule is the embedding document's";
}

}  // namespace
}  // namespace opsweep::render
