#pragma once

#include "core/analysis/eventkind.h"
#include "core/analysis/timerange.h"
#include "core/trace/trace.h"
#include "core/util/progress.h"

#include <compare>
#include <cstdint>
#include <memory>
#include <vector>

namespace pyrometer::analysis {

// One event of a trace.
struct EventRef {
    trace::TrackId track;
    trace::EventIndex event;
    bool isValid() const { return track.isValid() && event.isValid(); }
    auto operator<=>(const EventRef &) const = default;
};

// What the analyses derive once per trace and share (it is immutable once built):
// operator nesting by torch's rule, self times, and which op launched each GPU event.
struct TrackIndex {
    std::vector<EventKind> kind;                // per event
    std::vector<trace::EventIndex> opParent;    // ops: the op directly enclosing it, else invalid
    std::vector<trace::EventIndex> frameParent; // ops and python frames: the enclosing op or frame
    std::vector<std::int64_t> selfNs;           // ops: duration minus that of the ops nested in it
    std::vector<EventRef> launchOp;             // device events: the op whose launch made it
    bool hasOps = false;
    bool hasDevice = false; // holds kernels, memcpy or memset
};

struct TraceIndex {
    const trace::Trace *trace = nullptr;
    std::vector<TrackIndex> tracks;          // by TrackId
    std::vector<EventRef> memoryOwner;       // per Trace::memory event: the innermost op around it
    std::vector<std::uint32_t> memoryByTime; // Trace::memory indices in time order (stable)
    bool hasDevice = false;

    const TrackIndex &track(trace::TrackId id) const { return tracks[id.value]; }
};

// Builds the index (linear in the events; nothing is copied from the trace, which must outlive
// it). Returns null when stopped.
std::shared_ptr<const TraceIndex> buildTraceIndex(const trace::Trace &trace, const StopToken *stop = nullptr);
// How many indexes this process has built: an index is the costliest thing derived from a
// trace, and the window builds one per trace, whatever pages are visited.
std::uint64_t traceIndexBuildCount();

// Helpers shared by the analyses.

// The index range of a track's events that start in range.
std::pair<std::uint32_t, std::uint32_t> eventsIn(const trace::Trace &trace, trace::TrackId track,
                                                 const TimeRange &range);

// A device event's device and stream: from its args, else the track's pid / tid numbers.
std::pair<std::int32_t, std::int32_t> deviceAndStream(const trace::Trace &trace, trace::TrackId track,
                                                      std::uint32_t event);

// "ProfilerStep#12" -> true.
bool isProfilerStep(std::string_view name);

} // namespace pyrometer::analysis
