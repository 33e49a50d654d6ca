// A file written whole or not at all (ccache's AtomicFile): the bytes go to a temporary file in the
// same folder, which Commit() flushes to disk and renames over the destination. Until Commit(), the
// destination keeps its old content; a destroyed, uncommitted AtomicFile removes its temporary.
#pragma once
#include <string>
#include <string_view>

namespace opsweep {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Writes all of `data` to the temporary file (created on first use).
  bool Write(std::string_view data, std::string* err);
  // fsyncs and renames the temporary file over the destination.
  bool Commit(std::string* err);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string tmp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace opsweep
