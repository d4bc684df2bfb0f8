#include "core/analysis/idlecauses.h"

#include "core/analysis/launches.h"
#include "core/analysis/stepspans.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

// One stream's busy time as a union of spans, each with the device event that starts it (the
// event that ends the gap before it).
struct StreamSpans {
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::vector<std::pair<std::int64_t, std::int64_t>> spans; // sorted, disjoint, not touching
    std::vector<EventRef> first;                              // per span
};

struct Piece {
    std::int64_t start;
    std::int64_t end;
    EventRef event;
};

// Every device event of positive length, by stream; a zero-length one is no busy time and ends
// no gap.
std::vector<StreamSpans> streamSpans(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<Piece>> pieces;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        std::pair<std::int32_t, std::int32_t> lastKey{-2, -2};
        std::vector<Piece> *list = nullptr;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (!isDeviceKind(ti.kind[i]) || track.duration[i] <= 0)
                continue;
            const auto key = deviceAndStream(trace, TrackId(t), i);
            if (!list || key != lastKey) {
                list = &pieces[key];
                lastKey = key;
            }
            list->push_back({track.start[i], track.start[i] + track.duration[i], {TrackId(t), EventIndex(i)}});
        }
    }
    std::vector<StreamSpans> result;
    for (auto &[key, list] : pieces) {
        std::sort(list.begin(), list.end(), [](const Piece &a, const Piece &b) {
            return std::tie(a.start, a.event) < std::tie(b.start, b.event);
        });
        StreamSpans s;
        s.device = key.first;
        s.stream = key.second;
        for (const auto &p : list) {
            // Touching events make one span: a gap is at least 1 ns.
            if (!s.spans.empty() && p.start <= s.spans.back().second) {
                s.spans.back().second = std::max(s.spans.back().second, p.end);
                continue;
            }
            s.spans.push_back({p.start, p.end});
            s.first.push_back(p.event);
        }
        result.push_back(std::move(s));
    }
    return result;
}

struct StepWindow {
    std::int64_t start;
    std::int64_t end;
    std::string step;
};

// The spans (stepspans.h) of the ProfilerStep ops whose CPU annotation starts in range, in time
// order; without any step in the trace, the range clipped to the device events' span.
std::vector<StepWindow> windows(const StepSpans &spans, const TimeRange &range, const std::vector<StreamSpans> &streams)
{
    std::vector<StepWindow> result;
    if (spans.steps.empty()) {
        auto start = std::numeric_limits<std::int64_t>::max();
        auto end = std::numeric_limits<std::int64_t>::min();
        for (const auto &s : streams) {
            start = std::min(start, s.spans.front().first);
            end = std::max(end, s.spans.back().second);
        }
        start = std::max(start, range.start);
        end = std::min(end, range.end);
        if (start < end)
            result.push_back({start, end, {}});
        return result;
    }
    for (const auto &step : spans.steps)
        if (range.contains(step.cpuStartNs))
            result.push_back({step.startNs, step.endNs, step.name});
    return result;
}

IdleCause causeOf(const trace::Trace &trace, const LaunchCalls &calls, EventRef next, std::int64_t gapStart)
{
    const auto call = calls.of(next);
    if (!call.isValid())
        return IdleCause::Other;
    return trace.track(call.track).start[call.event.value] >= gapStart ? IdleCause::HostWait : IdleCause::KernelWait;
}

} // namespace

std::string_view idleCauseName(IdleCause cause)
{
    switch (cause) {
    case IdleCause::HostWait: return "host_wait";
    case IdleCause::KernelWait: return "kernel_wait";
    case IdleCause::Other: break;
    }
    return "other";
}

std::string_view idleCauseLabel(IdleCause cause)
{
    switch (cause) {
    case IdleCause::HostWait: return "Host wait";
    case IdleCause::KernelWait: return "Kernel wait";
    case IdleCause::Other: break;
    }
    return "Other";
}

IdleBreakdown buildIdleBreakdown(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    const auto &trace = *index.trace;
    IdleBreakdown result;
    const auto streams = streamSpans(index);
    if (streams.empty())
        return result;
    const auto calls = launchCalls(index, stop);
    if (stop && stop->stopRequested())
        return {};
    const auto steps = buildStepSpans(index, calls, stop);
    if (stop && stop->stopRequested())
        return {};
    for (const auto &window : windows(steps, range, streams)) {
        if (stop && stop->stopRequested())
            return {};
        const auto s = window.start;
        const auto e = window.end;
        for (const auto &stream : streams) {
            const auto &spans = stream.spans;
            auto k = static_cast<std::size_t>(
                std::partition_point(spans.begin(), spans.end(), [&](const auto &span) { return span.second <= s; }) -
                spans.begin());
            if (k == spans.size() || spans[k].first >= e)
                continue;
            StreamIdle row;
            row.step = window.step;
            row.device = stream.device;
            row.stream = stream.stream;
            row.spanNs = e - s;
            const auto addGap = [&](std::int64_t from, std::int64_t to, EventRef next) {
                const auto cause = next.isValid() ? causeOf(trace, calls, next, from) : IdleCause::Other;
                row.idleNs[static_cast<std::size_t>(cause)] += to - from;
                result.gaps.push_back({stream.device, stream.stream, from, to - from, cause, next, window.step});
            };
            auto cursor = s;
            for (; k < spans.size() && spans[k].first < e; ++k) {
                const auto from = std::max(spans[k].first, s);
                if (from > cursor)
                    addGap(cursor, from, stream.first[k]);
                cursor = std::min(spans[k].second, e);
                row.busyNs += cursor - from;
            }
            if (cursor < e)
                addGap(cursor, e, EventRef{});
            for (std::size_t c = 0; c < kIdleCauseCount; ++c)
                result.totalNs[c] += row.idleNs[c];
            result.streams.push_back(std::move(row));
        }
    }
    std::stable_sort(result.gaps.begin(), result.gaps.end(), [](const StreamGap &a, const StreamGap &b) {
        return std::tie(a.startNs, a.device, a.stream) < std::tie(b.startNs, b.device, b.stream);
    });
    return result;
}

std::array<double, kIdleCauseCount> workWeightedIdle(const std::vector<StreamIdle> &streams)
{
    std::array<double, kIdleCauseCount> weighted{};
    std::int64_t busy = 0;
    for (const auto &s : streams)
        busy += s.busyNs;
    if (busy <= 0)
        return weighted;
    for (const auto &s : streams)
        for (std::size_t c = 0; c < kIdleCauseCount; ++c)
            weighted[c] += static_cast<double>(s.idleNs[c]) * static_cast<double>(s.busyNs) / static_cast<double>(busy);
    return weighted;
}

int dominantIdleCause(const std::vector<StreamIdle> &streams)
{
    const auto weighted = workWeightedIdle(streams);
    for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
        bool most = weighted[c] > 0;
        for (std::size_t o = 0; o < kIdleCauseCount && most; ++o)
            most = o == c || weighted[c] > weighted[o];
        if (most)
            return static_cast<int>(c);
    }
    return -1;
}

} // namespace pyrometer::analysis
