#include "cli/snapshot_files.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <thread>

#include <fmt/core.h>

#include "snapshot/snapshot_reader.h"
#include "util/atomic_file.h"
#include "util/read_file.h"

namespace opsweep::cli {

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
    *err = OneLineMessage(why);
    return false;
  }
  if (!snapshot::ReadSnapshot(text, out, &why)) {
    *err = OneLineMessage(fmt::format("{}: {}", file, why));
    return false;
  }
  return true;
}

bool LoadSnapshotFiles(const std::vector<std::string>& paths, std::vector<snapshot::Snapshot>* out,
                       std::string* err) {
  const std::size_t n = paths.size();
  out->assign(n, snapshot::Snapshot{});
  std::vector<std::string> errors(n);
  std::vector<char> ok(n, 0);
  const std::size_t cores = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(n, cores);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!LoadSnapshotFile(paths[i], &(*out)[i], err)) return false;
    }
    return true;
  }
  // Static striping: thread t reads files t, t + threads, ...; each writes only its own slots.
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t i = t; i < n; i += threads) ok[i] = LoadSnapshotFile(paths[i], &(*out)[i], &errors[i]);
    });
  }
  for (std::thread& thread : pool) thread.join();
  for (std::size_t i = 0; i < n; ++i) {
    if (!ok[i]) {
      *err = errors[i];
      return false;
    }
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
