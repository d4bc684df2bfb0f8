#include "core/util/atomicfile.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace pyrometer {
namespace {

Error failure(const std::filesystem::path &path, const std::string &what)
{
    return Error{path.string() + ": " + what};
}

} // namespace

Result<std::filesystem::path> writeFileAtomically(const std::filesystem::path &path, std::string_view contents)
{
    static std::atomic<unsigned> counter{0};
    std::filesystem::path temporary = path;
    temporary += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);

    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return failure(path, std::string("cannot write: ") + std::strerror(errno));
    std::size_t written = 0;
    while (written < contents.size()) {
        const auto n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const std::string reason = std::strerror(errno);
            ::close(fd);
            ::unlink(temporary.c_str());
            return failure(path, "cannot write: " + reason);
        }
        written += std::size_t(n);
    }
    // Without fsync a crash right after the rename can leave an empty file under the new name.
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string reason = std::strerror(errno);
        ::unlink(temporary.c_str());
        return failure(path, "cannot write: " + reason);
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        ::unlink(temporary.c_str());
        return failure(path, "cannot replace: " + error.message());
    }
    return path;
}

Result<std::string> readWholeFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return failure(path, std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
        return failure(path, "cannot read");
    return buffer.str();
}

} // namespace pyrometer
