#include "core/trace/byteinput.h"

#include "core/util/uniquefd.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>

namespace pyrometer::trace {
namespace {

class PlainInput final : public ByteInput {
public:
    PlainInput(int fd, std::uint64_t size, bool regular, std::string prefix)
        : m_fd(fd), m_prefix(std::move(prefix)), m_regular(regular)
    {
        m_fileSize = size;
        m_fileBytesRead = m_prefix.size();
    }
    ~PlainInput() override
    {
        if (m_map)
            ::munmap(m_map, m_mapSize);
    }

    char *map(std::size_t padding) override
    {
        if (m_map)
            return static_cast<char *>(m_map);
        if (!m_regular || m_fileSize == 0 || m_fileSize > std::numeric_limits<std::size_t>::max() / 2)
            return nullptr;
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const auto size = static_cast<std::size_t>(m_fileSize);
        const std::size_t total = (size + padding + page - 1) / page * page;
        // Reserve the file plus padding as zero pages, then lay the file over the front: the
        // padding stays readable even when the file ends at a page boundary.
        void *area = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area == MAP_FAILED)
            return nullptr;
        void *file = ::mmap(area, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, m_fd.get(), 0);
        if (file == MAP_FAILED) {
            ::munmap(area, total);
            return nullptr;
        }
        ::madvise(area, size, MADV_SEQUENTIAL);
        m_map = area;
        m_mapSize = total;
        m_page = page;
        return static_cast<char *>(m_map);
    }

    std::size_t readAt(std::uint64_t offset, char *dst, std::size_t size) const override
    {
        std::size_t done = 0;
        while (done < size && offset + done < m_fileSize) {
            const auto n = ::pread(m_fd.get(), dst + done, size - done, static_cast<off_t>(offset + done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            done += static_cast<std::size_t>(n);
        }
        return done;
    }

    void release(std::size_t upTo) override
    {
        upTo = upTo / m_page * m_page;
        if (!m_map || upTo <= m_released)
            return;
        // The page cache keeps the data; only this process's mapping of it goes.
        ::madvise(static_cast<char *>(m_map) + m_released, upTo - m_released, MADV_DONTNEED);
        m_released = upTo;
    }

    std::uint64_t skip(std::uint64_t bytes) override
    {
        const auto sniffed = std::min<std::uint64_t>(bytes, m_prefix.size() - m_prefixPos);
        m_prefixPos += static_cast<std::size_t>(sniffed);
        // A regular file seeks, to the end of the file at most (its size from open()).
        const auto rest = std::min(bytes - sniffed, m_fileSize - std::min(m_fileSize, m_fileBytesRead));
        if (!m_regular || rest > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max())
            || ::lseek(m_fd.get(), static_cast<off_t>(rest), SEEK_CUR) < 0)
            return sniffed + ByteInput::skip(bytes - sniffed);
        m_fileBytesRead += rest;
        return sniffed + rest;
    }

    std::size_t read(char *dst, std::size_t size) override
    {
        std::size_t done = 0;
        if (m_prefixPos < m_prefix.size()) {
            done = std::min(size, m_prefix.size() - m_prefixPos);
            std::memcpy(dst, m_prefix.data() + m_prefixPos, done);
            m_prefixPos += done;
        }
        while (done < size) {
            const auto n = ::read(m_fd.get(), dst + done, size - done);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                m_error = std::string("read error: ") + std::strerror(errno);
                break;
            }
            if (n == 0)
                break;
            done += static_cast<std::size_t>(n);
            m_fileBytesRead += static_cast<std::uint64_t>(n);
        }
        return done;
    }

private:
    UniqueFd m_fd;
    std::string m_prefix; // bytes read to sniff the format
    std::size_t m_prefixPos = 0;
    bool m_regular = false;
    void *m_map = nullptr;
    std::size_t m_mapSize = 0;
    std::size_t m_page = 4096;
    std::size_t m_released = 0;
};

// Inflates with ISA-L's streaming inflater: some three times zlib's pace on the same stream,
// with memory as bounded (a window's worth of state). libdeflate, the other fast inflater,
// takes the whole stream and its whole output at once. The gzip wrapper (header, CRC-32 and
// length trailer) is checked by ISA-L; members written one after another (concatenated files)
// are read in turn.
class GzipInput final : public ByteInput {
public:
    GzipInput(int fd, std::uint64_t size, std::string prefix) : m_fd(fd), m_in(kInputSize)
    {
        m_gzipped = true;
        m_fileSize = size;
        std::memcpy(m_in.data(), prefix.data(), prefix.size());
        isal_inflate_init(&m_state);
        m_state.crc_flag = ISAL_GZIP;
        m_state.next_in = reinterpret_cast<std::uint8_t *>(m_in.data());
        m_state.avail_in = static_cast<std::uint32_t>(prefix.size());
        m_fileBytesRead = prefix.size();
    }

