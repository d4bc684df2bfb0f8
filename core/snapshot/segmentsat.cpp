#include "core/snapshot/segmentsat.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace pyrometer::snapshot {
namespace {

// A segment's extent then, and what decides which requests it serves.
struct Range {
    std::int64_t size = 0;
    std::uint64_t stream = 0;
    bool small = false;
};
using Ranges = std::map<std::uint64_t, Range>; // by address

// Whether a segment that does not name its pool is the small pool's: those are 2 MiB
// (kSmallBuffer) and never expandable; the large pool's are larger.
bool smallPool(std::int64_t size, bool expandable)
{
    return size == (std::int64_t(2) << 20) && !expandable;
}

// The range of `ranges` that holds address, or end().
Ranges::iterator holding(Ranges &ranges, std::uint64_t address)
{
    auto it = ranges.upper_bound(address);
    if (it == ranges.begin())
        return ranges.end();
    --it;
    return address < it->first + std::uint64_t(it->second.size) ? it : ranges.end();
}

} // namespace

SegmentsAt segmentsAt(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t position)
{
    const Events &e = snapshot.events;
    Ranges ranges;
    for (const Segment &seg : snapshot.segments) {
        if (seg.device != device.device)
            continue;
        const auto type = snapshot.strings.view(seg.type);
        const bool small = type.empty() ? smallPool(seg.totalSize, seg.expandable) : type == "small";
        ranges[seg.address] = Range{seg.totalSize, seg.stream, small};
    }
    // Undo, newest first, what the segment events after the instant did.
    for (std::int64_t p = std::int64_t(device.events.size()) - 1; p > position; --p) {
        const std::uint32_t i = device.events[std::size_t(p)];
        const std::uint64_t addr = e.addr[i];
        switch (e.action[i]) {
        case Action::SegmentAlloc:
        case Action::SegmentMap:
            if (ranges.erase(addr) == 0) {
                // An expandable segment grew at its end: it ended at addr before.
                const auto it = holding(ranges, addr);
                if (it != ranges.end())
                    it->second.size = std::int64_t(addr - it->first);
            }
            break;
        case Action::SegmentFree:
        case Action::SegmentUnmap: {
            // It existed then: a segment of its own, or the end of the expandable one it follows.
            auto before = ranges.lower_bound(addr);
            if (before != ranges.begin() &&
                std::prev(before)->first + std::uint64_t(std::prev(before)->second.size) == addr &&
                e.action[i] == Action::SegmentUnmap)
                std::prev(before)->second.size += e.size[i];
            else
                ranges[addr] = Range{e.size[i], e.stream[i], smallPool(e.size[i], e.action[i] == Action::SegmentUnmap)};
            break;
        }
        default: break;
        }
    }
    SegmentsAt out;
    for (const auto &[address, range] : ranges) {
        if (range.size <= 0)
            continue;
        out.segments.push_back(SegmentAt{address, range.size, 0, 0, 0, range.stream, range.small});
        out.reservedBytes += range.size;
    }
    // Live blocks, by address, into their segments; the gaps between them are the free pieces.
    const auto live = liveAt(snapshot, device, position); // sorted by address
    std::size_t s = 0;
    std::uint64_t cursor = out.segments.empty() ? 0 : out.segments[0].address;
    auto closeSegment = [&](std::size_t k, std::uint64_t upTo) {
        auto &seg = out.segments[k];
        seg.largestFree = std::max<std::int64_t>(seg.largestFree, std::int64_t(upTo - std::min(upTo, cursor)));
    };
    for (const LiveBlock &b : live) {
        while (s < out.segments.size() && b.address >= out.segments[s].address + std::uint64_t(out.segments[s].size)) {
            closeSegment(s, out.segments[s].address + std::uint64_t(out.segments[s].size));
            ++s;
            if (s < out.segments.size())
                cursor = out.segments[s].address;
        }
        if (s == out.segments.size() || b.address < out.segments[s].address) {
            out.unplacedBytes += b.size;
            continue;
        }
        auto &seg = out.segments[s];
        seg.largestFree =
            std::max<std::int64_t>(seg.largestFree, std::int64_t(b.address - std::min(b.address, cursor)));
        seg.allocated += b.size;
        ++seg.blocks;
        cursor = std::max(cursor, b.address + std::uint64_t(std::max<std::int64_t>(0, b.size)));
    }
    for (; s < out.segments.size(); ++s) {
        closeSegment(s, out.segments[s].address + std::uint64_t(out.segments[s].size));
        if (s + 1 < out.segments.size())
            cursor = out.segments[s + 1].address;
    }
    for (const auto &seg : out.segments) {
        out.allocatedBytes += seg.allocated;
        out.largestFree = std::max(out.largestFree, seg.largestFree);
    }
    out.freeBytes = out.reservedBytes - out.allocatedBytes;
    return out;
}

} // namespace pyrometer::snapshot
