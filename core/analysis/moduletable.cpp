#include "core/analysis/moduletable.h"

#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

constexpr std::string_view kModulePrefix = "nn.Module: ";

struct ModuleTableBuilder {
    const TraceIndex &index;
    const TimeRange &range;
    ModuleTable table;
    std::unordered_map<std::string, std::int32_t> rowByPath;
    std::vector<std::vector<std::int32_t>> rowOfFrame; // per track, per event; -1 unknown

    // The module frame directly around an event (op or frame), or invalid.
    EventIndex enclosingModule(TrackId track, EventIndex event) const
    {
        const auto &ti = index.track(track);
        for (auto e = ti.frameParent[event.value]; e.isValid(); e = ti.frameParent[e.value])
            if (!moduleFrameName(index, {track, e}).empty())
                return e;
        return {};
    }

    std::int32_t rowOfPath(const std::string &path)
    {
        if (const auto it = rowByPath.find(path); it != rowByPath.end())
            return it->second;
        const auto slash = path.rfind('/');
        const auto parent = slash == std::string::npos ? -1 : rowOfPath(path.substr(0, slash));
        ModuleRow row;
        row.path = path;
        row.name = slash == std::string::npos ? path : path.substr(slash + 1);
        row.parent = parent;
        table.rows.push_back(std::move(row));
        const auto id = static_cast<std::int32_t>(table.rows.size() - 1);
        rowByPath.emplace(path, id);
        return id;
    }

    // The row of a module frame, whose path is that of the frames around it.
    std::int32_t rowOf(TrackId track, EventIndex frame)
    {
        auto &rows = rowOfFrame[track.value];
        if (rows.empty())
            rows.assign(index.trace->track(track).size(), -1);
        if (rows[frame.value] >= 0)
            return rows[frame.value];
        std::string path(moduleFrameName(index, {track, frame}));
        for (auto e = enclosingModule(track, frame); e.isValid(); e = enclosingModule(track, e))
            path.insert(0, std::string(moduleFrameName(index, {track, e})) + "/");
        return rows[frame.value] = rowOfPath(path);
    }

    bool inRange(TrackId track, EventIndex event) const
    {
        return range.contains(index.trace->track(track).start[event.value]);
    }
};

} // namespace

std::string_view moduleFrameName(const TraceIndex &index, EventRef event)
{
    if (index.track(event.track).kind[event.event.value] != EventKind::Python)
        return {};
    const auto name = index.trace->string(index.trace->track(event.track).eventName[event.event.value]);
    if (name.substr(0, kModulePrefix.size()) != kModulePrefix)
        return {};
    return name.substr(kModulePrefix.size());
}

ModuleTable buildModuleTable(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    const auto &trace = *index.trace;
    ModuleTableBuilder b{index, range, {}, {}, std::vector<std::vector<std::int32_t>>(trace.tracks.size())};
    std::uint32_t sinceCheck = 0;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps)
            continue;
        const TrackId track(t);
        const auto &events = trace.tracks[t];
        const auto [first, last] = eventsIn(trace, track, range);
        for (auto i = first; i < last; ++i) {
            if (stop && (sinceCheck++ & 0xFFFFu) == 0 && stop->stopRequested())
                return {};
            if (moduleFrameName(index, {track, EventIndex(i)}).empty())
                continue;
            auto &row = b.table.rows[static_cast<std::size_t>(b.rowOf(track, EventIndex(i)))];
            ++row.calls;
            row.totalNs += events.duration[i];
            row.selfNs += events.duration[i];
            if (const auto outer = b.enclosingModule(track, EventIndex(i)); outer.isValid() && b.inRange(track, outer))
                b.table.rows[static_cast<std::size_t>(b.rowOf(track, outer))].selfNs -= events.duration[i];
        }
    }
    if (b.table.rows.empty() || !index.hasDevice)
        return std::move(b.table);
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &events = trace.tracks[t];
        for (std::uint32_t i = 0; i < events.size(); ++i) {
            const auto op = ti.launchOp.empty() ? EventRef{} : ti.launchOp[i];
            if (!isDeviceKind(ti.kind[i]) || !op.isValid())
                continue;
            auto module = b.enclosingModule(op.track, op.event);
            if (!module.isValid() || !b.inRange(op.track, module))
                continue;
            const auto duration = events.duration[i];
            b.table.rows[static_cast<std::size_t>(b.rowOf(op.track, module))].deviceSelfNs += duration;
            for (; module.isValid() && b.inRange(op.track, module); module = b.enclosingModule(op.track, module))
                b.table.rows[static_cast<std::size_t>(b.rowOf(op.track, module))].deviceTotalNs += duration;
        }
    }
    return std::move(b.table);
}

} // namespace pyrometer::analysis
