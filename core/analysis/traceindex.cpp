#include "core/analysis/traceindex.h"

#include "core/trace/combine.h"
#include "core/util/heap.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

constexpr std::uint32_t kStopCheckInterval = 1u << 16;

// torch's rule (profiler_util._populate_cpu_children): in (start, -end) order, an event is the
// child of the innermost open event that contains it; open events it does not fit in are closed.
template <typename Fits>
void nest(const trace::Track &track, const std::vector<EventKind> &kinds, Fits fits, std::vector<EventIndex> &parent)
{
    std::vector<std::uint32_t> stack;
    for (std::uint32_t i = 0; i < track.size(); ++i) {
        if (!fits(kinds[i]))
            continue;
        const auto start = track.start[i];
        const auto end = start + track.duration[i];
        while (!stack.empty()) {
            const auto top = stack.back();
            const auto topEnd = track.start[top] + track.duration[top];
            if (start >= topEnd || end > topEnd) {
                stack.pop_back();
                continue;
            }
            parent[i] = EventIndex(top);
            break;
        }
        stack.push_back(i);
    }
}

} // namespace

std::pair<std::uint32_t, std::uint32_t> eventsIn(const trace::Trace &trace, trace::TrackId track,
                                                 const TimeRange &range)
{
    if (range.isAll())
        return {0u, static_cast<std::uint32_t>(trace.track(track).size())};
    const auto [first, last] = trace.startRange(track, range.start, range.end);
    return {first.value, last.value};
}

std::pair<std::int32_t, std::int32_t> deviceAndStream(const trace::Trace &trace, trace::TrackId trackId,
                                                      std::uint32_t event)
{
    const auto &track = trace.track(trackId);
    std::int32_t device = -1;
    std::int32_t stream = -1;
    if (const auto *args = trace.eventArgs(trackId, EventIndex(event))) {
        device = args->device;
        stream = args->stream;
    }
    if (device < 0) {
        const auto &pid = trace.process(track.process).pid;
        device = pid.isText() ? -1 : static_cast<std::int32_t>(pid.number);
    }
    if (stream < 0)
        stream = track.tid.isText() ? -1 : static_cast<std::int32_t>(track.tid.number);
    return {device, stream};
}

