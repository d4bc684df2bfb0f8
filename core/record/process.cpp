#include "core/record/process.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace pyrometer::record {

namespace {

constexpr int kStatusFd = 3;

class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : m_fd(fd) {}
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    Fd(Fd &&other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    Fd &operator=(Fd &&other) noexcept
    {
        reset(std::exchange(other.m_fd, -1));
        return *this;
    }
    ~Fd() { reset(); }
    int get() const { return m_fd; }
    void reset(int fd = -1)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

struct Pipe {
    Fd read;
    Fd write;
};

Result<Pipe> makePipe()
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return Error{std::string("cannot make a pipe: ") + std::strerror(errno)};
    return Pipe{Fd(fds[0]), Fd(fds[1])};
}

std::vector<std::string> environmentFor(const ProcessSpec &spec)
{
    std::map<std::string, std::string> variables;
    for (char **entry = environ; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        const auto equals = text.find('=');
        if (equals != std::string_view::npos)
            variables[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
    }
    for (const auto &[name, value] : spec.environment)
        variables[name] = value;
    if (spec.statusChannel)
        variables["PYROMETER_STATUS_FD"] = std::to_string(kStatusFd);
    std::vector<std::string> result;
    result.reserve(variables.size());
    for (const auto &[name, value] : variables)
        result.push_back(name + "=" + value);
    return result;
}

std::vector<char *> pointers(std::vector<std::string> &strings)
{
    std::vector<char *> result;
    result.reserve(strings.size() + 1);
    for (auto &string : strings)
        result.push_back(string.data());
    result.push_back(nullptr);
    return result;
}

// Everything the child needs is prepared before posix_spawn: nothing runs between fork and exec
// but the file actions.
struct SpawnActions {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    SpawnActions()
    {
        posix_spawn_file_actions_init(&actions);
        posix_spawnattr_init(&attributes);
    }
    ~SpawnActions()
    {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
    }
};

// Ends and reaps the child on every way out of runProcess, a callback's exception included:
// SIGTERM to its process group, SIGKILL after grace, then waitpid. Released once reaped.
class ChildGuard {
public:
    ChildGuard(pid_t pid, std::chrono::milliseconds grace) : m_pid(pid), m_grace(grace) {}
    ChildGuard(const ChildGuard &) = delete;
    ChildGuard &operator=(const ChildGuard &) = delete;
    ~ChildGuard()
    {
        if (m_pid > 0)
            endAndReap();
    }
    void release() { m_pid = -1; }

private:
    void endAndReap()
    {
        ::kill(-m_pid, SIGTERM);
        const auto deadline = std::chrono::steady_clock::now() + m_grace;
        int status = 0;
        for (;;) {
            const pid_t waited = ::waitpid(m_pid, &status, WNOHANG);
            if (waited == m_pid || (waited < 0 && errno != EINTR))
                return;
            if (std::chrono::steady_clock::now() >= deadline)
                break;
            ::usleep(10000);
        }
        ::kill(-m_pid, SIGKILL);
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
    }

    pid_t m_pid;
    std::chrono::milliseconds m_grace;
};

} // namespace

std::string signalName(int signal)
{
    switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal " + std::to_string(signal);
    }
}

void TailLines::append(std::string_view chunk)
{
    while (!chunk.empty()) {
        const auto newline = chunk.find('\n');
        if (newline == std::string_view::npos) {
            m_partial.append(chunk);
            break;
        }
        m_partial.append(chunk.substr(0, newline));
        chunk.remove_prefix(newline + 1);
        if (!m_partial.empty() && m_partial.back() == '\r')
            m_partial.pop_back();
        m_lines.push_back(std::move(m_partial));
        m_partial.clear();
        if (m_lines.size() > m_capacity)
            m_lines.erase(m_lines.begin());
    }
}

std::vector<std::string> TailLines::lines() const
{
    auto result = m_lines;
    if (!m_partial.empty())
        result.push_back(m_partial);
    while (result.size() > m_capacity)
        result.erase(result.begin());
    return result;
}

