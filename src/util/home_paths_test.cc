#include "util/home_paths.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

TEST(HomePaths, HomeFoldersBecomeTilde) {
  EXPECT_EQ(ScrubHomePaths("/root/.pyenv/x.py"), "~/.pyenv/x.py");
  EXPECT_EQ(ScrubHomePaths("see /home/alice/src/a.py:3 and '/Users/bob/b.py'"), "see ~/src/a.py:3 and '~/b.py'");
  EXPECT_EQ(ScrubHomePaths("['g++', '-I/root/.pyenv/include', '-L/home/al/env/lib']"),
            "['g++', '-I~/.pyenv/include', '-L~/env/lib']");
  EXPECT_EQ(ScrubHomePaths("x=/root/a,(/root/b)"), "x=~/a,(~/b)");
}

TEST(HomePaths, OtherTextIsKept) {
  for (const char* kept : {"lib/color/gray.py:12", "<site-packages>/torch/x.py", "~/already", "a/root/b",
                           "x-y/root/z", "/home/", "/home/alice", "/rooted/x", "/usr/lib/x", "", "3 / 4"}) {
    EXPECT_EQ(ScrubHomePaths(kept), kept) << kept;
  }
}

}  // namespace
}  // namespace opsweep
