#include "core/analysis/ranksummary.h"

#include "core/analysis/memory.h"

namespace pyrometer::analysis {

RankSummary summariseRank(const TraceIndex &index, const StopToken *stop)
{
    RankSummary summary;
    summary.figures = rankFigures(index, stop);

    OpTableOptions ops;
    ops.top = kSummaryTopRows;
    auto opTable = buildOpTable(index, ops, stop);
    summary.topOps = std::move(opTable.rows);
    summary.opSelfSumNs = opTable.selfSumNs;

    KernelTableOptions kernels;
    kernels.top = kSummaryTopRows;
    auto kernelTable = buildKernelTable(index, kernels, stop);
    summary.topKernels = std::move(kernelTable.rows);
    summary.kernelTotalNs = kernelTable.totalNs;

    MemoryOptions memory;
    memory.curves = false;
    memory.topOps = 0;
    for (const auto &device : buildMemoryReport(index, memory, stop).devices)
        summary.memoryPeaks.push_back({device.device, device.peakBytes, device.peakTimeNs});
    return summary;
}

} // namespace pyrometer::analysis
