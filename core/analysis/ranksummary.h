#pragma once

#include "core/analysis/distributed.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// What the job views need of one rank, and nothing more: the unit that crosses machines. A rank
// is summarised where its trace lies (one task of a cluster's job array) and the window opens
// the merged summaries. The figures are the ones the in-process job computes (rankFigures), so
// the two can never disagree.

struct MemoryPeak {
    std::string device; // "cpu", "cuda:0"
    std::int64_t peakBytes = 0;
    std::int64_t peakTimeNs = 0;
    bool operator==(const MemoryPeak &) const = default;
};

struct RankSummary {
    RankFigures figures; // figures.file: the trace's path, as given when summarised

    // The trace file as it was summarised, to tell whether a file found later is the same one.
    std::uint64_t traceBytes = 0;
    std::uint32_t traceCrc32 = 0;

    std::vector<OpRow> topOps;           // key_averages by name, by self time, longest first
    std::int64_t opSelfSumNs = 0;        // over every op, not only the top ones
    std::vector<KernelRow> topKernels;   // kernels, memcpy and memset by total time
    std::int64_t kernelTotalNs = 0;      // over every device event
    std::vector<MemoryPeak> memoryPeaks; // per device, cpu first

    bool operator==(const RankSummary &) const = default;
};

// Rows kept of the operator and kernel tables.
inline constexpr std::size_t kSummaryTopRows = 20;

// The summary of the rank whose trace index is given; traceBytes and traceCrc32 are the caller's
// (they describe the file, not the trace). figures.file is left empty for the caller too.
RankSummary summariseRank(const TraceIndex &index, const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
