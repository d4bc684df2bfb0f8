#include "core/report/jobreport.h"

#include "core/analysis/collectivematch.h"
#include "core/analysis/job.h"
#include "core/report/reportrender.h"
#include "core/util/format.h"

#include <algorithm>
#include <cmath>

namespace pyrometer::report {
namespace {

// Up to this many ranks the chart has a labelled bar each; more are drawn as columns.
constexpr std::size_t kMaxRankBars = 128;

std::int64_t nanosOfMicros(double us)
{
    return std::llround(us * 1000.0);
}

std::string rankLabel(const analysis::RankFigures &rank)
{
    return rank.rank >= 0 ? "rank " + std::to_string(rank.rank) : std::filesystem::path(rank.file).filename().string();
}

std::string rankCell(const analysis::RankFigures &rank)
{
    return rank.rank >= 0 ? std::to_string(rank.rank) : "?";
}

// The five parts of the window, in ms, in kRankPartNames' order.
std::vector<double> partsMs(const analysis::RankFigures &rank)
{
    std::vector<double> values;
    for (const auto ns :
         {rank.computeOnlyNs, rank.hiddenCommunicationNs, rank.exposedCommunicationNs, rank.memoryOnlyNs, rank.idleNs})
        values.push_back(double(ns) / 1e6);
    return values;
}

std::int64_t othersWaitNs(const analysis::JobFigures &job, int rank)
{
    std::int64_t total = 0;
    for (std::size_t i = 0; i < job.ranks.size() && i < job.waitNs.size(); ++i) {
        if (job.ranks[i].rank != rank)
            total += job.waitNs[i];
    }
    return total;
}

std::string ranksFact(const analysis::JobFigures &job)
{
    const auto count = std::int64_t(job.ranks.size());
    if (job.worldSize > 0 && job.worldSize != count)
        return std::to_string(count) + " of a world of " + std::to_string(job.worldSize);
    return countOf(count, "rank");
}

Section summarySection(const analysis::JobFigures &job, const std::string &prefix)
{
    Section section{
        prefix + "job", "Distributed job of " + countOf(std::int64_t(job.ranks.size()), "rank"), 2, {}, {}, {}, {}};
    section.facts.push_back({"Ranks", ranksFact(job)});
    if (!job.backend.empty())
        section.facts.push_back({"Backend", job.backend});
    section.facts.push_back({"Clocks", job.anchor.empty() ? "not aligned" : job.anchor});
    if (!job.problems.empty())
        section.facts.push_back({"Problems", countOf(std::int64_t(job.problems.size()), "problem") + " (see below)"});
    section.paragraphs = stragglerSentences(job);
    return section;
}

Section ranksSection(const analysis::JobFigures &job, const std::string &prefix, const ReportOptions &options)
{
    Section section{prefix + "ranks", "Ranks", 3, {}, {}, {}, {}};
    if (job.ranks.empty()) {
        section.paragraphs.push_back("The job has no ranks.");
        return section;
    }
    section.paragraphs.push_back(
        "Each rank's window (its first step's start to its last step's end) split by what its GPUs did: compute, "
        "communication hidden behind compute, communication exposed (nothing else runs), memcpy and memset alone, "
        "and idle. Overlap is the share of communication that compute hides; wait is the time the rank spent in "
        "collectives waiting for the last rank to arrive.");
    if (job.ranks.size() <= kMaxRankBars)
        section.images.push_back({"One bar per rank: its window split into five parts, in ms", "image/svg+xml",
                                  renderSvg(rankChart(job)), 0});
    else
        section.images.push_back({"One column per rank in rank order: its window split into five parts, in ms",
                                  "image/svg+xml", renderSvg(rankColumnChart(job, options.maxChartColumns)), 0});

    const auto duration = [&](std::int64_t ns) { return formatDuration(ns, options.timeUnit); };
    Table table{"",
                {"Rank", "Steps", "Step time", "Compute", "Communication", "Exposed comm.", "Memory", "Idle", "Overlap",
                 "Wait", "Clock offset", "File"},
                {true, true, true, true, true, true, true, true, true, true, true, false},
                {},
                {false, false, false, false, false, false, false, false, false, false, false, true}};
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        const auto &rank = job.ranks[i];
        table.rows.push_back({rankCell(rank), std::to_string(rank.stepCount()),
                              duration(nanosOfMicros(rank.stepTimeUs)), duration(rank.computeNs),
                              duration(rank.communicationNs), duration(rank.exposedCommunicationNs),
                              duration(rank.memoryNs), duration(rank.idleNs), fixed(rank.overlapPct, 1) + " %",
                              duration(i < job.waitNs.size() ? job.waitNs[i] : 0),
                              duration(i < job.clockOffsetNs.size() ? job.clockOffsetNs[i] : 0), rank.file});
    }
    section.tables.push_back(std::move(table));
    return section;
}

Section stragglersSection(const analysis::JobFigures &job, const std::string &prefix, const ReportOptions &options)
{
    Section section{prefix + "stragglers", "Stragglers", 3, {}, {}, {}, {}};
    section.paragraphs.push_back(
        "A straggler computes more per step than the median of the other ranks: above 1.10 times it "
        "and, with three ranks or more, by more than three robust deviations of theirs. The others "
        "wait for it in every collective.");
    if (job.stragglers.empty()) {
        section.paragraphs.push_back(stragglerSentences(job).front());
        return section;
    }
    const auto duration = [&](double us) { return formatDuration(nanosOfMicros(us), options.timeUnit); };
    Table table{"",
                {"Rank", "Compute per step", "Others' median", "Ratio", "Others' wait"},
                {true, true, true, true, true},
                {},
                {}};
    for (const auto &straggler : job.stragglers)
        table.rows.push_back({std::to_string(straggler.rank), duration(straggler.computePerStepUs),
                              duration(straggler.othersMedianUs), fixed(straggler.ratio, 2) + "x",
                              formatDuration(othersWaitNs(job, straggler.rank), options.timeUnit)});
    section.tables.push_back(std::move(table));
    return section;
}

Section collectivesSection(const analysis::JobFigures &job, const std::string &prefix, const ReportOptions &options)
{
    Section section{prefix + "collectives", "Collectives", 3, {}, {}, {}, {}};
    if (job.collectives.empty()) {
        section.paragraphs.push_back("No rank ran a collective in its window.");
        return section;
    }
    const bool grouped = std::any_of(job.collectives.begin(), job.collectives.end(), [](const auto &row) {
        return !row.group.empty() || !row.groupRanks.empty();
    });
    section.paragraphs.push_back(
        std::string(grouped ? "Over all ranks, by process group, collective and message size. "
                            : "Over all ranks, by collective and message size. ") +
        "Bus bandwidth is nccl-tests': the algorithm bandwidth (bytes x calls / time) times 2(n-1)/n for "
        "all_reduce, (n-1)/n for all_gather, reduce_scatter and all_to_all, n the ranks of the call's group.");
    Table table{"",
                {"Collective", "Message", "Ranks", "Calls", "Time", "algbw GB/s", "busbw GB/s"},
                {false, true, true, true, true, true, true},
                {},
                {}};
    if (grouped) {
        table.header.insert(table.header.begin() + 1, {"Group", "Members"});
        table.rightAligned.insert(table.rightAligned.begin() + 1, {false, false});
    }
    for (const auto &row : job.collectives) {
        const bool known = row.bytes >= 0;
        std::vector<std::string> cells{row.name, known ? formatBytes(std::uint64_t(row.bytes)) : "unknown",
                                       row.groupSize > 0 ? std::to_string(row.groupSize) : "?",
                                       std::to_string(row.calls), formatDuration(row.timeNs, options.timeUnit),
                                       known ? fixed(row.algbwGBps, 2) : "-", known ? fixed(row.busbwGBps, 2) : "-"};
        if (grouped)
            cells.insert(cells.begin() + 1, {analysis::processGroupLabel(row.group, row.groupDesc), row.groupRanks});
        table.rows.push_back(std::move(cells));
    }
    section.tables.push_back(std::move(table));
    return section;
}

Section problemsSection(const analysis::JobFigures &job, const std::string &prefix)
{
    Section section{prefix + "problems", "Problems and clocks", 3, {}, {}, {}, {}};
    section.paragraphs = job.problems;
    if (job.problems.empty())
        section.paragraphs.push_back("None: every rank's file named a rank, once, of the same job.");
    for (const auto &note : job.notes)
        section.paragraphs.push_back("Note: " + note + ".");
    section.paragraphs.push_back(anchorSentence(job));
    return section;
}

} // namespace

