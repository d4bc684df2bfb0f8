#include "ui/overview/overviewdata.h"

#include "core/analysis/workclass.h"

#include "ui/workspace/analyses.h"

#include <algorithm>

namespace pyrometer::ui::overview {

Result<OverviewData> computeOverview(const TraceDocument &document, const StopToken &stop, ProgressReporter &progress)
{
    const Error cancelled{"overview cancelled"};
    OverviewData data;
    data.trace = document.trace;
    data.index = document.index;
    const auto &ix = *data.index;
    const auto &info = data.trace->info;
    const auto steps = analyses::steps(document, {}, stop);
    if (!steps)
        return cancelled;
    progress.reportPermille(300);

    data.steps = steps->steps;
    data.hasProfilerSteps = !data.steps.empty();
    data.stepRule = analysis::stepRuleText(steps->rule, steps->ruleExample);
    data.accelerator = QString::fromStdString(analysis::acceleratorName(ix));
    for (const auto &track : ix.tracks)
        data.pythonFrames +=
            std::uint64_t(std::count(track.kind.begin(), track.kind.end(), analysis::EventKind::Python));
    if (data.steps.empty() && info.spanEnd > info.spanStart) {
        data.steps.push_back(analysis::breakdownSpan(ix, info.spanStart, info.spanEnd));
        data.steps.back().name = "whole trace";
    }
    if (stop.stopRequested())
        return cancelled;
    // Over the step time when there are steps (warm-up, the profiler's own start and stop and
    // the gaps between steps lie outside it), else over the whole trace.
    data.utilization =
        analysis::gpuUtilization(ix, data.hasProfilerSteps ? data.steps : std::vector<analysis::StepRow>{});
    progress.reportPermille(500);

    analysis::OpTableOptions ops;
    ops.sort = analysis::OpSort::Self;
    ops.top = kTopRows;
    const auto topOps = analyses::opTable(document, ops, stop);
    analysis::KernelTableOptions kernels;
    kernels.top = kTopRows;
    const auto topKernels = analyses::kernelTable(document, kernels, stop);
    progress.reportPermille(700);
    analysis::MemoryOptions memory;
    memory.curves = false;
    memory.topOps = 0;
    const auto memoryReport = analyses::memoryReport(document, memory, stop);
    data.advice = analysis::adviseTrace(ix, {}, &stop);
    if (!topOps || !topKernels || !memoryReport || stop.stopRequested())
        return cancelled;
    if (ix.hasDevice) {
        data.kernelTypes = analysis::buildKernelTypeBreakdown(ix, {}, &stop);
        // Each stream's idle time over every step: the per-step rows summed.
        const auto idle = analyses::idleBreakdown(document, {}, stop);
        const auto launches = analyses::launchStats(document, {}, stop);
        if (!idle || !launches)
            return cancelled;
        for (const auto &row : idle->streams) {
            auto found =
                std::find_if(data.streamIdle.begin(), data.streamIdle.end(), [&](const analysis::StreamIdle &s) {
                    return s.device == row.device && s.stream == row.stream;
                });
            if (found == data.streamIdle.end()) {
                data.streamIdle.push_back({{}, row.device, row.stream, 0, 0, {}});
                found = data.streamIdle.end() - 1;
            }
            found->spanNs += row.spanNs;
            found->busyNs += row.busyNs;
            for (std::size_t c = 0; c < analysis::kIdleCauseCount; ++c)
                found->idleNs[c] += row.idleNs[c];
        }
        for (const auto &queue : launches->queues) {
            if (queue.maxLength > data.maxQueueLength) {
                data.maxQueueLength = queue.maxLength;
                data.maxQueueDevice = queue.device;
                data.maxQueueStream = queue.stream;
            }
        }
        if (stop.stopRequested())
            return cancelled;
    }
    data.topOps = *topOps;
    data.topKernels = *topKernels;
    data.memory = *memoryReport;
    data.memoryCategories = document.memoryCategories;
    data.memoryCategoriesError = document.memoryCategoriesError;
    return data;
}

TimelineJump jumpFor(const analysis::Finding &finding, const trace::Trace &trace)
{
    TimelineJump jump{finding.events, finding.startNs, finding.endNs};
    if (jump.events.empty())
        return jump;
    // Examples say more than the finding's whole range: show them.
    jump.startNs = std::numeric_limits<std::int64_t>::max();
    jump.endNs = std::numeric_limits<std::int64_t>::min();
    for (const auto &e : jump.events) {
        const auto &track = trace.track(e.track);
        jump.startNs = std::min(jump.startNs, track.start[e.event.value]);
        jump.endNs = std::max(jump.endNs, track.end(e.event));
    }
    return jump;
}

} // namespace pyrometer::ui::overview
