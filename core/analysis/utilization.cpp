#include "core/analysis/utilization.h"

#include "core/analysis/intervals.h"

#include <algorithm>
#include <map>

namespace pyrometer::analysis {

namespace {

using Window = Interval;

std::vector<Window> mergedWindows(std::vector<Window> windows)
{
    return IntervalSet(std::move(windows)).spans();
}

} // namespace

std::vector<DeviceBusy> deviceUtilization(const TraceIndex &index, std::int64_t start, std::int64_t end)
{
    return deviceUtilization(index, std::vector<Window>{{start, end}});
}

std::vector<DeviceBusy> deviceUtilization(const TraceIndex &index, std::vector<Window> windows)
{
    windows = mergedWindows(std::move(windows));
    if (windows.empty())
        return {};
    const auto start = windows.front().first;
    const auto end = windows.back().second;
    std::int64_t total = 0;
    for (const auto &[a, b] : windows)
        total += b - a;
    const auto &trace = *index.trace;
    std::map<std::int32_t, std::vector<Window>> intervals;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        // Every event that starts before the end: one that began earlier may reach into the span.
        const auto last = trace.startRange(trace::TrackId(t), std::numeric_limits<std::int64_t>::min(), end).second;
        for (std::uint32_t i = 0; i < last.value; ++i) {
            if (!isDeviceKind(ti.kind[i]))
                continue;
            const auto a = std::max(track.start[i], start);
            const auto b = std::min(track.start[i] + track.duration[i], end);
            if (a < b)
                intervals[deviceAndStream(trace, trace::TrackId(t), i).first].push_back({a, b});
        }
    }
    std::vector<DeviceBusy> result;
    for (auto &[device, spans] : intervals) {
        DeviceBusy busy{device, 0, total};
        // Both lists sorted and disjoint: walk them together.
        const auto busySpans = mergedWindows(std::move(spans));
        std::size_t w = 0;
        for (const auto &[a, b] : busySpans) {
            while (w < windows.size() && windows[w].second <= a)
                ++w;
            for (auto v = w; v < windows.size() && windows[v].first < b; ++v)
                busy.busyNs += std::min(b, windows[v].second) - std::max(a, windows[v].first);
        }
        result.push_back(busy);
    }
    return result;
}

GpuUtilization gpuUtilization(const TraceIndex &index, const std::vector<StepRow> &steps, const TimeRange &range)
{
    GpuUtilization result;
    result.steps = steps.size();
    result.overSteps = !steps.empty();
    if (!index.hasDevice)
        return result;
    std::vector<Window> windows;
    for (const auto &step : steps)
        windows.push_back({step.startNs, step.startNs + step.durationNs});
    if (windows.empty())
        windows.push_back({std::max(index.trace->info.spanStart, range.start), std::min(index.trace->info.spanEnd, range.end)});
    result.devices = deviceUtilization(index, std::move(windows));
    return result;
}

} // namespace pyrometer::analysis
