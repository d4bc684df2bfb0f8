#include "core/record/process.h"

#include "core/util/uniquefd.h"

#include <algorithm>
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

struct Pipe {
    UniqueFd read;
    UniqueFd write;
};

Result<Pipe> makePipe()
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return Error{std::string("cannot make a pipe: ") + std::strerror(errno)};
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
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
    for (const char c : chunk)
        add(c);
}

void TailLines::add(char c)
{
    if (c == '\n') {
        m_carriageReturn = false;
        endLine();
        return;
    }
    if (m_carriageReturn) { // a '\r' not followed by '\n': the line is drawn again
        m_partial.clear();
        m_cut = false;
    }
    m_carriageReturn = c == '\r';
    if (m_carriageReturn || m_cut)
        return;
    if (m_partial.size() >= kMaxLineBytes) {
        m_partial += "\u2026";
        m_cut = true;
        return;
    }
    m_partial.push_back(c);
}

void TailLines::endLine()
{
    m_lines.push_back(std::move(m_partial));
    m_partial.clear();
    m_cut = false;
    if (m_lines.size() > m_capacity)
        m_lines.erase(m_lines.begin());
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

namespace {

struct Pipes {
    Pipe out;
    Pipe err;
    Pipe status;
};

Result<Pipes> makePipes()
{
    auto out = makePipe();
    auto err = makePipe();
    auto status = makePipe();
    if (!out)
        return out.error();
    if (!err)
        return err.error();
    if (!status)
        return status.error();
    return Pipes{std::move(out).value(), std::move(err).value(), std::move(status).value()};
}

// The dup2s that give the program its descriptors, ours first, theirs second. The dup2s run in
// order, so a descriptor of ours numbered as one of theirs (a memfd that got fd 3 in a program
// started with only 0-2 open, then passed as fd 4 after the status pipe took fd 3) would be
// overwritten before it is copied: such descriptors are copied above every number of theirs
// first (held in `copies` until the program has started).
std::vector<std::pair<int, int>> descriptorMoves(const ProcessSpec &spec, const Pipes &pipes,
                                                 std::vector<UniqueFd> &copies)
{
    std::vector<std::pair<int, int>> moves{{pipes.out.write.get(), 1}, {pipes.err.write.get(), 2}};
    if (spec.statusChannel)
        moves.emplace_back(pipes.status.write.get(), kStatusFd);
    moves.insert(moves.end(), spec.passedFds.begin(), spec.passedFds.end());
    int highest = 0;
    for (const auto &move : moves)
        highest = std::max(highest, move.second);
    for (auto &move : moves) {
        if (move.first > highest || move.first == move.second)
            continue;
        copies.emplace_back(::fcntl(move.first, F_DUPFD_CLOEXEC, highest + 1));
        if (copies.back().valid())
            move.first = copies.back().get();
    }
    return moves;
}

// Starts the program in a process group of its own, its output on the pipes' write ends.
Result<pid_t> spawnProcess(const ProcessSpec &spec, const Pipes &pipes)
{
    SpawnActions spawn;
    if (!spec.inheritStdin)
        posix_spawn_file_actions_addopen(&spawn.actions, 0, "/dev/null", O_RDONLY, 0);
    std::vector<UniqueFd> copies;
    for (const auto &[ours, theirs] : descriptorMoves(spec, pipes, copies))
        posix_spawn_file_actions_adddup2(&spawn.actions, ours, theirs); // dup2 clears FD_CLOEXEC
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
    return pid;
}

// The program's three streams: stdout and stderr go to onOutput as they come, fd 3 to
// onStatusLine a whole line at a time.
class OutputReader {
public:
    OutputReader(Pipes &pipes, const ProcessCallbacks &callbacks, std::size_t maxStatusLine)
        : m_sources{Source{&pipes.out.read, 0}, Source{&pipes.err.read, 1}, Source{&pipes.status.read, 2}},
          m_callbacks(callbacks), m_maxStatusLine(maxStatusLine)
    {}

    bool open() const
    {
        return std::any_of(m_sources.begin(), m_sources.end(),
                           [](const Source &source) { return source.fd->get() >= 0; });
    }
    bool overlong() const { return m_overlong; }

    // Waits up to timeoutMs for output and reads what came. False when poll failed.
    bool poll(int timeoutMs)
    {
        std::array<pollfd, 3> polled{};
        std::array<Source *, 3> which{};
        nfds_t count = 0;
        for (auto &source : m_sources) {
            if (source.fd->get() >= 0) {
                polled[count] = pollfd{source.fd->get(), POLLIN, 0};
                which[count++] = &source;
            }
        }
        if (count == 0) {
            ::usleep(useconds_t(timeoutMs) * 200); // every pipe is closed: only the exit is left to wait for
            return true;
        }
        const int ready = ::poll(polled.data(), count, timeoutMs);
        if (ready < 0)
            return errno == EINTR;
        for (nfds_t j = 0; j < count; ++j) {
            if (!(polled[j].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const auto n = ::read(which[j]->fd->get(), m_buffer.data(), m_buffer.size());
            if (n > 0)
                deliver(which[j]->kind, std::string_view(m_buffer.data(), std::size_t(n)));
            else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                which[j]->fd->reset();
        }
        return true;
    }

    // The program has exited; a child of it may hold the pipes open: read what is there, then stop.
    void drain()
    {
        for (auto &source : m_sources) {
            if (source.fd->get() < 0)
                continue;
            ::fcntl(source.fd->get(), F_SETFL, O_NONBLOCK);
            ssize_t n;
            while ((n = ::read(source.fd->get(), m_buffer.data(), m_buffer.size())) > 0)
                deliver(source.kind, std::string_view(m_buffer.data(), std::size_t(n)));
            source.fd->reset();
        }
        if (!m_statusLine.empty() && !m_overlong && m_callbacks.onStatusLine)
            m_callbacks.onStatusLine(m_statusLine);
        m_statusLine.clear();
    }

private:
    struct Source {
        UniqueFd *fd;
        int kind; // 0 stdout, 1 stderr, 2 status
    };

    void deliver(int kind, std::string_view chunk)
    {
        if (kind != 2) {
            if (m_callbacks.onOutput)
                m_callbacks.onOutput(kind == 0 ? OutputStream::Stdout : OutputStream::Stderr, chunk);
            return;
        }
        if (m_overlong)
            return;
        for (const char c : chunk) {
            if (c != '\n') {
                m_statusLine.push_back(c);
                if (m_maxStatusLine > 0 && m_statusLine.size() > m_maxStatusLine) {
                    m_overlong = true;
                    m_statusLine.clear();
                    m_statusLine.shrink_to_fit();
                    return;
                }
                continue;
            }
            if (m_callbacks.onStatusLine)
                m_callbacks.onStatusLine(m_statusLine);
            m_statusLine.clear();
        }
    }

    std::array<Source, 3> m_sources;
    const ProcessCallbacks &m_callbacks;
    std::size_t m_maxStatusLine;
    std::string m_statusLine;
    bool m_overlong = false;
    std::array<char, 16384> m_buffer;
};

// Carries out a stop as StopPolicy says: interrupt, hold while the program says it is
// finishing, terminate, kill; an abandoned stop terminates at once.
class Stopper {
public:
    Stopper(pid_t pid, const ProcessCallbacks &callbacks, const StopPolicy &policy)
        : m_pid(pid), m_callbacks(callbacks), m_policy(policy)
    {}

    // Called about every 100 ms while the program runs; true once a stop has begun.
    bool advance(const StopToken &stop)
    {
        const bool abandoned = m_callbacks.abandoned && m_callbacks.abandoned();
        if (!stop.stopRequested() && !abandoned)
            return m_stage != Stage::Running;
        const auto now = std::chrono::steady_clock::now();
        if (abandoned && (m_stage == Stage::Running || m_stage == Stage::Interrupted)) {
            signal(SIGTERM, Stage::Terminated, now);
        } else if (m_stage == Stage::Running) {
            signal(SIGINT, Stage::Interrupted, now);
            m_interruptedAt = now;
        } else if (m_stage == Stage::Interrupted && m_callbacks.finishing && m_callbacks.finishing() &&
                   now - m_interruptedAt < m_policy.finishingLimit) {
            m_since = now; // its grace starts again once it has finished
        } else if (m_stage == Stage::Interrupted && now - m_since >= m_policy.interruptGrace) {
            signal(SIGTERM, Stage::Terminated, now);
        } else if (m_stage == Stage::Terminated && now - m_since >= m_policy.terminateGrace) {
            signal(SIGKILL, Stage::Killed, now);
        }
        return true;
    }

private:
    enum class Stage { Running, Interrupted, Terminated, Killed };
    void signal(int number, Stage stage, std::chrono::steady_clock::time_point now)
    {
        ::kill(-m_pid, number);
        m_stage = stage;
        m_since = now;
    }

    pid_t m_pid;
    const ProcessCallbacks &m_callbacks;
    const StopPolicy &m_policy;
    Stage m_stage = Stage::Running;
    std::chrono::steady_clock::time_point m_since;
    std::chrono::steady_clock::time_point m_interruptedAt;
};

} // namespace

Result<ProcessExit> runProcess(const ProcessSpec &spec, const ProcessCallbacks &callbacks, const StopToken &stop,
                               const StopPolicy &policy)
{
    if (spec.argv.empty())
        return Error{"no program to run"};
    auto pipes = makePipes();
    if (!pipes)
        return pipes.error();
    const auto spawned = spawnProcess(spec, pipes.value());
    if (!spawned)
        return spawned.error();
    const pid_t pid = spawned.value();
    ChildGuard child(pid, policy.terminateGrace);
    pipes->out.write.reset();
    pipes->err.write.reset();
    pipes->status.write.reset();

    OutputReader reader(pipes.value(), callbacks, spec.maxStatusLine);
    Stopper stopper(pid, callbacks, policy);
    ProcessExit result;
    bool exited = false;
    bool statusLost = false;
    int waitStatus = 0;
    while (!exited || reader.open()) {
        if (!reader.poll(100)) {
            const int error = errno;
            return Error{"cannot read the output of " + spec.argv.front() + " (poll: " + std::strerror(error) +
                         "); it was ended"}; // the guard ends it
        }
        if (reader.overlong() && !result.overlongStatusLine) {
            result.overlongStatusLine = true;
            result.stopped = true;
            ::kill(-pid, SIGKILL); // a protocol gone wrong: nothing it says now can be read
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
                reader.drain();
            }
        }
        if (callbacks.onTick)
            callbacks.onTick();
        if (!exited && stopper.advance(stop))
            result.stopped = true;
    }
    reader.drain(); // a last status line without its '\n'
    if (statusLost)
        result.exitCode = -1;
    else if (WIFEXITED(waitStatus))
        result.exitCode = WEXITSTATUS(waitStatus);
    else if (WIFSIGNALED(waitStatus))
        result.signal = WTERMSIG(waitStatus);
    return result;
}

} // namespace pyrometer::record
