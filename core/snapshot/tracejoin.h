#pragma once

#include "core/snapshot/replay.h"
#include "core/trace/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pyrometer::snapshot {

// A snapshot's device joined with a torch.profiler trace of the same run. The profiler reports
// each allocation as a [memory] instant (its address and block size) moments after the allocator
// records it, on a clock of its own: the offset between the two clocks is the one that lines
// most of the trace's allocations up with the snapshot's at the same address, within
// microseconds (a step's worth off, the pattern of a training loop repeats, but not to the
// microsecond). Or the user sets it.
struct TraceJoin {
    int device = 0;
    bool joined = false;
    bool offsetFromUser = false;
    // A trace time (ns) is the snapshot's time_us * 1000 + offsetNs.
    std::int64_t offsetNs = 0;
    std::size_t traceAllocations = 0; // the trace's [memory] allocations on the device
    std::size_t matched = 0;          // of them, one of the snapshot's at the same address then
    // The spread of the matched ones around the offset (the largest distance, ns).
    std::int64_t spreadNs = 0;
    // Per matched allocation, its position in the device's replay and its [memory] event (an
    // index into Trace::memory), by position.
    struct Match {
        std::uint32_t position = 0;
        std::uint32_t memoryEvent = 0;
    };
    std::vector<Match> matches;
    std::string message; // one sentence: how it joined, or why it could not

    // The [memory] event of the allocation at a replay position, if the trace saw it.
    std::optional<std::uint32_t> memoryEventOf(std::int64_t position) const;
};

// An offset in seconds as the join's message writes it ("-1699999995.999998") in nanoseconds,
// exactly (seconds since 1970 in a double lose the microseconds); nullopt when not such a number
// or past ±2^62 ns (146 years).
std::optional<std::int64_t> parseOffsetSeconds(std::string_view text);

// How far a profiler report may trail the allocator's record and still be the same allocation.
inline constexpr std::int64_t kJoinToleranceNs = 200'000;

// Joins one device's replay with the trace: finds the clock offset (or takes offsetNs) and the
// allocations the trace saw. A snapshot without times, or a trace without [memory] events of a
// GPU, does not join, and the message says which.
TraceJoin joinTrace(const Snapshot &snapshot, const DeviceReplay &device, const trace::Trace &trace,
                    std::optional<std::int64_t> offsetNs = std::nullopt);

// The op that made an allocation the trace saw: the slice around its [memory] event, past the
// allocation primitives (aten::empty and kin) to the op that asked, with the slices around it.
struct AllocationOp {
    trace::TrackId track;
    trace::EventIndex event;
    std::string name;
    std::string path; // outermost first, " › " between
};
std::optional<AllocationOp> allocationOp(const trace::Trace &trace, const TraceJoin &join, std::int64_t position);

// The ops that made each group's live blocks, as far as the trace saw them (it covers a window of
// the run): per group key, by op, largest first, each with the event of its largest block. One
// pass over the live blocks.
struct GroupOp {
    std::string name;
    std::string path; // of the largest block's op
    std::int64_t bytes = 0;
    std::size_t blocks = 0;
    trace::TrackId track;
    trace::EventIndex event;
    std::int64_t largestBlock = 0;
};
std::unordered_map<std::string, std::vector<GroupOp>> opsByGroup(const Snapshot &snapshot, const DeviceReplay &device,
                                                                 const std::vector<LiveBlock> &live, GroupBy by,
                                                                 const trace::Trace &trace, const TraceJoin &join);

// The device's active and reserved memory from the snapshot, on the trace's clock over the
// trace's span, as counters in the process where the trace reports the device's memory.
std::vector<trace::CounterSeries> snapshotCounters(const Snapshot &snapshot, const DeviceReplay &device,
                                                   const trace::Trace &trace, const TraceJoin &join);

} // namespace pyrometer::snapshot
