#pragma once

#include "core/snapshot/snapshot.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::snapshot {

// The allocator's state at the snapshot's instant, from its segments and blocks.
struct SegmentTotals {
    std::size_t segments = 0;
    std::size_t blocks = 0;
    std::int64_t reservedBytes = 0;  // segments' total_size
    std::int64_t allocatedBytes = 0; // handed to tensors (active_allocated blocks)
    std::int64_t activeBytes = 0;    // allocated or waiting for a stream to free them
    std::int64_t requestedBytes = 0; // what the tensors asked for (before rounding)
    std::int64_t freeBytes = 0;      // inactive blocks: reserved, cached, unused
    std::int64_t largestFreeBlock = 0;
    bool operator==(const SegmentTotals &) const = default;
};
SegmentTotals segmentTotals(const Snapshot &snapshot, int device = -1);

// One device's trace replayed: active and reserved bytes after every event. The trace starts
// mid-run: active memory starts from the blocks live before it (those it frees first, and the
// segments' live blocks it never touches) and follows its allocs and completed frees; reserved
// memory ends at the segments' total. Active memory at the trace's end can differ from the
// segments' when recording stopped before the snapshot was taken (frees not recorded).
struct DeviceReplay {
    int device = 0;
    std::vector<std::uint32_t> events;  // the device's events (indices into Snapshot::events)
    std::vector<std::int64_t> active;   // after each event
    std::vector<std::int64_t> reserved; // after each event
    std::int64_t activeAtStart = 0;
    std::int64_t reservedAtStart = 0;
    std::int64_t peakActive = 0;
    std::int64_t peakPosition = -1; // the event after which the peak is first reached; -1 at the start
    std::int64_t activeAtTraceEnd = 0;
    std::int64_t activeAtSnapshot = 0; // the segments' active bytes
    std::vector<std::size_t> ooms;     // positions of the device's OOM events
};
std::vector<DeviceReplay> replay(const Snapshot &snapshot);
// True when the trace's end and the segments disagree by more than rounding (1 MiB and 1%):
// recording stopped before the snapshot was taken, and frees or allocations after it are missing.
bool recordingStoppedEarly(const DeviceReplay &device);

// An allocation live at some instant.
struct LiveBlock {
    std::uint64_t address = 0;
    std::int64_t size = 0;
    StackId stack;
    std::int64_t position = -1; // the event that allocated it; -1 when it was live before the trace
};
// Where a position falls on the plots' axis: ms after the device's first event, or the event's
// number (position + 1) in a snapshot without times.
double axisX(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t position);

// What was live on the device before its trace began (position -1), by address.
std::vector<LiveBlock> liveBeforeTrace(const Snapshot &snapshot, const DeviceReplay &device);
// What was live on the device after event `position` of its replay (-1: at the start; past the
// end: at the snapshot's instant).
std::vector<LiveBlock> liveAt(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t position);

enum class GroupBy { Stack, Context, Annotation };

// Live bytes grouped by a key, largest first.
struct LiveGroup {
    std::string key;   // the stack folded ("outer;…;inner"), the context or the annotation
    std::string label; // short: the innermost user frame, or the key itself
    std::int64_t bytes = 0;
    std::size_t blocks = 0;
    bool operator==(const LiveGroup &) const = default;
};
// The key of the group a live block falls in.
std::string groupKey(const Snapshot &snapshot, const DeviceReplay &device, const LiveBlock &block, GroupBy by);
std::vector<LiveGroup> groupLive(const Snapshot &snapshot, const DeviceReplay &device,
                                 const std::vector<LiveBlock> &live, GroupBy by);

// A stack as folded text: its Python frames outermost first ("train.py:12 main;model.py:40 forward"),
// or every frame when it has none; "(no stack)" for an empty one.
std::string foldedStack(const Snapshot &snapshot, StackId stack);
// The innermost frame of the user's own code ("forward model.py:40"), else the innermost frame.
std::string stackLabel(const Snapshot &snapshot, StackId stack);

// An allocation that failed, and why the allocator could not serve it.
struct OomReport {
    int device = 0;
    std::size_t position = 0; // in the device's replay
    std::int64_t timeUs = 0;
    std::int64_t requestedBytes = 0;
    std::uint64_t stream = 0;
    std::int64_t deviceFreeBytes = 0;
    std::int64_t activeBytes = 0;   // live when it failed
    std::int64_t reservedBytes = 0; // reserved when it failed
    // The snapshot was taken at the OOM (nothing allocated after it): its segments and blocks
    // are the allocator's state then, as the replay's (segmentsAt) are at any instant.
    bool segmentsAtOom = false;
    std::int64_t cachedFreeBytes = 0;  // reserved but not live, when it failed
    std::int64_t largestFreeBlock = 0; // the largest free piece of one segment then
    // Of those, in the segments that could serve it: its stream's, of its pool (1 MiB or less:
    // the small pool's 2 MiB segments; more: the large pool's). A cached piece serves only its
    // stream and pool, and a segment with a live block in it cannot go back to the device.
    std::int64_t usableFreeBytes = 0;
    std::int64_t usableLargestFree = 0;
    std::size_t streams = 0; // that held segments then
    std::string verdict; // one sentence: fragmentation, or memory really ran out
};
std::vector<OomReport> oomReports(const Snapshot &snapshot, const std::vector<DeviceReplay> &devices);

// Where an instant named by the user falls in a device's replay: "peak", "oom" (the first;
// "oom:N" the Nth), "start", "end", "#N" (after event N), or a time after the device's first
// event ("250ms", "1.5s", "40us"; a bare number is microseconds). nullopt with `error` set
// when it names nothing.
std::optional<std::int64_t> resolveInstant(const Snapshot &snapshot, const DeviceReplay &device, const std::string &at,
                                           std::string &error);

// The growth between two snapshots' live memory (each at its own instant), by group key,
// largest growth first; a group only in one side counts as zero on the other.
struct GroupDelta {
    std::string key;
    std::string label;
    std::int64_t baseBytes = 0;
    std::int64_t otherBytes = 0;
    std::int64_t delta() const { return otherBytes - baseBytes; }
};
std::vector<GroupDelta> diffGroups(const std::vector<LiveGroup> &base, const std::vector<LiveGroup> &other);

} // namespace pyrometer::snapshot
