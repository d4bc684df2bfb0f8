#include "core/trace/combine.h"

#include "core/trace/argscopy.h"

#include <algorithm>

namespace pyrometer::trace {
namespace {

constexpr std::string_view kSeparator = " \u00b7 ";

template <typename T>
void append(std::vector<T> &to, const std::vector<T> &from)
{
    to.insert(to.end(), from.begin(), from.end());
}

std::string prefixed(const std::string &label, const std::string &text)
{
    if (label.empty())
        return text;
    if (text.empty())
        return label;
    return label + std::string(kSeparator) + text;
}

// Copies one part into the combined trace: the part's ids become the combined trace's ids.
class PartCopy {
public:
    PartCopy(Trace &to, const Trace &from, const TracePart &part, std::size_t partIndex)
        : m_to(to), m_from(from), m_part(part), m_partIndex(partIndex),
          m_processBase(static_cast<std::uint32_t>(to.processes.size())),
          m_trackBase(static_cast<std::uint32_t>(to.tracks.size())),
          m_argsBase(static_cast<std::uint32_t>(to.args.size()))
    {
        m_strings.reserve(from.strings.size());
        for (std::uint32_t i = 0; i < from.strings.size(); ++i)
            m_strings.push_back(to.strings.intern(from.strings.view(StringId(i))));
    }

    bool copy(const StopToken *stop)
    {
        copyProcesses();
        copyArgs();
        for (const auto &track : m_from.tracks) {
            if (stop && stop->stopRequested())
                return false;
            copyTrack(track);
        }
        copyCounters();
        copyMemory();
        copyFlows();
        copyMarkers();
        return true;
    }

private:
    StringId id(StringId local) const
    {
        return local.isValid() && local.value < m_strings.size() ? m_strings[local.value] : local;
    }
    TrackId track(TrackId local) const { return local.isValid() ? TrackId(m_trackBase + local.value) : local; }
    ProcessId process(ProcessId local) const
    {
        return local.isValid() ? ProcessId(m_processBase + local.value) : local;
    }
    std::int64_t time(std::int64_t local) const { return local + m_part.offsetNs; }

    void copyProcesses()
    {
        for (const auto &from : m_from.processes) {
            Process p;
            p.id = ProcessId(static_cast<std::uint32_t>(m_to.processes.size()));
            // Pids of different parts never meet: the part's index above the pid's 32 bits.
            p.pid = EntityId{static_cast<std::int64_t>(static_cast<std::uint64_t>(m_partIndex) << 32) + from.pid.number,
                             id(from.pid.text)};
            p.name = prefixed(m_part.label, from.name);
            p.label = prefixed(m_part.label, from.label);
            p.sortIndex = static_cast<std::int64_t>(m_to.processes.size());
            p.tracks.reserve(from.tracks.size());
            for (const auto t : from.tracks)
                p.tracks.push_back(track(t));
            m_to.processes.push_back(std::move(p));
        }
    }

    void copyArgs()
    {
        appendArgs(m_to, m_from, [this](StringId local) { return id(local); });
    }

    void copyTrack(const Track &from)
    {
        Track t;
        t.id = track(from.id);
        t.process = process(from.process);
        t.tid = EntityId{from.tid.number, id(from.tid.text)};
        t.name = from.name;
        t.sortIndex = from.sortIndex;
        t.laneCount = from.laneCount;
        t.start.reserve(from.size());
        for (const auto s : from.start)
            t.start.push_back(time(s));
        t.duration = from.duration;
        t.eventName.reserve(from.size());
        t.category.reserve(from.size());
        for (std::size_t k = 0; k < from.size(); ++k) {
            t.eventName.push_back(id(from.eventName[k]));
            t.category.push_back(id(from.category[k]));
        }
        t.kind = from.kind;
        t.lane = from.lane;
        t.depth = from.depth;
        t.parent = from.parent;
        t.args.reserve(from.args.size());
        for (const auto a : from.args)
            t.args.push_back(a == Track::kNoArgs ? a : m_argsBase + a);
        t.sourceOffset = from.sourceOffset;
        m_to.tracks.push_back(std::move(t));
    }

