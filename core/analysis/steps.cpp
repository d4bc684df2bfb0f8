#include "core/analysis/steps.h"

#include "core/analysis/stepspans.h"

#include "core/util/format.h"

#include <algorithm>
#include <numeric>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

constexpr std::string_view kDataLoaderPrefix = "enumerate(DataLoader)";
constexpr int kOverlapLookBack = 256; // earlier events checked for overlap with the span's start

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

namespace {

// skip: the device events it marks kLaunchedBefore (queued before the profiler started): they
// run in the first step but are none of its work.
StepRow breakdownOf(const TraceIndex &index, std::int64_t s, std::int64_t e, const StepSpans *skip)
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
        const auto skipped = [&](std::uint32_t i) {
            return skip && isDeviceKind(ti.kind[i]) && skip->of(TrackId(t), i) == kLaunchedBefore;
        };
        for (auto i = first; i < lastId.value; ++i)
            if (const auto c = categoryOf(trace, ti, track, i); c >= 0 && !skipped(i))
                add(track.start[i], track.end(EventIndex(i)), c);
        // Events that began before the span and reach into it: the ancestors of the last one
        // that began before, and a few earlier ones (other lanes).
        std::vector<std::uint32_t> earlier;
        for (std::uint32_t back = 1; back <= kOverlapLookBack && back <= first; ++back)
            for (auto j = EventIndex(first - back); j.isValid(); j = track.parent[j.value])
                earlier.push_back(j.value);
        std::sort(earlier.begin(), earlier.end());
        earlier.erase(std::unique(earlier.begin(), earlier.end()), earlier.end());
        for (const auto j : earlier)
            if (track.end(EventIndex(j)) > s)
                if (const auto c = categoryOf(trace, ti, track, j); c >= 0 && !skipped(j))
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

} // namespace

StepRow breakdownSpan(const TraceIndex &index, std::int64_t s, std::int64_t e)
{
    return breakdownOf(index, s, e, nullptr);
}

StepBreakdown buildStepBreakdown(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    StepBreakdown result;
    result.hasDevice = index.hasDevice;
    const auto spans = buildStepSpans(index, stop);
    result.rule = spans.rule;
    result.ruleExample = spans.ruleExample;
    for (const auto &step : spans.steps) {
        if (stop && stop->stopRequested())
            return {};
        if (!range.contains(step.cpuStartNs))
            continue;
        auto row = breakdownOf(index, step.startNs, step.endNs, &spans);
        row.name = step.name;
        row.cpuStartNs = step.cpuStartNs;
        row.cpuEndNs = step.cpuEndNs;
        row.gpuStartNs = step.gpuStartNs;
        row.gpuEndNs = step.gpuEndNs;
        result.steps.push_back(std::move(row));
    }
    return result;
}

namespace {

// The lower middle value of an even count, so a median is always one of the durations.
std::int64_t medianOf(std::vector<std::int64_t> values)
{
    if (values.empty())
        return 0;
    const auto middle = values.begin() + std::ptrdiff_t((values.size() - 1) / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

std::vector<std::int64_t> durationsOf(const std::vector<std::int64_t> &durations, const std::vector<StepKind> &kinds,
                                      std::size_t from, std::size_t skip)
{
    std::vector<std::int64_t> values;
    for (std::size_t i = from; i < durations.size(); ++i)
        if (i != skip && kinds[i] != StepKind::Partial)
            values.push_back(durations[i]);
    return values;
}

} // namespace

std::string_view stepKindName(StepKind kind)
{
    switch (kind) {
    case StepKind::Steady: return "steady";
    case StepKind::WarmUp: return "warm-up";
    case StepKind::Partial: return "partial";
    }
    return "steady";
}

StepMean stepMean(const std::vector<std::int64_t> &durationsNs)
{
    StepMean result;
    const std::size_t n = durationsNs.size();
    result.kinds.assign(n, StepKind::Steady);
    if (n == 0)
        return result;
    if (n >= 2) {
        for (const std::size_t end : {std::size_t(0), n - 1}) {
            std::vector<std::int64_t> others;
            for (std::size_t i = 0; i < n; ++i)
                if (i != end)
                    others.push_back(durationsNs[i]);
            if (double(durationsNs[end]) < kPartialFraction * double(medianOf(std::move(others))))
                result.kinds[end] = StepKind::Partial;
        }
    }
    std::vector<std::size_t> whole;
    for (std::size_t i = 0; i < n; ++i)
        if (result.kinds[i] != StepKind::Partial)
            whole.push_back(i);
    for (std::size_t w = 0; w < whole.size() / 2; ++w) {
        const auto i = whole[w];
        const auto later = durationsOf(durationsNs, result.kinds, i + 1, n);
        if (later.empty() || double(durationsNs[i]) <= kWarmUpFactor * double(medianOf(later)))
            break;
        result.kinds[i] = StepKind::WarmUp;
    }
    std::int64_t steadySum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        switch (result.kinds[i]) {
        case StepKind::Steady: ++result.steady, steadySum += durationsNs[i]; break;
        case StepKind::WarmUp: ++result.warmUp; break;
        case StepKind::Partial: ++result.partial; break;
        }
    }
    result.meanNs = result.steady > 0
                        ? steadySum / std::int64_t(result.steady)
                        : std::accumulate(durationsNs.begin(), durationsNs.end(), std::int64_t(0)) / std::int64_t(n);
    return result;
}

StepMean stepMean(const StepBreakdown &steps)
{
    std::vector<std::int64_t> durations;
    durations.reserve(steps.steps.size());
    for (const auto &step : steps.steps)
        durations.push_back(step.durationNs);
    return stepMean(durations);
}

std::string describeStepMean(const StepMean &mean, const std::function<std::string(std::int64_t)> &format)
{
    if (mean.kinds.empty())
        return {};
    const auto text = [&](std::int64_t ns) { return format ? format(ns) : formatDuration(ns); };
    std::string result = "mean " + text(mean.meanNs) + " over ";
    result += mean.steady > 0 ? countOf(std::int64_t(mean.steady), "steady step") : countOf(std::int64_t(mean.kinds.size()), "step");
    std::vector<std::string> out;
    if (mean.warmUp > 0)
        out.push_back(countOf(std::int64_t(mean.warmUp), "warm-up step"));
    if (mean.partial > 0)
        out.push_back(countOf(std::int64_t(mean.partial), "partial step"));
    if (!out.empty())
        result += "; " + (out.size() == 2 ? out[0] + ", " + out[1] : out[0]) + (mean.steady > 0 ? " left out" : ", none steady");
    return result;
}

} // namespace pyrometer::analysis
