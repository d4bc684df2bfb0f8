// libFuzzer target for merged job files, read as a job is opened from them
// (core/summary/jobsource.h, loadJob): the summary read, its ranks merged and combined, and the
// ranks the Timeline would show chosen. A merged job may be named anything, so the file's first
// bytes decide whether it is read as a summary or summarised as a trace. Any bytes must give a
// job or an Error with a message, never a crash, a hang or unbounded memory. Merging is
// idempotent: a job merged with itself, or merged again, is the same job.
//   seeds: tests/fixtures/fuzz/summary (pyrometer-cli summarize and merge of fixture traces)
#include "core/summary/jobsource.h"
#include "core/summary/summaryfile.h"
#include "core/summary/timelineranks.h"
#include "tests/fuzz/fuzzfiles.h"

#include <cstdint>

using namespace pyrometer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto file = fuzz::writeInput("merged.json", data, size);

    if (summary::isSummaryFile(file)) {
        const auto read = summary::readSummary(file);
        if (fuzz::checkResult(read)) {
            const auto once = summary::merge({read.value()});
            if (!(summary::merge({read.value(), read.value()}) == once) || !(summary::merge({once}) == once))
                fuzz::fail("merging a job with itself, or again, changed it");
        }
    }

    analysis::JobOptions options;
    options.threads = 1;
    ProgressReporter progress;
    const auto job = summary::loadJob({file}, options, progress, StopToken{});
    if (!fuzz::checkResult(job))
        return 0;
    const auto &figures = job.value();
    // Where the ranks' traces are is the file system's business: say half are here.
    const auto chosen = summary::chooseTimelineRanks(
        figures, 4, [](std::size_t i) { return i % 2 == 0 ? summary::RankTrace::Here : summary::RankTrace::Missing; });
    for (const auto index : chosen.ranks)
        if (index >= figures.ranks.size())
            fuzz::fail("a Timeline rank out of the job's ranks");
    for (const auto &rank : figures.ranks)
        (void)summary::rankLabel(rank);
    return 0;
}
