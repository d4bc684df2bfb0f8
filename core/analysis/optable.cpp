#include "core/analysis/optable.h"

#include "core/analysis/moduletable.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

struct OpAccumulator {
    const TraceIndex &index;
    const OpTableOptions &options;
    std::vector<std::int32_t> rowByName; // Name grouping: StringId -> row
    std::map<std::pair<std::uint32_t, std::string>, std::int32_t> rowByKey;
    std::vector<OpRow> rows;
    std::int32_t stepRow = -1; // Name grouping, merged steps
    // Per track, per op: the op it folds into (see foldRepeats), else invalid.
    std::vector<std::vector<EventIndex>> foldedInto;

    bool folded(EventRef op) const
    {
        const auto &into = foldedInto[op.track.value];
        return !into.empty() && into[op.event.value].isValid();
    }
    EventRef shownAs(EventRef op) const { return folded(op) ? EventRef{op.track, foldedInto[op.track.value][op.event.value]} : op; }

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
void attribute(OpAccumulator &acc, EventRef op, std::int64_t value, SelfField self, TotalField total)
{
    const auto &trace = *acc.index.trace;
    if (!inRange(trace, op, acc.options.range) || !acc.options.processes.contains(trace.track(op.track).process.value))
        return;
    acc.rowOf(acc.shownAs(op)).*self += value;
    const auto &ti = acc.index.track(op.track);
    const auto &track = trace.track(op.track);
    for (auto e = op.event; e.isValid(); e = ti.opParent[e.value]) {
        if (track.start[e.value] < acc.options.range.start)
            break;
        if (!acc.folded({op.track, e})) // its parent's total holds it
            acc.rowOf({op.track, e}).*total += value;
    }
}

// torch's EventList._remove_dup_nodes (1.13 and 2.x): an op whose parent has the same name and no
// other child is dropped, its children become the parent's. torch 2.x records ops that call
// themselves this way (aten::mean, aten::sum, aten::div_, aten::sort: one op, two events); the
// trace keeps both, key_averages() counts one call whose self time is both selves. In start
// order a parent is settled before its children, so one pass gives torch's fixed point.
std::vector<EventIndex> foldRepeats(const trace::Track &track, const TrackIndex &ti)
{
    const auto n = track.size();
    std::vector<std::uint32_t> children(n, 0);
    for (std::uint32_t i = 0; i < n; ++i)
        if (ti.kind[i] == EventKind::Op && ti.opParent[i].isValid())
            ++children[ti.opParent[i].value];
    std::vector<EventIndex> into(n);
    bool any = false;
    for (std::uint32_t i = 0; i < n; ++i) {
        auto parent = ti.opParent[i];
        if (ti.kind[i] != EventKind::Op || !parent.isValid())
            continue;
        if (into[parent.value].isValid())
            parent = into[parent.value];
        if (children[parent.value] == 1 && track.eventName[parent.value] == track.eventName[i]) {
            into[i] = parent;
            children[parent.value] = children[i];
            any = true;
        }
    }
    return any ? into : std::vector<EventIndex>{};
}

// Memory events inside no op of any thread, each end included: key_averages' "[memory]" row
// (torch.autograd.profiler's top-level memory events). Per track, ops are in start order, so
// the furthest end so far tells whether any op before a time still covers it.
OpRow topLevelMemory(const TraceIndex &index, const TimeRange &range, const ProcessSet &processes)
{
    const auto &trace = *index.trace;
    const auto &memory = trace.memory;
    std::vector<bool> covered(memory.size(), false);
    std::vector<std::int64_t> furthestEnd;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        if (!index.tracks[t].hasOps)
            continue;
        const auto &track = trace.tracks[t];
        const auto &kinds = index.tracks[t].kind;
        furthestEnd.assign(track.size(), std::numeric_limits<std::int64_t>::min());
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const auto previous = i ? furthestEnd[i - 1] : std::numeric_limits<std::int64_t>::min();
            furthestEnd[i] = kinds[i] == EventKind::Op ? std::max(previous, track.end(EventIndex(i))) : previous;
        }
        for (std::uint32_t m = 0; m < memory.size(); ++m) {
            const auto last = std::upper_bound(track.start.begin(), track.start.end(), memory.time[m]);
            if (last != track.start.begin() && furthestEnd[static_cast<std::size_t>(last - track.start.begin()) - 1] >= memory.time[m])
                covered[m] = true;
        }
    }
    OpRow row;
    row.name = "[memory]";
    for (std::uint32_t m = 0; m < memory.size(); ++m) {
        if (covered[m] || !range.contains(memory.time[m]))
            continue;
        if (!processes.isAll() && (!memory.track[m].isValid() || !processes.contains(trace.track(memory.track[m]).process.value)))
            continue;
        ++row.calls;
        (memory.deviceType[m] == 0 ? row.cpuMemSelfBytes : row.deviceMemSelfBytes) += memory.bytes[m];
    }
    row.cpuMemTotalBytes = row.cpuMemSelfBytes;
    row.deviceMemTotalBytes = row.deviceMemSelfBytes;
    return row;
}

