#pragma once

#include "core/analysis/criticalpath.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// The critical path as a table shows it. A step's path is mostly short CPU stretches (aten::view,
// aten::empty, ...) that say little one by one: consecutive CPU nodes (work, launches, syncs) on
// one thread under the same top-level op (the outermost op below the ProfilerStep, as
// aten::conv2d or Optimizer.step#SGD.step) become one group row named after that op, with the
// nodes as its children; device nodes, and CPU nodes under no op, stay rows of their own.
// A group's duration and wait sum its nodes', so rows still add up to the path's length.

// What a filter keeps, as bits: node kinds, and waits (a row whose wait before is long enough).
enum PathKindBits : unsigned {
    kPathCpu = 1u << 0,
    kPathLaunch = 1u << 1,
    kPathSync = 1u << 2,
    kPathDevice = 1u << 3,
    kPathWait = 1u << 4,
    kPathAllKinds = (1u << 5) - 1,
};

enum class PathOrder : std::uint8_t { Time, Duration, Wait };

struct PathRowOptions {
    unsigned kinds = kPathAllKinds;
    std::int64_t minNs = 0; // a node passes when its duration (or, with kPathWait, its wait) is as long
    PathOrder order = PathOrder::Time;
    std::size_t top = 0; // rows kept, 0: all
    bool operator==(const PathRowOptions &) const = default;
};

struct PathRow {
    std::string name;                  // the op's for a group, else the node's
    PathNodeKind kind = PathNodeKind::Cpu;
    bool group = false;
    EventRef event;                    // a group's op, else the node's event
    std::vector<std::size_t> nodes;    // into CriticalPath::nodes: a group's nodes that pass the
                                       // filter (in time order; none when only its sums pass), or
                                       // the node itself
    std::size_t nodeCount = 1;         // the nodes the group holds, shown or not
    std::int64_t startNs = 0;
    std::int64_t durationNs = 0;       // summed over all its nodes
    std::int64_t waitBeforeNs = 0;     // summed over all its nodes
    double sharePct = 0;               // of the step's time
    std::int64_t savedNs = -1;         // a node's what-if (-1: none computed; groups have none)
    bool operator==(const PathRow &) const = default;
};

// The keyed bit of a node kind.
unsigned pathKindBit(PathNodeKind kind);

// The path's rows: groups and lone nodes, filtered (a group stays while one of its nodes, or its
// sums, pass)
// and ordered by options (Duration and Wait: longest first, ties in time order), then cut to top.
std::vector<PathRow> buildPathRows(const TraceIndex &index, const CriticalPath &path,
                                   const PathRowOptions &options = {});

} // namespace pyrometer::analysis
