#include "core/analysis/steps.h"

#include "core/analysis/stepspans.h"

#include <algorithm>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

constexpr std::string_view kDataLoaderPrefix = "enumerate(DataLoader)";
constexpr int kLookBack = 256; // earlier events checked for overlap with the span's start

int categoryOf(const trace::Trace &trace, const TrackIndex &ti, const trace::Track &track, std::uint32_t i)
{
    switch (ti.kind[i]) {
    case EventKind::Kernel: return static_cast<int>(StepCategory::Kernel);
    case EventKind::Memcpy: return static_cast<int>(StepCategory::Memcpy);
    case EventKind::Memset: return static_cast<int>(StepCategory::Memset);
    case EventKind::Runtime: return static_cast<int>(StepCategory::Runtime);
    case EventKind::Op: {
        const auto name = trace.string(track.eventName[i]);
        if (name.substr(0, kDataLoaderPrefix.size()) == kDataLoaderPrefix)
            return static_cast<int>(StepCategory::DataLoader);
        if (isProfilerStep(name))
            return -1;
        return static_cast<int>(StepCategory::CpuExec);
    }
    default: return -1;
    }
}

struct Point {
    std::int64_t time;
    int delta;
    int category;
};

} // namespace

std::string_view stepCategoryName(StepCategory category)
{
    static constexpr std::string_view names[] = {"kernel",     "memcpy",   "memset", "runtime",
                                                 "dataloader", "cpu_exec", "other"};
    return names[static_cast<std::size_t>(category)];
}

StepRow breakdownSpan(const TraceIndex &index, std::int64_t s, std::int64_t e)
{
    const auto &trace = *index.trace;
    StepRow row;
    row.name = "range";
    row.startNs = s;
    row.durationNs = std::max<std::int64_t>(0, e - s);
    row.cpuStartNs = s;
    row.cpuEndNs = s + row.durationNs;
    std::vector<Point> points;
    const auto add = [&](std::int64_t a, std::int64_t b, int category) {
        a = std::max(a, s);
        b = std::min(b, e);
        if (a < b) {
            points.push_back({a, 1, category});
            points.push_back({b, -1, category});
        }
    };
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        const auto &track = trace.tracks[t];
        const auto [firstId, lastId] = trace.startRange(TrackId(t), s, e);
        const auto first = firstId.value;
        for (auto i = first; i < lastId.value; ++i)
            if (const auto c = categoryOf(trace, ti, track, i); c >= 0)
                add(track.start[i], track.end(EventIndex(i)), c);
        // Events that began before the span and reach into it: the ancestors of the last one
        // that began before, and a few earlier ones (other lanes).
        std::vector<std::uint32_t> earlier;
        for (std::uint32_t back = 1; back <= kLookBack && back <= first; ++back)
            for (auto j = EventIndex(first - back); j.isValid(); j = track.parent[j.value])
                earlier.push_back(j.value);
        std::sort(earlier.begin(), earlier.end());
        earlier.erase(std::unique(earlier.begin(), earlier.end()), earlier.end());
        for (const auto j : earlier)
            if (track.end(EventIndex(j)) > s)
                if (const auto c = categoryOf(trace, ti, track, j); c >= 0)
                    add(track.start[j], track.end(EventIndex(j)), c);
    }
    std::sort(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.time < b.time; });
    std::array<int, kStepCategoryCount> active{};
    std::int64_t last = s;
    std::int64_t gpuIdleStart = s;
    bool anyDevice = false;
    const auto deviceActive = [&] { return active[0] + active[1] + active[2] > 0; };
    const auto closeGap = [&](std::int64_t until) {
        if (until > gpuIdleStart)
            row.largestIdleGaps.push_back({gpuIdleStart, until - gpuIdleStart});
    };
    for (std::size_t j = 0; j < points.size();) {
        const auto x = points[j].time;
        if (x > last) {
            std::size_t c = 0;
            while (c < kStepCategoryCount - 1 && active[c] == 0)
                ++c;
            row.categoryNs[c] += x - last;
            if (deviceActive())
                row.gpuBusyNs += x - last;
            last = x;
        }
        const bool wasDevice = deviceActive();
        for (; j < points.size() && points[j].time == x; ++j) {
            active[static_cast<std::size_t>(points[j].category)] += points[j].delta;
            anyDevice = anyDevice || points[j].category <= 2;
        }
        if (!wasDevice && deviceActive())
            closeGap(x);
        else if (wasDevice && !deviceActive())
            gpuIdleStart = x;
    }
    if (e > last)
        row.categoryNs[kStepCategoryCount - 1] += e - last;
    if (anyDevice || index.hasDevice) {
        if (!deviceActive())
            closeGap(e);
        std::sort(row.largestIdleGaps.begin(), row.largestIdleGaps.end(), [](const IdleGap &a, const IdleGap &b) {
            return a.durationNs > b.durationNs || (a.durationNs == b.durationNs && a.startNs < b.startNs);
        });
        if (row.largestIdleGaps.size() > 3)
            row.largestIdleGaps.resize(3);
        if (row.durationNs > 0)
            row.gpuUtilization = static_cast<double>(row.gpuBusyNs) / static_cast<double>(row.durationNs);
    } else {
        row.largestIdleGaps.clear();
    }
    return row;
}

StepBreakdown buildStepBreakdown(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    StepBreakdown result;
    result.hasDevice = index.hasDevice;
    const auto spans = buildStepSpans(index, stop);
    for (const auto &step : spans.steps) {
        if (stop && stop->stopRequested())
            return {};
        if (!range.contains(step.cpuStartNs))
            continue;
        auto row = breakdownSpan(index, step.startNs, step.endNs);
        row.name = step.name;
        row.cpuStartNs = step.cpuStartNs;
        row.cpuEndNs = step.cpuEndNs;
        row.gpuStartNs = step.gpuStartNs;
        row.gpuEndNs = step.gpuEndNs;
        result.steps.push_back(std::move(row));
    }
    return result;
}

} // namespace pyrometer::analysis
