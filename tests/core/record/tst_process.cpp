// runProcess on its own: a program is ended and reaped on every way out, and a stop is honoured
// however it waits.
#include "core/record/process.h"

#include <QTest>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace pyrometer;
using namespace pyrometer::record;

namespace {

// A shell that prints its pid, then becomes `sleep 30`: the pid is the program's own.
ProcessSpec sleeperPrintingItsPid()
{
    ProcessSpec spec;
    spec.argv = {"sh", "-c", "echo $$; exec sleep 30"};
    return spec;
}

// Collects the pid from the program's first line of output.
struct PidReader {
    std::string output;
    std::optional<pid_t> pid;
    void read(std::string_view chunk)
    {
        output.append(chunk);
        if (!pid && output.find('\n') != std::string::npos)
            pid = pid_t(std::stol(output));
    }
};

// The program is gone and reaped: no process, not even a zombie, has its pid. A program left
// behind is ended here, so that a failing test leaves nothing either.
bool goneAndReaped(pid_t pid)
{
    if (::kill(pid, 0) == -1 && errno == ESRCH)
        return true;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return false;
}

} // namespace

class TestProcess : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void throwingCallbackLeavesNoChild()
    {
        PidReader reader;
        ProcessCallbacks callbacks;
        callbacks.onOutput = [&](OutputStream, std::string_view chunk) {
            reader.read(chunk);
            if (reader.pid)
                throw std::runtime_error("the host failed");
        };
        bool thrown = false;
        try {
            (void)runProcess(sleeperPrintingItsPid(), callbacks, StopToken());
        } catch (const std::runtime_error &) {
            thrown = true;
        }
        QVERIFY(thrown);
        QVERIFY(reader.pid);
        QVERIFY2(goneAndReaped(*reader.pid), "the program outlived runProcess");
    }

    void pollFailureEndsTheChild()
    {
        // poll fails with EINVAL for more descriptors than RLIMIT_NOFILE allows: lowered once the
        // program runs, to one (runProcess polls its stdout and stderr).
        rlimit saved{};
        QCOMPARE(::getrlimit(RLIMIT_NOFILE, &saved), 0);
        PidReader reader;
        bool lowered = false;
        ProcessCallbacks callbacks;
        callbacks.onOutput = [&](OutputStream, std::string_view chunk) { reader.read(chunk); };
        callbacks.onTick = [&] {
            if (reader.pid && !lowered) {
                rlimit one = saved;
                one.rlim_cur = 1;
                lowered = ::setrlimit(RLIMIT_NOFILE, &one) == 0;
            }
        };
        const auto result = runProcess(sleeperPrintingItsPid(), callbacks, StopToken(),
                                       StopPolicy{std::chrono::milliseconds(500), std::chrono::milliseconds(500)});
        ::setrlimit(RLIMIT_NOFILE, &saved);
        QVERIFY(lowered);
        QVERIFY(reader.pid);
        QVERIFY2(!result, "a failed poll returned an exit");
        QVERIFY2(result.error().message.find("cannot read the output of sh (poll: ") == 0,
                 result.error().message.c_str());
        QVERIFY2(goneAndReaped(*reader.pid), "the program outlived runProcess");
    }

    void stopIsHonouredWithItsPipesClosed()
    {
        // The program closes its output and sleeps: only its exit is left to wait for.
        ProcessSpec spec;
        spec.argv = {"sh", "-c", "exec >/dev/null 2>&1; exec sleep 30"};
        StopToken stop;
        stop.requestStop();
        const auto result = runProcess(spec, {}, stop);
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        QVERIFY(result->stopped);
        QCOMPARE(result->signal, SIGINT);
    }

    // A descriptor passed at a number of the program's but numbered as another of its (a memfd
    // that is fd 1, 2 or 3 here) reaches the program whole, not overwritten by the dup2 before it:
    // the Python engine's request once reached its worker as the status pipe, which then waited
    // for itself forever.
    void passedDescriptorNumberedAsAnotherOfTheProgramsArrives()
    {
        const int memfd = ::memfd_create("request", MFD_CLOEXEC);
        QVERIFY(memfd >= 0);
        QCOMPARE(::write(memfd, "the request\n", 12), ssize_t(12));
        // Our fd 1 becomes the memfd for the spawn: the program's fd 1 is its output pipe, taken first.
        std::fflush(stdout);
        const int saved = ::dup(1);
        ::dup2(memfd, 1);
        ProcessSpec spec;
        spec.argv = {"sh", "-c", "cat /dev/fd/4; echo status >&3"};
        spec.statusChannel = true;
        spec.passedFds = {{1, 4}};
        std::string output;
        std::string status;
        ProcessCallbacks callbacks;
        callbacks.onOutput = [&output](OutputStream, std::string_view chunk) { output.append(chunk); };
        callbacks.onStatusLine = [&status](std::string_view line) { status.append(line); };
        const auto result = runProcess(spec, callbacks, StopToken());
        ::dup2(saved, 1);
        ::close(saved);
        ::close(memfd);
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        QCOMPARE(output, std::string("the request\n"));
        QCOMPARE(status, std::string("status"));
    }

    // An interrupted program that says it is finishing (writing what it has) is waited for past
    // the interrupt's grace, not terminated; one that does not say so is terminated.
    void tailKeepsTheLastLines();
    void tailDrawsACarriageReturnLineOnce();
    void anOverlongStatusLineEndsTheProgram();
    void finishingProgramIsWaitedFor()
    {
        for (const bool says : {true, false}) {
            ProcessSpec spec;
            spec.statusChannel = true;
            // On SIGINT it says "writing" on the status channel, takes a second, and exits 0.
            spec.argv = {"sh", "-c", "trap 'echo writing >&3; sleep 1; exit 0' INT; echo ready; "
                                     "while :; do sleep 0.05; done"};
            bool writing = false;
            StopToken stop;
            ProcessCallbacks callbacks;
            callbacks.onOutput = [&](OutputStream, std::string_view chunk) {
                if (chunk.find("ready") != std::string_view::npos)
                    stop.requestStop();
            };
            callbacks.onStatusLine = [&](const std::string &line) { writing = says && line == "writing"; };
            callbacks.finishing = [&] { return writing; };
            const auto exit = runProcess(spec, callbacks, stop,
                                         StopPolicy{std::chrono::milliseconds(200), std::chrono::milliseconds(2000)});
            QVERIFY(exit);
            QVERIFY(exit->stopped);
            if (says) {
                QCOMPARE(exit->signal, 0);
                QCOMPARE(exit->exitCode, 0);
            } else {
                QCOMPARE(exit->signal, SIGTERM);
            }
        }
    }
};

