#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace pyrometer::trace {

// A trace file's JSON bytes as a stream: plain files are read as they are, gzip files
// (recognised by their magic bytes, whatever the name) are inflated on the fly. Streaming keeps
// memory bounded whatever the file size.
class ByteInput {
public:
    virtual ~ByteInput() = default;

    static Result<std::unique_ptr<ByteInput>> open(const std::filesystem::path &file);

    // Reads up to size bytes into dst; 0 at the end of the data or on error (see error()).
    virtual std::size_t read(char *dst, std::size_t size) = 0;
    // Passes over the next `bytes` bytes of the data: a plain file seeks, gzip is inflated
    // through. Returns the bytes passed, fewer when the data ends first.
    virtual std::uint64_t skip(std::uint64_t bytes);

    // Set when the data ended in an error (I/O, corrupt or truncated gzip); one line.
    const std::string &error() const { return m_error; }
    bool gzipped() const { return m_gzipped; }
    std::uint64_t fileSize() const { return m_fileSize; }
    // Bytes consumed from the file itself, for progress.
    std::uint64_t fileBytesRead() const { return m_fileBytesRead; }

    // A plain regular file can instead be mapped whole: a private, writable copy-on-write view
    // of all fileSize() bytes followed by `padding` readable zero bytes, valid for the input's
    // lifetime. nullptr where the input cannot be mapped (gzip, pipes, empty files, failure);
    // then read() is the way. The mapping gives every byte a fixed place, so that several
    // threads can take chunks of the file at once.
    virtual char *map(std::size_t padding)
    {
        (void)padding;
        return nullptr;
    }
    // Reads up to size bytes of the file at offset into dst, from any thread; fewer at the end
    // of the file or on an I/O error. Every input that map() maps reads this way too, and
    // faster: a chunk read into a buffer of its own reaches the parser in cache, where the
    // mapping's pages are faulted in one by one (on a 2-vCPU VM, simdjson's first stage ran at
    // 1.4 GB/s over the mapping; pread copied at 5 GB/s, and the stage then ran at 14 GB/s).
    virtual std::size_t readAt(std::uint64_t offset, char *dst, std::size_t size) const
    {
        (void)offset;
        (void)dst;
        (void)size;
        return 0;
    }
    // Gives back the memory of mapped bytes [0, upTo) that will not be read again (RSS).
    virtual void release(std::size_t upTo) { (void)upTo; }

protected:
    std::string m_error;
    bool m_gzipped = false;
    std::uint64_t m_fileSize = 0;
    std::uint64_t m_fileBytesRead = 0;
};

} // namespace pyrometer::trace
