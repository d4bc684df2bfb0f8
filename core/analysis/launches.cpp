#include "core/analysis/launches.h"

#include "core/analysis/graphreplays.h"
#include "core/analysis/intervals.h"
#include "core/trace/combine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

struct CallEntry {
    std::uint32_t part; // of a combined trace: each rank numbers its correlation ids from 1
    std::int64_t correlation;
    std::int64_t start;
    EventRef call;
};

// Nearest-rank percentile: the value at rank ceil(p/100 x n) in sorted order (reorders values).
std::int64_t nearestRank(std::vector<std::int64_t> &values, std::uint64_t percent)
{
    const auto rank = std::max<std::size_t>((percent * values.size() + 99) / 100, 1) - 1;
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
}

struct LaunchAccumulator {
    LaunchGroup group;
    std::vector<std::int64_t> delays;
    std::int64_t callTotal = 0;
    std::int64_t kernelTotal = 0;
};

// delays: whether to keep the delay (the names' groups have theirs already).
void add(LaunchAccumulator &acc, const Launch &l, bool delays)
{
    ++acc.group.count;
    if (delays)
        acc.delays.push_back(l.delayNs);
    acc.group.delayTotalNs += l.delayNs;
    acc.callTotal += l.callNs;
    acc.kernelTotal += l.kernelNs;
    acc.group.outliers += l.outlier ? 1 : 0;
}

LaunchGroup finish(LaunchAccumulator &acc)
{
    auto group = acc.group;
    group.delayMedianNs = nearestRank(acc.delays, 50);
    group.delayP90Ns = nearestRank(acc.delays, 90);
    group.delayMaxNs = *std::max_element(acc.delays.begin(), acc.delays.end());
    const auto count = static_cast<std::int64_t>(group.count);
    group.callMeanNs = acc.callTotal / count;
    group.kernelMeanNs = acc.kernelTotal / count;
    return group;
}

QueueSeries queueSeries(std::int32_t device, std::int32_t stream, std::vector<std::pair<std::int64_t, int>> points)
{
    QueueSeries series;
    series.device = device;
    series.stream = stream;
    std::sort(points.begin(), points.end());
    std::int32_t length = 0;
    for (std::size_t i = 0; i < points.size();) {
        const auto time = points[i].first;
        const auto before = length;
        // Every change at one ns is applied at once: only the level that then holds is a point.
        for (; i < points.size() && points[i].first == time; ++i)
            length += points[i].second;
        if (length == before)
            continue;
        series.timeNs.push_back(time);
        series.length.push_back(length);
        if (length > series.maxLength) {
            series.maxLength = length;
            series.maxAtNs = time;
        }
    }
    for (std::size_t i = 0; i + 1 < series.timeNs.size(); ++i) {
        const auto ns = series.timeNs[i + 1] - series.timeNs[i];
        series.windowNs += ns;
        if (series.length[i] <= 0)
            series.emptyNs += ns;
        else
            series.depthNsSum += std::int64_t(series.length[i]) * ns;
    }
    series.queuedNs = series.windowNs - series.emptyNs;
    return series;
}

} // namespace

std::string_view launchBoundName(LaunchBound bound)
{
    switch (bound) {
    case LaunchBound::None: return "";
    case LaunchBound::GpuBound: return "GPU-bound";
    case LaunchBound::CpuBound: return "CPU-bound";
    }
    return "";
}

namespace {

// A device's time with nothing queued on any of its streams, over the device's window (first
// point to last of its streams): the union of the streams' queued stretches, not their sum.
std::pair<std::int64_t, std::int64_t> deviceWindowAndEmpty(const std::vector<const QueueSeries *> &streams)
{
    std::vector<Interval> queued; // stretches with work queued on some stream
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    for (const auto *q : streams) {
        if (q->timeNs.empty())
            continue;
        first = std::min(first, q->timeNs.front());
        last = std::max(last, q->timeNs.back());
        for (std::size_t i = 0; i + 1 < q->timeNs.size(); ++i)
            if (q->length[i] > 0)
                queued.push_back({q->timeNs[i], q->timeNs[i + 1]});
    }
    if (first >= last)
        return {0, 0};
    return {last - first, (last - first) - IntervalSet(std::move(queued)).lengthIn(first, last)};
}

} // namespace

