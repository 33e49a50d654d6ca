#include "exec/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

namespace opsweep {

bool StderrTerminal::IsTty() { return isatty(STDERR_FILENO) == 1; }

int StderrTerminal::Width() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

void StderrTerminal::Write(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace opsweep
