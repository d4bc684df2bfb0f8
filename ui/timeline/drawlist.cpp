#include "ui/timeline/drawlist.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <iterator>
#include <thread>

namespace pyrometer::ui::timeline {

namespace {

// Events narrower than this many pixels are merged with their neighbours.
constexpr double kMinWidth = 1.0;

std::int64_t timeAt(const Viewport &viewport, double x)
{
    return static_cast<std::int64_t>(std::floor(viewport.toNs(x)));
}

float clampX(double x, const Viewport &viewport)
{
    return static_cast<float>(std::clamp(x, -2.0, double(viewport.width) + 2.0));
}

void buildSliceRow(const TimelineIndex &index, const LayoutRow &layoutRow, const Viewport &viewport,
                   ColorMode colorMode, DrawList &list)
{
    const auto &trace = *index.trace;
    const auto &row = index.rows[layoutRow.ref];
    const auto &track = trace.track(row.trackId);
    const auto n = std::uint32_t(row.size());
    const double endNs = viewport.endNs();
    const int y = layoutRow.y - viewport.scrollY;

    const auto box = [&](double x0, double x1, std::uint32_t position, std::uint32_t count, std::uint32_t representative) {
        const auto event = row.events[representative];
        list.boxes.push_back({clampX(x0, viewport), clampX(x1, viewport), y, layoutRow.height,
                              eventColor(trace, track, event, colorMode), layoutRow.ref, position, count, event});
        list.eventsDrawn += count;
    };

    std::uint32_t i = row.firstEndingAfter(timeAt(viewport, 0));
    while (i < n) {
        const double start = double(row.starts[i]);
        if (start >= endNs)
            break;
        const double x0 = viewport.toX(start);
        const double x1 = viewport.toX(double(row.ends[i]));
        if (x1 - x0 >= kMinWidth) {
            box(x0, x1, i, 1, i);
            ++i;
            continue;
        }
        // A run of sub-pixel events: extend it pixel by pixel, skipping every event that
        // ends inside the run with one galloping search, until a gap of a pixel or a wide event.
        const std::uint32_t first = i;
        const double runStart = std::floor(x0);
        double runEnd = std::floor(x1) + 1;
        for (;;) {
            i = row.firstEndingAfter(timeAt(viewport, runEnd), i + 1);
            if (i >= n)
                break;
            const double nx0 = viewport.toX(double(row.starts[i]));
            const double nx1 = viewport.toX(double(row.ends[i]));
            if (nx0 >= runEnd + kMinWidth || nx1 - nx0 >= kMinWidth || nx0 >= viewport.width)
                break;
            runEnd = std::max(runEnd, std::floor(nx1) + 1);
        }
        box(runStart, runEnd, first, i - first, row.longestIn(first, i));
    }
}

void buildCounterRow(const TimelineIndex &index, const LayoutRow &layoutRow, const Viewport &viewport, DrawList &list)
{
    const auto &series = index.trace->counters[layoutRow.ref];
    const double maxValue = index.counterMax[layoutRow.ref];
    CounterPlot plot{layoutRow.y - viewport.scrollY, layoutRow.height, layoutRow.ref, maxValue, {}};
    const auto &time = series.time;
    if (time.empty() || maxValue <= 0) {
        list.counters.push_back(std::move(plot));
        return;
    }
    // A step function: the value holds from its sample to the next. Per pixel column, the
    // largest value in force during it: O(pixels · log n + samples in view). Counter series
    // are short next to event tracks, so no summary structure is kept for them.
    for (int x = 0; x < viewport.width; ++x) {
        const auto from = timeAt(viewport, x);
        const auto to = timeAt(viewport, x + 1);
        auto first = std::upper_bound(time.begin(), time.end(), from);
        if (first != time.begin())
            --first; // the sample in force at the column's start
        else if (*first >= to)
            continue; // before the first sample
        const auto last = std::lower_bound(first, time.end(), to);
        double value = 0;
        for (auto it = first; it != last; ++it)
            value = std::max(value, series.value[std::size_t(it - time.begin())]);
        plot.points.emplace_back(float(x), float(value / maxValue));
    }
    list.counters.push_back(std::move(plot));
}

} // namespace

namespace {

void buildRows(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport, ColorMode colorMode,
               int first, int last, DrawList &list)
{
    for (int r = first; r < last; ++r) {
        const auto &row = layout.rows[std::size_t(r)];
        if (row.kind == RowKind::Slices)
            buildSliceRow(index, row, viewport, colorMode, list);
        else if (row.kind == RowKind::Counter)
            buildCounterRow(index, row, viewport, list);
    }
}

// Events in view on a layout row: what its share of building costs, roughly.
std::size_t eventsInView(const TimelineIndex &index, const LayoutRow &layoutRow, const Viewport &viewport)
{
    if (layoutRow.kind != RowKind::Slices)
        return 0;
    const auto &row = index.rows[layoutRow.ref];
    const auto from = row.firstEndingAfter(timeAt(viewport, 0));
    const auto to = std::partition_point(row.starts.begin() + from, row.starts.end(),
                                         [&](std::int64_t start) { return double(start) < viewport.endNs(); });
    return std::size_t(to - row.starts.begin()) - from;
}

} // namespace

DrawList buildDrawList(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport,
                       ColorMode colorMode, std::size_t parallelEvents)
{
    DrawList list;
    list.viewport = viewport;
    if (viewport.width <= 0 || viewport.nsPerPixel <= 0)
        return list;
    const auto [first, last] = layout.rowsIn(viewport.scrollY, viewport.scrollY + viewport.height);
    // Zoomed out over many events, the rows are split in two halves of about equal work, the
    // first built on another thread: the boxes come out in the same order either way.
    std::vector<std::size_t> work;
    std::size_t total = 0;
    for (int r = first; r < last; ++r)
        total += work.emplace_back(eventsInView(index, layout.rows[std::size_t(r)], viewport));
    int middle = first;
    if (total >= parallelEvents && std::thread::hardware_concurrency() > 1) {
        for (std::size_t done = 0; middle < last && done * 2 < total; ++middle)
            done += work[std::size_t(middle - first)];
    }
    DrawList head;
    auto firstHalf = std::async(middle > first ? std::launch::async : std::launch::deferred,
                                [&] { buildRows(index, layout, viewport, colorMode, first, middle, head); });
    buildRows(index, layout, viewport, colorMode, middle, last, list);
    firstHalf.get();
    if (!head.boxes.empty() || !head.counters.empty()) {
        head.boxes.insert(head.boxes.end(), list.boxes.begin(), list.boxes.end());
        head.counters.insert(head.counters.end(), std::make_move_iterator(list.counters.begin()),
                             std::make_move_iterator(list.counters.end()));
        list.boxes = std::move(head.boxes);
        list.counters = std::move(head.counters);
        list.eventsDrawn += head.eventsDrawn;
    }
    for (const auto &step : index.steps) {
        if (double(step.end) < viewport.startNs || double(step.start) > viewport.endNs())
            continue;
        list.steps.push_back({clampX(viewport.toX(double(step.start)), viewport),
                              clampX(viewport.toX(double(step.end)), viewport), step.name});
    }
    return list;
}

namespace {

// Boxes wider than this many pixels give up a pixel column where they touch a neighbour.
constexpr int kGapMinWidth = 3;

// Two boxes side by side in a row read as one bar: one that touches the next box of its row
// ends a pixel earlier, or the next one starts a pixel later when only it is wide enough.
void separateTouching(std::vector<Fill> &fills)
{
    for (std::size_t k = 0; k + 1 < fills.size(); ++k) {
        auto &a = fills[k];
        auto &b = fills[k + 1];
        if (a.y != b.y || a.height != b.height || b.left > a.right)
            continue;
        if (a.right - a.left > kGapMinWidth)
            a.right = std::max(a.left + 1, b.left - 1);
        else if (b.right - b.left > kGapMinWidth)
            b.left = std::min(a.right + 1, b.right - 1);
    }
}

} // namespace

std::vector<Fill> joinedFills(const std::vector<DrawBox> &boxes)
{
    std::vector<Fill> separate;
    separate.reserve(boxes.size());
    for (const auto &box : boxes) {
        const int left = int(std::floor(box.x0));
        const int right = std::max(left + 1, int(std::ceil(box.x1)));
        separate.push_back({left, right, box.y, box.height, box.color});
    }
    separateTouching(separate);
    std::vector<Fill> fills;
    for (const auto &fill : separate) {
        if (!fills.empty()) {
            auto &last = fills.back();
            if (last.y == fill.y && last.height == fill.height && last.color == fill.color && fill.left <= last.right &&
                fill.right >= last.left) {
                last.left = std::min(last.left, fill.left);
                last.right = std::max(last.right, fill.right);
                continue;
            }
        }
        fills.push_back(fill);
    }
    return fills;
}

} // namespace pyrometer::ui::timeline