void TestProcess::tailKeepsTheLastLines()
{
    TailLines tail(3);
    tail.append("one\ntwo\nthr");
    tail.append("ee\r\nfour\nfiv");
    QCOMPARE(tail.lines(), (std::vector<std::string>{"three", "four", "fiv"}));
    tail.append("e\n");
    QCOMPARE(tail.lines(), (std::vector<std::string>{"three", "four", "five"}));
}

// A progress bar redrawn with '\r' is one line, kept at its last drawing; a line without end is
// kept to its first kMaxLineBytes.
void TestProcess::tailDrawsACarriageReturnLineOnce()
{
    TailLines tail(4);
    tail.append("first\r\n");
    for (int i = 0; i <= 100; ++i)
        tail.append("\r" + std::to_string(i) + "%");
    tail.append("\nlast");
    QCOMPARE(tail.lines(), (std::vector<std::string>{"first", "100%", "last"}));
    TailLines endless(2);
    for (int i = 0; i < 10000; ++i)
        endless.append(std::string(1000, 'x'));
    const auto lines = endless.lines();
    QCOMPARE(lines.size(), std::size_t(1));
    QCOMPARE(lines.front().size(), TailLines::kMaxLineBytes + std::string("\u2026").size());
}

// A status line past ProcessSpec::maxStatusLine ends the program at once and says so.
void TestProcess::anOverlongStatusLineEndsTheProgram()
{
    ProcessSpec spec;
    spec.argv = {"sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x >&3; exec sleep 60"};
    spec.statusChannel = true;
    spec.maxStatusLine = 65536;
    int lines = 0;
    ProcessCallbacks callbacks;
    callbacks.onStatusLine = [&](const std::string &) { ++lines; };
    const auto exit = runProcess(spec, callbacks, StopToken());
    QVERIFY2(exit, exit ? "" : exit.error().message.c_str());
    QVERIFY(exit->overlongStatusLine);
    QCOMPARE(exit->signal, SIGKILL);
    QCOMPARE(lines, 0);
}

QTEST_GUILESS_MAIN(TestProcess)
#include "tst_process.moc"
