#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QMetaType>
#include <QString>

#include "core/analysis/advice.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/memory.h"
#include "core/analysis/optable.h"
#include "core/analysis/steps.h"
#include "core/analysis/utilization.h"
#include "core/util/result.h"
#include "ui/workspace/document.h"

#include <memory>
#include <vector>

namespace pyrometer::ui::overview {

// Everything the Overview page shows of one trace, computed off the GUI thread.
struct OverviewData {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
    std::vector<analysis::StepRow> steps; // ProfilerSteps; one row "whole trace" when it has none
    bool hasProfilerSteps = false;        // steps of any rule (stepspans.h findSteps)
    std::string stepRule;                 // how they were found, a sentence
    QString accelerator = QStringLiteral("GPU"); // the device's word (workclass.h): "GPU", "MTIA"
    std::uint64_t pythonFrames = 0;              // python_function events: what a trace without ops holds
    analysis::GpuUtilization utilization; // per GPU, over the step time (or the span without steps)
    analysis::OpTable topOps;             // by self time
    analysis::KernelTable topKernels;     // by total time
    analysis::MemoryReport memory;        // peaks only, no curves
    // A recorded program's memory by category (the file beside the trace), and why it could not be read.
    std::shared_ptr<const record::MemoryCategories> memoryCategories;
    QString memoryCategoriesError;
    std::vector<analysis::Finding> advice;
    // GPU traces only: time per kernel type, each stream's idle time by cause summed over the
    // steps, and the longest queue of launched kernels on one stream.
    analysis::KernelTypeBreakdown kernelTypes;
    std::vector<analysis::StreamIdle> streamIdle; // one row per stream, over every step (step "")
    std::int32_t maxQueueLength = 0;
    std::int32_t maxQueueDevice = -1;
    std::int32_t maxQueueStream = -1;
};

// Where a finding or a table row leads: events to highlight and a range to show in the
// timeline (either may be empty).
struct TimelineJump {
    std::vector<analysis::EventRef> events;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

inline constexpr std::size_t kTopRows = 10;

// The analyses of the Overview page over a trace document, through its cache.
Result<OverviewData> computeOverview(const TraceDocument &document, const StopToken &stop, ProgressReporter &progress);

// A finding's jump: its example events and their extent, else the finding's range.
TimelineJump jumpFor(const analysis::Finding &finding, const trace::Trace &trace);

} // namespace pyrometer::ui::overview

Q_DECLARE_METATYPE(pyrometer::ui::overview::TimelineJump)
