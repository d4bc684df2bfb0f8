#include "core/torch/runner.h"

#include <algorithm>
#include <chrono>

namespace pyrometer::torch {
namespace {

template <typename F>
double timeMs(F &&f)
{
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

Result<LatencyReport> measureLatency(ModelSession &session, const RunOptions &options, ProgressReporter &progress, const StopToken &stop)
{
    const auto cancelled = [&] { return Error{session.path().string() + ": cancelled"}; };
    LatencyReport report;
    report.path = session.path();
    report.inputs = session.inputs();
    report.mode = session.mode();
    report.threads = session.threads();
    report.warmup = std::max(0, options.warmup);
    report.iterations = std::max(1, options.iterations);
    report.batchSize = batchSizeOf(report.inputs);
    const auto total = std::uint64_t(1 + report.warmup + report.iterations);
    std::optional<Error> failed;
    report.coldMs = timeMs([&] { failed = session.run(); });
    if (failed)
        return *failed;
    progress.report(1, total);
    for (int i = 0; i < report.warmup; ++i) {
        if (stop.stopRequested())
            return cancelled();
        if (auto error = session.run())
            return *error;
        progress.report(std::uint64_t(2 + i), total);
    }
    report.samplesMs.reserve(std::size_t(report.iterations));
    for (int i = 0; i < report.iterations; ++i) {
        if (stop.stopRequested())
            return cancelled();
        report.samplesMs.push_back(timeMs([&] { failed = session.run(); }));
        if (failed)
            return *failed;
        progress.report(std::uint64_t(2 + report.warmup + i), total);
    }
    report.warm = latencyStats(report.samplesMs);
    report.throughputPerSecond = report.warm.mean > 0 ? double(report.batchSize) * 1000.0 / report.warm.mean : 0;
    progress.finish();
    return report;
}

Result<LatencyReport> measureLatency(const std::filesystem::path &path, const RunOptions &options, ProgressReporter &progress,
                                     const StopToken &stop)
{
    auto session = ModelSession::open(path, options.inputs, options.mode, options.threads);
    if (!session.ok())
        return session.error();
    if (stop.stopRequested())
        return Error{path.string() + ": cancelled"};
    return measureLatency(*session.value(), options, progress, stop);
}

} // namespace pyrometer::torch
