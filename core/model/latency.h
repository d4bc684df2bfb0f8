#pragma once
// Timed runs of a model: what a run is asked for and what its latency was.

#include "core/model/inputspec.h"
#include "core/util/noise.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::model {

enum class RunMode {
    Inference, // c10::InferenceMode: no autograd bookkeeping
    Train,     // module.train(), forward, the sum of the outputs as the loss, backward
};

struct RunOptions {
    std::vector<InputSpec> inputs; // empty: those the model records
    int warmup = 10;
    int iterations = 50;
    int threads = 0; // 0: libtorch's default
    RunMode mode = RunMode::Inference;
    bool operator==(const RunOptions &) const = default;
};

// Statistics of timed iterations, in milliseconds; percentiles interpolate linearly
// between order statistics (numpy's default).
struct LatencyStats {
    double mean = 0;
    double std = 0; // sample standard deviation
    double min = 0;
    double p50 = 0;
    double p90 = 0;
    double p99 = 0;
    double max = 0;
    std::size_t n = 0; // the runs it summarizes
    Sample sample() const { return {mean, std, n}; }
    bool operator==(const LatencyStats &) const = default;
};

struct LatencyReport {
    std::filesystem::path path;
    std::vector<InputSpec> inputs;
    RunMode mode = RunMode::Inference;
    int threads = 0; // as used
    int warmup = 0;
    int iterations = 0;
    std::int64_t batchSize = 1;
    // The first run after loading, apart: TorchScript's profiling executor records and
    // specializes the graph during its first calls.
    double coldMs = 0;
    LatencyStats warm;
    double throughputPerSecond = 0; // items (batchSize) per second at the mean latency
    std::vector<double> samplesMs;
    // Which engine and device ran it: "embedded libtorch 1.13.0 · cpu", "Python 3.13.5 · torch 2.6.0 · cuda".
    std::string engine;
    bool operator==(const LatencyReport &) const = default;
};

LatencyStats latencyStats(std::vector<double> samplesMs);

} // namespace pyrometer::model
