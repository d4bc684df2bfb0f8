#pragma once

// Which of a job's ranks its Timeline shows, whether a rank's trace on this machine is the file
// its figures were made from, and the chosen ranks loaded side by side on the job's clock. The
// window's job pages use it; it needs no window.
#include "core/analysis/job.h"
#include "core/analysis/traceindex.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::trace {
class Trace;
}

namespace pyrometer::summary {

// "rank 3", or the file's name for a trace that gives no rank.
std::string rankLabel(const analysis::RankFigures &rank);

// Where a rank's trace is, seen from this machine.
enum class RankTrace {
    Here,      // a file at rank.file, of the size the rank's summary was made from (if any)
    Missing,   // no file there: a job opened from summaries made elsewhere
    Different, // a file of another size than the one its summary was made from
};

// From the path and the file's size only (a stat): cheap enough for a menu.
RankTrace rankTraceHere(const analysis::RankFigures &rank);

// Why the file at rank.file is not the one the rank's summary was made from: its size, then
// (same size) its CRC-32, which reads the whole file. Nothing when it is, or when the figures
// were not read from a summary (summarisedBytes 0).
std::optional<std::string> traceDiffersFromSummary(const analysis::RankFigures &rank);

// Which ranks the Timeline shows: of the ranks whose trace is here (where(i); by default
// rankTraceHere(job.ranks[i])), every rank up to `limit`; beyond it the stragglers, the rank of
// median compute per step and the lowest ranks, `limit` in all. Indices into job.ranks, in rank
// order, and the reason in words, which says how many cannot be read and how many are not the
// files their summaries were made from.
struct TimelineRanks {
    std::vector<std::size_t> ranks;
    std::string reason;
};
TimelineRanks chooseTimelineRanks(const analysis::JobFigures &job, std::size_t limit = 8,
                                  const std::function<RankTrace(std::size_t)> &where = {});

// The chosen ranks' traces side by side on the job's clock (each shifted by its clockOffsetNs,
// its processes labelled "rank N"), indexed. A rank whose file is not the one its summary was
// made from fails the load, naming the file and how it differs.
struct CombinedRanks {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
};
Result<CombinedRanks> loadCombinedRanks(const analysis::JobFigures &job, const std::vector<std::size_t> &ranks,
                                        ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::summary
