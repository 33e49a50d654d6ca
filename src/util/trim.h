// Trimming the blanks around a piece of text: the one Trim of the engine.
#pragma once
#include <string_view>

namespace opsweep {

// `text` without its leading and trailing ASCII whitespace (space, \t, \n, \v, \f, \r); a view
// into `text`, so it must not outlive it.
std::string_view Trim(std::string_view text);

}  // namespace opsweep
