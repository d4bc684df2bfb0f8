#include "core/trace/trace.h"

#include <algorithm>

namespace pyrometer::trace {

const EventArgs *Trace::eventArgs(TrackId trackId, EventIndex event) const
{
    const auto &t = track(trackId);
    if (!event.isValid() || event.value >= t.size())
        return nullptr;
    const auto index = t.args[event.value];
    return index == Track::kNoArgs ? nullptr : &args[index];
}

const CollectiveArgs *Trace::collective(TrackId trackId, EventIndex event) const
{
    const auto &t = track(trackId);
    if (!event.isValid() || event.value >= t.size() || t.args[event.value] == Track::kNoArgs)
        return nullptr;
    const auto index = t.args[event.value];
    const auto it = std::lower_bound(collectiveArgs.begin(), collectiveArgs.end(), index,
                                     [](const auto &entry, std::uint32_t value) { return entry.first < value; });
    return it != collectiveArgs.end() && it->first == index ? &it->second : nullptr;
}

const ExtraArgs *Trace::extra(TrackId trackId, EventIndex event) const
{
    const auto &t = track(trackId);
    if (extraArgs.empty() || !event.isValid() || event.value >= t.size() || t.args[event.value] == Track::kNoArgs)
        return nullptr;
    const auto index = t.args[event.value];
    const auto it = std::lower_bound(extraArgs.begin(), extraArgs.end(), index,
                                     [](const auto &entry, std::uint32_t value) { return entry.first < value; });
    return it != extraArgs.end() && it->first == index ? &it->second : nullptr;
}

std::uint64_t Trace::sliceCount() const
{
    std::uint64_t count = 0;
    for (const auto &t : tracks)
        count += t.size();
    return count;
}

std::pair<EventIndex, EventIndex> Trace::startRange(TrackId trackId, std::int64_t from, std::int64_t to) const
{
    const auto &starts = track(trackId).start;
    const auto first = std::lower_bound(starts.begin(), starts.end(), from);
    const auto last = std::lower_bound(first, starts.end(), std::max(from, to));
    return {EventIndex(static_cast<std::uint32_t>(first - starts.begin())),
            EventIndex(static_cast<std::uint32_t>(last - starts.begin()))};
}

EventIndex Trace::sliceAt(TrackId trackId, std::int64_t time) const
{
    const auto &t = track(trackId);
    const auto it = std::upper_bound(t.start.begin(), t.start.end(), time);
    if (it == t.start.begin())
        return {};
    // The latest event starting at or before `time` is the deepest candidate; if it ended
    // already, one of its ancestors may still contain the time. A few earlier events are
    // tried too, for other lanes.
    auto index = static_cast<std::uint32_t>(it - t.start.begin() - 1);
    for (int tries = 0; tries < 64; ++tries) {
        EventIndex e(index);
        while (e.isValid()) {
            if (t.end(e) >= time)
                return e;
            e = t.parent[e.value];
        }
        if (index == 0)
            break;
        --index;
    }
    return {};
}

EventIndex Trace::sliceStartingAt(TrackId trackId, std::int64_t time) const
{
    const auto &starts = track(trackId).start;
    const auto it = std::lower_bound(starts.begin(), starts.end(), time);
    if (it == starts.end())
        return {};
    return EventIndex(static_cast<std::uint32_t>(it - starts.begin()));
}

std::size_t Trace::memoryBytes() const
{
    std::size_t bytes = strings.memoryBytes() + args.capacity() * sizeof(EventArgs) + flows.capacity() * sizeof(Flow) +
                        markers.capacity() * sizeof(Marker) + collectiveArgs.capacity() * sizeof(collectiveArgs[0]) +
                        extraArgs.capacity() * sizeof(extraArgs[0]);
    for (const auto &t : tracks) {
        bytes += t.start.capacity() * 8 + t.duration.capacity() * 8 + t.eventName.capacity() * 4
            + t.category.capacity() * 4 + t.kind.capacity() + t.lane.capacity() * 2
            + t.depth.capacity() * 2 + t.parent.capacity() * 4 + t.args.capacity() * 4
            + t.sourceOffset.capacity() * 8;
    }
    for (const auto &c : counters)
        bytes += c.time.capacity() * 8 + c.value.capacity() * 8;
    bytes += memory.time.capacity() * (8 + 4 + 8 + 8 + 8 + 8 + 4 + 4);
    return bytes;
}

} // namespace pyrometer::trace
