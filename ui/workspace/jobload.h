#pragma once

#include "core/record/memorycategories.h"
#include "core/analysis/job.h"
#include "core/analysis/traceindex.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <QString>

#include <cstddef>
#include <functional>
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

// Which ranks of a job the Timeline shows: of the ranks whose trace can be read (readable(i); by
// default, whether job.ranks[i].file is a file here: a job opened from summaries made elsewhere
// may name traces this machine does not have), every rank up to `limit`; beyond it the
// stragglers, the rank of median compute per step and the lowest ranks, `limit` in all. Indices
// into job.ranks, in rank order, and the reason in words, which says how many cannot be read.
struct TimelineRanks {
    std::vector<std::size_t> ranks;
    QString reason;
};
TimelineRanks chooseTimelineRanks(const analysis::JobFigures &job, std::size_t limit = 8,
                                  const std::function<bool(std::size_t)> &readable = {});

// "rank 3", or the file's name for a trace that gives no rank.
QString rankLabel(const analysis::RankFigures &rank);

// Loads the chosen ranks' traces, puts them side by side on the job's clock (each shifted by
// its clockOffsetNs, its processes labelled "rank N") and indexes the result.
Result<LoadedTrace> loadCombinedRanks(const analysis::JobFigures &job, const std::vector<std::size_t> &ranks,
                                      ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::ui
