#include "ui/workspace/jobload.h"

#include "core/trace/combine.h"
#include "core/trace/loader.h"
#include "core/trace/trace.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <set>

namespace pyrometer::ui {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("JobLoad", text);
}

QString rankList(const analysis::JobFigures &job, const std::vector<std::size_t> &indices)
{
    QStringList names;
    for (const auto i : indices)
        names.append(job.ranks[i].rank >= 0 ? QString::number(job.ranks[i].rank) : rankLabel(job.ranks[i]));
    return names.join(QStringLiteral(", "));
}

} // namespace

QString rankLabel(const analysis::RankFigures &rank)
{
    if (rank.rank >= 0)
        return tr("rank %1").arg(rank.rank);
    return QFileInfo(QString::fromStdString(rank.file)).fileName();
}

TimelineRanks chooseTimelineRanks(const analysis::JobFigures &job, std::size_t limit,
                                  const std::function<bool(std::size_t)> &readable)
{
    TimelineRanks chosen;
    const std::size_t count = job.ranks.size();
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < count; ++i) {
        if (readable ? readable(i) : QFileInfo(QString::fromStdString(job.ranks[i].file)).isFile())
            candidates.push_back(i);
    }
    const std::size_t away = count - candidates.size();
    if (candidates.empty()) {
        chosen.reason = count == 0 ? tr("The job has no ranks.")
                                   : tr("The Timeline shows no rank: no rank's trace file can be read from here "
                                        "(the job's summaries name them as they were where they were made).");
        return chosen;
    }
    const QString awayNote =
        away == 0 ? QString() : tr(" %1 of the %2 ranks' trace files cannot be read from here.").arg(away).arg(count);
    if (candidates.size() <= limit) {
        chosen.ranks = candidates;
        if (away > 0)
            chosen.reason =
                tr("The Timeline shows the %1 ranks whose traces can be read.").arg(candidates.size()) + awayNote;
        else
            chosen.reason = count == 1 ? tr("The Timeline shows the job's only rank.")
                                       : tr("The Timeline shows all %1 ranks.").arg(count);
        return chosen;
    }
    std::set<std::size_t> picked;
    std::vector<std::size_t> stragglers;
    for (const auto &straggler : job.stragglers) {
        for (const auto i : candidates) {
            if (picked.size() < limit && job.ranks[i].rank == straggler.rank && picked.insert(i).second)
                stragglers.push_back(i);
        }
    }
    // The rank whose compute per step is the median: what a typical rank does.
    std::vector<std::size_t> byCompute = candidates;
    const auto middle = byCompute.begin() + std::ptrdiff_t(byCompute.size() / 2);
    std::nth_element(byCompute.begin(), middle, byCompute.end(), [&](std::size_t a, std::size_t b) {
        return job.ranks[a].computePerStepUs() < job.ranks[b].computePerStepUs();
    });
    const std::size_t median = *middle;
    const bool medianAdded = picked.size() < limit && picked.insert(median).second;
    std::vector<std::size_t> lowest;
    for (const auto i : candidates) {
        if (picked.size() < limit && picked.insert(i).second)
            lowest.push_back(i);
    }
    chosen.ranks.assign(picked.begin(), picked.end());
    QStringList why;
    if (!stragglers.empty())
        why.append(tr("the straggler(s) %1").arg(rankList(job, stragglers)));
    if (medianAdded)
        why.append(tr("%1 (median compute per step)").arg(rankLabel(job.ranks[median])));
    if (!lowest.empty())
        why.append(tr("the lowest ranks %1").arg(rankList(job, lowest)));
    chosen.reason = tr("The Timeline shows %1 of the %2 ranks: %3.")
                        .arg(chosen.ranks.size())
                        .arg(count)
                        .arg(why.join(QStringLiteral("; "))) +
                    awayNote;
    return chosen;
}

Result<LoadedTrace> loadCombinedRanks(const analysis::JobFigures &job, const std::vector<std::size_t> &ranks,
                                      ProgressReporter &progress, const StopToken &stop)
{
    std::vector<trace::TracePart> parts;
    // Loading is most of the work; combining and indexing the last tenth.
    const std::uint64_t total = ranks.size() * 10 + 1;
    for (std::size_t n = 0; n < ranks.size(); ++n) {
        const auto &rank = job.ranks[ranks[n]];
        ProgressReporter reading(
            [&progress, n, total](int permille) { progress.report(n * 10 + std::uint64_t(permille) / 100, total); });
        auto loaded = trace::loadTrace(rank.file, {}, reading, stop);
        if (!loaded.ok())
            return loaded.error();
        const std::int64_t offset = ranks[n] < job.clockOffsetNs.size() ? job.clockOffsetNs[ranks[n]] : 0;
        parts.push_back({std::move(loaded).value(), offset, rankLabel(rank).toStdString()});
    }
    auto combined = trace::combineTraces(parts, &stop);
    parts.clear(); // the ranks' own traces are no longer needed
    if (!combined)
        return Error{"loading the job's ranks cancelled"};
    auto index = analysis::buildTraceIndex(*combined, &stop);
    if (!index)
        return Error{"loading the job's ranks cancelled"};
    return LoadedTrace{std::move(combined), std::move(index), nullptr, {}};
}

} // namespace pyrometer::ui
