#pragma once

#include "core/analysis/stepspans.h" // profilerSteps
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// The critical path of a step: the chain of dependencies whose length is the step's time, its
// span on the GPU's clock (stepspans.h: from the later of its CPU start and the previous step's
// end to the end of its own work). The graph is built from the step's CPU span and the device
// work its calls launched; what of the path lies before the span's start (the CPU running ahead
// while the previous step's kernels ran) is cut off, so nodes, waits and shares add up to the
// span.
// Events are nodes; edges are the order of a CPU thread's work, a launch (call -> its kernel,
// by correlation id; a graph replay's call -> each kernel it ran), the order of a stream, a wait of
// one stream on an event another recorded (cudaEventRecord -> cudaStreamWaitEvent), a synchronisation (the last device
// event that ended before a sync call ended -> that call) and flows. Each edge keeps the latency seen in the trace
// (successor's start - predecessor's end, at least 0), so the longest path reproduces the step exactly; the path is
// followed back from the event that ends last through the predecessor that bound each start.
//
// How the trace becomes that graph (criticalpath.cpp has the details):
// - CPU threads (tracks with ops or runtime calls and no device events): each runtime/driver call
//   is a node (Launch when a device event has its correlation id; Sync for *Synchronize and
//   synchronous *Memcpy calls and cuda_sync events; else Cpu; calls nested in a call join it);
//   the time between calls under ops is split into Cpu nodes named after the innermost op.
//   Python frames are no nodes; time under no op is a wait. cudaStreamWaitEvent is a Cpu call:
//   it does not block the CPU, but it ties the waiting stream's next device event to the
//   recorded stream's last one (criticalpath.cpp: addEventWaits).
// - A node's start is the latest end among its predecessors plus the latency the trace shows
//   after that one (a latency per node, not per edge: with per-edge latencies every node with
//   two predecessors would stay pinned at its observed start whatever a what-if changes). A
//   device event that began before its launch call returned follows the call's start instead of
//   its end; only the call's part before the event is then on the path.
// - A sync's end is the later of its start and the end of the last device event that ended
//   before it did, plus its own time after that; the path shows only that own time.
// - A thread whose first node in the step starts after the step and has no flow into it follows
//   the node that ended last before it on another thread (the backward thread of traces
//   without fwdbwd flows).
// - What-ifs halve a node's own time (d - floor(d / 2) is left) and re-evaluate only the vertices
//   that move, O(V + E) each at worst; they stop once 2^24 vertex visits are spent: a step of up
//   to ~400k events gets all ten, a 3M-event trace taken whole about two.

enum class PathNodeKind : std::uint8_t { Cpu, Launch, Sync, Device };

struct PathNode {
    EventRef event; // the op, call or device event (a CPU op may stand for the part
                    // of its thread's time between two calls)
    PathNodeKind kind = PathNodeKind::Cpu;
    std::string name; // the op's or call's; "outside ops (ProfilerStep#3)" for CPU time in no op
    std::int64_t startNs = 0;
    std::int64_t durationNs = 0;
    std::int64_t waitBeforeNs = 0; // the latency of the edge that led here (0 for the first)
    double sharePct = 0;           // durationNs / the step's time
    bool operator==(const PathNode &) const = default;
};

// If this node were twice as fast, the step would be savedNs shorter (0: another chain takes
// over at once).
struct WhatIf {
    std::size_t node = 0; // index into CriticalPath::nodes
    std::string name;
    std::int64_t savedNs = 0;
    double savedPct = 0; // of the step's time
    bool operator==(const WhatIf &) const = default;
};

struct CriticalPath {
    std::string step;             // "ProfilerStep#3"
    std::int64_t startNs = 0;     // the step's span start (the whole trace: its start)
    std::int64_t endNs = 0;       // the end of the step's last event (a kernel may end after its
                                  // CPU annotation): the span's end
    std::vector<PathNode> nodes;  // in time order; durations and waits add up to endNs - startNs
    std::int64_t cpuNs = 0;       // on the path: CPU work and calls
    std::int64_t deviceNs = 0;    // on the path: device events
    std::int64_t waitNs = 0;      // on the path: latencies between them
    std::vector<WhatIf> whatIfs;  // the path's longest nodes, by savedNs, largest first
    std::size_t graphNodes = 0;   // CPU stretches, calls and device events in the step's graph
    std::size_t deviceEvents = 0; // the step's device events (launched by its calls)
    std::size_t eventWaits = 0;   // waits of one stream on another (event record -> stream wait)
    bool operator==(const CriticalPath &) const = default;
    std::int64_t lengthNs() const { return endNs - startNs; }
};

// The critical path of a step (one of buildStepSpans()'s). whatIfCount: how many of the longest
// nodes get a what-if (a node cut at the step's start saves at most half its part in the step).
// The step's device events are those launched (by correlation id) by the calls that start in its
// CPU span on any thread; its end is the latest end of its nodes within the span. Empty when
// stopped.
CriticalPath buildCriticalPath(const TraceIndex &index, const StepSpan &step, std::size_t whatIfCount = 10,
                               const StopToken *stop = nullptr);
// The same for the ProfilerStep#N op given (its track and index; its span is worked out), or,
// when step is invalid, of the whole trace's span (step "trace").
CriticalPath buildCriticalPath(const TraceIndex &index, EventRef step, std::size_t whatIfCount = 10,
                               const StopToken *stop = nullptr);


} // namespace pyrometer::analysis
