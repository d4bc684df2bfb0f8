#pragma once

#include "ui/timeline/colors.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinelayout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::ui::timeline {

// The visible window: time on x, scrolled content on y. x and y in the draw list are relative
// to the rows area (x = 0 at startNs, y = 0 at scrollY).
struct Viewport {
    double startNs = 0;
    double nsPerPixel = 1;
    int width = 0;
    int scrollY = 0;
    int height = 0;

    double endNs() const { return startNs + nsPerPixel * width; }
    double toX(double ns) const { return (ns - startNs) / nsPerPixel; }
    double toNs(double x) const { return startNs + x * nsPerPixel; }
    bool operator==(const Viewport &) const = default;
};

// One rectangle: a single event a pixel wide or more, drawn to its row's full height, or a
// pixel column of events narrower than a pixel, drawn by occupancy, as Perfetto and Tracy do:
// as tall as the share of the column's time they cover (at least a pixel), standing on the
// row's bottom, coloured like the longest of them (`event`); columns side by side that come
// out alike share a box. A busy row and a row busy 5% of the time then look different however
// far out the view is, and gaps stay visible.
struct DrawBox {
    float x0 = 0;
    float x1 = 0;
    int y = 0;
    int height = 0; // as every box's, it includes the one-pixel gap under the row
    std::uint32_t color = 0;
    std::uint32_t row = 0;      // TimelineIndex::rows
    // The box's events: position of the first in the row, and how many; a column's first may
    // have begun in the one before. For a column built from the row's summary, the events of
    // the buckets it snapped to (columnContent has the exact ones).
    std::uint32_t position = 0;
    std::uint32_t count = 1;
    std::uint32_t event = 0; // the represented event, an index into the track's columns;
                             // SliceRow::kNoEvent for a column built from the row's summary
    bool column = false;        // pixel columns of sub-pixel events
    bool operator==(const DrawBox &) const = default;
};

// A counter row as a polyline: per pixel column, the largest value in it, scaled 0..1.
struct CounterPlot {
    int y = 0;
    int height = 0;
    std::uint32_t counter = 0;
    double maxValue = 0;
    std::vector<std::pair<float, float>> points; // (x, value / maxValue)
};

struct StepBand {
    float x0 = 0;
    float x1 = 0;
    std::string name;
};

struct DrawList {
    Viewport viewport;
    std::vector<DrawBox> boxes;
    std::vector<CounterPlot> counters;
    std::vector<StepBand> steps;
    std::size_t eventsDrawn = 0; // events covered by the boxes, merged ones included
    std::size_t rowsBeside = 0;  // rows a second thread built
};

// Builds what one frame shows. Touches only the visible rows and, in each, the visible
// index range; sub-pixel events are drawn a pixel column at a time. Costs
// O(rows · (pixels + wide events) · log n), whatever the number of events.
// With at least parallelEvents events in view, a second thread builds rows beside this one, as
// many as it takes before they meet (0: always, and it builds one before this thread starts).
// Below kParallelEvents a view is built in a tenth of a millisecond or so, less than it takes
// to wake the thread.
constexpr std::size_t kParallelEvents = 20'000;
DrawList buildDrawList(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport,
                       ColorMode colorMode, std::size_t parallelEvents = kParallelEvents);
// The same into `list`, whose arrays keep their capacity, with `scratch` for the rows built
// beside them: a view that keeps both from frame to frame allocates no memory once they have
// grown, and fresh memory costs a page fault per 4 KiB on its first write, as much as the
// frame's own work on a wide view.
void buildDrawList(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport,
                   ColorMode colorMode, DrawList &list, DrawList &scratch, std::size_t parallelEvents = kParallelEvents);

// What painting fills: whole-pixel rectangles, each box widened to at least one pixel, and
// neighbouring boxes of one row and colour that touch joined into one. Zoomed out, a row is
// thousands of boxes a pixel or two wide; filled one by one they cost the raster engine a
// call per box and scanline, joined they are a few long spans. Covers exactly the pixels the
// boxes cover, but for a column between boxes that touch, where one of them is wider than 3
// pixels: side by side they would read as one bar.
struct Fill {
    int left = 0;
    int right = 0; // exclusive
    int y = 0;
    int height = 0;
    std::uint32_t color = 0;
    bool operator==(const Fill &) const = default;
};
std::vector<Fill> joinedFills(const std::vector<DrawBox> &boxes);
// The same appended to `fills`.
void appendJoinedFills(const std::vector<DrawBox> &boxes, std::vector<Fill> &fills);

// What a box's pixels hold, exactly: its events, and the share of its time they cover, 0..1
// (1 event and 1 for a box of one wide event).
struct ColumnContent {
    std::uint32_t events = 0;
    double busyShare = 0;
};
ColumnContent columnContent(const TimelineIndex &index, const Viewport &viewport, const DrawBox &box);
// The box of an index row at x (viewport coordinates), or nullptr.
const DrawBox *boxAt(const DrawList &list, std::uint32_t row, double x);

} // namespace pyrometer::ui::timeline

namespace pyrometer::ui::timeline {

// The event under a point of the rows area (viewport coordinates), with a tolerance of a few
// pixels so that events narrower than a pixel can still be picked.
struct Hit {
    std::uint32_t row = 0; // TimelineIndex::rows
    std::uint32_t event = 0;
    bool operator==(const Hit &) const = default;
};
std::optional<Hit> hitTest(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport,
                           double x, int y, double tolerancePixels = 3);

// Ruler ticks: a 1-2-5 step at least minSpacing pixels apart, labelled relative to origin
// in the largest unit that keeps the numbers readable (ns, µs, ms, s).
struct Tick {
    float x = 0;
    std::string label;
    bool operator==(const Tick &) const = default;
};
std::vector<Tick> rulerTicks(const Viewport &viewport, double originNs, double minSpacing = 90);

// Where ruler labels are drawn in an area `areaWidth` wide, given each label's width: `padding`
// right of its tick, or moved left to end at the area's edge when it would run past it. A label
// that would then start before 0 or closer than `spacing` to the one before it is left out.
struct TickLabel {
    std::size_t tick = 0; // index into the ticks
    float left = 0;
    bool operator==(const TickLabel &) const = default;
};
std::vector<TickLabel> placeTickLabels(const std::vector<Tick> &ticks, const std::vector<float> &widths, float areaWidth,
                                       float padding = 3, float spacing = 6);

} // namespace pyrometer::ui::timeline
