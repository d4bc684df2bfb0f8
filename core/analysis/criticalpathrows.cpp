#include "core/analysis/criticalpathrows.h"

#include <algorithm>
#include <string_view>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;

bool isStepName(std::string_view name)
{
    return name.rfind("ProfilerStep#", 0) == 0;
}

// The outermost op around a CPU node's event, below any ProfilerStep; invalid for a device node,
// for the step's own time and for a node under no op.
EventRef topLevelOp(const TraceIndex &index, const PathNode &node)
{
    if (node.kind == PathNodeKind::Device || !node.event.isValid())
        return {};
    const auto &trace = *index.trace;
    const auto &track = trace.track(node.event.track);
    const auto &ti = index.track(node.event.track);
    auto j = node.event.event;
    while (j.isValid() && ti.kind[j.value] != EventKind::Op)
        j = track.parent[j.value];
    if (!j.isValid())
        return {};
    EventIndex top = j;
    for (auto p = ti.opParent[j.value]; p.isValid(); p = ti.opParent[p.value]) {
        if (isStepName(trace.string(track.eventName[p.value])))
            break;
        top = p;
    }
    if (isStepName(trace.string(track.eventName[top.value])))
        return {};
    return {node.event.track, top};
}

} // namespace

unsigned pathKindBit(PathNodeKind kind)
{
    switch (kind) {
    case PathNodeKind::Cpu: return kPathCpu;
    case PathNodeKind::Launch: return kPathLaunch;
    case PathNodeKind::Sync: return kPathSync;
    case PathNodeKind::Device: return kPathDevice;
    }
    return kPathCpu;
}

std::vector<PathRow> buildPathRows(const TraceIndex &index, const CriticalPath &path, const PathRowOptions &options)
{
    const auto &trace = *index.trace;
    const auto passes = [&](unsigned kinds, std::int64_t duration, std::int64_t wait) {
        return ((options.kinds & kinds) && duration >= options.minNs) ||
               ((options.kinds & kPathWait) && wait > 0 && wait >= options.minNs);
    };
    std::vector<std::int64_t> saved(path.nodes.size(), -1);
    for (const auto &w : path.whatIfs)
        if (w.node < saved.size())
            saved[w.node] = w.savedNs;

    std::vector<PathRow> rows;
    for (std::size_t i = 0; i < path.nodes.size();) {
        const auto op = topLevelOp(index, path.nodes[i]);
        auto end = i + 1;
        while (op.isValid() && end < path.nodes.size() && topLevelOp(index, path.nodes[end]) == op)
            ++end;
        const auto &first = path.nodes[i];
        PathRow row;
        row.startNs = first.startNs;
        unsigned kinds = 0;
        for (auto k = i; k < end; ++k) {
            const auto &n = path.nodes[k];
            row.durationNs += n.durationNs;
            row.waitBeforeNs += n.waitBeforeNs;
            row.sharePct += n.sharePct;
            kinds |= pathKindBit(n.kind);
            if (passes(pathKindBit(n.kind), n.durationNs, n.waitBeforeNs))
                row.nodes.push_back(k);
        }
        // A group of many short nodes passes on its sums, showing only the nodes that pass.
        const bool shown = !row.nodes.empty() || (end - i > 1 && passes(kinds, row.durationNs, row.waitBeforeNs));
        row.nodeCount = end - i;
        if (row.nodeCount > 1) {
            row.group = true;
            row.event = op;
            row.name = std::string(trace.string(trace.track(op.track).eventName[op.event.value]));
        } else {
            row.event = first.event;
            row.name = first.name;
            row.kind = first.kind;
            row.savedNs = saved[i];
        }
        if (shown)
            rows.push_back(std::move(row));
        i = end;
    }
    if (options.order != PathOrder::Time)
        std::stable_sort(rows.begin(), rows.end(), [&](const PathRow &a, const PathRow &b) {
            return options.order == PathOrder::Duration ? a.durationNs > b.durationNs
                                                        : a.waitBeforeNs > b.waitBeforeNs;
        });
    if (options.top > 0 && rows.size() > options.top)
        rows.resize(options.top);
    return rows;
}

} // namespace pyrometer::analysis
