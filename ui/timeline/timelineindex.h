#pragma once

#include "core/analysis/launches.h"
#include "core/analysis/traceindex.h"
#include "core/trace/trace.h"
#include "core/util/progress.h"
#include "ui/timeline/colors.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <vector>

namespace pyrometer::ui::timeline {

// The first index in [from, n) at which `before` no longer holds, where it holds for a prefix
// of them: a galloping search from `from` (+ 1, + 3, + 7, ... then bisection), O(log k) for an
// answer k further on, its probes near `from` and so in cache when the searches move forward.
template <typename Before> std::size_t gallop(std::size_t from, std::size_t n, Before before)
{
    if (from >= n || !before(from))
        return from;
    std::size_t low = from; // before(low) holds
    std::size_t high = n;   // before(high) does not, or high is n
    for (std::size_t step = 1; low + step < n; step *= 2) {
        if (!before(low + step)) {
            high = low + step;
            break;
        }
        low += step;
    }
    while (high - low > 1) {
        const auto middle = low + (high - low) / 2;
        (before(middle) ? low : high) = middle;
    }
    return high;
}

// The coarsest of summary levels (finest first, each with a `shift`: buckets 2^shift ns long)
// whose buckets are at most nsPerPixel long, or nullptr when none is.
template <typename Levels> auto coarsestLevelWithin(const Levels &levels, double nsPerPixel) -> decltype(&levels[0])
{
    decltype(&levels[0]) chosen = nullptr;
    for (const auto &level : levels) {
        if (double(std::int64_t(1) << level.shift) > nsPerPixel)
            break;
        chosen = &level;
    }
    return chosen;
}

// The events of one drawn row: one (track, lane, depth). Within a row events never overlap
// (the loader puts overlapping events on other lanes or depths), so both their starts and
// their ends are sorted, and the visible ones are found by binary search. Starts are copied
// into a contiguous array: a zoomed-out frame makes tens of thousands of searches, and reaching
// each probe's time through `events` would cost a cache miss per probe. Ends are not kept:
// a prefix sum of durations gives both an event's end and how much of a pixel column the row
// is busy, each in O(1), for the same 8 bytes an event.
struct SliceRow {
    // Its arrays in `memory` (TimelineIndex::memory, where the index built it).
    explicit SliceRow(std::pmr::memory_resource *memory = std::pmr::get_default_resource())
        : events(memory), starts(memory), busyBefore(memory), blocks(memory), longestAbove(memory)
    {
    }
    trace::TrackId trackId;
    std::uint16_t lane = 0;
    std::uint16_t depth = 0;
    std::pmr::vector<std::uint32_t> events;    // indices into the track's columns, by start
    std::pmr::vector<std::int64_t> starts;     // per position, the event's start (ns)
    std::pmr::vector<std::int64_t> busyBefore; // size() + 1 entries: the durations of positions [0, i) summed (ns)

    // The summary for zoomed-out frames, where a pixel column holds hundreds of events: per
    // block of kBlock positions, where it starts and its longest event with that event's
    // colours. A column reads the blocks it covers in order and touches the per-event arrays
    // only at its two ends; without them, finding its ends and its longest event cost a cache
    // miss per probe. 1.5 bytes an event.
    static constexpr std::uint32_t kBlock = 16;
    struct Block {
        std::int64_t start = 0;           // its first event's start
        std::int64_t longestDuration = 0; // of its longest event
        std::uint32_t longest = 0;        // position of its longest event, the first of equals
        std::uint8_t colors[2] = {};      // that event's eventColorIndex, by ColorMode
    };
    std::pmr::vector<Block> blocks;
    // Above the blocks, a segment tree of the longest: node i < blocks.size() holds the position
    // of the longest event under it; node blocks.size() + b stands for blocks[b]. A quarter of a
    // byte an event.
    std::pmr::vector<std::uint32_t> longestAbove;

