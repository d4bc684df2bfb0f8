// The second half of TraceBuilder: turning what was collected into the final Trace.
#include "core/trace/lanes.h"
#include "core/trace/tracebuilder.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <numeric>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>

namespace pyrometer::trace {
namespace {

std::string entityText(const StringPool &strings, const EntityId &id)
{
    return id.isText() ? std::string(strings.view(id.text)) : std::to_string(id.number);
}

} // namespace

void TraceBuilder::markUsed()
{
    // Metadata names every GPU and thread of the machine; only those with data are shown.
    m_trackUsed.assign(m_tracks.size(), false);
    m_processUsed.assign(m_processes.size(), false);
    for (std::size_t i = 0; i < m_tracks.size(); ++i)
        m_trackUsed[i] = !m_tracks[i]->start.empty();
    for (const auto &track : m_trace->memory.track)
        m_trackUsed[track.value] = true;
    for (const auto &point : m_flowPoints)
        m_trackUsed[point.track] = true;
    for (std::size_t i = 0; i < m_tracks.size(); ++i) {
        if (m_trackUsed[i])
            m_processUsed[m_tracks[i]->process] = true;
    }
    for (const auto &counter : m_counters)
        m_processUsed[counter.key.process] = true;
    for (const auto &marker : m_trace->markers) {
        if (marker.process.isValid())
            m_processUsed[marker.process.value] = true;
    }
}

void TraceBuilder::finishProcesses(Trace &trace)
{
    markUsed();
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < m_processes.size(); ++i) {
        if (m_processUsed[i])
            order.push_back(i);
    }
    auto sortKey = [&](std::uint32_t index) {
        const auto &p = *m_processes[index];
        // Without a sort index: numeric pids by value, then string pids ("Spans", "Traces").
        const std::int64_t sortIndex = p.hasSortIndex ? p.sortIndex : p.pid.isText() ? INT64_MAX : p.pid.number;
        return std::make_tuple(sortIndex, p.pid.isText(), p.pid.number, trace.strings.view(p.pid.text));
    };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return sortKey(a) < sortKey(b); });
    trace.processes.reserve(order.size());
    for (const auto index : order) {
        auto &build = *m_processes[index];
        build.finalIndex = static_cast<std::uint32_t>(trace.processes.size());
        Process process;
        process.id = ProcessId(build.finalIndex);
        process.pid = build.pid;
        process.sortIndex = build.sortIndex;
        process.label = std::string(trace.strings.view(build.labels));
        if (build.name.isValid() && !trace.strings.view(build.name).empty())
            process.name = std::string(trace.strings.view(build.name));
        else if (build.pid.isText())
            process.name = entityText(trace.strings, build.pid);
        else
            process.name = "Process " + std::to_string(build.pid.number);
        if (!process.label.empty())
            process.name += " (" + process.label + ")";
        trace.processes.push_back(std::move(process));
    }
    for (auto &marker : trace.markers) {
        if (marker.process.isValid())
            marker.process = ProcessId(m_processes[marker.process.value]->finalIndex);
    }
}

