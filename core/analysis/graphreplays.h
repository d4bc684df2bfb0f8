#pragma once

#include "core/analysis/launches.h"
#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// CUDA (and HIP) graphs as the profiler records them. A replay is one call (cudaGraphLaunch,
// hipGraphLaunch) whose correlation id every device event it ran carries; those events also
// carry "graph id" (> 0) and no External id. A capture (cudaStreamBeginCapture ...
// cudaStreamEndCapture on one thread) records launches that run nothing on the device then.

// One replay: the launch and the device events it ran (on one stream: a graph of several
// streams counts once per stream it ran on).
struct GraphReplay {
    std::int64_t correlation = -1;
    EventRef call;             // the graph launch
    EventRef first;            // its first device event
    std::int32_t graphId = -1; // -1 when its events do not say
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::uint32_t eventCount = 0; // kernels, copies and sets it ran
    std::int64_t callStartNs = 0;
    std::int64_t callNs = 0;
    std::int64_t startNs = 0;   // its first device event's start
    std::int64_t endNs = 0;     // its last device event's end
    std::int64_t busyNs = 0;    // the union of its device events
    std::int64_t longestNs = 0; // its longest device event
    EventRef longest;
    std::int64_t spanNs() const { return endNs - startNs; }
    std::int64_t gapNs() const { return spanNs() - busyNs; } // idle inside the replay
    // First-event delay: its first device event's start less the call's end (< 0 when the GPU
    // began before the call returned).
    std::int64_t delayNs() const { return startNs - (callStartNs + callNs); }
    bool operator==(const GraphReplay &) const = default;
};

// Every replay of one graph (by graph id, and stream).
struct GraphRow {
    std::int32_t graphId = -1;
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::uint64_t replays = 0;
    std::uint64_t events = 0;       // device events over all replays
    std::int64_t spanNs = 0;        // summed replay spans
    std::int64_t busyNs = 0;        // summed device time inside them
    std::int64_t delayMedianNs = 0; // first-event delay, nearest rank
    std::string longestKernel;      // the device event with the most time over its replays
    std::int64_t longestKernelNs = 0;
    std::int64_t gapNs() const { return spanNs - busyNs; }
    bool operator==(const GraphRow &) const = default;
};

// A capture: what a thread launched between BeginCapture and EndCapture was recorded, not run.
struct GraphCapture {
    EventRef begin;
    EventRef end; // invalid when the trace ends inside the capture
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint64_t calls = 0; // runtime and driver calls inside it
    bool operator==(const GraphCapture &) const = default;
};

struct GraphReplays {
    std::vector<GraphReplay> replays;   // by start
    std::vector<GraphRow> graphs;       // by busy time, largest first
    std::vector<GraphCapture> captures; // by start
    std::uint64_t graphEvents = 0;      // device events run by replays
    std::uint64_t eagerEvents = 0;      // device events launched one by one
    std::int64_t graphDeviceNs = 0;     // their summed durations
    std::int64_t eagerDeviceNs = 0;
    std::int64_t gapInsideNs = 0; // summed idle inside replays
    bool any() const { return !replays.empty() || !captures.empty(); }
    bool operator==(const GraphReplays &) const = default;
};

// Replays whose first device event starts in range, captures that start in it, and the
// eager/graph split of the device events that start in it.
GraphReplays buildGraphReplays(const TraceIndex &index, const LaunchCalls &calls, const TimeRange &range = {},
                               const StopToken *stop = nullptr);
GraphReplays buildGraphReplays(const TraceIndex &index, const TimeRange &range = {}, const StopToken *stop = nullptr);

// Whether the trace calls a graph launch by one of its known names.
bool hasGraphLaunches(const trace::Trace &trace);
// launchCalls() where the trace has graph launches, else no calls at all: enough for
// isGraphEvent(), which then goes by the events' graph ids alone.
LaunchCalls graphLaunchCalls(const TraceIndex &index, const StopToken *stop = nullptr);

// Per device event: whether a graph replayed it (its graph id > 0, or its launch is a graph
// launch).
bool isGraphEvent(const trace::Trace &trace, const LaunchCalls &calls, trace::TrackId track, std::uint32_t event);

// "graph 590" for tables: the name a replay goes by where a kernel's name would.
std::string graphName(std::int32_t graphId);

} // namespace pyrometer::analysis
