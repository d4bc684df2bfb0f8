#pragma once

#include "core/record/memorycategories.h"
#include "core/analysis/job.h"
#include "core/analysis/traceindex.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <QString>

#include <cstddef>
#include <memory>
#include <vector>

namespace pyrometer::trace {
class Trace;
}

namespace pyrometer::ui {

// A loaded trace and its analysis index, built in the same job: every page needs it.
struct LoadedTrace {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
    std::shared_ptr<const record::MemoryCategories> memoryCategories; // a recorded program's, beside the trace
    QString memoryCategoriesError;                                    // why that file could not be read
};

// "rank 3", or the file's name for a trace that gives no rank (summary::rankLabel).
QString rankLabel(const analysis::RankFigures &rank);

// summary::loadCombinedRanks as a loaded trace for the Timeline.
Result<LoadedTrace> loadCombinedRanks(const analysis::JobFigures &job, const std::vector<std::size_t> &ranks,
                                      ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::ui
