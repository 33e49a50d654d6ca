// Home folders in text a worker sent: the engine's own line of defence for what it stores (the
// harness scrubs every text it puts in a record, docs/formats.md section 3; a text it missed must
// still not put a developer's home folder into the database, the committed results or a page).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace opsweep {

// Whether a '/' at text[i] starts a path: at the start of the text, after a space, a quote, a
// bracket, `=`, `,`, `;` or a backtick, or glued to a compiler's short option there
// (`-I/root/include`). Shared with classify/scrub.h.
bool StartsPath(std::string_view text, size_t i);

// Rewrites `/root/x`, `/home/<user>/x` and `/Users/<user>/x` to `~/x` where such a path starts: at
// the start of the text, after a space, a quote, a bracket, `=`, `,`, `;` or a backtick, or glued
// to a compiler's short option there (`-I/root/include`). Other text is returned unchanged.
std::string ScrubHomePaths(std::string_view text);

}  // namespace opsweep
