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

} // namespace

void sortAndNest(Track &track)
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
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            if (track.start[a] != track.start[b])
                return track.start[a] < track.start[b];
            return track.duration[a] > track.duration[b];
        });
        permute(track.start, order);
        permute(track.duration, order);
        permute(track.eventName, order);
        permute(track.category, order);
        permute(track.kind, order);
        permute(track.args, order);
        permute(track.sourceOffset, order);
    }

    track.lane.assign(n, 0);
    track.depth.assign(n, 0);
    track.parent.assign(n, EventIndex());
    // One stack of open events per lane; a stack holds indices with nested intervals.
    std::vector<std::vector<std::uint32_t>> stacks(1);
    for (std::uint32_t i = 0; i < n; ++i) {
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
}

} // namespace pyrometer::trace