bool TraceBuilder::finishTracks(Trace &trace, const StopToken &stop, int threads)
{
    // Tracks in display order: by process, then thread sort index, then tid.
    std::vector<std::uint32_t> order;
    for (std::uint32_t i = 0; i < m_tracks.size(); ++i) {
        if (m_trackUsed[i])
            order.push_back(i);
    }
    auto sortKey = [&](std::uint32_t index) {
        const auto &t = *m_tracks[index];
        const std::int64_t sortIndex = t.hasSortIndex ? t.sortIndex : t.tid.isText() ? INT64_MAX : t.tid.number;
        return std::make_tuple(m_processes[t.process]->finalIndex, sortIndex, t.tid.isText(), t.tid.number,
                               trace.strings.view(t.tid.text));
    };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return sortKey(a) < sortKey(b); });

    trace.tracks.resize(order.size());
    for (std::uint32_t position = 0; position < order.size(); ++position) {
        if (stop.stopRequested())
            return false;
        auto &build = *m_tracks[order[position]];
        build.finalId = position;
        auto &track = trace.tracks[position];
        track.id = TrackId(position);
        track.process = ProcessId(m_processes[build.process]->finalIndex);
        track.tid = build.tid;
        track.sortIndex = build.sortIndex;
        if (build.name.isValid() && !trace.strings.view(build.name).empty())
            track.name = std::string(trace.strings.view(build.name));
        else if (build.tid.isText())
            track.name = entityText(trace.strings, build.tid);
        else
            track.name = "Thread " + std::to_string(build.tid.number);
        track.start = std::move(build.start);
        track.duration = std::move(build.duration);
        track.eventName = std::move(build.eventName);
        track.category = std::move(build.category);
        track.kind = std::move(build.kind);
        track.args = std::move(build.args);
        track.sourceOffset = std::move(build.sourceOffset);
        trace.processes[track.process.value].tracks.push_back(track.id);
    }
    for (auto &track : trace.memory.track)
        track = TrackId(m_tracks[track.value]->finalId);

    // Sorting and nesting each track, and sorting the flow points, are independent tasks:
    // spread over threads, largest first.
    std::vector<std::uint32_t> tasks(trace.tracks.size());
    std::iota(tasks.begin(), tasks.end(), 0u);
    std::stable_sort(tasks.begin(), tasks.end(),
                     [&](auto a, auto b) { return trace.tracks[a].size() > trace.tracks[b].size(); });
    const auto flowTask = static_cast<std::uint32_t>(tasks.size());
    tasks.push_back(flowTask);
    std::atomic<std::size_t> next = 0;
    std::atomic<bool> stopped = false;
    auto work = [&] {
        for (std::size_t k = next++; k < tasks.size(); k = next++) {
            if (tasks[k] == flowTask)
                sortFlowPoints();
            else if (!sortAndNest(trace.tracks[tasks[k]], stop))
                stopped = true;
        }
    };
    std::vector<std::thread> helpers;
    const auto helperCount = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 0)), tasks.size() - 1);
    for (std::size_t i = 0; i < helperCount; ++i) {
        try {
            helpers.emplace_back(work);
        } catch (const std::system_error &) { // fewer helpers, then
            break;
        }
    }
    work();
    for (auto &helper : helpers)
        helper.join();
    return !stopped && !stop.stopRequested();
}

void TraceBuilder::sortFlowPoints()
{
    // Files do not keep flow points in time order (Kineto writes an 'f' before its 's'): chain
    // them by time, a start before a step before an end at equal times.
    auto rank = [](char phase) { return phase == 's' ? 0 : phase == 't' ? 1 : 2; };
    std::sort(m_flowPoints.begin(), m_flowPoints.end(), [&](const FlowPoint &a, const FlowPoint &b) {
        return std::make_tuple(a.category, a.id, a.time, rank(a.phase), a.order)
            < std::make_tuple(b.category, b.id, b.time, rank(b.phase), b.order);
    });
}

void TraceBuilder::finishFlows(Trace &trace)
{
    // The points were sorted by sortFlowPoints().
    auto &points = m_flowPoints;
    // The slice each point binds to, found in the order of (track, time): one search then
    // starts where the last one ended in the cache, where in the points' order each jumps
    // across a track of millions of events (a 10 GB trace: 2 M points, 1.1 s before).
    std::vector<EventIndex> slices(points.size());
    {
        struct Place {
            std::uint32_t track;
            std::uint32_t point;
            std::int64_t time;
        };
        std::vector<Place> places(points.size());
        for (std::uint32_t i = 0; i < points.size(); ++i)
            places[i] = {m_tracks[points[i].track]->finalId, i, points[i].time};
        std::sort(places.begin(), places.end(), [](const Place &a, const Place &b) {
            return a.track != b.track ? a.track < b.track : a.time < b.time;
        });
        for (const auto &place : places) {
            const auto &point = points[place.point];
            // Flow starts and steps bind to the enclosing slice; an 'f' to the next slice
            // unless bp is "e" (enclosing), as Chrome's trace viewer does.
            slices[place.point] = point.phase == 'f' && !point.bindEnclosing
                ? trace.sliceStartingAt(TrackId(place.track), point.time)
                : trace.sliceAt(TrackId(place.track), point.time);
        }
    }
    auto endOf = [&](const FlowPoint &point) {
        FlowEnd end;
        end.track = TrackId(m_tracks[point.track]->finalId);
        end.time = point.time;
        end.event = slices[static_cast<std::size_t>(&point - points.data())];
        return end;
    };
    // Within one (cat, id): a start begins a chain, steps continue it, an end closes it.
    // Unmatched ends (their start fell outside the profiling window) are kept alone, and so is
    // a start that nothing followed: emit(from, to) with to or from null.
    auto chain = [&](auto &&emit) {
        for (std::size_t i = 0; i < points.size();) {
            std::size_t j = i;
            while (j < points.size() && points[j].category == points[i].category && points[j].id == points[i].id)
                ++j;
            const FlowPoint *previous = nullptr;
            for (std::size_t k = i; k < j; ++k) {
                const auto &point = points[k];
                if (point.phase == 's') {
                    if (previous)
                        emit(previous, nullptr);
                    previous = &point;
                    continue;
                }
                emit(previous, &point);
                previous = point.phase == 't' ? &point : nullptr;
            }
            if (previous)
                emit(previous, nullptr);
            i = j;
        }
    };
    // Counted first: a table grown one flow at a time would copy itself while the points are
    // still held.
    std::size_t count = 0;
    chain([&](const FlowPoint *, const FlowPoint *) { ++count; });
    trace.flows.reserve(count);
    chain([&](const FlowPoint *from, const FlowPoint *to) {
        const auto &named = to ? *to : *from;
        Flow flow;
        flow.category = named.category;
        flow.name = named.name;
        flow.id = named.id;
        if (from)
            flow.from = endOf(*from);
        if (to)
            flow.to = endOf(*to);
        trace.flows.push_back(flow);
    });
    m_flowPoints = {};
}

