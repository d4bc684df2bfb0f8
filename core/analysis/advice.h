#pragma once

#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

struct Evidence {
    std::string name; // "dataloader_pct"
    double value = 0;
    std::string unit; // "%", "us", "count", "bytes"
    bool operator==(const Evidence &) const = default;
};

// One finding: what was seen, the numbers and events behind it, and the fix the PyTorch
// performance guides suggest.
struct Finding {
    std::string rule; // stable id: "dataloader", "sync", "gpu_idle", "tiny_kernels", ...
    std::string title;
    std::string detail;
    std::vector<Evidence> evidence;
    std::vector<EventRef> events; // a few examples, for "show in timeline"
    std::int64_t startNs = 0;     // the time range the finding is about
    std::int64_t endNs = 0;
    std::string fix;
    bool operator==(const Finding &) const = default;
};

// Thresholds; the defaults are those of the issue (and of the TensorBoard plugin's advice).
struct AdviceOptions {
    double dataLoaderFraction = 0.05;   // of a step
    double gpuIdleFraction = 0.10;      // of a step
    std::int64_t tinyKernelNs = 10'000; // kernels under this are launch-bound
    double tinyKernelFraction = 0.5;    // of the kernels
    std::uint64_t tinyKernelMinCount = 50;
    double dominantOpFraction = 0.40;  // of the summed self time
    std::uint64_t churnPerStep = 1000; // allocations plus frees per step
    double slowKernelFraction = 0.10;  // fp32 / NCHW kernels: of device time
    double repeatedGapFraction = 0.25; // a repeating kernel run: idle inside it, of its kernel time
    double syncFraction = 0.02;        // the host's blocking calls, of the step time
    double allocatorFraction = 0.05;   // runtime allocation and free calls, of the step time
    std::uint64_t allocatorMinCalls = 10;
    bool operator==(const AdviceOptions &) const = default;
};

std::vector<Finding> adviseTrace(const TraceIndex &index, const AdviceOptions &options = {},
                                 const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
