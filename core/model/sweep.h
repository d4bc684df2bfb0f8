#pragma once

#include "core/model/knee.h"
#include "core/model/variant.h"

#include <functional>
#include <optional>

namespace pyrometer::model {

struct SweepOptions {
    std::vector<InputSpec> inputs;     // the shapes at any batch; empty: those the model records
    std::vector<std::int64_t> batches; // in this order; empty: 1, 2, 4, ... up to the budget or maxBatch
    std::vector<Variant> variants{Variant{}};
    std::int64_t memoryBudgetBytes = 0; // 0: none
    std::int64_t maxBatch = 1024;       // the doubling range's end when no budget stops it sooner
    int warmup = 3;
    int iterations = 10;
    double kneeThreshold = 0.10;
    // Where the RAPL energy counters are (Linux's powercap tree); tests point it elsewhere.
    std::filesystem::path powercapRoot = "/sys/class/powercap";
    bool operator==(const SweepOptions &) const = default;
};

// One (variant, batch) measurement.
struct SweepPoint {
    std::string variant;
    std::int64_t batch = 0;
    LatencyStats latency;           // ms per run of the whole batch
    double throughputPerSecond = 0; // samples per second at the mean latency
    // Weights and inputs plus the highest bytes the CPU allocator held above them during the
    // runs (see SweepReport::memorySource); kNotMeasured where nothing measures it (the Python
    // engine on the CPU).
    static constexpr std::int64_t kNotMeasured = -1;
    std::int64_t peakMemoryBytes = 0;
    bool fitsBudget = true; // peakMemoryBytes <= the budget (true without one; false when not measured)
    bool memoryMeasured() const { return peakMemoryBytes != kNotMeasured; }
    // Energy of the timed runs per inference (one sample), from the RAPL counters: above the
    // machine's idle draw, and all the counters saw; none where they cannot be read
    // (SweepReport::energyUnavailable says why).
    std::optional<double> energyMjPerInference;
    std::optional<double> machineEnergyMjPerInference;
    std::optional<double> idlePowerW; // the counters' draw over a wait before the timed runs
    bool operator==(const SweepPoint &) const = default;
};

// What one variant's sweep found.
struct SweepSummary {
    std::string variant;
    std::optional<Knee> knee;
    std::int64_t largestFittingBatch = 0; // the largest measured batch within the budget; 0: none
    std::string error;                    // why it could not be built; empty when it ran
    std::string note;                     // where and why it stopped early (out of memory, budget)
    bool operator==(const SweepSummary &) const = default;
};

struct SweepReport {
    std::filesystem::path path;
    std::vector<InputSpec> inputs; // at batch 1, the swept dimensions marked (written "B")
    std::int64_t memoryBudgetBytes = 0;
    // How peak memory was measured: "cpu-allocator" (libtorch's CPU allocator reports every
    // allocation and free made on the running thread), "cuda-allocator" (torch's
    // max_memory_allocated), "" when not measured.
    std::string memorySource;
    std::string energyUnavailable;  // why there is no energy figure, said once; empty when read
    std::vector<SweepPoint> points; // per variant in option order, batches in measured order
    std::vector<SweepSummary> summaries;
    // Which engine and device ran it: "embedded libtorch 1.13.0 · cpu", "Python 3.13.5 · torch 2.6.0 · cuda".
    std::string engine;
    bool operator==(const SweepReport &) const = default;
};

// "4GiB", "512MiB", "2GB", "1000000" (bytes): binary and decimal units, case-insensitive.
std::optional<std::int64_t> parseByteSize(std::string_view text);

// The inputs with their first (batch) dimension set to batch, as concrete shapes: the inputs
// written "B..." where any is; otherwise every input whose first dimension equals the first
// input's.
std::vector<InputSpec> withBatch(const std::vector<InputSpec> &inputs, std::int64_t batch);

// Which inputs' first dimension is the batch: those written "B..." where any is, otherwise
// those whose first dimension equals the first input's.
std::vector<bool> batchedInputs(const std::vector<InputSpec> &inputs);

// Hears of each sweep point as soon as it is measured.
using SweepCallback = std::function<void(const SweepPoint &)>;

} // namespace pyrometer::model