void TraceBuilder::finishCounters(Trace &trace)
{
    // Memory curves from [memory] instants: one per device, Total Allocated where the trace
    // has it, else the running sum of Bytes; and Total Reserved (the caching allocator's
    // segments) where the trace has it.
    struct Device {
        std::int32_t type;
        std::int32_t id;
        std::uint32_t process;
        bool operator<(const Device &o) const { return std::tie(type, id, process) < std::tie(o.type, o.id, o.process); }
    };
    std::map<Device, std::pair<CounterSeries, std::int64_t>> curves;
    std::map<Device, CounterSeries> reserved;
    const auto &memory = trace.memory;
    std::vector<std::uint32_t> order(memory.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return memory.time[a] < memory.time[b]; });
    for (const auto i : order) {
        const auto process = trace.tracks[memory.track[i].value].process.value;
        auto &[series, running] = curves[{memory.deviceType[i], memory.deviceId[i], process}];
        if (series.name.empty()) {
            series.process = ProcessId(process);
            series.name = memory.deviceType[i] == 0 ? std::string("Memory allocated (CPU)")
                                                   : "Memory allocated (device " + std::to_string(memory.deviceId[i]) + ")";
        }
        if (memory.totalReserved[i] >= 0) {
            auto &curve = reserved[{memory.deviceType[i], memory.deviceId[i], process}];
            curve.process = series.process;
            curve.name = "Memory reserved" + series.name.substr(std::string_view("Memory allocated").size());
            curve.time.push_back(memory.time[i]);
            curve.value.push_back(static_cast<double>(memory.totalReserved[i]));
        }
        running += memory.bytes[i];
        series.time.push_back(memory.time[i]);
        series.value.push_back(static_cast<double>(memory.totalAllocated[i] >= 0 ? memory.totalAllocated[i] : running));
    }
    for (auto &entry : m_counters) {
        auto &series = entry.series; // not a structured binding: clang 14 cannot capture those
        series.process = ProcessId(m_processes[entry.key.process]->finalIndex);
        std::vector<std::uint32_t> byTime(series.time.size());
        std::iota(byTime.begin(), byTime.end(), 0u);
        std::stable_sort(byTime.begin(), byTime.end(), [&](auto a, auto b) { return series.time[a] < series.time[b]; });
        CounterSeries sorted;
        sorted.process = series.process;
        sorted.name = std::move(series.name);
        sorted.time.reserve(byTime.size());
        sorted.value.reserve(byTime.size());
        for (const auto k : byTime) {
            sorted.time.push_back(series.time[k]);
            sorted.value.push_back(series.value[k]);
        }
        series = {};
        trace.counters.push_back(std::move(sorted));
    }
    for (auto &[device, curve] : curves) {
        trace.counters.push_back(std::move(curve.first));
        if (const auto it = reserved.find(device); it != reserved.end())
            trace.counters.push_back(std::move(it->second));
    }
}

} // namespace pyrometer::trace
