#include "ui/overview/overviewdata.h"

#include <algorithm>

namespace pyrometer::ui::overview {

Result<OverviewData> computeOverview(std::shared_ptr<const trace::Trace> trace,
                                     std::shared_ptr<const analysis::TraceIndex> index, const StopToken &stop,
                                     ProgressReporter &progress)
{
    const Error cancelled{"overview cancelled"};
    OverviewData data;
    data.trace = std::move(trace);
    data.index = index ? std::move(index) : analysis::buildTraceIndex(*data.trace, &stop);
    if (!data.index || stop.stopRequested())
        return cancelled;
    const auto &ix = *data.index;
    const auto &info = data.trace->info;
    progress.reportPermille(300);

    data.steps = analysis::buildStepBreakdown(ix, {}, &stop).steps;
    data.hasProfilerSteps = !data.steps.empty();
    if (data.steps.empty() && info.spanEnd > info.spanStart) {
        data.steps.push_back(analysis::breakdownSpan(ix, info.spanStart, info.spanEnd));
        data.steps.back().name = "whole trace";
    }
    if (stop.stopRequested())
        return cancelled;
    // Over the step time when there are steps (warm-up, the profiler's own start and stop and
    // the gaps between steps lie outside it), else over the whole trace.
    data.utilization = analysis::gpuUtilization(ix, data.hasProfilerSteps ? data.steps : std::vector<analysis::StepRow>{});
    progress.reportPermille(500);

    analysis::OpTableOptions ops;
    ops.sort = analysis::OpSort::Self;
    ops.top = kTopRows;
    data.topOps = analysis::buildOpTable(ix, ops, &stop);
    analysis::KernelTableOptions kernels;
    kernels.top = kTopRows;
    data.topKernels = analysis::buildKernelTable(ix, kernels, &stop);
    progress.reportPermille(700);
    analysis::MemoryOptions memory;
    memory.curves = false;
    memory.topOps = 0;
    data.memory = analysis::buildMemoryReport(ix, memory, &stop);
    data.advice = analysis::adviseTrace(ix, {}, &stop);
    if (stop.stopRequested())
        return cancelled;
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
