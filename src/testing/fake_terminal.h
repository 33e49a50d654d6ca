// A terminal that records what was written.
#pragma once
#include <string>
#include <string_view>

#include "exec/terminal.h"

namespace opsweep {

class FakeTerminal : public Terminal {
 public:
  explicit FakeTerminal(bool tty) : tty(tty) {}
  bool IsTty() override { return tty; }
  int Width() override { return width; }
  void Write(std::string_view text) override { out += text; }
  bool tty;
  int width = 200;
  std::string out;
};

}  // namespace opsweep
