#include "render/css_scope.h"

#include <gtest/gtest.h>

namespace opsweep::render {
namespace {

TEST(CssScope, ScopesEveryRuleToTheEmbeddedPartsAndFollowsTheThemesScheme) {
  const std::string css = ScopeCssForEmbedding(
      "/* c */\n:root { --fg: #111; }\n@media (prefers-color-scheme: dark) {\n  :root { --fg: #eee; }\n}\n"
      "body { margin: 0; }\nmain { max-width: 9px; }\n* { box-sizing: border-box; }\n"
      "table { width: 100%; }\nthead th, td { padding: 1px; }\n.no-js .controls { display: none; }\n"
      "a, .c > span { color: red; }\n[hidden] { display: none !important; }\n"
      "@media print {\n  .bar { position: static; }\n}\n");
  EXPECT_NE(css.find(".opsweep-page, table.opsweep { --fg: #111; }"), std::string::npos) << css;
  EXPECT_NE(css.find("[data-theme=\"light\"] .opsweep-page, [data-theme=\"light\"] table.opsweep { --fg: #111; }"),
            std::string::npos) << css;
  EXPECT_NE(css.find("@media (prefers-color-scheme: dark) {\n.opsweep-page, table.opsweep { --fg: #eee; }\n}"),
            std::string::npos) << css;
  EXPECT_NE(css.find("[data-theme=\"dark\"] .opsweep-page, [data-theme=\"dark\"] table.opsweep { --fg: #eee; }"),
            std::string::npos) << css;
  EXPECT_NE(css.find(".opsweep-page, table.opsweep { margin: 0; }"), std::string::npos) << css;
  EXPECT_EQ(css.find("max-width: 9px"), std::string::npos) << css;  // main: the embedding document's layout
  EXPECT_NE(css.find(".opsweep-page, .opsweep-page *, table.opsweep, table.opsweep * { box-sizing"), std::string::npos);
  EXPECT_NE(css.find("table.opsweep { width: 100%; }"), std::string::npos) << css;
  EXPECT_NE(css.find("table.opsweep thead th, table.opsweep td { padding: 1px; }"), std::string::npos) << css;
  EXPECT_NE(css.find(".opsweep-page.no-js .controls { display: none; }"), std::string::npos) << css;
  EXPECT_NE(css.find(".opsweep-page a, table.opsweep a, .opsweep-page .c > span, table.opsweep .c > span { color: red; }"),
            std::string::npos) << css;
  EXPECT_NE(css.find("@media print {\n.opsweep-page .bar, table.opsweep .bar { position: static; }\n}"),
            std::string::npos) << css;
  EXPECT_EQ(css.find("/* c */"), std::string::npos);
  // nothing unscoped: every rule line starts with a scope, an attribute scope, @media or the hidden rule
  size_t pos = 0;
  while (pos < css.size()) {
    const size_t end = css.find('\n', pos);
    const std::string line = css.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line == "}" || line[0] == '@' || line.rfind("/*", 0) == 0) continue;
    EXPECT_TRUE(line.rfind(".opsweep-page", 0) == 0 || line.rfind("table.opsweep", 0) == 0 ||
                line.rfind("[data-theme=", 0) == 0 || line.rfind("section[hidden]", 0) == 0)
        << line;
  }
}

}  // namespace
}  // namespace opsweep::render
