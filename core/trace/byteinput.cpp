#include "core/trace/byteinput.h"

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace pyrometer::trace {
namespace {

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor &) = delete;
    FileDescriptor &operator=(const FileDescriptor &) = delete;
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

class PlainInput final : public ByteInput {
public:
    PlainInput(int fd, std::uint64_t size, std::string prefix) : m_fd(fd), m_prefix(std::move(prefix))
    {
        m_fileSize = size;
        m_fileBytesRead = m_prefix.size();
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
    FileDescriptor m_fd;
    std::string m_prefix; // bytes read to sniff the format
    std::size_t m_prefixPos = 0;
};

class GzipInput final : public ByteInput {
public:
    GzipInput(int fd, std::uint64_t size, std::string prefix) : m_fd(fd), m_in(kInputSize)
    {
        m_gzipped = true;
        m_fileSize = size;
        std::memcpy(m_in.data(), prefix.data(), prefix.size());
        m_stream.next_in = reinterpret_cast<Bytef *>(m_in.data());
        m_stream.avail_in = static_cast<uInt>(prefix.size());
        m_fileBytesRead = prefix.size();
        // 32 + 15: gzip or zlib header, auto-detected, largest window.
        if (inflateInit2(&m_stream, 32 + 15) != Z_OK)
            m_error = "cannot initialise zlib";
        else
            m_initialised = true;
    }
    ~GzipInput() override
    {
        if (m_initialised)
            inflateEnd(&m_stream);
    }

    std::size_t read(char *dst, std::size_t size) override
    {
        if (!m_initialised || m_finished)
            return 0;
        m_stream.next_out = reinterpret_cast<Bytef *>(dst);
        m_stream.avail_out = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
        const auto wanted = m_stream.avail_out;
        while (m_stream.avail_out > 0) {
            if (m_stream.avail_in == 0 && !refill())
                break;
            const int rc = inflate(&m_stream, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) {
                // Another gzip member may follow (concatenated files); trailing zeros end it.
                m_inMember = false;
                if (m_stream.avail_in == 0 && !refill()) {
                    m_finished = true;
                    break;
                }
                if (m_stream.next_in[0] == 0) {
                    m_finished = true;
                    break;
                }
                inflateReset(&m_stream);
                m_inMember = true;
                continue;
            }
            if (rc == Z_BUF_ERROR && m_stream.avail_in == 0)
                continue;
            if (rc != Z_OK) {
                m_error = std::string("corrupt gzip data (") + (m_stream.msg ? m_stream.msg : "zlib error")
                    + ") at compressed byte " + std::to_string(m_fileBytesRead - m_stream.avail_in);
                m_finished = true;
                break;
            }
        }
        return wanted - m_stream.avail_out;
    }

private:
    static constexpr std::size_t kInputSize = 1 << 20;

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
            m_stream.next_in = reinterpret_cast<Bytef *>(m_in.data());
            m_stream.avail_in = static_cast<uInt>(n);
            return true;
        }
    }

    FileDescriptor m_fd;
    std::vector<char> m_in;
    z_stream m_stream{};
    bool m_initialised = false;
    bool m_finished = false;
    bool m_inMember = true;
};

} // namespace

Result<std::unique_ptr<ByteInput>> ByteInput::open(const std::filesystem::path &file)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error{file.string() + ": cannot open: " + std::strerror(errno)};
    FileDescriptor guard(fd);
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
    std::unique_ptr<ByteInput> input;
    const int owned = guard.release();
    if (gzip)
        input = std::make_unique<GzipInput>(owned, size, std::move(prefix));
    else
        input = std::make_unique<PlainInput>(owned, size, std::move(prefix));
    if (!input->error().empty())
        return Error{file.string() + ": " + input->error()};
    return input;
}

} // namespace pyrometer::trace
