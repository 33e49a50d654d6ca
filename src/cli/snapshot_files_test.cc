#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/snapshot_files.h"
#include "util/read_file.h"

namespace opsweep::cli {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(OPSWEEP_SOURCE_DIR) + "/tests/fixtures/render/snapshot.json";

class SnapshotFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("opsweep-snapshot-files-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  fs::path dir_;
};

TEST_F(SnapshotFilesTest, ReadsEverySnapshotIntoItsOwnSlotInTheOrderGiven) {
  snapshot::Snapshot one;
  std::string err;
  ASSERT_TRUE(LoadSnapshotFile(kFixture, &one, &err)) << err;
  ASSERT_FALSE(one.records.empty());

  // Four copies, each with a distinct first record name, so a slot mix-up shows.
  std::string text, read_err;
  ASSERT_TRUE(ReadFile(kFixture, &text, &read_err)) << read_err;
  const std::string first = "\"" + one.records.front().name + "\"";
  ASSERT_NE(text.find(first), std::string::npos);
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i) {
    std::string copy = text;
    copy.replace(copy.find(first), first.size(), "\"" + one.records.front().name + "-" + std::to_string(i) + "\"");
    paths.push_back(Write("s" + std::to_string(i) + ".json", copy));
  }
  std::vector<snapshot::Snapshot> all;
  ASSERT_TRUE(LoadSnapshotFiles(paths, &all, &err)) << err;
  ASSERT_EQ(all.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(all[i].records.size(), one.records.size());
    bool found = false;
    for (const auto& r : all[i].records) found = found || r.name == one.records.front().name + "-" + std::to_string(i);
    EXPECT_TRUE(found) << i;
  }
}

TEST_F(SnapshotFilesTest, ReportsTheFirstFailingPathInArgumentOrder) {
  std::string text, read_err;
  ASSERT_TRUE(ReadFile(kFixture, &text, &read_err)) << read_err;
  const std::string good = Write("good.json", text);
  const std::string truncated = Write("truncated.json", text.substr(0, text.size() / 2));
  const std::string missing = (dir_ / "missing.json").string();
  std::vector<snapshot::Snapshot> all;
  std::string err;
  // Whichever thread finishes first, the message is that of the earliest bad argument.
  for (int round = 0; round < 20; ++round) {
    err.clear();
    EXPECT_FALSE(LoadSnapshotFiles({good, truncated, good, missing}, &all, &err));
    EXPECT_EQ(err.rfind(truncated + ": not valid JSON", 0), 0u) << err;
    err.clear();
    EXPECT_FALSE(LoadSnapshotFiles({good, missing, truncated}, &all, &err));
    EXPECT_EQ(err.rfind(missing + ": cannot read", 0), 0u) << err;
  }
  EXPECT_EQ(err.find('\n'), std::string::npos);
}

TEST_F(SnapshotFilesTest, AFolderMeansItsSnapshotJson) {
  std::string text, read_err;
  ASSERT_TRUE(ReadFile(kFixture, &text, &read_err)) << read_err;
  fs::create_directories(dir_ / "torch-2.13.0");
  Write("torch-2.13.0/snapshot.json", text);
  std::vector<snapshot::Snapshot> all;
  std::string err;
  ASSERT_TRUE(LoadSnapshotFiles({(dir_ / "torch-2.13.0").string()}, &all, &err)) << err;
  ASSERT_EQ(all.size(), 1u);
  EXPECT_FALSE(all[0].records.empty());
  EXPECT_FALSE(LoadSnapshotFiles({(dir_ / "empty").string()}, &all, &err));
}

}  // namespace
}  // namespace opsweep::cli
