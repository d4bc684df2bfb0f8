#include "core/analysis/graphreplays.h"

#include "core/analysis/intervals.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

bool nameHas(std::string_view name, std::string_view part)
{
    return name.find(part) != std::string_view::npos;
}

struct ReplayAccumulator {
    GraphReplay replay;
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;  // device events: start, end
    std::vector<std::pair<std::uint32_t, std::int64_t>> names; // device events: name id, duration
};

std::int64_t medianDelay(std::vector<std::int64_t> values)
{
    if (values.empty())
        return 0;
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>((values.size() + 1) / 2 - 1);
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
}

bool isCaptureBegin(std::string_view name)
{
    return nameHas(name, "StreamBeginCapture");
}

bool isCaptureEnd(std::string_view name)
{
    return nameHas(name, "StreamEndCapture");
}

} // namespace

std::string graphName(std::int32_t graphId)
{
    return graphId >= 0 ? "graph " + std::to_string(graphId) : std::string("graph");
}

bool isGraphEvent(const trace::Trace &trace, const LaunchCalls &calls, TrackId track, std::uint32_t event)
{
    if (const auto *args = trace.eventArgs(track, EventIndex(event)); args && args->graphId > 0)
        return true;
    if (track.value >= calls.byTrack.size())
        return false;
    const auto call = calls.of(track, event);
    return call.isValid() && isGraphLaunchName(trace.string(trace.track(call.track).eventName[call.event.value]));
}

bool hasGraphLaunches(const trace::Trace &trace)
{
    for (const auto name : {"cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch", "cuGraphLaunch_ptsz",
                            "cudaGraphLaunch_ptsz", "cudaGraphLaunch_v10000"})
        if (trace.strings.find(name).isValid())
            return true;
    return false;
}

LaunchCalls graphLaunchCalls(const TraceIndex &index, const StopToken *stop)
{
    return hasGraphLaunches(*index.trace) ? launchCalls(index, stop) : LaunchCalls{};
}

GraphReplays buildGraphReplays(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    const auto calls = launchCalls(index, stop);
    if (stop && stop->stopRequested())
        return {};
    return buildGraphReplays(index, calls, range, stop);
}

