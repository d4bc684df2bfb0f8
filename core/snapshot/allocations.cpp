#include "core/snapshot/allocations.h"

#include <algorithm>
#include <bit>
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
    for (std::int64_t block = 0; block < n; block += Allocations::kPeakBlock) {
        std::int64_t best = block;
        for (std::int64_t p = block + 1; p < std::min(n, block + Allocations::kPeakBlock); ++p)
            best = device.active[std::size_t(p)] > device.active[std::size_t(best)] ? p : best;
        out.blockPeaks.push_back(best);
    }
    return out;
}

std::int64_t highestIn(const DeviceReplay &device, const Allocations &allocations, std::int64_t first,
                       std::int64_t last)
{
    const auto &active = device.active;
    std::int64_t best = first;
    const auto consider = [&](std::int64_t p) { best = active[std::size_t(p)] > active[std::size_t(best)] ? p : best; };
    constexpr std::int64_t kBlock = Allocations::kPeakBlock;
    const std::int64_t firstWhole = (first + kBlock - 1) / kBlock; // the blocks wholly inside
    const std::int64_t pastWhole = (last + 1) / kBlock;
    if (firstWhole >= pastWhole || std::size_t(pastWhole) > allocations.blockPeaks.size()) {
        for (std::int64_t p = first + 1; p <= last; ++p)
            consider(p);
        return best;
    }
    for (std::int64_t p = first + 1; p < firstWhole * kBlock; ++p)
        consider(p);
    for (std::int64_t b = firstWhole; b < pastWhole; ++b)
        consider(allocations.blockPeaks[std::size_t(b)]);
    for (std::int64_t p = pastWhole * kBlock; p <= last; ++p)
        consider(p);
    return best;
}

AllocationStack::AllocationStack(const Allocations &allocations)
    : m_allocations(&allocations), m_liveWords((allocations.count() + 63) / 64, 0),
      m_liveSummary((m_liveWords.size() + 63) / 64, 0), m_tree(m_liveWords.size() + 1, 0)
{
    while ((std::size_t(1) << (m_topBit + 1)) < m_tree.size())
        ++m_topBit;
    for (std::uint32_t a = 0; a < allocations.count() && allocations.allocated[a] < 0; ++a) {
        add(a, allocations.size[a]);
        setLive(a);
    }
}

void AllocationStack::add(std::uint32_t allocation, std::int64_t bytes)
{
    for (std::size_t i = std::size_t(allocation >> 6) + 1; i < m_tree.size(); i += i & (~i + 1))
        m_tree[i] += bytes;
    m_total += bytes;
    m_lowestChanged = std::min(m_lowestChanged, allocation);
}

void AllocationStack::setLive(std::uint32_t allocation)
{
    const std::size_t word = allocation >> 6;
    m_liveWords[word] |= std::uint64_t(1) << (allocation & 63);
    m_liveSummary[word >> 6] |= std::uint64_t(1) << (word & 63);
}

void AllocationStack::clearLive(std::uint32_t allocation)
{
    const std::size_t word = allocation >> 6;
    m_liveWords[word] &= ~(std::uint64_t(1) << (allocation & 63));
    if (m_liveWords[word] == 0)
        m_liveSummary[word >> 6] &= ~(std::uint64_t(1) << (word & 63));
}

std::uint32_t AllocationStack::nextLive(std::uint32_t from) const
{
    const auto none = std::uint32_t(m_allocations->count());
    if (from >= none)
        return none;
    std::size_t word = from >> 6;
    std::uint64_t bits = m_liveWords[word] & (~std::uint64_t(0) << (from & 63));
    if (bits == 0) { // the next word that holds a live one, from the summary
        const std::size_t next = word + 1;
        std::size_t group = next >> 6;
        if (group >= m_liveSummary.size())
            return none;
        std::uint64_t words = m_liveSummary[group] & (~std::uint64_t(0) << (next & 63));
        while (words == 0) {
            if (++group >= m_liveSummary.size())
                return none;
            words = m_liveSummary[group];
        }
        word = (group << 6) + std::size_t(std::countr_zero(words));
        bits = m_liveWords[word];
    }
    return std::uint32_t((word << 6) + std::size_t(std::countr_zero(bits)));
}