    void copyCounters()
    {
        for (const auto &from : m_from.counters) {
            CounterSeries c;
            c.process = process(from.process);
            c.name = from.name;
            c.time.reserve(from.time.size());
            for (const auto t : from.time)
                c.time.push_back(time(t));
            c.value = from.value;
            m_to.counters.push_back(std::move(c));
        }
    }

    void copyMemory()
    {
        const auto &from = m_from.memory;
        auto &to = m_to.memory;
        for (std::size_t k = 0; k < from.size(); ++k) {
            to.time.push_back(time(from.time[k]));
            to.track.push_back(track(from.track[k]));
        }
        append(to.bytes, from.bytes);
        append(to.totalAllocated, from.totalAllocated);
        append(to.totalReserved, from.totalReserved);
        append(to.address, from.address);
        append(to.deviceType, from.deviceType);
        append(to.deviceId, from.deviceId);
    }

    FlowEnd flowEnd(FlowEnd end) const
    {
        // An end the file did not have keeps its invalid track and its time as it was.
        if (end.track.isValid()) {
            end.track = track(end.track);
            end.time = time(end.time);
        }
        return end;
    }

    void copyFlows()
    {
        m_to.flows.reserve(m_to.flows.size() + m_from.flows.size());
        for (auto flow : m_from.flows) {
            flow.category = id(flow.category);
            flow.name = id(flow.name);
            flow.from = flowEnd(flow.from);
            flow.to = flowEnd(flow.to);
            m_to.flows.push_back(flow);
        }
    }

    void copyMarkers()
    {
        for (auto marker : m_from.markers) {
            marker.time = time(marker.time);
            marker.name = id(marker.name);
            marker.process = process(marker.process);
            m_to.markers.push_back(marker);
        }
    }

    Trace &m_to;
    const Trace &m_from;
    const TracePart &m_part;
    std::size_t m_partIndex;
    std::uint32_t m_processBase;
    std::uint32_t m_trackBase;
    std::uint32_t m_argsBase;
    std::vector<StringId> m_strings; // the part's string ids -> the combined pool's
};

void addInfo(TraceInfo &to, const TraceInfo &from, const TracePart &part)
{
    to.fileBytes += from.fileBytes;
    to.jsonBytes += from.jsonBytes;
    to.eventCount += from.eventCount;
    for (const auto &[ph, count] : from.phaseCounts)
        to.phaseCounts[ph] += count;
    to.processCount += from.processCount;
    to.trackCount += from.trackCount;
    to.loadSeconds += from.loadSeconds;
    to.buildSeconds += from.buildSeconds;
    to.warningCount += from.warningCount;
    for (const auto &warning : from.warnings) {
        if (to.warnings.size() >= TraceInfo::kMaxWarnings)
            break;
        to.warnings.push_back(prefixed(part.label, warning));
    }
    to.partial = to.partial || from.partial;
}

} // namespace

std::shared_ptr<const Trace> combineTraces(const std::vector<TracePart> &parts, const StopToken *stop)
{
    if (parts.empty())
        return nullptr;
    auto combined = std::make_shared<Trace>();
    auto &info = combined->info;
    bool first = true;
    bool hasSpan = false;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto &part = parts[i];
        if (!part.trace)
            continue;
        if (first) {
            info.file = part.trace->info.file;
            combined->gzipped = part.trace->gzipped;
            first = false;
        }
        if (!PartCopy(*combined, *part.trace, part, i).copy(stop))
            return nullptr;
        addInfo(info, part.trace->info, part);
        // 0/0 is a trace without timed events: it adds nothing to the span.
        const auto &from = part.trace->info;
        if (from.spanStart == 0 && from.spanEnd == 0)
            continue;
        const auto start = from.spanStart + part.offsetNs;
        const auto end = from.spanEnd + part.offsetNs;
        info.spanStart = hasSpan ? std::min(info.spanStart, start) : start;
        info.spanEnd = hasSpan ? std::max(info.spanEnd, end) : end;
        hasSpan = true;
    }
    if (first)
        return nullptr;
    return combined;
}

std::uint32_t processPart(const Process &process)
{
    // combineTraces adds part << 32 to each pid.
    return std::uint32_t((std::uint64_t(process.pid.number) + (std::uint64_t(1) << 31)) >> 32);
}

} // namespace pyrometer::trace
