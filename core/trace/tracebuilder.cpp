#include "core/trace/tracebuilder.h"

#include "core/trace/lanes.h"
#include "core/util/twothreads.h"

#include <algorithm>
#include <numeric>

namespace pyrometer::trace {
namespace {

// Joins message parts with append: GCC 12 at -O3 warns (-Wrestrict, falsely) on chains of
// std::string operator+.
std::string join(std::initializer_list<std::string_view> parts)
{
    std::string text;
    for (const auto part : parts)
        text.append(part);
    return text;
}

} // namespace

std::size_t TraceBuilder::KeyHash::operator()(const EntityKey &key) const noexcept
{
    return std::hash<std::int64_t>()(key.number * 0x9E3779B97F4A7C15ll) ^ (std::size_t(key.text) << 1);
}

std::size_t TraceBuilder::KeyHash::operator()(const PairKey &key) const noexcept
{
    return (*this)(key.pid) * 31 + (*this)(key.tid);
}

std::size_t TraceBuilder::CounterHash::operator()(const CounterKey &key) const noexcept
{
    return (std::size_t(key.process) * 1000003u + key.name) * 1000003u + key.key;
}

TraceBuilder::TraceBuilder(bool partial) : m_trace(std::make_unique<Trace>()), m_partial(partial)
{
    m_memoryName = m_trace->strings.intern("[memory]");
}

TraceBuilder::~TraceBuilder() = default;

void TraceBuilder::warn(std::string message)
{
    warn(UINT64_MAX, std::move(message));
}

void TraceBuilder::warn(std::uint64_t offset, std::string message)
{
    ++m_trace->info.warningCount;
    if (m_warnings.size() < TraceInfo::kMaxWarnings)
        m_warnings.push_back({offset, std::move(message)});
}

void TraceBuilder::countPhase(const RawEvent &event)
{
    ++m_trace->info.eventCount;
    if (!event.hasPh) {
        ++m_trace->info.phaseCounts[""];
        return;
    }
    if (event.ph.size() == 1 && static_cast<unsigned char>(event.ph[0]) < 128)
        ++m_singleCharPhases[static_cast<unsigned char>(event.ph[0])];
    else
        ++m_trace->info.phaseCounts[std::string(event.ph)];
}

void TraceBuilder::addSkipped(std::string_view ph, bool hasPh, std::uint64_t offset, std::string message)
{
    RawEvent event;
    event.ph = ph;
    event.hasPh = hasPh;
    countPhase(event);
    warn(offset, std::move(message));
}

std::uint32_t TraceBuilder::processIndex(const EntityId &pid)
{
    const EntityKey key{pid.number, pid.text.value};
    const auto [it, inserted] = m_processByPid.try_emplace(key, static_cast<std::uint32_t>(m_processes.size()));
    if (inserted) {
        auto process = std::make_unique<ProcessBuild>();
        process->pid = pid;
        m_processes.push_back(std::move(process));
    }
    return it->second;
}

std::uint32_t TraceBuilder::trackIndex(const EntityId &pid, const EntityId &tid)
{
    const PairKey key{{pid.number, pid.text.value}, {tid.number, tid.text.value}};
    if (m_lastTrack != UINT32_MAX && key == m_lastKey)
        return m_lastTrack;
    const auto [it, inserted] = m_trackByIds.try_emplace(key, static_cast<std::uint32_t>(m_tracks.size()));
    if (inserted) {
        auto track = std::make_unique<TrackBuild>();
        track->process = processIndex(pid);
        track->tid = tid;
        m_tracks.push_back(std::move(track));
    }
    m_lastKey = key;
    m_lastTrack = it->second;
    return it->second;
}

void TraceBuilder::extendSpan(std::int64_t from, std::int64_t to)
{
    auto &info = m_trace->info;
    if (!m_hasSpan) {
        info.spanStart = from;
        info.spanEnd = to;
        m_hasSpan = true;
        return;
    }
    info.spanStart = std::min(info.spanStart, from);
    info.spanEnd = std::max(info.spanEnd, to);
}

void TraceBuilder::addSlice(const RawEvent &event, SliceKind kind, std::int64_t duration)
{
    auto &track = *m_tracks[trackIndex(event.pid, event.tid)];
    track.start.push_back(event.ts);
    track.duration.push_back(duration);
    track.eventName.push_back(event.name);
    track.category.push_back(event.category);
    track.kind.push_back(kind);
    track.sourceOffset.push_back(event.sourceOffset);
    if (event.hasArgs && (event.args != EventArgs() || event.hasCollective || event.hasExtra)) {
        const auto index = static_cast<std::uint32_t>(m_trace->args.size());
        track.args.push_back(index);
        m_trace->args.push_back(event.args);
        if (event.hasCollective)
            m_trace->collectiveArgs.emplace_back(index, event.collective);
        if (event.hasExtra)
            m_trace->extraArgs.emplace_back(index, event.extra);
    } else {
        track.args.push_back(Track::kNoArgs);
    }
    extendSpan(event.ts, event.ts + duration);
}

void TraceBuilder::addMetadata(const RawEvent &event)
{
    const auto what = m_trace->strings.view(event.name);
    if (what == "process_name" || what == "process_labels" || what == "process_sort_index") {
        auto &process = *m_processes[processIndex(event.pid)];
        if (what == "process_name" && event.metaName.isValid())
            process.name = event.metaName;
        else if (what == "process_labels" && event.metaLabels.isValid()) {
            // Kineto labels its host pid "CPU" and pids 0..N-1 "GPU i"; a host whose pid is one of
            // those numbers (pid 1 in a container) gets both. Its events are the host's: "CPU" stays.
            const bool hostLabelled = process.labels.isValid() && m_trace->strings.view(process.labels) == "CPU";
            if (!hostLabelled)
                process.labels = event.metaLabels;
        } else if (what == "process_sort_index" && event.hasSortIndex) {
            process.sortIndex = event.sortIndex;
            process.hasSortIndex = true;
        }
    } else if (what == "thread_name" || what == "thread_sort_index") {
        auto &track = *m_tracks[trackIndex(event.pid, event.tid)];
        if (what == "thread_name" && event.metaName.isValid())
            track.name = event.metaName;
        else if (what == "thread_sort_index" && event.hasSortIndex) {
            track.sortIndex = event.sortIndex;
            track.hasSortIndex = true;
        }
    }
}

void TraceBuilder::addMemory(const RawEvent &event)
{
    auto &memory = m_trace->memory;
    const auto track = trackIndex(event.pid, event.tid);
    memory.time.push_back(event.ts);
    memory.track.push_back(TrackId(track)); // remapped to final ids in finish()
    memory.bytes.push_back(event.bytes);
    memory.totalAllocated.push_back(event.totalAllocated);
    memory.totalReserved.push_back(event.totalReserved);
    memory.address.push_back(event.address);
    memory.deviceType.push_back(event.deviceType);
    memory.deviceId.push_back(event.deviceId);
    extendSpan(event.ts, event.ts);
}

void TraceBuilder::addCounter(const RawEvent &event)
{
    const auto process = processIndex(event.pid);
    for (const auto &[key, value] : event.numbers) {
        const CounterKey counterKey{process, event.name.value, key.value};
        const auto [it, inserted] = m_counterByKey.try_emplace(counterKey, static_cast<std::uint32_t>(m_counters.size()));
        if (inserted) {
            CounterSeries series;
            series.name = std::string(m_trace->strings.view(event.name));
            if (event.numbers.size() > 1 || m_trace->strings.view(key) != series.name)
                series.name = join({series.name, ".", m_trace->strings.view(key)});
            m_counters.push_back({counterKey, std::move(series)});
        }
        auto &series = m_counters[it->second].series;
        series.time.push_back(event.ts);
        series.value.push_back(value);
    }
    extendSpan(event.ts, event.ts);
}

void TraceBuilder::endSlice(std::uint32_t trackIndex, std::int64_t time, std::uint64_t sourceOffset)
{
    auto &track = *m_tracks[trackIndex];
    if (track.openBegins.empty()) {
        warn(sourceOffset, join({"E event at byte ", std::to_string(sourceOffset), " has no matching B; skipped"}));
        return;
    }
    const auto begin = track.openBegins.back();
    track.openBegins.pop_back();
    if (time < track.start[begin]) {
        warn(sourceOffset, join({"E event at byte ", std::to_string(sourceOffset), " ends before its B; skipped"}));
        return;
    }
    track.duration[begin] = time - track.start[begin];
    track.kind[begin] = SliceKind::BeginEnd;
    extendSpan(time, time);
}

void TraceBuilder::add(const RawEvent &event)
{
    countPhase(event);
    if (!event.hasPh || event.ph.size() != 1) {
        return; // a phase the model does not show: counted only
    }
    const char ph = event.ph[0];
    if (ph == 'M') {
        addMetadata(event);
        return;
    }
    const bool timed = ph == 'X' || ph == 'B' || ph == 'E' || ph == 'i' || ph == 'I' || ph == 'C'
        || ph == 's' || ph == 't' || ph == 'f';
    if (!timed)
        return;
    if (!event.hasTs) {
        warn(event.sourceOffset, join({"event at byte ", std::to_string(event.sourceOffset), " (ph ", event.ph, ") has no ts; skipped"}));
        return;
    }
    switch (ph) {
    case 'X':
        if (event.dur < 0) {
            warn(event.sourceOffset, join({"event at byte ", std::to_string(event.sourceOffset), " has a negative dur; skipped"}));
            return;
        }
        addSlice(event, SliceKind::Complete, event.hasDur ? event.dur : 0);
        return;
    case 'B': {
        addSlice(event, SliceKind::Unfinished, 0);
        auto &track = *m_tracks[trackIndex(event.pid, event.tid)];
        track.openBegins.push_back(static_cast<std::uint32_t>(track.start.size() - 1));
        return;
    }
    case 'E': {
        const auto index = trackIndex(event.pid, event.tid);
        if (m_partial && m_tracks[index]->openBegins.empty()) {
            m_pendingEnds.push_back({index, event.ts, event.sourceOffset});
            return;
        }
        endSlice(index, event.ts, event.sourceOffset);
        return;
    }
    case 'i':
    case 'I':
        if (event.name == m_memoryName) {
            addMemory(event);
        } else if (event.scope == 'g' || event.scope == 'p') {
            Marker marker;
            marker.time = event.ts;
            marker.name = event.name;
            // The process index is remapped in finish(); global markers have none.
            marker.process = event.scope == 'p' ? ProcessId(processIndex(event.pid)) : ProcessId();
            m_trace->markers.push_back(marker);
        } else {
            addSlice(event, SliceKind::Instant, 0);
        }
        return;
    case 'C':
        addCounter(event);
        return;
    case 's':
    case 't':
    case 'f': {
        if (!event.hasFlowId) {
            warn(event.sourceOffset, join({"flow event at byte ", std::to_string(event.sourceOffset), " has no id; skipped"}));
            return;
        }
        FlowPoint point{event.category, event.name, event.flowId, trackIndex(event.pid, event.tid), event.ts,
                        static_cast<std::uint32_t>(m_flowPoints.size()), ph, event.bindEnclosing,
                        event.flowIdIsText};
        m_flowPoints.push_back(point);
        extendSpan(event.ts, event.ts);
        return;
    }
    default:
        return;
    }
}

std::unique_ptr<Trace> TraceBuilder::finish(const StopToken &stop, int threads)
{
    auto &info = m_trace->info;
    for (int c = 0; c < 128; ++c) {
        if (m_singleCharPhases[c])
            info.phaseCounts[std::string(1, static_cast<char>(c))] += m_singleCharPhases[c];
    }
    for (const auto &track : m_tracks) {
        if (!track->openBegins.empty())
            warn(join({std::to_string(track->openBegins.size()), " B event(s) without a matching E; kept with duration 0"}));
    }
    for (auto &warning : m_warnings)
        info.warnings.push_back(std::move(warning.message));
    m_warnings = {};
    finishProcesses(*m_trace);
    if (stop.stopRequested() || !finishTracks(*m_trace, stop, threads))
        return nullptr;
    // Flows and counters read the finished tracks and write apart: side by side, where a
    // helper thread is allowed (a 10 GB trace: 0.84 s one after the other, 0.58 s side by side).
    inTwoThreads(2, threads > 0,
                 [&](std::size_t part) { part == 0 ? finishFlows(*m_trace) : finishCounters(*m_trace); });
    info.processCount = m_trace->processes.size();
    info.trackCount = m_trace->tracks.size();
    return std::move(m_trace);
}

} // namespace pyrometer::trace