// A bounded range's ops, clipped to it: every op that overlaps the range counts the part of its
// time inside it (total), less the parts of the ops nested in it (self); a call counts where it
// starts. Adjacent ranges add up to the whole, and a 10 ms range holds no op longer than 10 ms.
void addClipped(OpAccumulator &acc, OpTable &table, TrackId t)
{
    const auto &trace = *acc.index.trace;
    const auto &ti = acc.index.track(t);
    const auto &track = trace.track(t);
    const auto a = acc.options.range.start;
    const auto b = acc.options.range.end;
    const auto [firstId, lastId] = trace.startRange(t, a, b);
    std::vector<std::uint32_t> ops;
    // Ops open at the range's start: the last op that began before it and its ancestors.
    for (auto j = firstId.value; j-- > 0;) {
        if (ti.kind[j] != EventKind::Op)
            continue;
        for (auto e = EventIndex(j); e.isValid(); e = ti.opParent[e.value])
            if (track.end(e) > a)
                ops.push_back(e.value);
        break;
    }
    std::reverse(ops.begin(), ops.end()); // parents first
    for (auto i = firstId.value; i < lastId.value; ++i)
        if (ti.kind[i] == EventKind::Op)
            ops.push_back(i);
    std::unordered_map<std::uint32_t, std::int64_t> self;
    const auto clipped = [&](std::uint32_t i) {
        return std::max<std::int64_t>(0, std::min(track.end(EventIndex(i)), b) - std::max(track.start[i], a));
    };
    for (const auto i : ops) {
        self[i] += clipped(i);
        if (const auto p = ti.opParent[i]; p.isValid())
            self[p.value] -= clipped(i);
    }
    for (const auto i : ops) {
        const EventRef op{t, EventIndex(i)};
        const auto ownSelf = self[i];
        table.selfSumNs += ownSelf;
        if (acc.folded(op)) {
            acc.rowOf(acc.shownAs(op)).selfNs += ownSelf;
            continue;
        }
        auto &row = acc.rowOf(op);
        row.totalNs += clipped(i);
        row.selfNs += ownSelf;
        if (track.start[i] < a)
            continue; // its call counts in the range where it starts
        const auto duration = track.duration[i];
        row.minNs = row.calls ? std::min(row.minNs, duration) : duration;
        row.maxNs = row.calls ? std::max(row.maxNs, duration) : duration;
        ++row.calls;
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
    OpAccumulator acc{index, options, {}, {}, {}, -1, std::vector<std::vector<EventIndex>>(trace.tracks.size())};
    OpTable table;
    std::uint32_t sinceCheck = 0;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps || !options.processes.contains(trace.tracks[t].process.value))
            continue;
        const auto &track = trace.tracks[t];
        acc.foldedInto[t] = foldRepeats(track, ti);
        if (!options.range.isAll()) {
            addClipped(acc, table, TrackId(t));
            continue;
        }
        const auto [first, last] = eventsIn(trace, TrackId(t), options.range);
        for (auto i = first; i < last; ++i) {
            if (ti.kind[i] != EventKind::Op)
                continue;
            if (stop && (sinceCheck++ & 0xFFFFu) == 0 && stop->stopRequested())
                return {};
            const EventRef op{TrackId(t), EventIndex(i)};
            if (acc.folded(op)) { // one call with the op it folds into, which holds its time
                acc.rowOf(acc.shownAs(op)).selfNs += ti.selfNs[i];
                table.selfSumNs += ti.selfNs[i];
                continue;
            }
            auto &row = acc.rowOf(op);
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
    if (trace.memory.size() > 0)
        if (auto row = topLevelMemory(index, options.range, options.processes); row.calls > 0)
            table.rows.push_back(std::move(row));
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
