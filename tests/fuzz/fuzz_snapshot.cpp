// libFuzzer target for CUDA allocator snapshots (core/snapshot/reader.h, readSnapshot): any bytes
// must read as a snapshot or give an Error with a message, never a crash, a hang, unbounded memory
// or a class resolved. A snapshot that reads is replayed, and what was live at its peak must sum
// to the peak, by every grouping; its allocations as bands, moved anywhere through checkpoints,
// must add up to the replay's curve.
//   seeds: tests/fixtures/fuzz/snapshot (scripts/make-snapshots.py's)
#include "core/snapshot/allocations.h"
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "tests/fuzz/fuzzfiles.h"

#include <algorithm>
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
        const auto allocations = snapshot::allocations(s, d, 3);
        snapshot::AllocationStack stack(allocations);
        const auto n = std::int64_t(d.events.size());
        for (const std::int64_t p : {n - 1, std::int64_t(-1), d.peakPosition, n / 2, std::int64_t(0), n - 1}) {
            stack.moveTo(p);
            const auto at = std::min(p, n - 1);
            if (stack.total() != (at < 0 ? d.activeAtStart : d.active[std::size_t(at)]))
                fuzz::fail("the allocations' bands do not add up to the active curve");
            int rows = 0;
            stack.forEachBand(64, std::max(1.0, double(stack.total()) / 64),
                              [&](int from, int to, std::uint32_t) { rows += to - from; });
            if (rows > 64)
                fuzz::fail("the bands drawn take more rows than there are");
        }
    }
    return 0;
}
