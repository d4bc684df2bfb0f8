#pragma once
// Ctrl+C, SIGTERM and --timeout while a subcommand runs a program (a model's worker, a recorded
// script). The program runs in a process group of its own, so a terminal's Ctrl+C reaches only
// the CLI: the first signal stops the program as the window's Cancel does (its group is
// interrupted, then terminated), and the CLI waits for it, never leaving it running with its
// GPU memory. A second signal abandons what the program is finishing (a trace being written).

#include "core/util/progress.h"

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace pyrometer::cli {

class RunStop {
public:
    // Installs the handlers of SIGINT and SIGTERM until destroyed (the previous ones come back);
    // timeoutSeconds > 0 stops the run when it has passed.
    explicit RunStop(double timeoutSeconds = 0);
    ~RunStop();
    RunStop(const RunStop &) = delete;
    RunStop &operator=(const RunStop &) = delete;

    const StopToken &token() const { return m_stop; }
    int signals() const;    // SIGINT and SIGTERM taken so far
    bool abandoned() const; // a second signal
    bool timedOut() const;
    // The message of a run that ended with error: said as the stop that ended it ("MODEL:
    // interrupted", "MODEL: stopped after 30 s (--timeout 30)"), else error itself.
    std::string message(const std::string &subject, const std::string &error) const;

private:
    StopToken m_stop;
    bool m_ownsSignals = true;
    double m_timeoutSeconds = 0;
    bool m_timedOut = false;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_done = false;
    std::thread m_timer;
};

} // namespace pyrometer::cli
