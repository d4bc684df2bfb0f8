#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// Runs of consecutive kernels on one stream that repeat: candidates for fusion or CUDA graphs.
struct KernelSequence {
    std::vector<std::string> kernels; // names, in launch order
    std::vector<std::string> ops;     // the op that launched each kernel ("" when unknown)
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::uint64_t occurrences = 0; // non-overlapping repeats on that stream
    std::int64_t totalNs = 0;      // the kernels' time over every occurrence
    std::int64_t gapNs = 0;        // summed idle time between the kernels inside the runs
    double replayedPct = 0;        // of its kernels' runs, those CUDA graph replays ran
    bool operator==(const KernelSequence &) const = default;
};

struct SequenceOptions {
    std::size_t minLength = 2;
    std::size_t maxLength = 16;
    std::uint64_t minOccurrences = 3;
    std::size_t top = 20; // 0 keeps every run
    TimeRange range;
    bool operator==(const SequenceOptions &) const = default;
};

// The most frequent runs (by occurrences x length, then time), a run dropped when a longer one
// of as many occurrences contains it; each row counts only occurrences on kernels no row ranked
// before it holds, so rows never count a kernel twice. Kernels only: memcpy and memset neither join nor break a
// run (rules in kernelsequences.cpp).
std::vector<KernelSequence> findKernelSequences(const TraceIndex &index, const SequenceOptions &options = {},
                                                const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
