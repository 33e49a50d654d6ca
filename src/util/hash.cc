#include "util/hash.h"

#include <xxhash.h>

#include <cstdio>

namespace opsweep {

namespace {
std::string ToHex(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}
}  // namespace

std::string HashHex(std::string_view data) { return ToHex(XXH3_128bits(data.data(), data.size())); }

void TaggedHasher::Add(std::string_view tag, std::string_view value) {
  fields_.emplace_back(std::string(tag), std::string(value));
}

std::string TaggedHasher::HexDigest() const {
  std::string buf;
  for (const auto& [tag, value] : fields_) {
    buf += std::to_string(tag.size()) + ":" + tag + "=" + std::to_string(value.size()) + ":" + value + "\n";
  }
  return HashHex(buf);
}

}  // namespace opsweep
