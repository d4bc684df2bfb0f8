#include "ui/timeline/timelinelayout.h"

#include <algorithm>

namespace pyrometer::ui::timeline {

TimelineLayout buildLayout(const TimelineIndex &index, const std::set<std::uint32_t> &collapsedProcesses,
                           const LayoutMetrics &metrics)
{
    const auto &trace = *index.trace;
    TimelineLayout layout;
    layout.sliceRowToLayout.assign(index.rows.size(), -1);
    int y = 0;
    const auto add = [&](LayoutRow row) {
        row.y = y;
        y += row.height;
        layout.rows.push_back(row);
    };

    for (std::uint32_t p = 0; p < trace.processes.size(); ++p) {
        const auto &process = trace.processes[p];
        add({RowKind::Process, 0, metrics.processHeight, p, 0, false});
        if (collapsedProcesses.count(p))
            continue;
        for (const auto trackId : process.tracks) {
            const auto first = index.trackFirstRow[trackId.value];
            const auto count = index.trackRowCount[trackId.value];
            for (std::uint32_t r = first; r < first + count; ++r) {
                layout.sliceRowToLayout[r] = int(layout.rows.size());
                add({RowKind::Slices, 0, metrics.sliceHeight, p, r, r == first});
            }
            if (count > 0)
                y += metrics.trackGap;
        }
        for (std::uint32_t c = 0; c < trace.counters.size(); ++c) {
            if (trace.counters[c].process.value == p && !trace.counters[c].time.empty())
                add({RowKind::Counter, 0, metrics.counterHeight, p, c, true});
        }
    }
    layout.height = y;
    return layout;
}

int TimelineLayout::rowAt(int y) const
{
    const auto it = std::upper_bound(rows.begin(), rows.end(), y, [](int value, const LayoutRow &row) { return value < row.y; });
    if (it == rows.begin())
        return -1;
    const auto &row = *(it - 1);
    return y < row.y + row.height ? int(it - rows.begin() - 1) : -1;
}

std::pair<int, int> TimelineLayout::rowsIn(int top, int bottom) const
{
    const auto first = std::partition_point(rows.begin(), rows.end(), [&](const LayoutRow &row) { return row.y + row.height <= top; });
    const auto last = std::partition_point(first, rows.end(), [&](const LayoutRow &row) { return row.y < bottom; });
    return {int(first - rows.begin()), int(last - rows.begin())};
}

} // namespace pyrometer::ui::timeline
