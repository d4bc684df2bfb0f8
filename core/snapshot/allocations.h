#pragma once

#include "core/snapshot/replay.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace pyrometer::snapshot {

// Every allocation of a device as a band of its own, stacked as memory_viz stacks them: in the
// order they were made (those live before the trace at the bottom, by address), so that a freed
// one leaves a gap the ones above it fall into. An allocation lives from its alloc to its
// free_completed, as in the replay: at every position the bands add up to its active curve.
struct Allocations {
    // Per allocation, in stacking order.
    std::vector<std::uint64_t> address;
    std::vector<std::int64_t> size;
    std::vector<StackId> stack;
    std::vector<std::int64_t> allocated; // the position of its alloc; -1 when live before the trace
    std::vector<std::int64_t> freed;     // the position of its free_completed; the events' count when never freed
    // Per device position, the allocation its event adds and the one it removes, as index + 1
    // (0: none). An alloc at a live address removes the one there and adds itself.
    std::vector<std::uint32_t> added;
    std::vector<std::uint32_t> removed;
    // Every checkpointStride positions, the allocations live before that position: a stack of
    // any position starts from the checkpoint before it, not from the start.
    std::int64_t checkpointStride = 1;
    std::vector<std::vector<std::uint32_t>> checkpoints;

    std::size_t count() const { return size.size(); }
    std::int64_t positions() const { return std::int64_t(added.size()); }
};
// checkpointStride: 0 chooses one (at least 4096 positions, more when many allocations are live
// at once, so that checkpoints hold about 16 M entries at most).
Allocations allocations(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t checkpointStride = 0);

// The allocations live after one position, stacked: a Fenwick tree of their sizes in stacking
// order, so that the band at any height and the bottom of any band are found in O(log n).
class AllocationStack {
public:
    explicit AllocationStack(const Allocations &allocations);

    // After event `position` (-1: before the first). Forward it applies the events between; far
    // away, or backward, it starts again from the checkpoint before.
    void moveTo(std::int64_t position);
    std::int64_t position() const { return m_position; }
    std::int64_t total() const { return m_total; }

    struct Band {
        std::uint32_t allocation = 0;
        std::int64_t bottom = 0; // bytes below it
        std::int64_t top = 0;
    };
    // The band covering the byte at `height` from the bottom; nullopt at or above the top.
    std::optional<Band> at(std::int64_t height) const;
    // The bytes live below allocation a (in stacking order).
    std::int64_t below(std::uint32_t allocation) const;
    bool isLive(std::uint32_t allocation) const { return m_live[allocation] != 0; }
    // The bands as `rows` pixel rows of bytesPerPixel each, from the bottom: paint(first row,
    // past the last row, allocation) for each band that holds a row's middle. O(bands drawn ×
    // log n), whatever the number of allocations live.
    template <typename Paint> void forEachBand(int rows, double bytesPerPixel, Paint paint) const
    {
        int row = 0;
        while (row < rows) {
            const auto band = at(std::int64_t((row + 0.5) * bytesPerPixel));
            if (!band)
                return;
            int top = int(std::ceil(double(band->top) / bytesPerPixel - 0.5));
            top = top <= row ? row + 1 : top > rows ? rows : top;
            paint(row, top, band->allocation);
            row = top;
        }
    }

private:
    void add(std::uint32_t allocation, std::int64_t bytes);

    const Allocations *m_allocations;
    std::vector<std::int64_t> m_tree; // 1-based
    std::vector<std::uint8_t> m_live;
    std::int64_t m_position = -1;
    std::int64_t m_total = 0;
    int m_topBit = 0;
};

} // namespace pyrometer::snapshot
