// libFuzzer target for CUDA allocator snapshots (core/snapshot/reader.h, readSnapshot): any bytes
// must read as a snapshot or give an Error with a message, never a crash, a hang, unbounded memory
// or a class resolved. A snapshot that reads is replayed, and what was live at its peak must sum
// to the peak, by every grouping.
//   seeds: tests/fixtures/fuzz/snapshot (scripts/make-snapshots.py's)
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "tests/fuzz/fuzzfiles.h"

#include <cstdint>
#include <string_view>

using namespace pyrometer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto read =
        snapshot::readSnapshot(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.pickle");
    if (!fuzz::checkResult(read))
        return 0;
    const auto &s = *read.value();
    const auto devices = snapshot::replay(s);
    (void)snapshot::segmentTotals(s);
    (void)snapshot::oomReports(s, devices);
    for (const auto &d : devices) {
        const auto live = snapshot::liveAt(s, d, d.peakPosition);
        std::int64_t sum = 0;
        for (const auto &b : live)
            sum = static_cast<std::int64_t>(static_cast<std::uint64_t>(sum) + static_cast<std::uint64_t>(b.size));
        if (sum != d.peakActive)
            fuzz::fail("the blocks live at the peak do not sum to the peak");
        for (const auto by : {snapshot::GroupBy::Stack, snapshot::GroupBy::Context, snapshot::GroupBy::Annotation})
            (void)snapshot::groupLive(s, d, live, by);
        std::string error;
        for (const char *at : {"peak", "oom", "end", "#0", "1ms"})
            (void)snapshot::resolveInstant(s, d, at, error);
    }
    return 0;
}