std::vector<std::string> stragglerSentences(const analysis::JobFigures &job)
{
    std::vector<std::string> sentences;
    for (const auto &straggler : job.stragglers)
        sentences.push_back("Straggler: rank " + std::to_string(straggler.rank) + " \u2014 " + straggler.reason +
                            "; the others waited " + formatDuration(othersWaitNs(job, straggler.rank)) +
                            " in collectives.");
    if (!sentences.empty())
        return sentences;
    if (job.ranks.size() < 2)
        return {"No straggler: a job of one rank has no one to compare it with."};
    const auto less = [](const auto &a, const auto &b) { return a.computePerStepUs() < b.computePerStepUs(); };
    const auto fastest = std::min_element(job.ranks.begin(), job.ranks.end(), less);
    const auto slowest = std::max_element(job.ranks.begin(), job.ranks.end(), less);
    return {"No straggler: compute per step runs from " + formatDuration(nanosOfMicros(fastest->computePerStepUs())) +
            " (" + rankLabel(*fastest) + ") to " + formatDuration(nanosOfMicros(slowest->computePerStepUs())) + " (" +
            rankLabel(*slowest) + "), no rank far enough above the others' median to hold them back."};
}

std::string anchorSentence(const analysis::JobFigures &job)
{
    if (job.anchor.empty())
        return "Clocks: not aligned.";
    return "Clocks: " + job.anchor + ".";
}

