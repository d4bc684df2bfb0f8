// Times every analysis over a large trace once it is loaded, and range queries over 10% of it.
//   analysis_bench TRACE [REPEATS]
// Prints one line per measurement: name, milliseconds (best of REPEATS), and a checksum so the
// work cannot be optimised away.
#include "core/analysis/advice.h"
#include "core/analysis/criticalpath.h"
#include "core/analysis/diff.h"
#include "core/analysis/flametree.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kernelsequences.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/launches.h"
#include "core/analysis/memory.h"
#include "core/analysis/optable.h"
#include "core/analysis/roofline.h"
#include "core/analysis/steps.h"
#include "core/analysis/traceindex.h"
#include "core/trace/loader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

using namespace pyrometer;
using namespace pyrometer::analysis;

namespace {

template <typename F> void measure(const char *name, int repeats, F work)
{
    double best = std::numeric_limits<double>::max();
    std::int64_t checksum = 0;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        checksum = work();
        const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        best = std::min(best, ms);
    }
    std::printf("%-28s %10.1f ms   (checksum %lld)\n", name, best, static_cast<long long>(checksum));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: analysis_bench TRACE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    const auto start = std::chrono::steady_clock::now();
    auto loaded = trace::loadTrace(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
        return 2;
    }
    const auto &trace = *loaded.value();
    std::printf("loaded %s: %llu events, %llu slices, %zu memory events, %.1f s\n", argv[1],
                static_cast<unsigned long long>(trace.info.eventCount),
                static_cast<unsigned long long>(trace.sliceCount()), trace.memory.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());

    std::shared_ptr<const TraceIndex> index;
    measure("index (once per trace)", repeats, [&] {
        index = buildTraceIndex(trace);
        return static_cast<std::int64_t>(index->tracks.size());
    });
    measure("ops --by name", repeats, [&] { return buildOpTable(*index).selfSumNs; });
    measure("ops --by shape", repeats, [&] {
        OpTableOptions o;
        o.grouping = OpGrouping::Shape;
        return static_cast<std::int64_t>(buildOpTable(*index, o).rows.size());
    });
    measure("ops --by stack", repeats, [&] {
        OpTableOptions o;
        o.grouping = OpGrouping::Stack;
        return static_cast<std::int64_t>(buildOpTable(*index, o).rows.size());
    });
    measure("kernels", repeats, [&] { return buildKernelTable(*index).totalNs; });
    // The roofline: per op (with its chains), every op (the Operators table's columns) and per
    // kernel (the Kernels table's).
    measure("roofline", repeats, [&] { return static_cast<std::int64_t>(buildRoofline(*index).chains.size()); });
    measure("roofline --every-op", repeats, [&] {
        RooflineOptions o;
        o.everyOp = true;
        return buildRoofline(*index, o).totalNs;
    });
    measure("roofline --by-kernel", repeats, [&] {
        RooflineOptions o;
        o.byKernel = true;
        return buildRoofline(*index, o).knownNs;
    });
    measure("flame (ops)", repeats, [&] { return buildFlameTree(*index).nodes[0].totalNs; });
    measure("flame (ops+python)", repeats, [&] {
        FlameOptions o;
        o.events = FlameEvents::OpsPython;
        return buildFlameTree(*index, o).nodes[0].totalNs;
    });
    measure("steps", repeats, [&] { return static_cast<std::int64_t>(buildStepBreakdown(*index).steps.size()); });
    measure("memory", repeats, [&] {
        const auto report = buildMemoryReport(*index);
        return report.devices.empty() ? 0 : report.devices.back().peakBytes;
    });
    measure("advise", repeats, [&] { return static_cast<std::int64_t>(adviseTrace(*index).size()); });
    measure("diff (trace with itself)", repeats, [&] { return diffTraces(*index, *index).total.baseNs; });
    // The GPU analyses.
    measure("kernel types", repeats, [&] { return buildKernelTypeBreakdown(*index).totalNs; });
    measure("launches and queues", repeats, [&] {
        const auto stats = buildLaunchStats(*index);
        return static_cast<std::int64_t>(stats.launches.size()) + stats.maxQueueLength;
    });
    measure("idle causes", repeats, [&] { return buildIdleBreakdown(*index).totalNs[0]; });
    const auto steps = profilerSteps(*index);
    measure("critical path (longest step)", repeats, [&] {
        EventRef longest;
        std::int64_t longestNs = -1;
        for (const auto &s : steps) {
            const auto ns = index->trace->track(s.track).duration[s.event.value];
            if (ns > longestNs) {
                longestNs = ns;
                longest = s;
            }
        }
        return buildCriticalPath(*index, longest, 10).lengthNs();
    });
    measure("critical path (whole trace)", repeats,
            [&] { return buildCriticalPath(*index, EventRef{}, 10).lengthNs(); });
    measure("kernel sequences", repeats, [&] {
        const auto sequences = findKernelSequences(*index);
        return sequences.empty() ? std::int64_t(0) : static_cast<std::int64_t>(sequences.front().occurrences);
    });

    // A range over 10% of the span, in the middle.
    const auto span = trace.info.spanEnd - trace.info.spanStart;
    const TimeRange range{trace.info.spanStart + span * 45 / 100, trace.info.spanStart + span * 55 / 100};
    measure("range 10%: ops", repeats, [&] {
        OpTableOptions o;
        o.range = range;
        return buildOpTable(*index, o).selfSumNs;
    });
    measure("range 10%: kernels", repeats, [&] {
        KernelTableOptions o;
        o.range = range;
        return buildKernelTable(*index, o).totalNs;
    });
    measure("range 10%: flame", repeats, [&] {
        FlameOptions o;
        o.range = range;
        return buildFlameTree(*index, o).nodes[0].totalNs;
    });
    measure("range 10%: steps", repeats,
            [&] { return static_cast<std::int64_t>(buildStepBreakdown(*index, range).steps.size()); });
    measure("range 10%: step breakdown", repeats,
            [&] { return breakdownSpan(*index, range.start, range.end).gpuBusyNs; });
    measure("range 10%: memory", repeats, [&] {
        MemoryOptions o;
        o.range = range;
        return static_cast<std::int64_t>(buildMemoryReport(*index, o).devices.size());
    });
    return 0;
}
