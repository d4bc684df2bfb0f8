#pragma once

#include "core/analysis/flamegraph.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// The time-ordered flame chart: every operator (and Python frame) of each CPU thread where it
// ran, one row per nesting level. Within a lane events are sorted by start and do not nest.
struct FlameChartLane {
    trace::TrackId track;
    std::vector<std::uint32_t> events; // indices into the track's columns
    std::vector<std::int64_t> start;
    std::vector<std::int64_t> end;
    std::vector<std::int64_t> maxEnd; // running maximum of end: sorted, for binary search
    std::vector<std::int64_t> selfNs; // duration less the chart's events directly inside
};

struct FlameChartThread {
    trace::TrackId track;
    std::string name;
    std::uint32_t firstLane = 0; // lanes of depth 0, 1, ... follow
    std::uint32_t laneCount = 0;
};

struct FlameChart {
    const TraceIndex *index = nullptr; // the trace and the parents (which must outlive the chart)
    FlameEvents events = FlameEvents::Ops;
    std::vector<FlameChartThread> threads;
    std::vector<FlameChartLane> lanes;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t totalNs = 0; // summed duration of the outermost events

    // The event enclosing `event` in this chart's nesting, else invalid.
    trace::EventIndex parentOf(trace::TrackId track, std::uint32_t event) const;
};

// Ops or OpsPython; All counts as OpsPython here.
FlameChart buildFlameChart(const TraceIndex &index, FlameEvents events, const StopToken *stop = nullptr);

struct ChartViewport {
    double startNs = 0;
    double nsPerPixel = 1;
    int width = 0;
    int rowHeight = 18;
    int scrollY = 0;
    int height = 0;
    double endNs() const { return startNs + nsPerPixel * width; }
    bool operator==(const ChartViewport &) const = default;
};

// A thread's name row, at y in widget coordinates.
struct ChartHeader {
    int y = 0;
    std::uint32_t thread = 0;
    bool operator==(const ChartHeader &) const = default;
};

// FlameBox::node holds the lane and FlameBox::merged the count of merged events; `position`
// is the (first) event's position in the lane.
struct ChartBox {
    FlameBox box;
    std::uint32_t lane = 0;
    std::uint32_t position = 0;
    bool operator==(const ChartBox &) const = default;
};

struct ChartLayout {
    ChartViewport viewport;
    std::vector<ChartBox> boxes;
    std::vector<ChartHeader> headers;
    int contentHeight = 0;
};

// Per visible lane, one binary search to the first visible event, then a box per event at
// least a pixel wide and one per pixel column for the narrower ones, skipping with a binary
// search: O(lanes · (pixels + wide events) · log n) whatever the event count.
ChartLayout layoutFlameChart(const FlameChart &chart, const ChartViewport &viewport);

} // namespace pyrometer::analysis
