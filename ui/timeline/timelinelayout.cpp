#include "ui/timeline/timelinelayout.h"

#include <algorithm>

namespace pyrometer::ui::timeline {

std::vector<std::uint32_t> traceParts(const trace::Trace &trace)
{
    std::vector<std::uint32_t> parts;
    std::set<std::uint32_t> seen;
    for (const auto &process : trace.processes)
        if (const auto part = processPart(process); seen.insert(part).second)
            parts.push_back(part);
    return parts;
}

analysis::ProcessSet partProcesses(const trace::Trace &trace, std::uint32_t part)
{
    analysis::ProcessSet set;
    set.included.assign(trace.processes.size(), false);
    for (const auto &process : trace.processes)
        set.included[process.id.value] = processPart(process) == part;
    return set;
}

std::string partLabel(const trace::Trace &trace, std::uint32_t part)
{
    constexpr std::string_view separator = " \u00b7 ";
    for (const auto &process : trace.processes) {
        if (processPart(process) != part)
            continue;
        const auto at = process.name.find(separator);
        if (at != std::string::npos && at > 0)
            return process.name.substr(0, at);
    }
    return "part " + std::to_string(part);
}

TimelineLayout buildLayout(const TimelineIndex &index, const std::set<std::uint32_t> &collapsedProcesses,
                           const LayoutMetrics &metrics, TrackOrder order)
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
    const auto isDevice = [&](trace::TrackId track) {
        return order == TrackOrder::DevicesFirst && index.analysis && index.analysis->track(track).hasDevice;
    };

    // Processes, and each one's tracks, in display order: GPU ones first when asked (stable),
    // within each part of a combined trace (a job's rank: its GPU rows beside its CPU rows).
    std::vector<std::uint32_t> processes(trace.processes.size());
    for (std::uint32_t p = 0; p < processes.size(); ++p)
        processes[p] = p;
    const auto hasDevice = [&](std::uint32_t p) {
        const auto &tracks = trace.processes[p].tracks;
        return std::any_of(tracks.begin(), tracks.end(), isDevice);
    };
    for (auto part = processes.begin(); part != processes.end();) {
        const auto partOf = processPart(trace.processes[*part]);
        const auto end = std::find_if(part, processes.end(),
                                      [&](std::uint32_t p) { return processPart(trace.processes[p]) != partOf; });
        std::stable_partition(part, end, hasDevice);
        part = end;
    }

    for (const std::uint32_t p : processes) {
        const auto &process = trace.processes[p];
        add({RowKind::Process, 0, metrics.processHeight, p, 0, false});
        if (collapsedProcesses.count(p))
            continue;
        auto tracks = process.tracks;
        std::stable_partition(tracks.begin(), tracks.end(), isDevice);
        for (const auto trackId : tracks) {
            const auto first = index.trackFirstRow[trackId.value];
            const auto count = index.trackRowCount[trackId.value];
            for (std::uint32_t r = first; r < first + count; ++r) {
                layout.sliceRowToLayout[r] = int(layout.rows.size());
                add({RowKind::Slices, 0, metrics.sliceHeight, p, r, r == first});
            }
            if (count > 0)
                y += metrics.trackGap;
        }
        for (std::uint32_t c = 0; c < index.counterCount(); ++c) {
            if (index.counter(c).process.value == p && !index.counter(c).time.empty())
                add({RowKind::Counter, 0, metrics.counterHeight, p, c, true});
        }
    }
    layout.height = y;
    return layout;
}

int TimelineLayout::processHeaderOf(int r) const
{
    if (r < 0 || std::size_t(r) >= rows.size())
        return -1;
    const auto process = rows[std::size_t(r)].process;
    for (int i = r; i >= 0; --i) {
        const auto &row = rows[std::size_t(i)];
        if (row.kind == RowKind::Process && row.process == process)
            return i;
    }
    return -1;
}

int TimelineLayout::rowAt(int y) const
{
    const auto it =
        std::upper_bound(rows.begin(), rows.end(), y, [](int value, const LayoutRow &row) { return value < row.y; });
    if (it == rows.begin())
        return -1;
    const auto &row = *(it - 1);
    return y < row.y + row.height ? int(it - rows.begin() - 1) : -1;
}

std::pair<int, int> TimelineLayout::rowsIn(int top, int bottom) const
{
    const auto first =
        std::partition_point(rows.begin(), rows.end(), [&](const LayoutRow &row) { return row.y + row.height <= top; });
    const auto last = std::partition_point(first, rows.end(), [&](const LayoutRow &row) { return row.y < bottom; });
    return {int(first - rows.begin()), int(last - rows.begin())};
}

} // namespace pyrometer::ui::timeline
