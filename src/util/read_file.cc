#include "util/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opsweep {

namespace {

bool Fail(const std::string& path, int error, std::string* contents, std::string* err) {
  contents->clear();
  *err = path + ": cannot read: " + strerror(error);
  return false;
}

}  // namespace

bool ReadFile(const std::string& path, std::string* contents, std::string* err) {
  contents->clear();
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Fail(path, errno, contents, err);
  // The size is a hint for one allocation (a stream copy through a stringstream cost 6% of a
  // render); the loop reads to the end whatever the size says (0 for /proc files).
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) contents->reserve(static_cast<size_t>(st.st_size) + 1);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      contents->append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int error = errno;
      close(fd);
      return Fail(path, error, contents, err);
    }
  }
  close(fd);
  return true;
}

}  // namespace opsweep
