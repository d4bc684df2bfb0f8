// Batch-size sweeps: every variant timed at every batch, with its allocator peak. Includes
// libtorch.
#include "core/torch/sweep.h"

#include "core/torch/modelfile.h"
#include "core/torch/sessionimpl.h"
#include "core/torch/torcherror.h"
#include "core/torch/variantmodel.h"
#include "core/util/format.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace pyrometer::torch {
namespace {

std::string messageOf(const std::exception &error)
{
    if (const auto *torchError = dynamic_cast<const c10::Error *>(&error))
        return cleanTorchMessage(torchError->what_without_backtrace());
    return cleanTorchMessage(error.what());
}

} // namespace

Result<SweepReport> runSweep(const std::filesystem::path &path, const SweepOptions &options, const SweepCallback &onPoint,
                             ProgressReporter &progress, const StopToken &stop)
{
    const auto cancelled = [&] { return Error{path.string() + ": cancelled"}; };
    if (auto info = inspectModel(path); !info.ok())
        return info.error();
    SweepReport report;
    report.path = path;
    report.memoryBudgetBytes = std::max<std::int64_t>(0, options.memoryBudgetBytes);
    report.memorySource = "cpu-allocator";
    const auto energy = probeRapl(options.powercapRoot);
    if (!energy.available)
        report.energyUnavailable = energy.reason;
    auto given = givenOrRecordedInputs(path, options.inputs);
    if (!given.ok())
        return given.error();
    auto specs = std::move(given).value();
    const auto batched = batchedInputs(specs);
    if (std::find(batched.begin(), batched.end(), true) == batched.end())
        return Error{path.string() + ": the first input " + formatInputSpecs(specs) + " has no batch dimension to sweep"};
    report.inputs = withBatch(specs, 1);
    for (std::size_t i = 0; i < report.inputs.size(); ++i)
        report.inputs[i].sweptBatch = batched[i];
    for (const auto batch : options.batches)
        if (batch < 1)
            return Error{path.string() + ": batch sizes must be 1 or more, not " + std::to_string(batch)};

    const bool doubling = options.batches.empty();
    std::vector<std::int64_t> batches = options.batches;
    if (doubling)
        for (std::int64_t batch = 1; batch <= std::max<std::int64_t>(1, options.maxBatch); batch *= 2)
            batches.push_back(batch);
    const auto variants = options.variants.empty() ? std::vector<Variant>{Variant{}} : options.variants;
    const int warmup = std::max(0, options.warmup);
    const int iterations = std::max(1, options.iterations);
    const auto total = std::uint64_t(variants.size() * batches.size()) * std::uint64_t(warmup + iterations);
    std::uint64_t done = 0;
    const auto tick = [&] { progress.report(++done, total); };

    for (std::size_t v = 0; v < variants.size(); ++v) {
        SweepSummary summary;
        summary.variant = variantName(variants[v]);
        auto built = buildVariant(path, variants[v], withBatch(specs, batches.front()));
        std::int64_t modelBytes = 0;
        if (built.ok()) {
            try {
                modelBytes = serializedBytes(built.value());
            } catch (const std::exception &error) {
                summary.note = "weights not counted: " + messageOf(error);
            }
        } else {
            summary.error = built.error().message;
        }
        std::vector<ThroughputPoint> curve;
        for (std::size_t b = 0; built.ok() && b < batches.size(); ++b) {
            if (stop.stopRequested())
                return cancelled();
            const auto batch = batches[b];
            SweepPoint point;
            point.variant = summary.variant;
            point.batch = batch;
            try {
                const auto inputs = built->adapt(makeInputs(withBatch(specs, batch)));
                const auto inputBytes = tensorBytes(inputs);
                std::optional<TimedRuns> runs;
                std::int64_t peak = 0;
                {
                    AllocationPeak allocations;
                    runs = timeForwards(built.value(), inputs, warmup, iterations, stop, tick, &energy);
                    peak = allocations.peak();
                }
                if (!runs)
                    return cancelled();
                point.latency = latencyStats(std::move(runs->samplesMs));
                if (const auto perInference = energyPerInference(*runs, iterations, batch)) {
                    point.energyMjPerInference = perInference->aboveIdleMj;
                    point.machineEnergyMjPerInference = perInference->machineMj;
                    point.idlePowerW = perInference->idleWatts;
                }
                if (!runs->energyError.empty() && report.energyUnavailable.empty())
                    report.energyUnavailable = runs->energyError;
                point.throughputPerSecond = point.latency.mean > 0 ? double(batch) * 1000.0 / point.latency.mean : 0;
                point.peakMemoryBytes = modelBytes + inputBytes + peak;
            } catch (const std::exception &error) {
                const bool memory = isOutOfMemory(error);
                summary.note = "stopped at batch " + std::to_string(batch) + (memory ? ": out of memory: " : ": ") + messageOf(error);
                break;
            }
            point.fitsBudget = report.memoryBudgetBytes == 0 || point.peakMemoryBytes <= report.memoryBudgetBytes;
            if (point.fitsBudget)
                summary.largestFittingBatch = std::max(summary.largestFittingBatch, batch);
            curve.push_back({batch, point.throughputPerSecond});
            report.points.push_back(point);
            if (onPoint)
                onPoint(point);
            if (doubling && report.memoryBudgetBytes > 0 && b + 1 < batches.size()) {
                // Activations grow with the batch; weights do not.
                const auto next = modelBytes + (point.peakMemoryBytes - modelBytes) * (batches[b + 1] / batch);
                if (!point.fitsBudget || next > report.memoryBudgetBytes) {
                    summary.note = "stopped at batch " + std::to_string(batch) + ": batch " + std::to_string(batches[b + 1]) +
                                   " would need about " + formatBytes(std::uint64_t(next)) + ", over the budget of " +
                                   formatBytes(std::uint64_t(report.memoryBudgetBytes));
                    break;
                }
            }
        }
        summary.knee = findKnee(curve, options.kneeThreshold);
        report.summaries.push_back(std::move(summary));
        done = std::uint64_t((v + 1) * batches.size()) * std::uint64_t(warmup + iterations);
        progress.report(done, total);
    }
    progress.finish();
    return report;
}

} // namespace pyrometer::torch