QueueSummary summarizeQueues(const std::vector<QueueSeries> &queues)
{
    QueueSummary summary;
    std::map<std::int32_t, std::vector<const QueueSeries *>> byDevice;
    for (const auto &q : queues) {
        // Depth is weighted by each stream's queued time: a side stream with a few µs of work
        // barely moves it.
        summary.queuedNs += q.queuedNs;
        summary.depthNsSum += q.depthNsSum;
        summary.maxLength = std::max(summary.maxLength, q.maxLength);
        byDevice[q.device].push_back(&q);
    }
    for (const auto &[device, streams] : byDevice) {
        const auto [window, empty] = deviceWindowAndEmpty(streams);
        summary.windowNs += window;
        summary.emptyNs += empty;
    }
    if (summary.queuedNs > 0)
        summary.bound = summary.meanDepth() >= kGpuBoundDepth && summary.emptyShare() < kHostBoundEmptyShare
                            ? LaunchBound::GpuBound
                            : LaunchBound::CpuBound;
    return summary;
}

std::string describeQueues(const QueueSummary &summary, std::string_view device)
{
    if (summary.bound == LaunchBound::None)
        return {};
    char meanText[32];
    std::snprintf(meanText, sizeof meanText, "%.1f", summary.meanDepth());
    const auto idle = std::to_string(std::llround(summary.emptyShare() * 100.0)) + "%";
    const std::string name(device);
    const auto idleText = " The " + name + " sat idle with nothing queued on any stream for " + idle + " of its time.";
    std::string text = (summary.bound == LaunchBound::GpuBound ? name + "-bound" : std::string("CPU-bound")) +
                       ": while work was queued, " + meanText + " launches waited on a stream on average (at most " +
                       std::to_string(summary.maxLength) + "), ";
    if (summary.bound == LaunchBound::GpuBound)
        text += "so a launch's delay is time queued behind other kernels and the launch overhead is hidden." + idleText;
    else if (summary.meanDepth() >= kGpuBoundDepth) // deep queues, but too long empty
        text += "but the " + name + " sat idle with nothing queued on any stream for " + idle +
                " of its time: then it waits for the CPU.";
    else
        text += "so a launch's delay is its launch cost and the " + name + " waits for the CPU." + idleText;
    return text;
}

std::string streamName(std::int32_t device, std::int32_t stream)
{
    auto name = stream >= kFirstLogicalLane ? "lane " + std::to_string(stream - kFirstLogicalLane)
                                            : "stream " + std::to_string(stream);
    return device >= 0 ? "cuda:" + std::to_string(device) + " " + name : name;
}

LaunchCalls launchCalls(const TraceIndex &index, const StopToken *stop)
{
    const auto &trace = *index.trace;
    LaunchCalls result;
    result.byTrack.resize(trace.tracks.size());
    // Every runtime call with an id, on any thread (not only those with ops), by (part, id, start).
    const auto partOf = [&](std::uint32_t t) {
        return trace::processPart(trace.processes[trace.tracks[t].process.value]);
    };
    std::vector<CallEntry> calls;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        const auto &track = trace.tracks[t];
        const auto part = partOf(t);
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (ti.kind[i] != EventKind::Runtime)
                continue;
            const auto *args = trace.eventArgs(TrackId(t), EventIndex(i));
            if (args && args->correlation > 0)
                calls.push_back({part, args->correlation, track.start[i], {TrackId(t), EventIndex(i)}});
        }
    }
    if (stop && stop->stopRequested())
        return {};
    std::sort(calls.begin(), calls.end(), [](const CallEntry &a, const CallEntry &b) {
        return std::tie(a.part, a.correlation, a.start, a.call) < std::tie(b.part, b.correlation, b.start, b.call);
    });

    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        auto &out = result.byTrack[t];
        out.assign(track.size(), EventRef{});
        const auto part = partOf(t);
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (!isDeviceKind(ti.kind[i]))
                continue;
            const auto *args = trace.eventArgs(TrackId(t), EventIndex(i));
            if (!args || args->correlation <= 0)
                continue;
            const auto correlation = args->correlation;
            // The first call of this id that started after the event did; the one before it
            // started last by then.
            const auto after = std::partition_point(calls.begin(), calls.end(), [&](const CallEntry &c) {
                return std::tie(c.part, c.correlation) < std::tie(part, correlation) ||
                       (c.part == part && c.correlation == correlation && c.start <= track.start[i]);
            });
            const auto same = [&](const CallEntry &c) { return c.part == part && c.correlation == correlation; };
            if (after != calls.begin() && same(*std::prev(after)))
                out[i] = std::prev(after)->call;
            else if (after != calls.end() && same(*after))
                out[i] = after->call;
        }
    }
    if (stop && stop->stopRequested())
        return {};
    return result;
}