namespace pyrometer::ui::timeline {

std::optional<Hit> hitTest(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport,
                           double x, int y, double tolerancePixels)
{
    const int layoutRow = layout.rowAt(y + viewport.scrollY);
    if (layoutRow < 0 || layout.rows[std::size_t(layoutRow)].kind != RowKind::Slices)
        return std::nullopt;
    const auto rowIndex = layout.rows[std::size_t(layoutRow)].ref;
    const auto &row = index.rows[rowIndex];
    const double t = viewport.toNs(x);
    const double slack = tolerancePixels * viewport.nsPerPixel;
    // Candidates: events ending after t - slack and starting before t + slack; the one whose
    // extent is closest to t wins (an event containing t has distance 0).
    std::optional<Hit> best;
    double bestDistance = slack;
    for (auto i = row.firstEndingAfter(static_cast<std::int64_t>(std::floor(t - slack))); i < row.size(); ++i) {
        const auto e = row.events[i];
        const double start = double(row.starts[i]);
        const double end = double(row.ends[i]);
        if (start > t + slack)
            break;
        const double distance = t < start ? start - t : t > end ? t - end : 0.0;
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = Hit{rowIndex, e};
            if (distance == 0)
                break;
        }
    }
    return best;
}

namespace {

struct Unit {
    double ns;
    const char *suffix;
};

std::string formatTick(double ns, double step)
{
    static constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xC2\xB5s"}, {1, "ns"}};
    // The unit is chosen by the step, so every label of a ruler shares it.
    const Unit *unit = &kUnits[3];
    for (const auto &candidate : kUnits) {
        if (step >= candidate.ns) {
            unit = &candidate;
            break;
        }
    }
    if (std::abs(ns) < step * 1e-6)
        ns = 0; // no "-0 s" from rounding
    const double scaledStep = step / unit->ns;
    const int decimals = scaledStep >= 1 ? 0 : scaledStep >= 0.1 ? 1 : 2;
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, ns / unit->ns, unit->suffix);
    return buffer;
}

} // namespace

