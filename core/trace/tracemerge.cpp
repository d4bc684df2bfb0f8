// The third part of TraceBuilder: absorbing a partial builder (one chunk of the file, parsed on
// another thread with its own string pool) into the main one, so that the result is the same
// as if the chunk's events had been added here one by one.
#include "core/trace/tracebuilder.h"

#include "core/trace/argscopy.h"

#include <algorithm>

namespace pyrometer::trace {
namespace {

// reserve() for appending n: geometric, so that absorbing chunk after chunk stays linear.
template <typename T>
void reserveMore(std::vector<T> &column, std::size_t n)
{
    if (column.size() + n > column.capacity())
        column.reserve(std::max(column.size() + n, column.capacity() * 2));
}

// Tracks shorter than this grow geometrically: their columns are small either way.
constexpr std::size_t kExpectFrom = 1024;

template <typename T>
void reserveAhead(std::vector<T> &column, double scale)
{
    const auto wanted = static_cast<std::size_t>(static_cast<double>(column.size()) * scale);
    if (wanted > column.capacity())
        column.reserve(wanted);
}

} // namespace

void TraceBuilder::expectRest(double share)
{
    if (!(share > 0 && share < 1))
        return;
    const double scale = 1.1 / share;
    for (auto &track : m_tracks) {
        if (track->start.size() < kExpectFrom)
            continue;
        reserveAhead(track->start, scale);
        reserveAhead(track->duration, scale);
        reserveAhead(track->eventName, scale);
        reserveAhead(track->category, scale);
        reserveAhead(track->kind, scale);
        reserveAhead(track->args, scale);
        reserveAhead(track->sourceOffset, scale);
    }
    if (m_trace->args.size() >= kExpectFrom)
        reserveAhead(m_trace->args, scale);
    if (m_flowPoints.size() >= kExpectFrom)
        reserveAhead(m_flowPoints, scale);
}

void TraceBuilder::absorb(TraceBuilder &part)
{
    Trace &from = *part.m_trace;
    Trace &to = *m_trace;

    // Strings: the part's ids are remapped into this pool.
    std::vector<StringId> ids(from.strings.size());
    for (std::uint32_t i = 0; i < ids.size(); ++i)
        ids[i] = to.strings.intern(from.strings.view(StringId(i)));
    auto id = [&](StringId local) { return local.isValid() && local.value < ids.size() ? ids[local.value] : local; };
    auto entity = [&](const EntityId &local) { return EntityId{local.number, id(local.text)}; };

    // Counts and span.
    to.info.eventCount += from.info.eventCount;
    for (int c = 0; c < 128; ++c)
        m_singleCharPhases[c] += part.m_singleCharPhases[c];
    for (const auto &[ph, count] : from.info.phaseCounts)
        to.info.phaseCounts[ph] += count;
    if (part.m_hasSpan)
        extendSpan(from.info.spanStart, from.info.spanEnd);

    // Processes; metadata seen later in the file wins, as in one pass.
    std::vector<std::uint32_t> processes(part.m_processes.size());
    for (std::size_t i = 0; i < processes.size(); ++i) {
        const auto &local = *part.m_processes[i];
        processes[i] = processIndex(entity(local.pid));
        auto &process = *m_processes[processes[i]];
        if (local.name.isValid())
            process.name = id(local.name);
        if (local.labels.isValid())
            process.labels = id(local.labels);
        if (local.hasSortIndex) {
            process.sortIndex = local.sortIndex;
            process.hasSortIndex = true;
        }
    }

    // Tracks: columns appended, args re-indexed.
    const auto argsBase = appendArgs(to, from, id);
    std::vector<std::uint32_t> tracks(part.m_tracks.size());
    std::vector<std::uint32_t> bases(part.m_tracks.size());
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        auto &local = *part.m_tracks[i];
        tracks[i] = trackIndex(entity(part.m_processes[local.process]->pid), entity(local.tid));
        auto &track = *m_tracks[tracks[i]];
        if (local.name.isValid())
            track.name = id(local.name);
        if (local.hasSortIndex) {
            track.sortIndex = local.sortIndex;
            track.hasSortIndex = true;
        }
        bases[i] = static_cast<std::uint32_t>(track.start.size());
        const auto n = local.start.size();
        if (track.start.empty()) {
            track.start = std::move(local.start);
            track.duration = std::move(local.duration);
            track.kind = std::move(local.kind);
            track.sourceOffset = std::move(local.sourceOffset);
        } else {
            track.start.insert(track.start.end(), local.start.begin(), local.start.end());
            track.duration.insert(track.duration.end(), local.duration.begin(), local.duration.end());
            track.kind.insert(track.kind.end(), local.kind.begin(), local.kind.end());
            track.sourceOffset.insert(track.sourceOffset.end(), local.sourceOffset.begin(), local.sourceOffset.end());
        }
        reserveMore(track.eventName, n);
        reserveMore(track.category, n);
        reserveMore(track.args, n);
        for (std::size_t k = 0; k < n; ++k) {
            track.eventName.push_back(id(local.eventName[k]));
            track.category.push_back(id(local.category[k]));
            const auto args = local.args[k];
            track.args.push_back(args == Track::kNoArgs ? args : argsBase + args);
        }
    }