    // The summary for zoomed-out frames, where a pixel column holds a few of the row's events
    // or more: the row's time cut into buckets from `summaryOrigin`, level by level, each level's
    // buckets twice as long as the level's below, the finest holding kSummaryEvents to twice as
    // many events on average (half as many on a small row, see buildTimelineIndex). A column
    // reads the one or two buckets it covers at the level whose buckets are at most a column
    // long, one after the other, and never the per-event arrays, whose reads cost a cache miss
    // each on a view shown the first time: its ends snap to bucket edges, less than a pixel from
    // the exact ones. Rows of fewer than kSummaryMinEvents events have none. About 6 bytes an
    // event.
    static constexpr std::uint32_t kSummaryEvents = 2;
    static constexpr std::uint32_t kSummaryMinEvents = 1024;
    static constexpr std::uint32_t kNoEvent = ~std::uint32_t(0);
    struct Bucket {
        std::uint32_t firstEnding : 31; // first position whose event ends after the bucket's start
        std::uint32_t crossing : 1;     // the event at firstEnding began before the bucket
        float longestDuration = -1;     // of the longest event overlapping the bucket (ns); -1 when none does
        std::uint16_t busy = 0;         // the share of the bucket's time its events cover, in 1/65535
        std::uint8_t colors[2] = {};    // the longest's eventColorIndex, by ColorMode
        Bucket() : firstEnding(0), crossing(0) {}
    };
    static_assert(sizeof(Bucket) == 12);
    static constexpr double kBusyScale = 65535.0;
    struct SummaryLevel {
        int shift = 0;               // buckets are 2^shift ns long
        std::pmr::vector<Bucket> buckets; // one more than the level's buckets: the last, past the row's end, closes it
        std::size_t count() const { return buckets.size() - 1; }
        // The bucket time t falls in, clamped to [0, count()].
        std::uint32_t bucketOf(std::int64_t t, std::int64_t origin) const
        {
            return t <= origin ? 0 : std::uint32_t(std::min<std::int64_t>((t - origin) >> shift, std::int64_t(count())));
        }
    };
    std::int64_t summaryOrigin = 0;
    std::vector<SummaryLevel> summary; // finest first
    // The coarsest level whose buckets are at most nsPerPixel long, or nullptr when none is.
    const SummaryLevel *summaryFor(double nsPerPixel) const { return coarsestLevelWithin(summary, nsPerPixel); }

    std::size_t size() const { return events.size(); }
    std::int64_t durationAt(std::uint32_t position) const { return busyBefore[position + 1] - busyBefore[position]; }
    std::int64_t endAt(std::uint32_t position) const { return starts[position] + durationAt(position); }
    // The longest event among positions [from, to), the first of equals.
    struct Longest {
        std::uint32_t position = 0;
        std::int64_t duration = 0;
    };
    Longest longestIn(std::uint32_t from, std::uint32_t to) const;
    // Time in [t0, t1) covered by the events at positions [from, to).
    std::int64_t busyIn(std::uint32_t from, std::uint32_t to, std::int64_t t0, std::int64_t t1) const;
    // The last block from `fromBlock` on that starts before time (or fromBlock), galloping.
    std::uint32_t lastBlockBefore(std::int64_t time, std::uint32_t fromBlock) const;
    // First position from `from` on whose event starts at or after time: the block it is in,
    // then a scan of that block.
    std::uint32_t firstStartingFrom(std::int64_t time, std::uint32_t from) const;
    // First position whose event ends after time (or starts at it, for zero-length events).
    std::uint32_t firstEndingAfter(std::int64_t time) const { return firstEndingAfter(time, 0); }
    // The same, searching only from position `from` on.
    std::uint32_t firstEndingAfter(std::int64_t time, std::uint32_t from) const;
};

// Everything the timeline precomputes once per trace: the rows of every track, in display
// order within the track (lane by lane, depth by depth), and where ProfilerStep#N spans are.
struct TimelineIndex {
    std::shared_ptr<const trace::Trace> trace;
    // Where the rows' arrays are, one block for most traces, on huge pages where the system
    // allows: a zoom shows each row's arrays at places no frame read before, and in 4 KiB pages
    // each of a column's reads was a TLB miss (the first frames at a new zoom of a 19 M-event
    // trace, about twice the time). Declared before the rows, so that they are destroyed first.
    std::shared_ptr<std::pmr::monotonic_buffer_resource> memory; // shared by a copy, whose rows are elsewhere
    // The analyses' index of the same trace, for the range selection's tables. It points into
    // `trace`, which this struct keeps alive.
    std::shared_ptr<const analysis::TraceIndex> analysis;
    std::vector<SliceRow> rows;
    // For each track, the first row of it in `rows` and the row count; rows of a track are
    // ordered by lane, then depth, so an event's row is found from its lane and depth.
    std::vector<std::uint32_t> trackFirstRow;
    std::vector<std::uint32_t> trackRowCount;