    std::size_t read(char *dst, std::size_t size) override
    {
        if (m_finished)
            return 0;
        m_state.next_out = reinterpret_cast<std::uint8_t *>(dst);
        m_state.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(size, 1u << 30));
        const auto wanted = m_state.avail_out;
        while (m_state.avail_out > 0) {
            if (m_state.block_state == ISAL_BLOCK_FINISH) {
                // The member ended with its trailer checked. Another may follow; trailing zeros
                // (padding some writers leave) end the data.
                m_inMember = false;
                if (m_state.avail_in == 0 && !refill()) {
                    m_finished = true;
                    break;
                }
                if (m_state.next_in[0] == 0) {
                    m_finished = true;
                    break;
                }
                auto *next = m_state.next_in;
                const auto available = m_state.avail_in;
                isal_inflate_reset(&m_state);
                m_state.crc_flag = ISAL_GZIP;
                m_state.next_in = next;
                m_state.avail_in = available;
                m_inMember = true;
            }
            if (m_state.avail_in == 0 && !refill())
                break;
            const int rc = isal_inflate(&m_state);
            if (rc < 0) {
                m_error = std::string("corrupt gzip data (") + problem(rc) + ") at compressed byte "
                    + std::to_string(m_fileBytesRead - m_state.avail_in);
                m_finished = true;
                break;
            }
        }
        return wanted - m_state.avail_out;
    }

private:
    static constexpr std::size_t kInputSize = 1 << 20;

    static const char *problem(int rc)
    {
        switch (rc) {
        case ISAL_INVALID_BLOCK: return "invalid block";
        case ISAL_INVALID_SYMBOL: return "invalid symbol";
        case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
        case ISAL_INVALID_WRAPPER: return "invalid gzip header";
        case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
        case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
        default: return "inflate error";
        }
    }

    bool refill()
    {
        for (;;) {
            const auto n = ::read(m_fd.get(), m_in.data(), m_in.size());
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                m_error = std::string("read error: ") + std::strerror(errno);
                m_finished = true;
                return false;
            }
            if (n == 0) {
                if (m_inMember && m_error.empty())
                    m_error = "truncated gzip data: the compressed stream ends early at byte "
                        + std::to_string(m_fileBytesRead);
                m_finished = true;
                return false;
            }
            m_fileBytesRead += static_cast<std::uint64_t>(n);
            m_state.next_in = reinterpret_cast<std::uint8_t *>(m_in.data());
            m_state.avail_in = static_cast<std::uint32_t>(n);
            return true;
        }
    }

    UniqueFd m_fd;
    std::vector<char> m_in;
    inflate_state m_state{};
    bool m_finished = false;
    bool m_inMember = true;
};

} // namespace

std::uint64_t ByteInput::skip(std::uint64_t bytes)
{
    std::vector<char> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(bytes, 1u << 20)));
    std::uint64_t passed = 0;
    while (passed < bytes) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), bytes - passed));
        const auto got = read(buffer.data(), want);
        if (got == 0)
            break;
        passed += got;
    }
    return passed;
}

Result<std::unique_ptr<ByteInput>> ByteInput::open(const std::filesystem::path &file)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error{file.string() + ": cannot open: " + std::strerror(errno)};
    UniqueFd guard(fd);
    struct stat info {};
    if (::fstat(fd, &info) != 0)
        return Error{file.string() + ": cannot stat: " + std::strerror(errno)};
    if (S_ISDIR(info.st_mode))
        return Error{file.string() + ": is a directory, not a trace file"};
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    std::string prefix(2, '\0');
    std::size_t got = 0;
    while (got < 2) {
        const auto n = ::read(fd, prefix.data() + got, 2 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return Error{file.string() + ": read error: " + std::strerror(errno)};
        if (n == 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    prefix.resize(got);
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const bool gzip = got == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f
        && static_cast<unsigned char>(prefix[1]) == 0x8b;
    // A name that promises gzip and content that is not: say so before any talk of JSON.
    if (!gzip && file.extension() == ".gz")
        return Error{file.string() + (got == 0 ? ": not a gzip file: it is empty"
                                               : ": not a gzip file: the name ends in .gz, but the content does not "
                                                 "start with gzip's magic bytes (1f 8b)")};
    std::unique_ptr<ByteInput> input;
    const int owned = guard.release();
    if (gzip)
        input = std::make_unique<GzipInput>(owned, size, std::move(prefix));
    else
        input = std::make_unique<PlainInput>(owned, size, S_ISREG(info.st_mode), std::move(prefix));
    if (!input->error().empty())
        return Error{file.string() + ": " + input->error()};
    return input;
}

} // namespace pyrometer::trace
