#pragma once

#include <string>
#include <string_view>

namespace pyrometer::torch {

// libtorch's error text reduced to one line: without the C++ backtrace ("Exception raised
// from ... frame #0 ..."), without the TorchScript traceback ("Traceback of TorchScript ...
// File "code/__torch__/..."), keeping the final "RuntimeError: ..." message itself.
std::string cleanTorchMessage(std::string_view what);

} // namespace pyrometer::torch
