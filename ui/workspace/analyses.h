#pragma once

#include "core/analysis/flametree.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/launches.h"
#include "core/analysis/memory.h"
#include "core/analysis/moduletable.h"
#include "core/analysis/opmemory.h"
#include "core/analysis/optable.h"
#include "core/analysis/roofline.h"
#include "core/analysis/steps.h"
#include "ui/workspace/document.h"

#include <memory>

// The analyses pages ask of a trace document: the core/analysis functions over its index,
// computed once per options and range and shared through the document's cache. Called in
// jobs; each returns null when stopped.
namespace pyrometer::ui::analyses {

std::shared_ptr<const analysis::OpTable> opTable(const TraceDocument &document, const analysis::OpTableOptions &options,
                                                 const StopToken &stop);
std::shared_ptr<const analysis::KernelTable>
kernelTable(const TraceDocument &document, const analysis::KernelTableOptions &options, const StopToken &stop);
std::shared_ptr<const analysis::ModuleTable> moduleTable(const TraceDocument &document,
                                                         const analysis::TimeRange &range, const StopToken &stop);
std::shared_ptr<const analysis::OpMemoryTable> opMemoryTable(const TraceDocument &document,
                                                             const analysis::TimeRange &range, const StopToken &stop);
std::shared_ptr<const analysis::MemoryReport>
memoryReport(const TraceDocument &document, const analysis::MemoryOptions &options, const StopToken &stop);
std::shared_ptr<const analysis::StepBreakdown> steps(const TraceDocument &document, const analysis::TimeRange &range,
                                                     const StopToken &stop);
std::shared_ptr<const analysis::LaunchStats> launchStats(const TraceDocument &document,
                                                         const analysis::TimeRange &range, const StopToken &stop);
std::shared_ptr<const analysis::IdleBreakdown> idleBreakdown(const TraceDocument &document,
                                                             const analysis::TimeRange &range, const StopToken &stop);
std::shared_ptr<const analysis::FlameTree> flameTree(const TraceDocument &document,
                                                     const analysis::FlameOptions &options, const StopToken &stop);

std::shared_ptr<const analysis::Roofline> roofline(const TraceDocument &document, const analysis::RooflineOptions &options,
                                                   const StopToken &stop);

} // namespace pyrometer::ui::analyses
