#pragma once

#include "core/util/result.h"

#include <filesystem>
#include <string_view>

namespace pyrometer {

// Writes contents to a temporary file next to path, flushes it to disk and renames it over
// path: a reader (or a crash) sees the old file or the new one, never a partial one. On
// failure nothing is left behind and the error names path.
Result<std::filesystem::path> writeFileAtomically(const std::filesystem::path &path, std::string_view contents);

// Reads a whole file; the error names the file.
Result<std::string> readWholeFile(const std::filesystem::path &path);

} // namespace pyrometer
