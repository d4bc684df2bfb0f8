#pragma once

#include "core/snapshot/replay.h"

#include <cstdint>
#include <vector>

namespace pyrometer::snapshot {

// A segment as it stood at an instant: its bytes, those live tensors held, and the largest
// free piece (between live blocks: the allocator merges free neighbours, so a gap is one block).
struct SegmentAt {
    std::uint64_t address = 0;
    std::int64_t size = 0;
    std::int64_t allocated = 0;
    std::int64_t largestFree = 0;
    std::uint32_t blocks = 0; // live ones
    std::uint64_t stream = 0;
    bool small = false; // of the pool for requests of 1 MiB or less (2 MiB segments)
    bool operator==(const SegmentAt &) const = default;
};

// The allocator's state at an instant of a device's replay: the segments then (the snapshot's,
// with the segment events after the instant undone) and the live blocks placed in them.
struct SegmentsAt {
    std::vector<SegmentAt> segments; // by address
    std::int64_t reservedBytes = 0;
    std::int64_t allocatedBytes = 0;
    std::int64_t freeBytes = 0;
    std::int64_t largestFree = 0;
    std::int64_t unplacedBytes = 0; // live blocks no known segment holds (a trace that lost events)
    bool operator==(const SegmentsAt &) const = default;
};
SegmentsAt segmentsAt(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t position);

} // namespace pyrometer::snapshot