    struct Step {
        std::int64_t start = 0;
        std::int64_t end = 0;
        std::string name;
    };
    std::vector<Step> steps; // ProfilerStep#N on CPU tracks, by start
    // Counters the trace does not hold but the timeline shows: per GPU stream, how many
    // launched kernels wait on it (analysis::buildLaunchStats's queues), in the stream's
    // process. They follow the trace's own: counter c >= trace->counters.size() is
    // derivedCounters[c - trace->counters.size()].
    std::vector<trace::CounterSeries> derivedCounters;
    std::size_t counterCount() const { return trace->counters.size() + derivedCounters.size(); }
    const trace::CounterSeries &counter(std::uint32_t c) const
    {
        return c < trace->counters.size() ? trace->counters[c] : derivedCounters[c - trace->counters.size()];
    }
    std::vector<double> counterMax; // per counter(c), its largest value (0 if none)
    // Per Trace::counters entry, per kCounterBlock samples, the first one's time and their
    // largest value: a zoomed-out column finds its ends among these and reads a few maxima
    // instead of every sample in it.
    static constexpr std::size_t kCounterBlock = 16;
    struct CounterBlock {
        std::int64_t start = 0;
        double max = 0;
    };
    std::vector<std::vector<CounterBlock>> counterBlocks;
    // Above them, per kCounterBlock blocks (kCounterBlock² samples), their largest value: a
    // column of a fit-all view spans thousands of samples of a long counter.
    std::vector<std::vector<double>> counterCoarseMax;
    // For wide views: per counter(c), its time cut into buckets from its first sample, level by
    // level, each level's buckets twice as long as the level's below, each holding the largest
    // value in force during it. A column reads the few buckets it covers at a level whose
    // buckets are a fraction of a column, whatever the samples' density: a fit-all column of a
    // bursty counter, a few samples or none, found its ends among the samples, a cache miss per
    // probe on a view shown the first time. The finest level cuts the counter's time in at least
    // as many buckets as it has samples, or as kCounterSummaryBuckets, and at most twice as many
    // (4 bytes each, the levels above as many again); counters of fewer than
    // kCounterSummaryMinSamples samples have none.
    static constexpr std::size_t kCounterSummaryBuckets = std::size_t(1) << 17;
    static constexpr std::size_t kCounterSummaryMinSamples = 4096;
    struct CounterSummary {
        struct Level {
            int shift = 0;            // buckets are 2^shift ns long
            std::vector<float> share; // per bucket, the largest value in force during it / counterMax
        };
        std::int64_t origin = 0;   // the first sample's time
        std::vector<Level> levels; // finest first
        // The coarsest level whose buckets are at most nsPerPixel long, or nullptr when none is.
        const Level *levelFor(double nsPerPixel) const { return coarsestLevelWithin(levels, nsPerPixel); }
    };
    std::vector<CounterSummary> counterSummaries;
    std::int64_t spanStart = 0;
    std::int64_t spanEnd = 0;

    // The row an event is drawn in (to find where a selected or searched event is).
    std::uint32_t rowOf(trace::TrackId track, trace::EventIndex event) const;
    // Bytes held by the rows and tables above (the capacity of their arrays), not counting the
    // trace nor the analyses' index.
    std::size_t memoryBytes() const;
};

// Builds the index; O(n log n) in events. Returns nullptr if stopped. analysis: the trace's
// analysis index, which the window builds once per trace (its document's); built here when null.
// launches: the trace's launch statistics, for the queue counters (the document's, which other
// pages share); computed here when null.
std::shared_ptr<const TimelineIndex>
buildTimelineIndex(std::shared_ptr<const trace::Trace> trace, const StopToken &stop = {},
                   std::shared_ptr<const analysis::TraceIndex> analysis = nullptr,
                   std::shared_ptr<const analysis::LaunchStats> launches = nullptr);

// The index with more counters the trace does not hold (a snapshot's memory joined with it), after
// its derived ones: the rows are shared, the counters' summaries made for the new ones only.
std::shared_ptr<const TimelineIndex> withCounters(const TimelineIndex &index,
                                                  std::vector<trace::CounterSeries> counters);

} // namespace pyrometer::ui::timeline
