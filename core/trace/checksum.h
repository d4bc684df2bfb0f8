#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace pyrometer::trace {

// What identifies a trace file's bytes as they lie on disk: its size and CRC-32 (zlib's, the
// polynomial of gzip and PNG). Enough to tell that a summary was made from this very file.
struct FileChecksum {
    std::uint64_t bytes = 0;
    std::uint32_t crc32 = 0;
    bool operator==(const FileChecksum &) const = default;
};

// Reads the whole file. Error naming the file when it cannot be read.
Result<FileChecksum> fileChecksum(const std::filesystem::path &file);

// "1c291ca3": eight lower-case hex digits.
std::string crc32Text(std::uint32_t crc);

} // namespace pyrometer::trace
