#include "render/csp_hash.h"

#include <gtest/gtest.h>

namespace opsweep::render {
namespace {

std::string Hex(std::string_view data) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t byte : Sha256(data)) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

TEST(CspHashTest, Sha256MatchesTheStandardVectors) {
  EXPECT_EQ(Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Lengths around the padding boundary (55, 56, 64 bytes).
  EXPECT_EQ(Hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(CspHashTest, HashSourceIsBase64InQuotes) {
  EXPECT_EQ(Base64(reinterpret_cast<const std::uint8_t*>("Man"), 3), "TWFu");
  EXPECT_EQ(Base64(reinterpret_cast<const std::uint8_t*>("Ma"), 2), "TWE=");
  EXPECT_EQ(Base64(reinterpret_cast<const std::uint8_t*>("M"), 1), "TQ==");
  EXPECT_EQ(CspHashSource("abc"), "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='");
}

}  // namespace
}  // namespace opsweep::render
