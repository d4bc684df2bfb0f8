#include "core/summary/timelineranks.h"

#include "core/trace/checksum.h"
#include "core/trace/combine.h"
#include "core/trace/loader.h"
#include "core/trace/trace.h"
#include "core/util/format.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <system_error>

namespace pyrometer::summary {

namespace fs = std::filesystem;

namespace {

std::string rankList(const analysis::JobFigures &job, const std::vector<std::size_t> &indices)
{
    std::string names;
    for (const auto i : indices)
        names += (names.empty() ? "" : ", ") +
                 (job.ranks[i].rank >= 0 ? std::to_string(job.ranks[i].rank) : rankLabel(job.ranks[i]));
    return names;
}

std::string crcText(std::uint32_t crc)
{
    char text[16];
    std::snprintf(text, sizeof text, "%08x", crc);
    return text;
}

// "2 of the 20 ranks' trace files cannot be read from here; 1 is not the file its summary
// was made from." with a leading space, or nothing.
std::string awayNote(std::size_t missing, std::size_t different, std::size_t count)
{
    std::string note;
    if (missing > 0)
        note += " " + std::to_string(missing) + " of the " + std::to_string(count) +
                " ranks' trace files cannot be read from here.";
    if (different == 1)
        note += " 1 rank's trace is not the file its summary was made from (its size differs).";
    else if (different > 1)
        note += " " + std::to_string(different) + " ranks' traces are not the files their summaries were made from "
                "(their sizes differ).";
    return note;
}

} // namespace

std::string rankLabel(const analysis::RankFigures &rank)
{
    if (rank.rank >= 0)
        return "rank " + std::to_string(rank.rank);
    return fs::path(rank.file).filename().string();
}

RankTrace rankTraceHere(const analysis::RankFigures &rank)
{
    std::error_code error;
    const fs::path file(rank.file);
    if (rank.file.empty() || !fs::is_regular_file(file, error))
        return RankTrace::Missing;
    if (rank.summarisedBytes == 0)
        return RankTrace::Here;
    const auto size = fs::file_size(file, error);
    if (error)
        return RankTrace::Missing;
    return size == rank.summarisedBytes ? RankTrace::Here : RankTrace::Different;
}

std::optional<std::string> traceDiffersFromSummary(const analysis::RankFigures &rank)
{
    if (rank.summarisedBytes == 0)
        return std::nullopt;
    std::error_code error;
    const auto size = fs::file_size(rank.file, error);
    if (error)
        return rank.file + ": cannot be read (" + error.message() + ")";
    if (size != rank.summarisedBytes)
        return rank.file + " is " + formatBytes(size) + " (" + std::to_string(size) + " bytes), not the " +
               formatBytes(rank.summarisedBytes) + " (" + std::to_string(rank.summarisedBytes) +
               " bytes) of the trace " + rankLabel(rank) + "'s summary was made from";
    const auto checksum = trace::fileChecksum(rank.file);
    if (!checksum.ok())
        return checksum.error().message;
    if (checksum.value().crc32 != rank.summarisedCrc32)
        return rank.file + " has CRC-32 " + crcText(checksum.value().crc32) + ", not the " +
               crcText(rank.summarisedCrc32) + " of the trace " + rankLabel(rank) +
               "'s summary was made from (same size, other contents)";
    return std::nullopt;
}

TimelineRanks chooseTimelineRanks(const analysis::JobFigures &job, std::size_t limit,
                                  const std::function<RankTrace(std::size_t)> &where)
{
    TimelineRanks chosen;
    const std::size_t count = job.ranks.size();
    std::vector<std::size_t> candidates;
    std::size_t missing = 0, different = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const auto state = where ? where(i) : rankTraceHere(job.ranks[i]);
        if (state == RankTrace::Here)
            candidates.push_back(i);
        missing += state == RankTrace::Missing;
        different += state == RankTrace::Different;
    }
    if (candidates.empty()) {
        if (count == 0)
            chosen.reason = "The job has no ranks.";
        else if (different == 0)
            chosen.reason = "The Timeline shows no rank: no rank's trace file can be read from here "
                            "(the job's summaries name them as they were where they were made).";
        else
            chosen.reason = "The Timeline shows no rank:" + awayNote(missing, different, count);
        return chosen;
    }
    const auto away = awayNote(missing, different, count);
    if (candidates.size() <= limit) {
        chosen.ranks = candidates;
        if (!away.empty())
            chosen.reason = "The Timeline shows the " + std::to_string(candidates.size()) +
                            " ranks whose traces can be read." + away;
        else
            chosen.reason = count == 1 ? "The Timeline shows the job's only rank."
                                       : "The Timeline shows all " + std::to_string(count) + " ranks.";
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
    std::string why;
    const auto add = [&why](const std::string &part) { why += (why.empty() ? "" : "; ") + part; };
    if (!stragglers.empty())
        add("the straggler(s) " + rankList(job, stragglers));
    if (medianAdded)
        add(rankLabel(job.ranks[median]) + " (median compute per step)");
    if (!lowest.empty())
        add("the lowest ranks " + rankList(job, lowest));
    chosen.reason = "The Timeline shows " + std::to_string(chosen.ranks.size()) + " of the " + std::to_string(count) +
                    " ranks: " + why + "." + away;
    return chosen;
}

Result<CombinedRanks> loadCombinedRanks(const analysis::JobFigures &job, const std::vector<std::size_t> &ranks,
                                        ProgressReporter &progress, const StopToken &stop)
{
    std::vector<trace::TracePart> parts;
    // Loading is most of the work; combining and indexing the last tenth.
    const std::uint64_t total = ranks.size() * 10 + 1;
    for (std::size_t n = 0; n < ranks.size(); ++n) {
        const auto &rank = job.ranks[ranks[n]];
        if (const auto differs = traceDiffersFromSummary(rank))
            return Error{*differs};
        ProgressReporter reading(
            [&progress, n, total](int permille) { progress.report(n * 10 + std::uint64_t(permille) / 100, total); });
        auto loaded = trace::loadTrace(rank.file, {}, reading, stop);
        if (!loaded.ok())
            return loaded.error();
        const std::int64_t offset = ranks[n] < job.clockOffsetNs.size() ? job.clockOffsetNs[ranks[n]] : 0;
        parts.push_back({std::move(loaded).value(), offset, rankLabel(rank)});
    }
    auto combined = trace::combineTraces(parts, &stop);
    parts.clear(); // the ranks' own traces are no longer needed
    if (!combined)
        return Error{"loading the job's ranks cancelled"};
    auto index = analysis::buildTraceIndex(*combined, &stop);
    if (!index)
        return Error{"loading the job's ranks cancelled"};
    return CombinedRanks{std::move(combined), std::move(index)};
}

} // namespace pyrometer::summary