StackedBarChart rankChart(const analysis::JobFigures &job)
{
    StackedBarChart chart;
    chart.title = "Each rank's window by what its GPUs did";
    chart.unit = "ms";
    chart.seriesNames.assign(kRankPartNames.begin(), kRankPartNames.end());
    chart.seriesColors.assign(kRankPartColors.begin(), kRankPartColors.end());
    for (const auto &rank : job.ranks)
        chart.bars.push_back({rankLabel(rank), partsMs(rank)});
    return chart;
}

ColumnChart rankColumnChart(const analysis::JobFigures &job, std::size_t maxColumns)
{
    ColumnChart chart;
    chart.title = "Each rank's window by what its GPUs did";
    chart.unit = "ms";
    chart.xLabel = "rank's place in rank order, from 1";
    chart.seriesNames.assign(kRankPartNames.begin(), kRankPartNames.end());
    chart.seriesColors.assign(kRankPartColors.begin(), kRankPartColors.end());
    chart.itemCount = job.ranks.size();
    // Consecutive ranks averaged into one column beyond maxColumns, the highest of them marked.
    chart.itemsPerColumn = std::max<std::size_t>(1, (job.ranks.size() + std::max<std::size_t>(1, maxColumns) - 1) /
                                                        std::max<std::size_t>(1, maxColumns));
    for (std::size_t first = 0; first < job.ranks.size(); first += chart.itemsPerColumn) {
        const auto last = std::min(job.ranks.size(), first + chart.itemsPerColumn);
        ColumnChart::Column column{std::vector<double>(kRankPartNames.size(), 0.0), 0};
        for (std::size_t i = first; i < last; ++i) {
            const auto parts = partsMs(job.ranks[i]);
            double total = 0;
            for (std::size_t s = 0; s < parts.size(); ++s) {
                column.values[s] += parts[s] / double(last - first);
                total += parts[s];
            }
            column.max = last - first > 1 ? std::max(column.max, total) : 0;
        }
        chart.columns.push_back(std::move(column));
    }
    return chart;
}

std::vector<Section> jobSections(const analysis::JobFigures &job, const std::string &idPrefix,
                                 const ReportOptions &options)
{
    std::vector<Section> sections;
    sections.push_back(summarySection(job, idPrefix));
    sections.push_back(ranksSection(job, idPrefix, options));
    sections.push_back(stragglersSection(job, idPrefix, options));
    sections.push_back(collectivesSection(job, idPrefix, options));
    sections.push_back(problemsSection(job, idPrefix));
    return sections;
}

} // namespace pyrometer::report
