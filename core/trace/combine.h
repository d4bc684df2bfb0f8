#pragma once

#include "core/trace/trace.h"
#include "core/util/progress.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pyrometer::trace {

// One trace to put beside others, shifted in time and named.
struct TracePart {
    std::shared_ptr<const Trace> trace;
    std::int64_t offsetNs = 0; // added to every time of the part
    std::string label;         // e.g. "rank 3": prefixes its process names ("rank 3 · GPU 0")
};

// One trace that holds the parts side by side, each part's processes as their own group (in
// the order of the parts, then each part's own order), every time shifted by the part's
// offset: events, counters, memory events, flows, markers and collective args. Strings are
// re-interned; pids are made unique across parts. info sums the counts and spans the union;
// info.file is the first part's file. Null when stopped or when parts is empty.
// TrackIds, ProcessIds and args indices are renumbered part after part (a part's track k is
// track base + k, base the tracks of the parts before it); a pid becomes part index x 2^32 +
// pid; sort indices follow the combined order. Events keep their sourceOffset, which points
// into their own part's file: re-read an event's JSON through its part's trace. Parts without
// a trace are skipped (null when none has one).
std::shared_ptr<const Trace> combineTraces(const std::vector<TracePart> &parts, const StopToken *stop = nullptr);

// The part a process of a combined trace came from (0 in a trace of one file). A pid of a file
// is a 32-bit number that may be negative (Kineto's "Process -1"): it is no part of its own.
std::uint32_t processPart(const Process &process);

} // namespace pyrometer::trace
