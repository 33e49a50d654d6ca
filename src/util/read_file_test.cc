#include "util/read_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace opsweep {
namespace {

namespace fs = std::filesystem;

fs::path TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "opsweep-read-XXXXXX").string();
  return mkdtemp(tmpl.data());
}

TEST(ReadFile, ReadsEveryByte) {
  fs::path dir = TempDir();
  std::string bytes("a\0b\r\n", 5);
  bytes += std::string(200000, 'x');  // more than one read's buffer
  std::ofstream(dir / "f.bin", std::ios::binary) << bytes;
  std::string contents = "stale", err;
  ASSERT_TRUE(ReadFile((dir / "f.bin").string(), &contents, &err)) << err;
  EXPECT_EQ(contents, bytes);
  fs::remove_all(dir);
}

TEST(ReadFile, ReadsAnEmptyFile) {
  fs::path dir = TempDir();
  std::ofstream(dir / "empty");
  std::string contents = "stale", err;
  ASSERT_TRUE(ReadFile((dir / "empty").string(), &contents, &err)) << err;
  EXPECT_EQ(contents, "");
  fs::remove_all(dir);
}

TEST(ReadFile, ReadsAFileOfUnknownSize) {
  // /proc files say they are empty; the reader reads to their end all the same.
  std::string contents, err;
  ASSERT_TRUE(ReadFile("/proc/self/status", &contents, &err)) << err;
  EXPECT_NE(contents.find("Pid:"), std::string::npos);
}

TEST(ReadFile, AMissingFileIsOneLineNamingIt) {
  fs::path dir = TempDir();
  const std::string path = (dir / "missing.json").string();
  std::string contents = "stale", err;
  EXPECT_FALSE(ReadFile(path, &contents, &err));
  EXPECT_EQ(contents, "");
  EXPECT_EQ(err, path + ": cannot read: No such file or directory");
  fs::remove_all(dir);
}

TEST(ReadFile, AFolderIsRefused) {
  fs::path dir = TempDir();
  std::string contents, err;
  EXPECT_FALSE(ReadFile(dir.string(), &contents, &err));
  EXPECT_EQ(err, dir.string() + ": cannot read: Is a directory");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opsweep
