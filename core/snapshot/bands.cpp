#include "core/snapshot/bands.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace pyrometer::snapshot {

StackBands stackBands(const Snapshot &snapshot, const DeviceReplay &device, std::size_t top, std::size_t samples)
{
    StackBands out;
    const Events &e = snapshot.events;
    const std::size_t n = device.events.size();
    out.xIsTime = snapshot.hasTimes && n > 0;
    // The bands: the largest stacks at the peak.
    const auto atPeak = groupLive(snapshot, device, liveAt(snapshot, device, device.peakPosition), GroupBy::Stack);
    std::map<std::string, std::size_t> bandOfKey;
    for (const auto &g : atPeak) {
        if (out.keys.size() == top)
            break;
        bandOfKey.emplace(g.key, out.keys.size());
        out.keys.push_back(g.key);
        out.labels.push_back(g.label);
    }
    const std::size_t other = out.keys.size();
    out.keys.emplace_back();
    out.labels.emplace_back("other stacks");
    out.bytes.assign(out.keys.size(), {});
    std::unordered_map<std::uint32_t, std::size_t> bandOfStack; // cache: folding a stack costs
    auto bandOf = [&](StackId stack) {
        auto it = bandOfStack.find(stack.value);
        if (it == bandOfStack.end()) {
            const auto found = bandOfKey.find(foldedStack(snapshot, stack));
            it = bandOfStack.emplace(stack.value, found == bandOfKey.end() ? other : found->second).first;
        }
        return it->second;
    };
    // Replay the live set as liveAt does, keeping a total per band.
    std::vector<std::int64_t> now(out.keys.size(), 0);
    std::unordered_map<std::uint64_t, std::pair<std::int64_t, std::size_t>> live; // addr -> size, band
    for (const auto &b : liveAt(snapshot, device, -1)) {
        live[b.address] = {b.size, bandOf(b.stack)};
        now[bandOf(b.stack)] += b.size;
    }
    const std::size_t perSample = std::max<std::size_t>(1, (n + samples - 1) / std::max<std::size_t>(samples, 1));
    auto sample = [&](std::int64_t position) {
        const std::uint32_t i = position < 0 ? 0 : device.events[std::size_t(position)];
        out.position.push_back(position);
        out.x.push_back(out.xIsTime ? double(e.timeUs[i] - e.timeUs[device.events.front()]) / 1e3
                                    : double(position + 1));
        for (std::size_t b = 0; b < now.size(); ++b)
            out.bytes[b].push_back(now[b]);
    };
    sample(-1);
    std::int64_t best = -1, bestTotal = INT64_MIN;
    std::vector<std::int64_t> bestBands;
    for (std::size_t p = 0; p < n; ++p) {
        const std::uint32_t i = device.events[p];
        if (e.action[i] == Action::Alloc) {
            auto [it, inserted] = live.try_emplace(e.addr[i]);
            if (!inserted)
                now[it->second.second] -= it->second.first;
            it->second = {e.size[i], bandOf(e.stack[i])};
            now[it->second.second] += e.size[i];
        } else if (e.action[i] == Action::FreeCompleted) {
            if (const auto it = live.find(e.addr[i]); it != live.end()) {
                now[it->second.second] -= it->second.first;
                live.erase(it);
            }
        }
        const std::int64_t total = device.active[p];
        if (total > bestTotal) {
            bestTotal = total;
            best = std::int64_t(p);
            bestBands = now;
        }
        if ((p + 1) % perSample == 0 || p + 1 == n) {
            std::swap(now, bestBands);
            sample(best);
            std::swap(now, bestBands);
            best = -1;
            bestTotal = INT64_MIN;
        }
    }
    return out;
}

analysis::FlameTree liveFlameTree(const std::vector<LiveGroup> &stackGroups)
{
    analysis::FlameTree tree;
    tree.nodes.emplace_back();
    std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> children;
    for (const auto &g : stackGroups) {
        std::uint32_t at = 0;
        tree.nodes[0].totalNs += g.bytes;
        tree.nodes[0].calls += g.blocks;
        std::size_t start = 0;
        while (start <= g.key.size()) {
            const std::size_t end = std::min(g.key.find(';', start), g.key.size());
            std::string name = g.key.substr(start, end - start);
            const auto [it, added] = children.try_emplace({at, name}, std::uint32_t(tree.nodes.size()));
            if (added) {
                analysis::FlameNode node;
                node.name = std::move(name);
                node.parent = at;
                tree.nodes.push_back(std::move(node));
                tree.nodes[at].children.push_back(it->second);
            }
            at = it->second;
            tree.nodes[at].totalNs += g.bytes;
            tree.nodes[at].calls += g.blocks;
            start = end + 1;
        }
        tree.nodes[at].selfNs += g.bytes;
    }
    return tree;
}

} // namespace pyrometer::snapshot