GraphReplays buildGraphReplays(const TraceIndex &index, const LaunchCalls &calls, const TimeRange &range,
                               const StopToken *stop)
{
    const auto &trace = *index.trace;
    GraphReplays result;
    // By (correlation, device, stream): a replay's events share the launch's correlation id.
    std::map<std::tuple<std::int64_t, std::int32_t, std::int32_t>, ReplayAccumulator> open;
    // Replays without a call in the trace (launched before the window) still group by their
    // correlation id; those without one group by graph id and are counted as events only.
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        if (stop && stop->stopRequested())
            return {};
        const auto &track = trace.tracks[t];
        const auto [first, last] = eventsIn(trace, TrackId(t), range);
        for (auto i = first; i < last; ++i) {
            if (!isDeviceKind(ti.kind[i]))
                continue;
            const auto ns = track.duration[i];
            if (!isGraphEvent(trace, calls, TrackId(t), i)) {
                ++result.eagerEvents;
                result.eagerDeviceNs += ns;
                continue;
            }
            ++result.graphEvents;
            result.graphDeviceNs += ns;
            const auto *args = trace.eventArgs(TrackId(t), EventIndex(i));
            const auto correlation = args ? args->correlation : -1;
            if (correlation <= 0)
                continue;
            const auto [device, stream] = deviceAndStream(trace, TrackId(t), i);
            auto &acc = open[{correlation, device, stream}];
            auto &r = acc.replay;
            const EventRef ref{TrackId(t), EventIndex(i)};
            if (r.eventCount == 0) {
                r.correlation = correlation;
                r.device = device;
                r.stream = stream;
                r.call = ref.track.value < calls.byTrack.size() ? calls.of(ref) : EventRef{};
                r.first = ref;
                r.startNs = track.start[i];
                r.endNs = track.start[i] + ns;
                if (r.call.isValid()) {
                    const auto &callTrack = trace.track(r.call.track);
                    r.callStartNs = callTrack.start[r.call.event.value];
                    r.callNs = callTrack.duration[r.call.event.value];
                }
            }
            if (args->graphId > 0)
                r.graphId = args->graphId;
            ++r.eventCount;
            if (track.start[i] < r.startNs) {
                r.startNs = track.start[i];
                r.first = ref;
            }
            r.endNs = std::max(r.endNs, track.start[i] + ns);
            if (ns > r.longestNs || !r.longest.isValid()) {
                r.longestNs = ns;
                r.longest = ref;
            }
            acc.spans.push_back({track.start[i], track.start[i] + ns});
            acc.names.push_back({track.eventName[i].value, ns});
        }
    }

    // Per graph: its replays' sums, median first-event delay and the kernel with the most time.
    struct GraphAccumulator {
        GraphRow row;
        std::vector<std::int64_t> delays;
        std::unordered_map<std::uint32_t, std::int64_t> kernelNs; // name id -> time
    };
    std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, GraphAccumulator> graphs;
    result.replays.reserve(open.size());
    for (auto &[key, acc] : open) {
        auto &r = acc.replay;
        r.busyNs = IntervalSet(std::move(acc.spans)).length();
        result.gapInsideNs += r.gapNs();
        auto &g = graphs[{r.graphId, r.device, r.stream}];
        g.row.graphId = r.graphId;
        g.row.device = r.device;
        g.row.stream = r.stream;
        ++g.row.replays;
        g.row.events += r.eventCount;
        g.row.spanNs += r.spanNs();
        g.row.busyNs += r.busyNs;
        if (r.call.isValid())
            g.delays.push_back(r.delayNs());
        for (const auto &[name, ns] : acc.names)
            g.kernelNs[name] += ns;
        result.replays.push_back(r);
    }
    for (auto &[key, g] : graphs) {
        g.row.delayMedianNs = medianDelay(std::move(g.delays));
        std::uint32_t best = 0;
        std::int64_t bestNs = -1;
        for (const auto &[name, ns] : g.kernelNs)
            if (ns > bestNs || (ns == bestNs && name < best)) {
                best = name;
                bestNs = ns;
            }
        if (bestNs >= 0) {
            g.row.longestKernel = std::string(trace.string(trace::StringId(best)));
            g.row.longestKernelNs = bestNs;
        }
        result.graphs.push_back(std::move(g.row));
    }
    std::sort(result.graphs.begin(), result.graphs.end(), [](const GraphRow &a, const GraphRow &b) {
        return std::tuple(-a.busyNs, a.graphId, a.device, a.stream) <
               std::tuple(-b.busyNs, b.graphId, b.device, b.stream);
    });
    std::sort(result.replays.begin(), result.replays.end(), [](const GraphReplay &a, const GraphReplay &b) {
        return std::tuple(a.startNs, a.correlation, a.stream) < std::tuple(b.startNs, b.correlation, b.stream);
    });

    // Captures: Begin ... End on one thread.
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        const auto [first, last] = eventsIn(trace, TrackId(t), range);
        GraphCapture *current = nullptr;
        for (auto i = first; i < last; ++i) {
            if (ti.kind[i] != EventKind::Runtime)
                continue;
            const auto name = trace.string(track.eventName[i]);
            if (isCaptureBegin(name)) {
                result.captures.push_back({{TrackId(t), EventIndex(i)}, {}, track.start[i], trace.info.spanEnd, 0});
                current = &result.captures.back();
            } else if (current && isCaptureEnd(name)) {
                current->end = {TrackId(t), EventIndex(i)};
                current->endNs = track.end(EventIndex(i));
                current = nullptr;
            } else if (current) {
                ++current->calls;
            }
        }
    }
    std::sort(result.captures.begin(), result.captures.end(),
              [](const GraphCapture &a, const GraphCapture &b) { return a.startNs < b.startNs; });
    return result;
}

} // namespace pyrometer::analysis