    // The part's E events that found no B in it close, in file order, what was open before
    // it; then the part's own open B events go on top. Warnings stay in file order.
    auto warnings = std::move(part.m_warnings);
    const auto before = m_warnings.size();
    for (const auto &end : part.m_pendingEnds)
        endSlice(tracks[end.track], end.time, end.sourceOffset);
    if (m_warnings.size() > before) {
        warnings.insert(warnings.end(), std::make_move_iterator(m_warnings.begin() + static_cast<std::ptrdiff_t>(before)),
                        std::make_move_iterator(m_warnings.end()));
        m_warnings.resize(before);
        std::stable_sort(warnings.begin(), warnings.end(),
                         [](const Warning &a, const Warning &b) { return a.offset < b.offset; });
    }
    to.info.warningCount += from.info.warningCount; // endSlice() counted its own
    for (auto &warning : warnings) {
        if (m_warnings.size() >= TraceInfo::kMaxWarnings)
            break;
        m_warnings.push_back(std::move(warning));
    }
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        auto &open = m_tracks[tracks[i]]->openBegins;
        for (const auto begin : part.m_tracks[i]->openBegins)
            open.push_back(bases[i] + begin);
    }

    // [memory] instants, markers, flow points and counters, in file order.
    const auto &memory = from.memory;
    auto &memoryTo = to.memory;
    for (std::size_t k = 0; k < memory.size(); ++k)
        memoryTo.track.push_back(TrackId(tracks[memory.track[k].value]));
    memoryTo.time.insert(memoryTo.time.end(), memory.time.begin(), memory.time.end());
    memoryTo.bytes.insert(memoryTo.bytes.end(), memory.bytes.begin(), memory.bytes.end());
    memoryTo.totalAllocated.insert(memoryTo.totalAllocated.end(), memory.totalAllocated.begin(), memory.totalAllocated.end());
    memoryTo.totalReserved.insert(memoryTo.totalReserved.end(), memory.totalReserved.begin(), memory.totalReserved.end());
    memoryTo.address.insert(memoryTo.address.end(), memory.address.begin(), memory.address.end());
    memoryTo.deviceType.insert(memoryTo.deviceType.end(), memory.deviceType.begin(), memory.deviceType.end());
    memoryTo.deviceId.insert(memoryTo.deviceId.end(), memory.deviceId.begin(), memory.deviceId.end());

    for (auto marker : from.markers) {
        marker.name = id(marker.name);
        if (marker.process.isValid())
            marker.process = ProcessId(processes[marker.process.value]);
        to.markers.push_back(marker);
    }

    reserveMore(m_flowPoints, part.m_flowPoints.size());
    for (auto point : part.m_flowPoints) {
        point.category = id(point.category);
        point.name = id(point.name);
        point.track = tracks[point.track];
        if (point.textId)
            point.id = (1ull << 63) | id(StringId(static_cast<std::uint32_t>(point.id))).value;
        point.order = static_cast<std::uint32_t>(m_flowPoints.size());
        m_flowPoints.push_back(point);
    }

    for (auto &counter : part.m_counters) {
        const CounterKey key{processes[counter.key.process], id(StringId(counter.key.name)).value,
                             id(StringId(counter.key.key)).value};
        const auto [it, inserted] = m_counterByKey.try_emplace(key, static_cast<std::uint32_t>(m_counters.size()));
        if (inserted) {
            m_counters.push_back({key, std::move(counter.series)});
            continue;
        }
        auto &series = m_counters[it->second].series;
        series.time.insert(series.time.end(), counter.series.time.begin(), counter.series.time.end());
        series.value.insert(series.value.end(), counter.series.value.begin(), counter.series.value.end());
    }
}

} // namespace pyrometer::trace
