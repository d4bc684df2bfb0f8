#pragma once

// What the fuzz targets share: a scratch folder of the process's own for the files they write,
// and the checks every reader's result must pass.
#include "core/util/result.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace pyrometer::fuzz {

// Ends the run as a finding: libFuzzer and the smoke driver both report the input.
[[noreturn]] inline void fail(std::string_view what)
{
    std::fprintf(stderr, "fuzz target: %.*s\n", static_cast<int>(what.size()), what.data());
    __builtin_trap();
}

// Whether a reader gave a result; an error must say something, never an empty message.
template <typename T> bool checkResult(const Result<T> &result)
{
    if (!result.ok() && result.error().message.empty())
        fail("an error without a message");
    return result.ok();
}

// A folder made once per process under $TMPDIR and removed at exit.
inline const std::filesystem::path &scratchDir()
{
    struct Dir {
        std::filesystem::path path;
        Dir()
        {
            std::error_code error;
            auto base = std::filesystem::temp_directory_path(error);
            if (error)
                base = "/tmp";
            std::string pattern = (base / "pyrometer-fuzz-XXXXXX").string();
            if (!mkdtemp(pattern.data()))
                fail("cannot make a scratch folder");
            path = pattern;
        }
        ~Dir()
        {
            std::error_code error;
            std::filesystem::remove_all(path, error);
        }
    };
    static const Dir dir;
    return dir.path;
}

// Writes bytes to path (the folders above it made), replacing what was there. A new file, not
// the old one truncated: ext4 flushes a truncated file's blocks when it is closed (auto_da_alloc),
// which made every run wait on the disk.
inline void writeFile(const std::filesystem::path &path, std::string_view bytes)
{
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    std::filesystem::remove(path, error);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        fail("cannot write a scratch file");
}

inline std::string_view asText(const std::uint8_t *data, std::size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

// The input as the scratch folder's file of that name, written again for each input.
inline std::filesystem::path writeInput(std::string_view name, const std::uint8_t *data, std::size_t size)
{
    auto path = scratchDir() / name;
    writeFile(path, asText(data, size));
    return path;
}

} // namespace pyrometer::fuzz
