#pragma once

#include <string_view>

namespace pyrometer::model {

// How an error about missing input shapes tells its reader to give them, in pyrometer-cli's
// words; a window, which has an Inputs field instead of flags, puts its own in their place.
inline constexpr std::string_view kGiveInputsHint = "give them as --input 1x3x224x224";

} // namespace pyrometer::model
