#include "core/analysis/optable.h"

#include "core/analysis/moduletable.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

struct Accumulator {
    const TraceIndex &index;
    const OpTableOptions &options;
    std::vector<std::int32_t> rowByName; // Name grouping: StringId -> row
    std::map<std::pair<std::uint32_t, std::string>, std::int32_t> rowByKey;
    std::vector<OpRow> rows;
    std::int32_t stepRow = -1; // Name grouping, merged steps

    std::string groupOf(EventRef op) const
    {
        switch (options.grouping) {
        case OpGrouping::Name: return {};
        case OpGrouping::Shape: {
            const auto *args = index.trace->eventArgs(op.track, op.event);
            return args && args->inputDims.isValid() ? std::string(index.trace->string(args->inputDims))
                                                     : std::string();
        }
        case OpGrouping::Module: return modulePath(index, op);
        case OpGrouping::Stack: return pythonStack(index, op, options.stackFrames);
        }
        return {};
    }

    OpRow &rowOf(EventRef op)
    {
        auto name = index.trace->track(op.track).eventName[op.event.value];
        bool step = false;
        if (options.mergeSteps && isProfilerStep(index.trace->string(name))) {
            step = true;
            name = trace::StringId(trace::StringId::kInvalidValue - 1); // a key no pool id takes
        }
        std::int32_t *slot = nullptr;
        if (options.grouping == OpGrouping::Name) {
            if (step) {
                slot = &stepRow;
            } else {
                if (name.value >= rowByName.size())
                    rowByName.resize(name.value + 1, -1);
                slot = &rowByName[name.value];
            }
        } else {
            slot = &rowByKey.try_emplace({name.value, groupOf(op)}, -1).first->second;
        }
        if (*slot < 0) {
            *slot = static_cast<std::int32_t>(rows.size());
            rows.emplace_back();
            rows.back().name = step ? std::string("ProfilerStep*") : std::string(index.trace->string(name));
            if (options.grouping != OpGrouping::Name)
                rows.back().group = groupOf(op);
        }
        return rows[static_cast<std::size_t>(*slot)];
    }
};

bool inRange(const trace::Trace &trace, EventRef op, const TimeRange &range)
{
    return range.contains(trace.track(op.track).start[op.event.value]);
}

// Adds value to the op's self column and to the total column of it and every enclosing op in
// range (an enclosing op starts earlier, so only the range's start can exclude it).
template <typename SelfField, typename TotalField>
void attribute(Accumulator &acc, EventRef op, std::int64_t value, SelfField self, TotalField total)
{
    const auto &trace = *acc.index.trace;
    if (!inRange(trace, op, acc.options.range))
        return;
    acc.rowOf(op).*self += value;
    const auto &ti = acc.index.track(op.track);
    const auto &track = trace.track(op.track);
    for (auto e = op.event; e.isValid(); e = ti.opParent[e.value]) {
        if (track.start[e.value] < acc.options.range.start)
            break;
        acc.rowOf({op.track, e}).*total += value;
    }
}

} // namespace

std::string modulePath(const TraceIndex &index, EventRef op)
{
    const auto &ti = index.track(op.track);
    std::vector<std::string_view> modules;
    for (auto e = ti.frameParent[op.event.value]; e.isValid(); e = ti.frameParent[e.value])
        if (const auto name = moduleFrameName(index, {op.track, e}); !name.empty())
            modules.push_back(name);
    std::string path;
    for (auto it = modules.rbegin(); it != modules.rend(); ++it)
        path.append(path.empty() ? "" : "/").append(*it);
    return path;
}

std::string pythonStack(const TraceIndex &index, EventRef op, int n)
{
    const auto &ti = index.track(op.track);
    const auto &track = index.trace->track(op.track);
    std::string stack;
    int kept = 0;
    for (auto e = ti.frameParent[op.event.value]; e.isValid() && kept < n; e = ti.frameParent[e.value]) {
        if (ti.kind[e.value] != EventKind::Python)
            continue;
        stack.append(kept++ ? ";" : "").append(index.trace->string(track.eventName[e.value]));
    }
    return stack;
}

OpTable buildOpTable(const TraceIndex &index, const OpTableOptions &options, const StopToken *stop)
{
    const auto &trace = *index.trace;
    Accumulator acc{index, options, {}, {}, {}, -1};
    OpTable table;
    std::uint32_t sinceCheck = 0;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps)
            continue;
        const auto &track = trace.tracks[t];
        const auto [first, last] = eventsIn(trace, TrackId(t), options.range);
        for (auto i = first; i < last; ++i) {
            if (ti.kind[i] != EventKind::Op)
                continue;
            if (stop && (sinceCheck++ & 0xFFFFu) == 0 && stop->stopRequested())
                return {};
            auto &row = acc.rowOf({TrackId(t), EventIndex(i)});
            const auto duration = track.duration[i];
            row.minNs = row.calls ? std::min(row.minNs, duration) : duration;
            row.maxNs = row.calls ? std::max(row.maxNs, duration) : duration;
            ++row.calls;
            row.totalNs += duration;
            row.selfNs += ti.selfNs[i];
            table.selfSumNs += ti.selfNs[i];
        }
    }
    if (index.hasDevice) {
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &ti = index.tracks[t];
            if (!ti.hasDevice)
                continue;
            const auto &track = trace.tracks[t];
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (!isDeviceKind(ti.kind[i]) || !ti.launchOp[i].isValid())
                    continue;
                attribute(acc, ti.launchOp[i], track.duration[i], &OpRow::deviceSelfNs, &OpRow::deviceTotalNs);
            }
        }
    }
    for (std::uint32_t m = 0; m < trace.memory.size(); ++m) {
        const auto owner = index.memoryOwner[m];
        if (!owner.isValid())
            continue;
        const auto bytes = trace.memory.bytes[m];
        if (trace.memory.deviceType[m] == 0)
            attribute(acc, owner, bytes, &OpRow::cpuMemSelfBytes, &OpRow::cpuMemTotalBytes);
        else
            attribute(acc, owner, bytes, &OpRow::deviceMemSelfBytes, &OpRow::deviceMemTotalBytes);
    }

    table.rows = std::move(acc.rows);
    for (auto &row : table.rows) {
        table.deviceSumNs += row.deviceSelfNs;
        if (table.selfSumNs > 0) {
            row.selfPercent = 100.0 * static_cast<double>(row.selfNs) / static_cast<double>(table.selfSumNs);
            row.totalPercent = 100.0 * static_cast<double>(row.totalNs) / static_cast<double>(table.selfSumNs);
        }
    }
    const auto key = [&](const OpRow &row) -> std::int64_t {
        switch (options.sort) {
        case OpSort::Self: return row.selfNs;
        case OpSort::Total: return row.totalNs;
        case OpSort::Calls: return static_cast<std::int64_t>(row.calls);
        case OpSort::Name: return 0;
        }
        return 0;
    };
    std::sort(table.rows.begin(), table.rows.end(), [&](const OpRow &a, const OpRow &b) {
        const auto ka = key(a);
        const auto kb = key(b);
        if (ka != kb)
            return ka > kb;
        return std::tie(a.name, a.group) < std::tie(b.name, b.group);
    });
    if (options.top > 0 && table.rows.size() > options.top)
        table.rows.resize(options.top);
    return table;
}

} // namespace pyrometer::analysis
