#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace pyrometer {

// A cancellation flag shared between the thread that asks and the loop that obeys.
// Copies share the same flag; long loops call stopRequested() often enough to stop
// within 100 ms.
class StopToken {
public:
    StopToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}

    void requestStop() const { m_flag->store(true, std::memory_order_relaxed); }
    bool stopRequested() const { return m_flag->load(std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> m_flag;
};

// Progress of a long job on a 0..1000 scale. report() forwards to the sink only when the
// value moved by at least one step (0.1%) and at most every 50 ms, so a tight loop can call
// it for every item without flooding a GUI with signals.
class ProgressReporter {
public:
    static constexpr int kScale = 1000;
    using Sink = std::function<void(int permille)>;

    ProgressReporter() = default;
    explicit ProgressReporter(Sink sink, std::chrono::milliseconds minInterval = std::chrono::milliseconds(50));

    // Reports done/total; total 0 counts as no progress.
    void report(std::uint64_t done, std::uint64_t total);
    void reportPermille(int permille);
    // Always forwards 1000, whatever the throttle says.
    void finish();

    int lastReported() const { return m_last; }

private:
    Sink m_sink;
    std::chrono::milliseconds m_minInterval{0};
    std::chrono::steady_clock::time_point m_lastTime{};
    int m_last = -1;
};

} // namespace pyrometer
