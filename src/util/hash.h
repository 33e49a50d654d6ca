// Content hashes (xxh3 128-bit) as lowercase hex, and a hasher over tagged fields so that a key
// can be dumped field by field for debugging and so that a rerun can name the field that changed
// (ccache's habit).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opsweep {

// xxh3-128 of `data` as 32 lowercase hex digits.
std::string HashHex(std::string_view data);

// Accumulates (tag, value) pairs; the digest covers tags, values and their lengths, so
// ("ab","c") and ("a","bc") never collide by concatenation.
class TaggedHasher {
 public:
  void Add(std::string_view tag, std::string_view value);
  std::string HexDigest() const;
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace opsweep
