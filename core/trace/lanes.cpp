#include "core/trace/lanes.h"

#include <algorithm>
#include <numeric>

namespace pyrometer::trace {
namespace {

template <typename T>
void permute(std::vector<T> &column, const std::vector<std::uint32_t> &order)
{
    std::vector<T> sorted;
    sorted.reserve(column.size());
    for (const auto index : order)
        sorted.push_back(column[index]);
    column = std::move(sorted);
}

// A stable sort of order by less in blocks, with stop checked between blocks and between
// merge passes, so that stopping never waits for the sort of millions of events.
template <typename Less>
bool stoppableStableSort(std::vector<std::uint32_t> &order, Less less, const StopToken &stop)
{
    constexpr std::size_t kBlock = 1u << 18;
    const auto n = order.size();
    for (std::size_t from = 0; from < n; from += kBlock) {
        if (stop.stopRequested())
            return false;
        const auto to = std::min(n, from + kBlock);
        std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(from), order.begin() + static_cast<std::ptrdiff_t>(to),
                         less);
    }
    std::vector<std::uint32_t> buffer(n > kBlock ? n : 0);
    for (std::size_t width = kBlock; width < n; width *= 2) {
        for (std::size_t from = 0; from < n; from += 2 * width) {
            if (stop.stopRequested())
                return false;
            const auto middle = std::min(n, from + width);
            const auto to = std::min(n, from + 2 * width);
            std::merge(order.begin() + static_cast<std::ptrdiff_t>(from), order.begin() + static_cast<std::ptrdiff_t>(middle),
                       order.begin() + static_cast<std::ptrdiff_t>(middle), order.begin() + static_cast<std::ptrdiff_t>(to),
                       buffer.begin() + static_cast<std::ptrdiff_t>(from), less);
        }
        order.swap(buffer); // every position was written by one merge
    }
    return true;
}

} // namespace

void sortAndNest(Track &track)
{
    const StopToken never;
    sortAndNest(track, never);
}

bool sortAndNest(Track &track, const StopToken &stop)
{
    const auto n = track.start.size();
    bool sorted = true;
    for (std::size_t i = 1; i < n && sorted; ++i) {
        sorted = track.start[i - 1] < track.start[i]
            || (track.start[i - 1] == track.start[i] && track.duration[i - 1] >= track.duration[i]);
    }
    if (!sorted) {
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        const auto less = [&](std::uint32_t a, std::uint32_t b) {
            if (track.start[a] != track.start[b])
                return track.start[a] < track.start[b];
            return track.duration[a] > track.duration[b];
        };
        if (!stoppableStableSort(order, less, stop))
            return false;
        permute(track.start, order);
        permute(track.duration, order);
        permute(track.eventName, order);
        permute(track.category, order);
        permute(track.kind, order);
        permute(track.args, order);
        permute(track.sourceOffset, order);
        if (stop.stopRequested())
            return false;
    }

    track.lane.assign(n, 0);
    track.depth.assign(n, 0);
    track.parent.assign(n, EventIndex());
    // One stack of open events per lane; a stack holds indices with nested intervals.
    std::vector<std::vector<std::uint32_t>> stacks(1);
    for (std::uint32_t i = 0; i < n; ++i) {
        if ((i & 0xFFFFF) == 0xFFFFF && stop.stopRequested())
            return false;
        const auto start = track.start[i];
        const auto end = start + track.duration[i];
        std::size_t lane = 0;
        for (;; ++lane) {
            if (lane == stacks.size())
                stacks.emplace_back();
            auto &stack = stacks[lane];
            // Events that ended at or before this one's start are closed.
            while (!stack.empty() && track.start[stack.back()] + track.duration[stack.back()] <= start)
                stack.pop_back();
            if (stack.empty() || track.start[stack.back()] + track.duration[stack.back()] >= end)
                break;
        }
        auto &stack = stacks[lane];
        track.lane[i] = static_cast<std::uint16_t>(std::min<std::size_t>(lane, UINT16_MAX));
        track.depth[i] = static_cast<std::uint16_t>(std::min<std::size_t>(stack.size(), UINT16_MAX));
        track.parent[i] = stack.empty() ? EventIndex() : EventIndex(stack.back());
        stack.push_back(i);
    }
    track.laneCount = n == 0 ? 0 : static_cast<int>(stacks.size());
    return true;
}

} // namespace pyrometer::trace
