#include "core/summary/jobsource.h"

#include "core/summary/summaryfile.h"
#include "core/summary/timelineranks.h"
#include "core/trace/checksum.h"
#include "core/trace/loader.h"

#include <set>

namespace pyrometer::summary {

namespace fs = std::filesystem;

namespace {

fs::path resolved(const fs::path &path)
{
    std::error_code error;
    auto found = fs::weakly_canonical(path, error);
    return error ? fs::absolute(path).lexically_normal() : found;
}

} // namespace

Result<analysis::RankSummary> summariseTraceFile(const fs::path &file, const StopToken &stop)
{
    const auto checksum = trace::fileChecksum(file);
    if (!checksum.ok())
        return checksum.error();
    ProgressReporter quiet;
    auto loaded = trace::loadTrace(file, {}, quiet, stop);
    if (!loaded.ok())
        return loaded.error();
    const auto index = analysis::buildTraceIndex(*loaded.value(), &stop);
    if (!index)
        return Error{file.string() + ": summarising cancelled"};
    auto rank = analysis::summariseRank(*index, &stop);
    rank.figures.file = file.string();
    rank.traceBytes = checksum.value().bytes;
    rank.traceCrc32 = checksum.value().crc32;
    return rank;
}

Result<std::vector<analysis::RankFigures>> loadRanks(const std::vector<fs::path> &files,
                                                     const analysis::JobOptions &options, ProgressReporter &progress,
                                                     const StopToken &stop, std::vector<std::string> *notes)
{
    std::vector<analysis::RankFigures> ranks;
    std::vector<fs::path> traces;
    std::set<fs::path> summarised;
    std::vector<JobSummary> summaries;
    for (const auto &file : files) {
        if (!isSummaryFile(file)) {
            traces.push_back(file);
            continue;
        }
        auto read = readSummary(file);
        if (!read.ok())
            return read.error();
        summaries.push_back(std::move(read).value());
    }
    // Merged, so that a rank in two of the summaries given counts once. A trace given beside the
    // summary made from it is not summarised again, when it is still that file (size, CRC-32);
    // when it is not, the trace is summarised and its summary left out, which a note says.
    std::set<fs::path> given;
    for (const auto &trace : traces)
        given.insert(resolved(trace));
    for (auto &rank : merge(std::move(summaries)).ranks) {
        rank.figures.summarisedBytes = rank.traceBytes;
        rank.figures.summarisedCrc32 = rank.traceCrc32;
        const auto path = resolved(rank.figures.file);
        if (given.contains(path)) {
            if (const auto differs = traceDiffersFromSummary(rank.figures)) {
                if (notes)
                    notes->push_back(*differs + ": the trace was summarised again and the summary left out");
                continue;
            }
        }
        summarised.insert(path);
        ranks.push_back(std::move(rank.figures));
    }
    std::erase_if(traces, [&](const fs::path &trace) { return summarised.contains(resolved(trace)); });
    auto traced = analysis::summariseRanks(traces, options, progress, stop);
    if (!traced.ok())
        return traced.error();
    for (auto &rank : traced.value())
        ranks.push_back(std::move(rank));
    return ranks;
}

Result<analysis::JobFigures> loadJob(const std::vector<fs::path> &files, const analysis::JobOptions &options,
                                     ProgressReporter &progress, const StopToken &stop)
{
    std::vector<std::string> notes;
    auto ranks = loadRanks(files, options, progress, stop, &notes);
    if (!ranks.ok())
        return ranks.error();
    if (ranks.value().empty())
        return Error{"no ranks in the files given"};
    auto job = analysis::combineRanks(std::move(ranks).value());
    job.problems.insert(job.problems.end(), notes.begin(), notes.end());
    return job;
}

} // namespace pyrometer::summary
