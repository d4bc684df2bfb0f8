#pragma once

#include "core/analysis/traceindex.h"
#include "core/trace/trace.h"
#include "core/util/progress.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace pyrometer::ui::timeline {

// The events of one drawn row: one (track, lane, depth). Within a row events never overlap
// (the loader puts overlapping events on other lanes or depths), so both their starts and
// their ends are sorted, and the visible ones are found by binary search. Starts and ends are
// copied into contiguous arrays: a zoomed-out frame makes tens of thousands of searches, and
// reaching each probe's time through `events` would cost a cache miss per probe.
struct SliceRow {
    trace::TrackId trackId;
    std::uint16_t lane = 0;
    std::uint16_t depth = 0;
    std::vector<std::uint32_t> events; // indices into the track's columns, by start
    std::vector<std::int64_t> starts;  // per position, the event's start (ns)
    std::vector<std::int64_t> ends;    // per position, the event's end (ns)

    // The summary structure for zoomed-out frames: a segment tree over `events` holding, for
    // each node, the position (in `events`) of its longest event. It answers "which event
    // best represents these N sub-pixel events" in O(log n).
    std::vector<std::uint32_t> longest; // 2 * size, leaves at [size, 2 * size)

    std::size_t size() const { return events.size(); }
    std::int64_t durationAt(std::uint32_t position) const { return ends[position] - starts[position]; }
    // Position in `events` of the longest event among positions [from, to).
    std::uint32_t longestIn(std::uint32_t from, std::uint32_t to) const;
    // First position whose event ends after time (or starts at it, for zero-length events).
    std::uint32_t firstEndingAfter(std::int64_t time) const { return firstEndingAfter(time, 0); }
    // The same, searching only from position `from` on, galloping: O(log k) for an answer k
    // positions further, which keeps the probes near `from` and in cache.
    std::uint32_t firstEndingAfter(std::int64_t time, std::uint32_t from) const;
};

// Everything the timeline precomputes once per trace: the rows of every track, in display
// order within the track (lane by lane, depth by depth), and where ProfilerStep#N spans are.
struct TimelineIndex {
    std::shared_ptr<const trace::Trace> trace;
    // The analyses' index of the same trace, for the range selection's tables. It points into
    // `trace`, which this struct keeps alive.
    std::shared_ptr<const analysis::TraceIndex> analysis;
    std::vector<SliceRow> rows;
    // For each track, the first row of it in `rows` and the row count; rows of a track are
    // ordered by lane, then depth.
    std::vector<std::uint32_t> trackFirstRow;
    std::vector<std::uint32_t> trackRowCount;
    // For each track, for each event: its row (to find where a selected or searched event is).
    std::vector<std::vector<std::uint32_t>> eventRow;

    struct Step {
        std::int64_t start = 0;
        std::int64_t end = 0;
        std::string name;
    };
    std::vector<Step> steps; // ProfilerStep#N on CPU tracks, by start
    std::vector<double> counterMax; // per Trace::counters entry, its largest value (0 if none)
    std::int64_t spanStart = 0;
    std::int64_t spanEnd = 0;

    std::uint32_t rowOf(trace::TrackId track, trace::EventIndex event) const
    {
        return eventRow[track.value][event.value];
    }
};

// Builds the index; O(n log n) in events. Returns nullptr if stopped. analysis: the trace's
// analysis index, which the window builds once per trace (its document's); built here when null.
std::shared_ptr<const TimelineIndex> buildTimelineIndex(std::shared_ptr<const trace::Trace> trace,
                                                        const StopToken &stop = {},
                                                        std::shared_ptr<const analysis::TraceIndex> analysis = nullptr);

} // namespace pyrometer::ui::timeline
