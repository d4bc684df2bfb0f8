#include "core/analysis/flamechart.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pyrometer::analysis {

namespace {

bool inChart(FlameEvents events, EventKind kind)
{
    return kind == EventKind::Op || (events != FlameEvents::Ops && kind == EventKind::Python);
}

} // namespace

trace::EventIndex FlameChart::parentOf(trace::TrackId track, std::uint32_t event) const
{
    const auto &ti = index->track(track);
    return events == FlameEvents::Ops ? ti.opParent[event] : ti.frameParent[event];
}

FlameChart buildFlameChart(const TraceIndex &index, FlameEvents events, const StopToken *stop)
{
    FlameChart chart;
    chart.index = &index;
    chart.events = events == FlameEvents::All ? FlameEvents::OpsPython : events;
    const auto &trace = *index.trace;
    chart.startNs = std::numeric_limits<std::int64_t>::max();
    chart.endNs = std::numeric_limits<std::int64_t>::min();
    for (const auto &process : trace.processes) {
        for (const auto trackId : process.tracks) {
            const auto &ti = index.track(trackId);
            if (ti.frameParent.empty() || (chart.events == FlameEvents::Ops && !ti.hasOps) ||
                (stop && stop->stopRequested()))
                continue;
            const auto &track = trace.track(trackId);
            FlameChartThread thread;
            thread.track = trackId;
            thread.name = process.name + " / " + track.name;
            thread.firstLane = std::uint32_t(chart.lanes.size());
            std::vector<std::uint32_t> depth(track.size(), 0);
            std::vector<std::uint32_t> position(track.size(), 0); // in its lane
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (!inChart(chart.events, ti.kind[i]))
                    continue;
                const auto parent = chart.parentOf(trackId, i);
                depth[i] = parent.isValid() ? depth[parent.value] + 1 : 0;
                while (thread.laneCount <= depth[i]) {
                    chart.lanes.emplace_back();
                    chart.lanes.back().track = trackId;
                    ++thread.laneCount;
                }
                auto &lane = chart.lanes[thread.firstLane + depth[i]];
                const auto start = track.start[i];
                const auto end = start + track.duration[i];
                position[i] = std::uint32_t(lane.events.size());
                lane.events.push_back(i);
                lane.start.push_back(start);
                lane.end.push_back(end);
                lane.maxEnd.push_back(lane.maxEnd.empty() ? end : std::max(lane.maxEnd.back(), end));
                lane.selfNs.push_back(track.duration[i]);
                if (parent.isValid())
                    chart.lanes[thread.firstLane + depth[i] - 1].selfNs[position[parent.value]] -= track.duration[i];
                else
                    chart.totalNs += track.duration[i];
                chart.startNs = std::min(chart.startNs, start);
                chart.endNs = std::max(chart.endNs, end);
            }
            if (thread.laneCount > 0)
                chart.threads.push_back(std::move(thread));
        }
    }
    if (chart.lanes.empty())
        chart.startNs = chart.endNs = 0;
    return chart;
}

ChartLayout layoutFlameChart(const FlameChart &chart, const ChartViewport &viewport)
{
    ChartLayout layout;
    layout.viewport = viewport;
    if (viewport.width <= 0 || viewport.nsPerPixel <= 0)
        return layout;
    const double viewEnd = viewport.endNs();
    const auto toX = [&](double ns) { return (ns - viewport.startNs) / viewport.nsPerPixel; };
    const auto toNs = [&](double x) { return viewport.startNs + x * viewport.nsPerPixel; };
    const auto pixel = [](double x) { return int(std::clamp(std::floor(x), -1.0, 1e7)); };
    int y = 0;
    for (std::uint32_t t = 0; t < chart.threads.size(); ++t) {
        const auto &thread = chart.threads[t];
        const int threadTop = y;
        y += viewport.rowHeight; // the name row
        const int threadBottom = y + int(thread.laneCount) * viewport.rowHeight;
        if (threadBottom > viewport.scrollY && threadTop < viewport.scrollY + viewport.height)
            layout.headers.push_back({threadTop - viewport.scrollY, t});
        for (std::uint32_t d = 0; d < thread.laneCount; ++d, y += viewport.rowHeight) {
            const int rowY = y - viewport.scrollY;
            if (rowY + viewport.rowHeight <= 0 || rowY >= viewport.height)
                continue;
            const auto laneIndex = thread.firstLane + d;
            const auto &lane = chart.lanes[laneIndex];
            const auto &starts = lane.start;
            auto i = std::size_t(std::upper_bound(lane.maxEnd.begin(), lane.maxEnd.end(), std::int64_t(viewport.startNs)) -
                                 lane.maxEnd.begin());
            while (i < starts.size() && double(starts[i]) < viewEnd) {
                const double x0 = toX(double(starts[i]));
                const double x1 = toX(double(lane.end[i]));
                if (x1 - x0 >= 1) {
                    const int left = pixel(x0);
                    const int right = std::max(left + 1, int(std::clamp(std::ceil(x1), -1.0, double(viewport.width) + 1)));
                    layout.boxes.push_back({{left, rowY, right - left, viewport.rowHeight, laneIndex, 0}, laneIndex,
                                            std::uint32_t(i)});
                    ++i;
                    continue;
                }
                // Events narrower than a pixel: one box for those starting in this column. A
                // wide one in the same column can only be the last (events in a lane do not
                // overlap), and is drawn on its own.
                const int column = pixel(x0);
                auto next = std::size_t(std::lower_bound(starts.begin() + std::ptrdiff_t(i), starts.end(),
                                                         std::int64_t(std::ceil(toNs(column + 1)))) -
                                        starts.begin());
                next = std::max(next, i + 1);
                if (next - 1 > i && toX(double(lane.end[next - 1])) - toX(double(starts[next - 1])) >= 1)
                    --next;
                const auto merged = std::uint32_t(next - i > 1 ? next - i : 0);
                layout.boxes.push_back({{column, rowY, 1, viewport.rowHeight, laneIndex, merged},
                                        laneIndex, std::uint32_t(i)});
                i = next;
            }
        }
    }
    layout.contentHeight = y;
    return layout;
}

} // namespace pyrometer::analysis
