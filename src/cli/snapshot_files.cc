#include "cli/snapshot_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/core.h>

#include "snapshot/snapshot_reader.h"
#include "util/atomic_file.h"

namespace opsweep::cli {
namespace {

bool ReadFile(const std::string& path, std::string* out, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = std::strerror(errno);
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    *err = "read error";
    return false;
  }
  *out = std::move(buffer).str();
  return true;
}

}  // namespace

std::string OneLineMessage(std::string text) {
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  }
  return text;
}

std::string SnapshotFilePath(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return (std::filesystem::path(path) / "snapshot.json").string();
  return path;
}

bool LoadSnapshotFile(const std::string& path, snapshot::Snapshot* out, std::string* err) {
  const std::string file = SnapshotFilePath(path);
  std::string text, why;
  if (!ReadFile(file, &text, &why)) {
    *err = OneLineMessage(fmt::format("{}: cannot read: {}", file, why));
    return false;
  }
  if (!snapshot::ReadSnapshot(text, out, &why)) {
    *err = OneLineMessage(fmt::format("{}: {}", file, why));
    return false;
  }
  return true;
}

bool WriteOutputs(const std::vector<Output>& outputs, std::string* err) {
  std::vector<std::unique_ptr<AtomicFile>> files;
  for (const Output& output : outputs) {
    files.push_back(std::make_unique<AtomicFile>(output.path));
    if (!files.back()->Write(output.content, err)) {
      *err = OneLineMessage("cannot write " + *err);
      return false;  // the AtomicFiles remove their temporary files
    }
  }
  for (auto& file : files) {
    if (!file->Commit(err)) {
      *err = OneLineMessage("cannot write " + *err);
      return false;
    }
  }
  return true;
}

}  // namespace opsweep::cli