std::vector<Tick> rulerTicks(const Viewport &viewport, double originNs, double minSpacing)
{
    std::vector<Tick> ticks;
    if (viewport.width <= 0 || viewport.nsPerPixel <= 0)
        return ticks;
    const double minStep = viewport.nsPerPixel * minSpacing;
    double step = std::pow(10.0, std::floor(std::log10(minStep)));
    for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
        if (step * factor >= minStep) {
            step *= factor;
            break;
        }
    }
    step = std::max(step, 1.0);
    const double relativeStart = viewport.startNs - originNs;
    for (double t = std::ceil(relativeStart / step) * step; t <= relativeStart + viewport.nsPerPixel * viewport.width; t += step)
        ticks.push_back({float((t - relativeStart) / viewport.nsPerPixel), formatTick(t, step)});
    return ticks;
}

std::vector<TickLabel> placeTickLabels(const std::vector<Tick> &ticks, const std::vector<float> &widths, float areaWidth,
                                       float padding, float spacing)
{
    std::vector<TickLabel> labels;
    float previousRight = -spacing;
    for (std::size_t i = 0; i < ticks.size() && i < widths.size(); ++i) {
        if (ticks[i].x < 0 || ticks[i].x > areaWidth)
            continue;
        // Right of its tick, or moved left to end at the edge.
        const float left = std::min(ticks[i].x + padding, areaWidth - widths[i]);
        if (left < previousRight + spacing || left < 0)
            continue;
        labels.push_back({i, left});
        previousRight = left + widths[i];
    }
    return labels;
}

} // namespace pyrometer::ui::timeline
