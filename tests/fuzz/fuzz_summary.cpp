// libFuzzer target for rank and job summary files (core/summary/summaryfile.h): any bytes must
// read as a summary or give an Error with a message, never a crash, a hang or unbounded memory.
// A summary that reads is written again and must read back equal, as the header promises.
//   seeds: tests/fixtures/fuzz/summary (pyrometer-cli summarize and merge of fixture traces)
#include "core/summary/summaryfile.h"
#include "tests/fuzz/fuzzfiles.h"

#include <cstdint>

using namespace pyrometer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    // Named as a summary, and named as anything else, whose first bytes decide.
    const auto named = fuzz::writeInput("rank-0.summary.json", data, size);
    const auto unnamed = fuzz::writeInput("job.json", data, size);
    if (!summary::isSummaryFile(named))
        fuzz::fail("a *.summary.json name is not a summary");
    (void)summary::isSummaryFile(unnamed); // reads the first bytes only

    const auto read = summary::readSummary(named);
    if (!fuzz::checkResult(read))
        return 0;
    const auto &job = read.value();
    const auto again = fuzz::scratchDir() / "again.summary.json";
    if (job.ranks.size() == 1) {
        fuzz::writeFile(again, summary::rankSummaryJson(job.ranks.front()));
        const auto reread = summary::readSummary(again);
        if (!reread.ok() || !(reread.value() == job))
            fuzz::fail("a rank summary read does not read back equal after writing");
    }
    fuzz::writeFile(again, summary::jobSummaryJson(job));
    const auto reread = summary::readSummary(again);
    if (!reread.ok() || !(reread.value() == job))
        fuzz::fail("a job summary read does not read back equal after writing");
    return 0;
}
