#include "classify/scrub.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(Scrub, RewritesAbsolutePaths) {
  struct Case { const char* in; const char* out; };
  for (Case c : {
           Case{"File \"/home/alice/src/kornia/kornia/geometry/conversions.py\", line 3", "File \"kornia/geometry/conversions.py\", line 3"},
           Case{"at /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/torch/_inductor/lowering.py:12",
                "at <site-packages>/torch/_inductor/lowering.py:12"},
           Case{"(/usr/lib/python3/dist-packages/kornia/color/gray.py)", "(kornia/color/gray.py)"},
           Case{"see /root/notes.txt", "see ~/notes.txt"},
           Case{"see /home/bob/x/y.py", "see ~/x/y.py"},
           Case{"see /Users/carol/y.py", "see ~/y.py"},
           Case{"g++ /tmp/torchinductor_root/ab/cabc.cpp -o /tmp/x.so", "g++ <tmp>/torchinductor_root/ab/cabc.cpp -o <tmp>/x.so"},
           Case{"/usr/local/lib/python3.12/copyreg.py:105: Warn", "<stdlib>/copyreg.py:105: Warn"},
           Case{"in /work/main/build/thing.py", "in .../thing.py"},
           Case{"https://pytorch.org/docs/stable/x.html and a/b/c", "https://pytorch.org/docs/stable/x.html and a/b/c"},
           Case{"ratio 3 / 4 and /dev/null", "ratio 3 / 4 and /dev/null"},
           // a compiler's short option glued to the path (inductor's g++ command, as torch 2.9.1 reports it)
           Case{"'-I/root/.pyenv/versions/3.11.7/include/python3.11', '-L/home/bob/env/lib/python3.11/site-packages/torch/lib'",
                "'-I~/.pyenv/versions/3.11.7/include/python3.11', '-L<site-packages>/torch/lib'"},
           Case{"-I/root/include at the start", "-I~/include at the start"},
           // not an option: a word with a dash, a path inside a path
           Case{"x-y/root/a and a-I/root/b", "x-y/root/a and a-I/root/b"},
       }) {
    EXPECT_EQ(ScrubPaths(c.in, "kornia"), c.out) << c.in;
  }
}

TEST(Scrub, StripsAnsi) {
  EXPECT_EQ(StripAnsi("\x1b[96mThis is step 3/3\x1b[0m of"), "This is step 3/3 of");
  EXPECT_EQ(StripAnsi("\x1b[1;31merror\x1b[m"), "error");
}

TEST(Scrub, CleanFirstLine) {
  EXPECT_EQ(CleanFirstLine("\n\n  \x1b[1mFailed\x1b[0m at /home/u/kornia/kornia/x.py:3  \nsecond", "kornia"), "Failed at kornia/x.py:3");
  EXPECT_EQ(CleanFirstLine("", "kornia"), "");
  std::string long_line(50, 'w');
  long_line += " tail words here";
  std::string cut = CleanFirstLine(long_line, "kornia", 30);
  EXPECT_LE(cut.size(), 30u);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  // Never cuts inside a UTF-8 sequence.
  std::string utf8;
  for (int i = 0; i < 40; ++i) utf8 += "\xc3\xa9";
  std::string c2 = CleanFirstLine(utf8, "", 21);
  EXPECT_EQ(c2.size() % 2, 1u);  // pairs of bytes + "..."
}

}  // namespace
}  // namespace opsweep

namespace opsweep {
namespace {

TEST(Scrub, MasksTheAddressesOfDynamosIdentityGuards) {
  EXPECT_EQ(MaskObjectIds("Guard fail reason: 2/0: ___check_obj_id(G['__import_kornia'].P.args, 140156559948432), "
                          "type=<class 'typing.ParamSpecArgs'>"),
            "Guard fail reason: 2/0: ___check_obj_id(G['__import_kornia'].P.args, <id>), type=<class 'typing.ParamSpecArgs'>");
  EXPECT_EQ(MaskObjectIds("___check_type_id(___stack1[0], 94006533896272) and ___check_type_id(f(a, b), 7)"),
            "___check_type_id(___stack1[0], <id>) and ___check_type_id(f(a, b), <id>)");
  // other numbers, and a guard without a trailing id or cut before its end, stay as they are
  EXPECT_EQ(MaskObjectIds("size of x0[0] == 291"), "size of x0[0] == 291");
  EXPECT_EQ(MaskObjectIds("___check_obj_id(x, 12"), "___check_obj_id(x, 12");
  EXPECT_EQ(MaskObjectIds("___check_obj_id(x)"), "___check_obj_id(x)");
  EXPECT_EQ(CleanFirstLine("___check_type_id(self, 94006533903312), type=<class 'X'>\nmore", "kornia"),
            "___check_type_id(self, <id>), type=<class 'X'>");
}

}  // namespace
}  // namespace opsweep
