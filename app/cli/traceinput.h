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

// The one trace a command that reads one reads: the file itself, or from a log directory the
// newest span of the first worker of the first run, as TensorBoard opens it; for a directory,
// says on stderr which file it picked (stdout stays for the output). On a missing path or an
// empty directory, prints one line naming it and returns nothing.
std::optional<std::filesystem::path> pickTraceFile(const std::string &path);

} // namespace pyrometer::cli
