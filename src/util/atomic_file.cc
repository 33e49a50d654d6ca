#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace opsweep {

namespace {
std::string Dir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_ && !tmp_path_.empty()) unlink(tmp_path_.c_str());
}

bool AtomicFile::Write(std::string_view data, std::string* err) {
  if (fd_ < 0) {
    std::string tmpl = path_ + ".tmp.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    fd_ = mkstemp(buf.data());
    if (fd_ < 0) {
      *err = path_ + ": cannot create a temporary file beside it: " + strerror(errno);
      return false;
    }
    tmp_path_ = buf.data();
    fchmod(fd_, 0644);
  }
  while (!data.empty()) {
    ssize_t n = write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = path_ + ": write failed: " + strerror(errno);
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool AtomicFile::Commit(std::string* err) {
  if (fd_ < 0 && !Write("", err)) return false;
  if (fsync(fd_) != 0) {
    *err = path_ + ": fsync failed: " + strerror(errno);
    return false;
  }
  close(fd_);
  fd_ = -1;
  if (rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    *err = path_ + ": cannot replace it: " + strerror(errno);
    return false;
  }
  committed_ = true;
  int dir = open(Dir(path_).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
  return true;
}

}  // namespace opsweep