bool isProfilerStep(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
        return false;
    return std::all_of(name.begin() + prefix.size(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {

std::atomic<std::uint64_t> g_indexBuilds{0};

std::shared_ptr<const TraceIndex> build(const trace::Trace &trace, const StopToken *stop)
{
    auto index = std::make_shared<TraceIndex>();
    index->trace = &trace;
    index->tracks.resize(trace.tracks.size());
    const KindTable kinds(trace);

    // Memory events per track, in time order, to attribute each to the op open at its time.
    std::vector<std::vector<std::uint32_t>> memoryByTrack(trace.tracks.size());
    for (std::uint32_t m = 0; m < trace.memory.size(); ++m) {
        const auto track = trace.memory.track[m];
        if (track.isValid() && track.value < memoryByTrack.size())
            memoryByTrack[track.value].push_back(m);
    }
    index->memoryOwner.assign(trace.memory.size(), EventRef{});
    index->memoryByTime.resize(trace.memory.size());
    std::iota(index->memoryByTime.begin(), index->memoryByTime.end(), 0u);
    std::stable_sort(index->memoryByTime.begin(), index->memoryByTime.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return trace.memory.time[a] < trace.memory.time[b]; });

    // Runtime events by correlation id, with the op around each.
    // Keyed by part and id: each part of a combined trace (a job's rank) numbers its ids from 1.
    std::unordered_map<std::uint64_t, EventRef> launchByCorrelation;
    const auto correlationKey = [&](std::uint32_t t, std::int64_t correlation) {
        return (std::uint64_t(trace::processPart(trace.processes[trace.tracks[t].process.value])) << 40) ^
               std::uint64_t(correlation);
    };
    std::uint32_t sinceCheck = 0;

    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &track = trace.tracks[t];
        auto &ti = index->tracks[t];
        const auto n = static_cast<std::uint32_t>(track.size());
        ti.kind.resize(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto kind = kinds.kind(track, i);
            ti.kind[i] = kind;
            ti.hasOps = ti.hasOps || kind == EventKind::Op;
            ti.hasDevice = ti.hasDevice || isDeviceKind(kind);
        }
        index->hasDevice = index->hasDevice || ti.hasDevice;
        // A thread of Python frames alone (a front-end process traced with with_stack) has frames
        // to nest for flame graphs though it has no ops.
        const bool hasFrames = ti.hasOps || std::any_of(ti.kind.begin(), ti.kind.end(),
                                                        [](EventKind k) { return k == EventKind::Python; });
        sinceCheck += n;
        if (stop && sinceCheck > kStopCheckInterval) {
            sinceCheck = 0;
            if (stop->stopRequested())
                return nullptr;
        }
        if (!hasFrames)
            continue;

        ti.opParent.assign(n, EventIndex());
        ti.frameParent.assign(n, EventIndex());
        nest(
            track, ti.kind, [](EventKind k) { return k == EventKind::Op; }, ti.opParent);
        nest(
            track, ti.kind, [](EventKind k) { return k == EventKind::Op || k == EventKind::Python; }, ti.frameParent);
        ti.selfNs.assign(n, 0);
        for (std::uint32_t i = 0; i < n; ++i) {
            if (ti.kind[i] != EventKind::Op)
                continue;
            ti.selfNs[i] += track.duration[i];
            if (const auto p = ti.opParent[i]; p.isValid())
                ti.selfNs[p.value] -= track.duration[i];
        }

        // Runtime events and memory instants are leaves: each belongs to the innermost open op
        // that contains it.
        auto &memory = memoryByTrack[t];
        std::stable_sort(memory.begin(), memory.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return trace.memory.time[a] < trace.memory.time[b]; });
        std::size_t nextMemory = 0;
        std::vector<std::uint32_t> stack;
        const auto closeUntil = [&](std::int64_t time) {
            while (!stack.empty() && time >= track.start[stack.back()] + track.duration[stack.back()])
                stack.pop_back();
        };
        const auto flushMemory = [&](std::int64_t before, bool inclusive) {
            while (nextMemory < memory.size() && (trace.memory.time[memory[nextMemory]] < before ||
                                                  (inclusive && trace.memory.time[memory[nextMemory]] == before))) {
                const auto m = memory[nextMemory++];
                closeUntil(trace.memory.time[m]);
                if (!stack.empty())
                    index->memoryOwner[m] = {TrackId(t), EventIndex(stack.back())};
            }
        };
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto kind = ti.kind[i];
            if (kind != EventKind::Op && kind != EventKind::Runtime)
                continue;
            flushMemory(track.start[i], false);
            const auto start = track.start[i];
            const auto end = start + track.duration[i];
            if (kind == EventKind::Op) {
                while (!stack.empty()) {
                    const auto topEnd = track.start[stack.back()] + track.duration[stack.back()];
                    if (start >= topEnd || end > topEnd)
                        stack.pop_back();
                    else
                        break;
                }
                stack.push_back(i);
                continue;
            }
            closeUntil(start);
            const auto *args = trace.eventArgs(TrackId(t), EventIndex(i));
            if (!args || args->correlation < 0)
                continue;
            EventRef owner;
            // A graph replay's kernels were launched by no op of this step (they carry no External
            // id): charging them to the annotation around cudaGraphLaunch would give it the GPU.
            if (!stack.empty() && end <= track.start[stack.back()] + track.duration[stack.back()] &&
                !isGraphLaunchName(trace.string(track.eventName[i])))
                owner = {TrackId(t), EventIndex(stack.back())};
            launchByCorrelation.emplace(correlationKey(t, args->correlation), owner);
        }
        flushMemory(std::numeric_limits<std::int64_t>::max(), true);
    }

    // Device events: the op of the runtime call with the same correlation id.
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        auto &ti = index->tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto n = trace.tracks[t].size();
        ti.launchOp.assign(n, EventRef{});
        for (std::uint32_t i = 0; i < n; ++i) {
            if (!isDeviceKind(ti.kind[i]))
                continue;
            const auto *args = trace.eventArgs(TrackId(t), EventIndex(i));
            if (!args || args->correlation < 0)
                continue;
            if (const auto it = launchByCorrelation.find(correlationKey(t, args->correlation));
                it != launchByCorrelation.end())
                ti.launchOp[i] = it->second;
        }
    }
    if (stop && stop->stopRequested())
        return nullptr;
    return index;
}

} // namespace

std::uint64_t traceIndexBuildCount()
{
    return g_indexBuilds.load(std::memory_order_relaxed);
}

std::shared_ptr<const TraceIndex> buildTraceIndex(const trace::Trace &trace, const StopToken *stop)
{
    g_indexBuilds.fetch_add(1, std::memory_order_relaxed);
    auto index = build(trace, stop);
    // The correlation map and the per-track lists of memory events are gone: their many small
    // blocks go back to the system rather than staying with the heap.
    releaseFreedMemory();
    return index;
}

} // namespace pyrometer::analysis
