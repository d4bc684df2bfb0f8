#include "app/cli/interrupt.h"
#include "app/cli/callcontext.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>

namespace pyrometer::cli {
namespace {

// What the handler reaches: lock-free atomics only.
std::atomic<int> g_signals{0};
const StopToken *g_stop = nullptr;
struct sigaction g_previousInt {};
struct sigaction g_previousTerm {};

extern "C" void onStopSignal(int)
{
    g_signals.fetch_add(1);
    if (g_stop)
        g_stop->requestStop();
}

std::string seconds(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

} // namespace

RunStop::RunStop(double timeoutSeconds) : m_timeoutSeconds(timeoutSeconds)
{
    // A call of the MCP server: its cancel stops the run, and the signals stay the server's.
    if (const auto *context = callContext()) {
        m_stop = context->stop;
        m_ownsSignals = false;
    } else {
        g_signals = 0;
        g_stop = &m_stop;
        struct sigaction action {};
        action.sa_handler = onStopSignal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &g_previousInt);
        sigaction(SIGTERM, &action, &g_previousTerm);
    }
    if (timeoutSeconds > 0) {
        m_timer = std::thread([this] {
            std::unique_lock lock(m_mutex);
            const auto limit = std::chrono::duration<double>(m_timeoutSeconds);
            if (!m_wake.wait_for(lock, limit, [this] { return m_done; })) {
                m_timedOut = true;
                m_stop.requestStop();
            }
        });
    }
}

RunStop::~RunStop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_done = true;
    }
    m_wake.notify_all();
    if (m_timer.joinable())
        m_timer.join();
    if (!m_ownsSignals)
        return;
    sigaction(SIGINT, &g_previousInt, nullptr);
    sigaction(SIGTERM, &g_previousTerm, nullptr);
    g_stop = nullptr;
}

int RunStop::signals() const
{
    if (!m_ownsSignals) // a cancelled call counts as one signal: the run is stopped, what it finishes kept
        return m_stop.stopRequested() ? 1 : 0;
    return g_signals.load();
}

bool RunStop::abandoned() const
{
    return m_ownsSignals && g_signals.load() >= 2;
}

bool RunStop::timedOut() const
{
    const std::lock_guard lock(m_mutex);
    return m_timedOut;
}

std::string RunStop::message(const std::string &subject, const std::string &error) const
{
    if (timedOut())
        return subject + ": stopped after " + seconds(m_timeoutSeconds) + " s (--timeout " + seconds(m_timeoutSeconds) +
               ")";
    if (signals() > 0)
        return subject + (m_ownsSignals ? ": interrupted" : ": cancelled");
    return error;
}

} // namespace pyrometer::cli