Result<ProcessExit> runProcess(const ProcessSpec &spec, const ProcessCallbacks &callbacks, const StopToken &stop,
                               const StopPolicy &policy)
{
    if (spec.argv.empty())
        return Error{"no program to run"};
    auto out = makePipe();
    auto err = makePipe();
    auto status = makePipe();
    if (!out)
        return out.error();
    if (!err)
        return err.error();
    if (!status)
        return status.error();

    SpawnActions spawn;
    if (!spec.inheritStdin)
        posix_spawn_file_actions_addopen(&spawn.actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&spawn.actions, out->write.get(), 1);
    posix_spawn_file_actions_adddup2(&spawn.actions, err->write.get(), 2);
    if (spec.statusChannel)
        posix_spawn_file_actions_adddup2(&spawn.actions, status->write.get(), kStatusFd);
    const std::string directory = spec.workingDirectory.string();
    if (!directory.empty())
        posix_spawn_file_actions_addchdir_np(&spawn.actions, directory.c_str());
    // A group of its own: a stop reaches the program's children too, and a Ctrl+C meant for us
    // does not reach it twice.
    posix_spawnattr_setflags(&spawn.attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&spawn.attributes, 0);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&spawn.attributes, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (const int signal : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP, SIGQUIT})
        sigaddset(&defaults, signal);
    posix_spawnattr_setsigdefault(&spawn.attributes, &defaults);

    auto argvStrings = spec.argv;
    auto envStrings = environmentFor(spec);
    auto argv = pointers(argvStrings);
    auto envp = pointers(envStrings);
    if (!directory.empty() && !std::filesystem::is_directory(spec.workingDirectory))
        return Error{directory + ": no such folder to run " + spec.argv.front() + " in"};
    pid_t pid = -1;
    const int spawnError = ::posix_spawnp(&pid, argv[0], &spawn.actions, &spawn.attributes, argv.data(), envp.data());
    if (spawnError != 0)
        return Error{"cannot start " + spec.argv.front() + ": " + std::strerror(spawnError)};
    ChildGuard child(pid, policy.terminateGrace);
    out->write.reset();
    err->write.reset();
    status->write.reset();

    std::string statusLine;
    struct Source {
        Fd *fd;
        int kind; // 0 stdout, 1 stderr, 2 status
    };
    std::array<Source, 3> sources{Source{&out->read, 0}, Source{&err->read, 1}, Source{&status->read, 2}};
    const auto deliver = [&](int kind, std::string_view chunk) {
        if (kind == 2) {
            for (const char c : chunk) {
                if (c == '\n') {
                    if (callbacks.onStatusLine)
                        callbacks.onStatusLine(statusLine);
                    statusLine.clear();
                } else {
                    statusLine.push_back(c);
                }
            }
        } else if (callbacks.onOutput) {
            callbacks.onOutput(kind == 0 ? OutputStream::Stdout : OutputStream::Stderr, chunk);
        }
    };

    ProcessExit result;
    bool exited = false;
    bool statusLost = false;
    int waitStatus = 0;
    enum class Stopping { No, Interrupted, Terminated, Killed } stopping = Stopping::No;
    auto stoppingSince = std::chrono::steady_clock::now();
    auto interruptedAt = stoppingSince;
    std::array<char, 16384> buffer;
    for (;;) {
        std::array<pollfd, 3> polled{};
        int count = 0;
        std::array<int, 3> which{};
        for (int i = 0; i < 3; ++i) {
            if (sources[i].fd->get() >= 0) {
                polled[count] = pollfd{sources[i].fd->get(), POLLIN, 0};
                which[count++] = i;
            }
        }
        if (count == 0 && exited)
            break;
        int ready = 0;
        if (count > 0)
            ready = ::poll(polled.data(), nfds_t(count), 100);
        else
            ::usleep(20000); // every pipe is closed: only the exit is left to wait for
        if (ready < 0 && errno != EINTR) {
            const int error = errno;
            return Error{"cannot read the output of " + spec.argv.front() + " (poll: " + std::strerror(error) +
                         "); it was ended"}; // the guard ends it
        }
        for (int j = 0; j < count && ready > 0; ++j) {
            if (!(polled[j].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            auto &source = sources[which[j]];
            const auto n = ::read(source.fd->get(), buffer.data(), buffer.size());
            if (n > 0)
                deliver(source.kind, std::string_view(buffer.data(), std::size_t(n)));
            else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                source.fd->reset();
        }
        if (!exited) {
            const pid_t waited = ::waitpid(pid, &waitStatus, WNOHANG);
            if (waited < 0 && errno == ECHILD) {
                // Reaped elsewhere (SIGCHLD ignored by the host): its status is lost.
                exited = true;
                statusLost = true;
                child.release();
            }
            if (waited == pid) {
                exited = true;
                child.release();
                // A child of the program may hold the pipes open: read what is there, then stop.
                for (auto &source : sources) {
                    if (source.fd->get() < 0)
                        continue;
                    ::fcntl(source.fd->get(), F_SETFL, O_NONBLOCK);
                    ssize_t n;
                    while ((n = ::read(source.fd->get(), buffer.data(), buffer.size())) > 0)
                        deliver(source.kind, std::string_view(buffer.data(), std::size_t(n)));
                    source.fd->reset();
                }
            }
        }
        if (callbacks.onTick)
            callbacks.onTick();
        if (!exited && stop.stopRequested()) {
            const auto now = std::chrono::steady_clock::now();
            if (stopping == Stopping::No) {
                ::kill(-pid, SIGINT);
                stopping = Stopping::Interrupted;
                stoppingSince = now;
                interruptedAt = now;
                result.stopped = true;
            } else if (stopping == Stopping::Interrupted && callbacks.finishing && callbacks.finishing() &&
                       now - interruptedAt < policy.finishingLimit) {
                stoppingSince = now; // its grace starts again once it has finished
            } else if (stopping == Stopping::Interrupted && now - stoppingSince >= policy.interruptGrace) {
                ::kill(-pid, SIGTERM);
                stopping = Stopping::Terminated;
                stoppingSince = now;
            } else if (stopping == Stopping::Terminated && now - stoppingSince >= policy.terminateGrace) {
                ::kill(-pid, SIGKILL);
                stopping = Stopping::Killed;
            }
        }
    }
    if (!statusLine.empty() && callbacks.onStatusLine)
        callbacks.onStatusLine(statusLine);
    if (statusLost)
        result.exitCode = -1;
    else if (WIFEXITED(waitStatus))
        result.exitCode = WEXITSTATUS(waitStatus);
    else if (WIFSIGNALED(waitStatus))
        result.signal = WTERMSIG(waitStatus);
    return result;
}

} // namespace pyrometer::record
