#include "ui/workspace/jobload.h"

#include "core/summary/timelineranks.h"

namespace pyrometer::ui {

QString rankLabel(const analysis::RankFigures &rank)
{
    return QString::fromStdString(summary::rankLabel(rank));
}

Result<LoadedTrace> loadCombinedRanks(const analysis::JobFigures &job, const std::vector<std::size_t> &ranks,
                                      ProgressReporter &progress, const StopToken &stop)
{
    auto combined = summary::loadCombinedRanks(job, ranks, progress, stop);
    if (!combined.ok())
        return combined.error();
    return LoadedTrace{std::move(combined.value().trace), std::move(combined.value().index), nullptr, {}};
}

} // namespace pyrometer::ui