void AllocationStack::moveTo(std::int64_t position)
{
    const auto &a = *m_allocations;
    position = std::clamp<std::int64_t>(position, -1, a.positions() - 1);
    // Starting again from a checkpoint clears and rebuilds the tree (three passes over a word per
    // 64 allocations), then walks up to a stride: nearer than that, walking from here is cheaper.
    const std::int64_t near = 2 * a.checkpointStride + std::int64_t(m_liveWords.size() / 4);
    if (position < m_position && m_position - position <= near) {
        for (; m_position > position; --m_position) { // undo, last event first
            if (const auto added = a.added[std::size_t(m_position)]) {
                add(added - 1, -a.size[added - 1]);
                clearLive(added - 1);
            }
            if (const auto r = a.removed[std::size_t(m_position)]) {
                add(r - 1, a.size[r - 1]);
                setLive(r - 1);
            }
        }
        return;
    }
    if (position < m_position || position - m_position > near) {
        const auto c =
            std::min<std::size_t>(std::size_t((position + 1) / a.checkpointStride), a.checkpoints.size() - 1);
        std::fill(m_tree.begin(), m_tree.end(), 0);
        std::fill(m_liveWords.begin(), m_liveWords.end(), 0);
        std::fill(m_liveSummary.begin(), m_liveSummary.end(), 0);
        m_total = 0;
        m_lowestChanged = 0;
        // The tree built in one pass: each node adds itself to its parent.
        for (const auto live : a.checkpoints[c]) {
            m_tree[(live >> 6) + 1] += a.size[live];
            setLive(live);
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
            clearLive(r - 1);
        }
        if (const auto added = a.added[p]; added && a.freed[added - 1] > position) {
            add(added - 1, a.size[added - 1]);
            setLive(added - 1);
        }
    }
}

std::optional<AllocationStack::Band> AllocationStack::above(const Band &band, std::int64_t height) const
{
    if (height >= m_total)
        return std::nullopt;
    if (height < band.top)
        return at(height); // a row's middle rounded into the band below: the tree decides
    // The bands above are the live allocations after it, in order: a few steps reach the one at
    // `height` unless many thin bands lie between, and then the tree finds it in O(log n).
    Band next{band.allocation, band.top, band.top};
    for (int step = 0; step < 4; ++step) {
        next.allocation = nextLive(next.allocation + 1);
        if (next.allocation >= m_allocations->count())
            return std::nullopt;
        next.bottom = next.top;
        next.top += m_allocations->size[next.allocation];
        if (height < next.top)
            return next;
    }
    return at(height);
}

int AllocationStack::unchangedRows(int rows, double bytesPerPixel) const
{
    const std::int64_t unchanged = m_lowestChanged >= m_allocations->count() ? m_total : below(m_lowestChanged);
    // The rows whose middle lies below the unchanged bytes.
    int row = std::clamp(int(std::ceil(double(unchanged) / bytesPerPixel - 0.5)), 0, rows);
    while (row > 0 && middleOf(row - 1, bytesPerPixel) >= unchanged)
        --row;
    while (row < rows && middleOf(row, bytesPerPixel) < unchanged)
        ++row;
    return row;
}

std::optional<AllocationStack::Band> AllocationStack::at(std::int64_t height) const
{
    if (height < 0 || height >= m_total)
        return std::nullopt;
    // The block: the tree's descent to the last one whose blocks before hold at most `height`.
    std::size_t block = 0;
    std::int64_t rest = height;
    for (std::size_t step = std::size_t(1) << m_topBit; step > 0; step >>= 1) {
        if (block + step < m_tree.size() && m_tree[block + step] <= rest) {
            block += step;
            rest -= m_tree[block];
        }
    }
    if (block >= m_liveWords.size())
        return std::nullopt;
    // In it, the live allocations in order.
    for (std::uint64_t bits = m_liveWords[block]; bits != 0; bits &= bits - 1) {
        const auto allocation = std::uint32_t((block << 6) + std::size_t(std::countr_zero(bits)));
        const std::int64_t size = m_allocations->size[allocation];
        if (rest < size)
            return Band{allocation, height - rest, height - rest + size};
        rest -= size;
    }
    return std::nullopt;
}

std::int64_t AllocationStack::below(std::uint32_t allocation) const
{
    std::int64_t sum = 0;
    for (std::size_t i = allocation >> 6; i > 0; i -= i & (~i + 1))
        sum += m_tree[i];
    const std::uint64_t before = (std::uint64_t(1) << (allocation & 63)) - 1;
    for (std::uint64_t bits = m_liveWords[allocation >> 6] & before; bits != 0; bits &= bits - 1)
        sum += m_allocations->size[((allocation >> 6) << 6) + std::size_t(std::countr_zero(bits))];
    return sum;
}

} // namespace pyrometer::snapshot
