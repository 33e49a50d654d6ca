#include "render/escape.h"

#include <gtest/gtest.h>

namespace opsweep::render {
namespace {

TEST(EscapeTest, HtmlEscapesMarkupQuotesAndControls) {
  EXPECT_EQ(HtmlEscape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(HtmlEscape("a & \"b\" 'c'"), "a &amp; &quot;b&quot; &#39;c&#39;");
  EXPECT_EQ(HtmlEscape(std::string_view("x\0y\x1b", 4)), "x y ");
  EXPECT_EQ(HtmlEscape("tab\tnewline\n"), "tab\tnewline\n");
  EXPECT_EQ(HtmlEscape("ünïcödé ✓"), "ünïcödé ✓");
}

TEST(EscapeTest, ScriptJsonStringCannotCloseTheScriptOrOpenAComment) {
  const std::string out = ScriptJsonString("</script><!-- \"q\" \\ \n &");
  EXPECT_EQ(out.find("</"), std::string::npos);
  EXPECT_EQ(out.find("<!--"), std::string::npos);
  EXPECT_EQ(out, "\"\\u003c/script\\u003e\\u003c!-- \\\"q\\\" \\\\ \\n \\u0026\"");
  EXPECT_EQ(ScriptJsonString("a\u2028b\u2029c"), "\"a\\u2028b\\u2029c\"");
  EXPECT_EQ(ScriptJsonString(std::string_view("\x01", 1)), "\"\\u0001\"");
}

TEST(EscapeTest, UrlEncodeKeepsUnreservedOnly) {
  EXPECT_EQ(UrlEncode("lib.color.rgb_to_hsv"), "lib.color.rgb_to_hsv");
  EXPECT_EQ(UrlEncode("a b/c?d=\"e\""), "a%20b%2Fc%3Fd%3D%22e%22");
}

TEST(EscapeTest, SlugKeepsSafeCharactersAndCollapsesTheRest) {
  EXPECT_EQ(Slug("RandomCrop[p=0.5][random]"), "RandomCrop-p-0.5-random");
  EXPECT_EQ(Slug("geometry.epipolar"), "geometry.epipolar");
  EXPECT_EQ(Slug("\"><img src=x>"), "img-src-x");
  EXPECT_EQ(Slug("[]"), "x");
  EXPECT_EQ(Slug(""), "x");
}

TEST(EscapeTest, OneLineCollapsesAllLineBreaks) {
  EXPECT_EQ(OneLine("  a\n\tb\r\n c  "), "a b c");
  EXPECT_EQ(OneLine("a\u2028b\u2029c\u0085d"), "a b c d");
}

TEST(EscapeTest, RstEscapesInlineMarkupAndLeadingBlockMarkup) {
  EXPECT_EQ(RstEscape("*bold* `x` a_b |s| \\"), "\\*bold\\* \\`x\\` a\\_b \\|s\\| \\\\");
  EXPECT_EQ(RstEscape("- not a bullet"), "\\- not a bullet");
  EXPECT_EQ(RstEscape(".. comment"), "\\.. comment");
  EXPECT_EQ(RstEscape("A. Einstein"), "\\A. Einstein");
  EXPECT_EQ(RstEscape("12) item"), "\\12) item");
  EXPECT_EQ(RstEscape("e.g. fine"), "e.g. fine");
  EXPECT_EQ(RstEscape("ends with::"), "ends with:\\:");
  EXPECT_EQ(RstEscape("two\nlines"), "two lines");
}

TEST(EscapeTest, RstLiteralFallsBackWhenABackquoteIsInside) {
  EXPECT_EQ(RstLiteral("lib/x.py:12"), "``lib/x.py:12``");
  EXPECT_EQ(RstLiteral("a`b"), "a\\`b");
  EXPECT_EQ(RstLiteral(""), "");
}

TEST(EscapeTest, MarkdownEscapesPipesPunctuationAndHtml) {
  EXPECT_EQ(MarkdownEscape("a|b *c* _d_ [e](f) `g` ~h~ \\"),
            "a\\|b \\*c\\* \\_d\\_ \\[e\\](f) \\`g\\` \\~h\\~ \\\\");
  EXPECT_EQ(MarkdownEscape("<script>&"), "&lt;script&gt;&amp;");
  EXPECT_EQ(MarkdownEscape("one\ntwo"), "one two");
}

TEST(EscapeTest, MarkdownCodeUsesALongerFenceAndEscapesPipes) {
  EXPECT_EQ(MarkdownCode("warp_affine"), "`warp_affine`");
  EXPECT_EQ(MarkdownCode("a|b"), "`a\\|b`");
  EXPECT_EQ(MarkdownCode("a`b"), "``a`b``");
  EXPECT_EQ(MarkdownCode("`x"), "`` `x ``");
}

}  // namespace
}  // namespace opsweep::render
