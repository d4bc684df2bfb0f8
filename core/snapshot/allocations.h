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
    // Per block of kPeakBlock positions, the first position where active memory is highest: a
    // column of a wide view finds its highest position from whole blocks.
    static constexpr std::int64_t kPeakBlock = 64;
    std::vector<std::int64_t> blockPeaks;

    std::size_t count() const { return size.size(); }
    std::int64_t positions() const { return std::int64_t(added.size()); }
};
// checkpointStride: 0 chooses one (at least 4096 positions, more when many allocations are live
// at once, so that checkpoints hold about 16 M entries at most).
Allocations allocations(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t checkpointStride = 0);

// The first position in [first, last] where the device's active memory is highest (first <= last).
std::int64_t highestIn(const DeviceReplay &device, const Allocations &allocations, std::int64_t first,
                       std::int64_t last);

// The allocations live after one position, stacked: a bitset of the live ones in stacking order
// and a Fenwick tree of their bytes per block of 64 (small enough to stay in the cache), so that
// the band at any height and the bottom of any band are found in O(log n) and a block's scan, and
// the band above another in a few word reads.
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
    bool isLive(std::uint32_t allocation) const { return (m_liveWords[allocation >> 6] >> (allocation & 63)) & 1U; }
    // The first live allocation at or after `from` in stacking order; count() when none is.
    std::uint32_t nextLive(std::uint32_t from) const;

    // The bands as `rows` pixel rows of bytesPerPixel each, from the bottom: paint(first row,
    // past the last row, allocation) for each band that holds a row's middle, from row `fromRow`
    // up. A band of a pixel or more is the next live allocation above the one before; only a
    // row that many thin bands share is searched in the tree: O(bands drawn), whatever the
    // number of allocations live.
    template <typename Paint> void forEachBand(int rows, double bytesPerPixel, Paint paint, int fromRow = 0) const
    {
        int row = fromRow;
        auto band = at(middleOf(row, bytesPerPixel));
        while (band && row < rows) {
            int top = int(std::ceil(double(band->top) / bytesPerPixel - 0.5));
            top = top <= row ? row + 1 : top > rows ? rows : top;
            paint(row, top, band->allocation);
            row = top;
            if (row < rows)
                band = above(*band, middleOf(row, bytesPerPixel));
        }
    }

    // What drawing a column at a time needs to know: how many of `rows` rows, from the bottom, hold
    // the same bands as when markDrawn() was last called (the live allocations below the lowest
    // one added or removed since are as they were, and so are their bands).
    int unchangedRows(int rows, double bytesPerPixel) const;
    void markDrawn() { m_lowestChanged = std::uint32_t(m_allocations->count()); }

private:
    static std::int64_t middleOf(int row, double bytesPerPixel) { return std::int64_t((row + 0.5) * bytesPerPixel); }
    // The band covering `height`, given a band below it: the next few live allocations, else the tree.
    std::optional<Band> above(const Band &band, std::int64_t height) const;
    void add(std::uint32_t allocation, std::int64_t bytes);
    void setLive(std::uint32_t allocation);
    void clearLive(std::uint32_t allocation);

    const Allocations *m_allocations;
    std::vector<std::uint64_t> m_liveWords;   // a bit per allocation
    std::vector<std::uint64_t> m_liveSummary; // a bit per word of m_liveWords that is not zero
    std::vector<std::int64_t> m_tree;         // 1-based, over blocks of 64 allocations (a word each)
    std::int64_t m_position = -1;
    std::int64_t m_total = 0;
    int m_topBit = 0;
    std::uint32_t m_lowestChanged = 0;
};

} // namespace pyrometer::snapshot
