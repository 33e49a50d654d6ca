// Text hygiene for everything that reaches the snapshot: terminal colour codes removed, absolute
// paths rewritten, first lines cut at a word boundary. The harness already scrubs paths
// (docs/formats.md section 3); this is the second line of defence, so a developer's home folder
// never reaches a published page even when a worker got it wrong.
#pragma once
#include <string>
#include <string_view>

namespace opsweep {

// Removes ANSI escape sequences (ESC [ ... letter) and stray ESC characters.
std::string StripAnsi(std::string_view text);

// Rewrites absolute paths in `text`:
//   .../<library>/<library>/x.py or .../site-packages/<library>/x.py  -> <library>/x.py
//   .../site-packages/x or .../dist-packages/x                        -> <site-packages>/x
//   /root/x, /home/<user>/x, /Users/<user>/x                          -> ~/x
//   /tmp/x, /var/tmp/x, /private/tmp/x, /var/folders/../x              -> <tmp>/x
//   /usr/lib/pythonX.Y/x, /usr/local/lib/pythonX.Y/x                   -> <stdlib>/x
//   any other absolute path of three or more parts                     -> .../<last part>
// `library` is the surveyed library's top-level package ("lib" for lib/x.py); may be empty. URLs are kept.
std::string ScrubPaths(std::string_view text, std::string_view library);

// Dynamo's identity guards name an object by its address in the worker's process, which differs on
// every run: "___check_obj_id(G['m'].P.args, 140156559948432)" -> "___check_obj_id(G['m'].P.args, <id>)"
// (likewise ___check_type_id), so a detail or guard does not change between two surveys that agree.
std::string MaskObjectIds(std::string_view text);

// The first non-empty line of `text`, colour codes stripped, paths scrubbed, object ids masked
// (MaskObjectIds), whitespace trimmed,
// cut to at most `max_chars` bytes at a word boundary (never inside a UTF-8 sequence) with "...".
std::string CleanFirstLine(std::string_view text, std::string_view library, size_t max_chars = 300);

}  // namespace opsweep
