// SHA-256 as a Content-Security-Policy source ('sha256-<base64>'), so that the page can allow
// exactly its own inline scripts: even if some snapshot text escaped the escaping, a script it
// injected would not run. Self-contained (FIPS 180-4); no crypto library is needed for this.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace opsweep::render {

std::array<std::uint8_t, 32> Sha256(std::string_view data);
std::string Base64(const std::uint8_t* data, std::size_t size);
// "'sha256-...'" for the exact text of an inline <script> or <style> element.
std::string CspHashSource(std::string_view element_text);

}  // namespace opsweep::render
