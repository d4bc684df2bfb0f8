#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::cli {

// The trace files a TRACE argument names: the file itself, or every trace of a TensorBoard
// log directory. On a missing path or an empty directory, prints one line naming it and
// returns nothing.
std::optional<std::vector<std::filesystem::path>> resolveTraceInput(const std::string &path);

} // namespace pyrometer::cli
