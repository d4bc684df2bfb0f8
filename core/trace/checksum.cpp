#include "core/trace/checksum.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace pyrometer::trace {

Result<FileChecksum> fileChecksum(const std::filesystem::path &file)
{
    const std::unique_ptr<std::FILE, int (*)(std::FILE *)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
    if (!in)
        return Error{file.string() + ": cannot read (" + std::strerror(errno) + ")"};
    std::vector<unsigned char> buffer(1 << 20);
    FileChecksum sum;
    uLong crc = crc32_z(0L, Z_NULL, 0);
    for (;;) {
        const auto n = std::fread(buffer.data(), 1, buffer.size(), in.get());
        if (n > 0) {
            crc = crc32_z(crc, buffer.data(), n);
            sum.bytes += n;
        }
        if (n < buffer.size()) {
            if (std::ferror(in.get()))
                return Error{file.string() + ": read error after " + std::to_string(sum.bytes) + " bytes"};
            break;
        }
    }
    sum.crc32 = static_cast<std::uint32_t>(crc);
    return sum;
}

std::string crc32Text(std::uint32_t crc)
{
    char text[9];
    std::snprintf(text, sizeof text, "%08x", crc);
    return text;
}

} // namespace pyrometer::trace
