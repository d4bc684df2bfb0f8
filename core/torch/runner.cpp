#include "core/torch/runner.h"

#include "core/util/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

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

LatencyStats latencyStats(std::vector<double> samples)
{
    LatencyStats stats;
    if (samples.empty())
        return stats;
    std::sort(samples.begin(), samples.end());
    const double n = double(samples.size());
    stats.n = samples.size();
    stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
    double squares = 0;
    for (const auto sample : samples)
        squares += (sample - stats.mean) * (sample - stats.mean);
    stats.std = samples.size() > 1 ? std::sqrt(squares / (n - 1)) : 0;
    stats.min = samples.front();
    stats.max = samples.back();
    stats.p50 = percentile(samples, 50);
    stats.p90 = percentile(samples, 90);
    stats.p99 = percentile(samples, 99);
    return stats;
}

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
