#include "util/atomic_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "util/read_file.h"

namespace opsweep {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::string bytes, err;
  EXPECT_TRUE(ReadFile(p.string(), &bytes, &err)) << err;
  return bytes;
}

TEST(AtomicFile, ReplacesOnlyOnCommit) {
  std::string tmpl = (fs::temp_directory_path() / "opsweep-atomic-XXXXXX").string();
  fs::path dir = mkdtemp(tmpl.data());
  fs::path file = dir / "out.json";
  std::ofstream(file) << "old";
  {
    AtomicFile f(file.string());
    std::string err;
    ASSERT_TRUE(f.Write("new", &err)) << err;
    EXPECT_EQ(Read(file), "old");
  }  // not committed: old content stays, no temporary left
  EXPECT_EQ(Read(file), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  {
    AtomicFile f(file.string());
    std::string err;
    ASSERT_TRUE(f.Write("ne", &err) && f.Write("w", &err)) << err;
    ASSERT_TRUE(f.Commit(&err)) << err;
  }
  EXPECT_EQ(Read(file), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  AtomicFile bad((dir / "missing" / "x.json").string());
  std::string err;
  EXPECT_FALSE(bad.Write("x", &err));
  EXPECT_NE(err.find("x.json"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opsweep
