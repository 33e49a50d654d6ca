// The terminal the progress display writes to (stderr), behind an interface so that progress is
// testable without a TTY.
#pragma once
#include <string_view>

namespace opsweep {

class Terminal {
 public:
  virtual ~Terminal() = default;
  virtual bool IsTty() = 0;
  virtual int Width() = 0;  // columns; 80 when unknown
  virtual void Write(std::string_view text) = 0;
};

// stderr.
class StderrTerminal : public Terminal {
 public:
  bool IsTty() override;
  int Width() override;
  void Write(std::string_view text) override;
};

}  // namespace opsweep
