#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// Why a GPU stream was idle inside a step. A gap is a stretch of the step in which the stream
// ran nothing, ended by the next device event E on that stream (or by the step's end):
//  - host wait: E's launching call started at or after the gap began: nothing had been
//    launched yet, the CPU was late;
//  - kernel wait: E had been launched before the gap began: it was queued but waited (on
//    another stream, an event, a synchronisation);
//  - other: E has no launching call in the trace, or nothing follows before the step ends.
enum class IdleCause : std::uint8_t { HostWait, KernelWait, Other };
inline constexpr std::size_t kIdleCauseCount = 3;
std::string_view idleCauseName(IdleCause cause);  // "host_wait", "kernel_wait", "other"
std::string_view idleCauseLabel(IdleCause cause); // "Host wait", "Kernel wait", "Other"

struct StreamGap {
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::int64_t startNs = 0;
    std::int64_t durationNs = 0;
    IdleCause cause = IdleCause::Other;
    EventRef next;    // the device event that ended the gap; invalid at the step's end
    std::string step; // "ProfilerStep#3"; empty when the trace has no steps
    bool operator==(const StreamGap &) const = default;
};

// Totals of one stream in one step (or, without steps, over the range).
struct StreamIdle {
    std::string step;
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::int64_t spanNs = 0;                            // the step's span's length
    std::int64_t busyNs = 0;                            // union of the stream's device events in the step
    std::array<std::int64_t, kIdleCauseCount> idleNs{}; // by IdleCause; add up to spanNs - busyNs
    std::int64_t ns(IdleCause c) const { return idleNs[static_cast<std::size_t>(c)]; }
    bool operator==(const StreamIdle &) const = default;
};

struct IdleBreakdown {
    std::vector<StreamIdle> streams;                     // by step, then device, then stream
    std::vector<StreamGap> gaps;                         // in time order
    std::array<std::int64_t, kIdleCauseCount> totalNs{}; // over every stream and step
    bool operator==(const IdleBreakdown &) const = default;
};

// The streams' idle gaps in each ProfilerStep whose CPU annotation starts in range, over the
// step's span on the GPU's clock (stepspans.h: from its CPU start, or the previous step's end, to
// the later of its CPU end and the end of the device work it launched; when the trace has no
// steps at all, the range clipped to the span of its device events), with their causes.
// A stream has a row in a step when any of its device events overlaps the step; events of zero
// length are no busy time and end no gap. Events that overlap (extra lanes) or touch are merged,
// so every gap is at least 1 ns. The launching call is launchCalls()'s (launches.h).
// Each cause's idle time with every stream weighted by its share of the busy time: a side
// stream with 7 µs of work beside a 98%-busy one does not decide what the device waited for.
// The dominant cause, for "mostly host wait" verdicts, comes from these.
std::array<double, kIdleCauseCount> workWeightedIdle(const std::vector<StreamIdle> &streams);
// The cause with the most weighted idle time, if one has more than each other one; else -1.
int dominantIdleCause(const std::vector<StreamIdle> &streams);

IdleBreakdown buildIdleBreakdown(const TraceIndex &index, const TimeRange &range = {}, const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
