#pragma once

#include "core/util/progress.h"
#include "core/util/result.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pyrometer::record {

// A program to start: argv[0] is looked up in PATH when it has no slash.
struct ProcessSpec {
    std::vector<std::string> argv;
    std::filesystem::path workingDirectory;                       // empty: ours
    std::vector<std::pair<std::string, std::string>> environment; // added to ours, or replacing
    bool inheritStdin = false;                                    // else /dev/null
    bool statusChannel = false;                                   // a pipe on fd 3, its lines to onStatusLine
    // A status line longer than this ends the program (ProcessExit::overlongStatusLine): a
    // protocol of one record per line never needs more. 0: no bound.
    std::size_t maxStatusLine = 0;
    // Open descriptors of ours the program gets, each at the number paired with it (a request
    // in a memfd at fd 4, say): nothing else of ours is inherited.
    std::vector<std::pair<int, int>> passedFds;
};

enum class OutputStream { Stdout, Stderr };

struct ProcessCallbacks {
    std::function<void(OutputStream, std::string_view)> onOutput; // raw chunks, as they come
    std::function<void(const std::string &)> onStatusLine;        // whole lines of fd 3, without '\n'
    std::function<void()> onTick;                                 // about every 100 ms
    // While it returns true, the program says it is finishing work a stop must wait for (writing
    // a trace): an interrupted program is not terminated then (see StopPolicy::finishingLimit).
    std::function<bool()> finishing;
    // Once it returns true, what the program is finishing is given up (a second Ctrl+C, the
    // window's Drop): a stopped program is terminated at once, not waited for.
    std::function<bool()> abandoned;
};

struct ProcessExit {
    int exitCode = -1;    // when it exited
    int signal = 0;       // when a signal ended it
    bool stopped = false; // we stopped it (interrupt, then terminate, then kill)
    bool overlongStatusLine = false; // ended for a status line past ProcessSpec::maxStatusLine
    bool operator==(const ProcessExit &) const = default;
};

// How a stop is carried out: SIGINT to the program's process group (Python raises
// KeyboardInterrupt and can write what it has), SIGTERM after interruptGrace, SIGKILL after
// terminateGrace more. While the program says it is finishing (ProcessCallbacks::finishing),
// the interrupt's grace is held, up to finishingLimit after the interrupt.
struct StopPolicy {
    std::chrono::milliseconds interruptGrace{5000};
    std::chrono::milliseconds terminateGrace{3000};
    std::chrono::milliseconds finishingLimit{300000};
};

// Runs the program in a process group of its own, streams its output and status lines to the
// callbacks on the calling thread, and returns how it ended. stop ends it as StopPolicy says,
// whether its output is still open or only its exit is left to wait for. An Error means it could
// not be started, or its output could not be read (the message names argv[0]). However it
// returns, a callback's exception included, the program is ended (SIGTERM to its group, SIGKILL
// after policy.terminateGrace) and reaped.
Result<ProcessExit> runProcess(const ProcessSpec &spec, const ProcessCallbacks &callbacks, const StopToken &stop,
                               const StopPolicy &policy = {});

// "SIGKILL", "SIGSEGV", or "signal 42".
std::string signalName(int signal);

// The last lines of a stream, kept as it comes in chunks, as a terminal shows them: a '\r'
// that is not part of "\r\n" starts its line again (a progress bar redrawn in place is one
// line), and a line is kept to its first kMaxLineBytes, then "…".
class TailLines {
public:
    static constexpr std::size_t kMaxLineBytes = 4096;
    explicit TailLines(std::size_t capacity = 20) : m_capacity(capacity) {}
    void append(std::string_view chunk);
    // The kept lines, the unfinished last one included.
    std::vector<std::string> lines() const;

private:
    void add(char c);
    void endLine();

    std::size_t m_capacity;
    std::vector<std::string> m_lines;
    std::string m_partial;
    bool m_carriageReturn = false; // the last character was a '\r'
    bool m_cut = false;            // the line in m_partial passed kMaxLineBytes
};

} // namespace pyrometer::record
