#include "ui/workspace/analyses.h"

namespace pyrometer::ui::analyses {

std::shared_ptr<const analysis::OpTable> opTable(const TraceDocument &document, const analysis::OpTableOptions &options,
                                                 const StopToken &stop)
{
    return document.analyses.get<analysis::OpTable>(
        options, stop, [&] { return analysis::buildOpTable(*document.index, options, &stop); });
}

std::shared_ptr<const analysis::KernelTable>
kernelTable(const TraceDocument &document, const analysis::KernelTableOptions &options, const StopToken &stop)
{
    return document.analyses.get<analysis::KernelTable>(
        options, stop, [&] { return analysis::buildKernelTable(*document.index, options, &stop); });
}

std::shared_ptr<const analysis::ModuleTable> moduleTable(const TraceDocument &document,
                                                         const analysis::TimeRange &range, const StopToken &stop)
{
    return document.analyses.get<analysis::ModuleTable>(
        range, stop, [&] { return analysis::buildModuleTable(*document.index, range, &stop); });
}

std::shared_ptr<const analysis::OpMemoryTable> opMemoryTable(const TraceDocument &document,
                                                             const analysis::TimeRange &range, const StopToken &stop)
{
    return document.analyses.get<analysis::OpMemoryTable>(
        range, stop, [&] { return analysis::buildOpMemoryTable(*document.index, range, &stop); });
}

std::shared_ptr<const analysis::MemoryReport>
memoryReport(const TraceDocument &document, const analysis::MemoryOptions &options, const StopToken &stop)
{
    return document.analyses.get<analysis::MemoryReport>(
        options, stop, [&] { return analysis::buildMemoryReport(*document.index, options, &stop); });
}

std::shared_ptr<const analysis::StepBreakdown> steps(const TraceDocument &document, const analysis::TimeRange &range,
                                                     const StopToken &stop)
{
    return document.analyses.get<analysis::StepBreakdown>(
        range, stop, [&] { return analysis::buildStepBreakdown(*document.index, range, &stop); });
}

std::shared_ptr<const analysis::LaunchStats> launchStats(const TraceDocument &document,
                                                         const analysis::TimeRange &range, const StopToken &stop)
{
    return document.analyses.get<analysis::LaunchStats>(
        range, stop, [&] { return analysis::buildLaunchStats(*document.index, range, &stop); });
}

std::shared_ptr<const analysis::IdleBreakdown> idleBreakdown(const TraceDocument &document,
                                                             const analysis::TimeRange &range, const StopToken &stop)
{
    return document.analyses.get<analysis::IdleBreakdown>(
        range, stop, [&] { return analysis::buildIdleBreakdown(*document.index, range, &stop); });
}

std::shared_ptr<const analysis::FlameTree> flameTree(const TraceDocument &document,
                                                     const analysis::FlameOptions &options, const StopToken &stop)
{
    return document.analyses.get<analysis::FlameTree>(
        options, stop, [&] { return analysis::buildFlameTree(*document.index, options, &stop); });
}

std::shared_ptr<const analysis::Roofline> roofline(const TraceDocument &document, const analysis::RooflineOptions &options,
                                                   const StopToken &stop)
{
    return document.analyses.get<analysis::Roofline>(
        options, stop, [&] { return analysis::buildRoofline(*document.index, options, &stop); });
}

} // namespace pyrometer::ui::analyses