LaunchStats buildLaunchStats(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    const auto &trace = *index.trace;
    const auto calls = launchCalls(index, stop);
    if (stop && stop->stopRequested())
        return {};
    // Launches (names still interned until the end), in (track, event) order.
    std::vector<Launch> raw;
    std::vector<trace::StringId> rawName;
    std::vector<std::pair<std::int32_t, std::int32_t>> streamKeys; // by first appearance
    std::vector<std::uint32_t> rawStream;
    // Replays so far, by (correlation, device, stream) -> index into raw.
    std::map<std::tuple<std::int64_t, std::int32_t, std::int32_t>, std::uint32_t> replayOf;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        const auto [first, last] = eventsIn(trace, TrackId(t), range);
        std::uint32_t streamIndex = 0;
        for (auto i = first; i < last; ++i) {
            if (!isDeviceKind(ti.kind[i]))
                continue;
            const auto call = calls.of(TrackId(t), i);
            if (!call.isValid())
                continue;
            const auto &callTrack = trace.track(call.track);
            const auto *args = trace.eventArgs(TrackId(t), EventIndex(i));
            Launch l;
            l.correlation = args->correlation;
            l.kernel = {TrackId(t), EventIndex(i)};
            l.call = call;
            std::tie(l.device, l.stream) = deviceAndStream(trace, TrackId(t), i);
            if (isGraphEvent(trace, calls, TrackId(t), i)) {
                // One launch per replay: the first event starts it, the last one ends it.
                const auto [it, added] =
                    replayOf.try_emplace({l.correlation, l.device, l.stream}, static_cast<std::uint32_t>(raw.size()));
                if (!added) {
                    auto &replay = raw[it->second];
                    const auto end = std::max(replay.kernelStartNs + replay.kernelNs, track.end(EventIndex(i)));
                    if (track.start[i] < replay.kernelStartNs) {
                        replay.kernelStartNs = track.start[i];
                        replay.kernel = l.kernel;
                        rawName[it->second] = track.eventName[i];
                    }
                    replay.kernelNs = end - replay.kernelStartNs;
                    replay.delayNs = replay.kernelStartNs - (replay.callStartNs + replay.callNs);
                    ++replay.graphEvents;
                    if (args->graphId > 0)
                        replay.graphId = args->graphId;
                    continue;
                }
                l.graphEvents = 1;
                l.graphId = args->graphId > 0 ? args->graphId : -1;
            }
            l.callStartNs = callTrack.start[call.event.value];
            l.callNs = callTrack.duration[call.event.value];
            l.kernelStartNs = track.start[i];
            l.kernelNs = track.duration[i];
            l.delayNs = l.kernelStartNs - (l.callStartNs + l.callNs);
            // A track is mostly one stream: look the key up only when it changes.
            const std::pair key{l.device, l.stream};
            if (streamIndex >= streamKeys.size() || streamKeys[streamIndex] != key) {
                const auto found = std::find(streamKeys.begin(), streamKeys.end(), key);
                streamIndex = static_cast<std::uint32_t>(found - streamKeys.begin());
                if (found == streamKeys.end())
                    streamKeys.push_back(key);
            }
            raw.push_back(std::move(l));
            rawName.push_back(track.eventName[i]);
            rawStream.push_back(streamIndex);
        }
    }
    if (stop && stop->stopRequested())
        return {};
    // Kernel start order; ties stay in (track, event) order.
    std::vector<std::pair<std::int64_t, std::uint32_t>> order(raw.size());
    for (std::uint32_t k = 0; k < raw.size(); ++k)
        order[k] = {raw[k].kernelStartNs, k};
    if (!std::is_sorted(order.begin(), order.end()))
        std::sort(order.begin(), order.end());

    // Per kernel name: the medians first, since an outlier is judged against its name's median.
    // A replay groups under its graph (keys past 2^32), an eager launch under its kernel's name.
    std::unordered_map<std::uint64_t, std::uint32_t> nameGroup;
    std::vector<LaunchAccumulator> byName;
    std::vector<std::uint32_t> groupOf(raw.size());
    for (std::size_t k = 0; k < raw.size(); ++k) {
        const bool replay = raw[k].isReplay();
        const auto key = replay ? (std::uint64_t(1) << 32) | std::uint32_t(raw[k].graphId) : rawName[k].value;
        const auto [it, added] = nameGroup.try_emplace(key, static_cast<std::uint32_t>(byName.size()));
        if (added) {
            byName.emplace_back();
            byName.back().group.name = replay ? graphName(raw[k].graphId) : std::string(trace.string(rawName[k]));
        }
        groupOf[k] = it->second;
        byName[it->second].delays.push_back(raw[k].delayNs);
    }
    std::vector<std::int64_t> medians(byName.size());
    for (std::size_t g = 0; g < byName.size(); ++g)
        medians[g] = nearestRank(byName[g].delays, 50);

    LaunchStats stats;
    std::vector<LaunchAccumulator> byStream(streamKeys.size());
    std::vector<std::vector<std::pair<std::int64_t, int>>> queuePoints(streamKeys.size());
    stats.launches.reserve(raw.size());
    for (const auto &[start, k] : order) {
        auto &l = raw[k];
        auto &group = byName[groupOf[k]];
        // A negative median (a synchronous copy runs inside its own call) counts as 0: a launch is
        // judged against no wait at all, not against a wait below zero.
        const auto median = std::max<std::int64_t>(0, medians[groupOf[k]]);
        l.outlier = static_cast<double>(l.delayNs) > kOutlierFactor * static_cast<double>(median) &&
                    l.delayNs - median >= kOutlierMinNs;
        add(group, l, false);
        add(byStream[rawStream[k]], l, true);
        const auto kernelEnd = l.kernelStartNs + l.kernelNs;
        auto &points = queuePoints[rawStream[k]];
        points.push_back({l.callStartNs <= kernelEnd ? l.callStartNs : l.kernelStartNs, 1});
        points.push_back({kernelEnd, -1});
        l.kernelName = rawName[k];
        stats.launches.push_back(std::move(l));
    }

    for (auto &acc : byName)
        stats.byKernel.push_back(finish(acc));
    std::sort(stats.byKernel.begin(), stats.byKernel.end(), [](const LaunchGroup &a, const LaunchGroup &b) {
        return a.delayTotalNs != b.delayTotalNs ? a.delayTotalNs > b.delayTotalNs : a.name < b.name;
    });
    std::vector<std::uint32_t> streamOrder(streamKeys.size());
    for (std::uint32_t s = 0; s < streamKeys.size(); ++s)
        streamOrder[s] = s;
    std::sort(streamOrder.begin(), streamOrder.end(),
              [&](std::uint32_t a, std::uint32_t b) { return streamKeys[a] < streamKeys[b]; });
    for (const auto s : streamOrder) {
        const auto [device, stream] = streamKeys[s];
        auto &acc = byStream[s];
        acc.group.name = streamName(device, stream);
        acc.group.device = device;
        acc.group.stream = stream;
        stats.byStream.push_back(finish(acc));
        stats.queues.push_back(queueSeries(device, stream, std::move(queuePoints[s])));
        stats.maxQueueLength = std::max(stats.maxQueueLength, stats.queues.back().maxLength);
    }
    stats.queue = summarizeQueues(stats.queues);
    return stats;
}

} // namespace pyrometer::analysis
