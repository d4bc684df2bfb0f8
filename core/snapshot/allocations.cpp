#include "core/snapshot/allocations.h"

#include <algorithm>
#include <unordered_map>

namespace pyrometer::snapshot {

namespace {

// Checkpoints hold at most about this many entries in all (64 MiB): the stride grows with the
// number of allocations live at once.
constexpr std::int64_t kCheckpointEntries = std::int64_t(1) << 24;
constexpr std::int64_t kMinStride = 4096;

} // namespace

Allocations allocations(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t checkpointStride)
{
    const Events &e = snapshot.events;
    const auto n = std::int64_t(device.events.size());
    Allocations out;
    out.added.assign(std::size_t(n), 0);
    out.removed.assign(std::size_t(n), 0);
    std::unordered_map<std::uint64_t, std::uint32_t> liveAt; // address -> allocation
    const auto push = [&](std::uint64_t address, std::int64_t size, StackId stack, std::int64_t position) {
        const auto a = std::uint32_t(out.count());
        out.address.push_back(address);
        out.size.push_back(size);
        out.stack.push_back(stack);
        out.allocated.push_back(position);
        out.freed.push_back(n);
        liveAt[address] = a;
        return a;
    };
    for (const auto &block : liveBeforeTrace(snapshot, device))
        push(block.address, block.size, block.stack, -1);
    std::size_t peakLive = liveAt.size();
    for (std::int64_t p = 0; p < n; ++p) {
        const std::uint32_t i = device.events[std::size_t(p)];
        const Action action = e.action[i];
        if (action != Action::Alloc && action != Action::FreeCompleted)
            continue;
        if (const auto it = liveAt.find(e.addr[i]); it != liveAt.end()) {
            out.removed[std::size_t(p)] = it->second + 1;
            out.freed[it->second] = p;
            liveAt.erase(it);
        }
        if (action == Action::Alloc)
            out.added[std::size_t(p)] = push(e.addr[i], e.size[i], e.stack[i], p) + 1;
        peakLive = std::max(peakLive, liveAt.size());
    }

    // Checkpoints: the live set before every stride-th position, kept as a list with each
    // allocation's place in it, so that a removal is a swap with the last.
    out.checkpointStride =
        checkpointStride > 0
            ? checkpointStride
            : std::max(kMinStride, n * std::int64_t(std::max<std::size_t>(peakLive, 1)) / kCheckpointEntries + 1);
    std::vector<std::uint32_t> live;
    std::vector<std::uint32_t> place(out.count(), 0);
    const auto insert = [&](std::uint32_t a) {
        place[a] = std::uint32_t(live.size());
        live.push_back(a);
    };
    for (std::uint32_t a = 0; a < out.count() && out.allocated[a] < 0; ++a)
        insert(a);
    for (std::int64_t p = 0; p <= n; ++p) {
        if (p % out.checkpointStride == 0) {
            auto &checkpoint = out.checkpoints.emplace_back(live);
            std::sort(checkpoint.begin(), checkpoint.end());
        }
        if (p == n)
            break;
        if (const auto r = out.removed[std::size_t(p)]) {
            const auto a = r - 1;
            const auto last = live.back();
            live[place[a]] = last;
            place[last] = place[a];
            live.pop_back();
        }
        if (const auto added = out.added[std::size_t(p)])
            insert(added - 1);
    }
    return out;
}

AllocationStack::AllocationStack(const Allocations &allocations)
    : m_allocations(&allocations), m_tree(allocations.count() + 1, 0), m_live(allocations.count(), 0)
{
    while ((std::size_t(1) << (m_topBit + 1)) <= allocations.count())
        ++m_topBit;
    for (std::uint32_t a = 0; a < allocations.count() && allocations.allocated[a] < 0; ++a) {
        add(a, allocations.size[a]);
        m_live[a] = 1;
    }
}

void AllocationStack::add(std::uint32_t allocation, std::int64_t bytes)
{
    for (std::size_t i = std::size_t(allocation) + 1; i < m_tree.size(); i += i & (~i + 1))
        m_tree[i] += bytes;
    m_total += bytes;
}

void AllocationStack::moveTo(std::int64_t position)
{
    const auto &a = *m_allocations;
    position = std::clamp<std::int64_t>(position, -1, a.positions() - 1);
    const std::int64_t near = 2 * a.checkpointStride;
    if (position < m_position && m_position - position <= near) {
        for (; m_position > position; --m_position) { // undo, last event first
            if (const auto added = a.added[std::size_t(m_position)]) {
                add(added - 1, -a.size[added - 1]);
                m_live[added - 1] = 0;
            }
            if (const auto r = a.removed[std::size_t(m_position)]) {
                add(r - 1, a.size[r - 1]);
                m_live[r - 1] = 1;
            }
        }
        return;
    }
    if (position < m_position || position - m_position > near) {
        const auto c =
            std::min<std::size_t>(std::size_t((position + 1) / a.checkpointStride), a.checkpoints.size() - 1);
        std::fill(m_tree.begin(), m_tree.end(), 0);
        std::fill(m_live.begin(), m_live.end(), 0);
        m_total = 0;
        // The tree built in one pass: each node adds itself to its parent.
        for (const auto live : a.checkpoints[c]) {
            m_tree[live + 1] = a.size[live];
            m_live[live] = 1;
            m_total += a.size[live];
        }
        for (std::size_t i = 1; i < m_tree.size(); ++i) {
            const std::size_t parent = i + (i & (~i + 1));
            if (parent < m_tree.size())
                m_tree[parent] += m_tree[i];
        }
        m_position = std::int64_t(c) * a.checkpointStride - 1;
    }
    // Forward: an allocation made and freed within the walk never shows, so it is neither added
    // nor removed (most of a training loop's, in a wide view's columns).
    const std::int64_t from = m_position;
    for (; m_position < position;) {
        const auto p = std::size_t(++m_position);
        if (const auto r = a.removed[p]; r && !(a.allocated[r - 1] > from)) {
            add(r - 1, -a.size[r - 1]);
            m_live[r - 1] = 0;
        }
        if (const auto added = a.added[p]; added && a.freed[added - 1] > position) {
            add(added - 1, a.size[added - 1]);
            m_live[added - 1] = 1;
        }
    }
}

std::optional<AllocationStack::Band> AllocationStack::at(std::int64_t height) const
{
    if (height < 0 || height >= m_total)
        return std::nullopt;
    std::size_t index = 0;
    std::int64_t rest = height;
    for (std::size_t step = std::size_t(1) << m_topBit; step > 0; step >>= 1) {
        if (index + step < m_tree.size() && m_tree[index + step] <= rest) {
            index += step;
            rest -= m_tree[index];
        }
    }
    if (index >= m_allocations->count())
        return std::nullopt;
    Band band;
    band.allocation = std::uint32_t(index);
    band.bottom = height - rest;
    band.top = band.bottom + m_allocations->size[index];
    return band;
}

std::int64_t AllocationStack::below(std::uint32_t allocation) const
{
    std::int64_t sum = 0;
    for (std::size_t i = allocation; i > 0; i -= i & (~i + 1))
        sum += m_tree[i];
    return sum;
}

} // namespace pyrometer::snapshot
