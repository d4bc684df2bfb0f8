#include "core/analysis/flamediff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

namespace pyrometer::analysis {

FlameDiff diffFlameTrees(const FlameTree &base, const FlameTree &other)
{
    FlameDiff diff;
    diff.nodes.emplace_back();
    std::map<std::pair<std::uint32_t, std::string_view>, std::uint32_t> byName;
    const auto merge = [&](const FlameTree &tree, bool isBase) {
        std::vector<std::uint32_t> mergedOf(tree.nodes.size(), 0);
        for (std::uint32_t n = 0; n < tree.nodes.size(); ++n) {
            const auto &node = tree.nodes[n];
            std::uint32_t at = 0;
            if (n != 0) {
                const auto parent = mergedOf[node.parent];
                const auto name = stepMatchName(node.name); // step numbers differ between runs
                const auto [it, added] = byName.try_emplace({parent, name}, std::uint32_t(diff.nodes.size()));
                at = it->second;
                if (added) {
                    FlameDiffNode merged;
                    merged.name = std::string(name);
                    merged.category = node.category;
                    merged.parent = parent;
                    merged.presence = isBase ? Presence::BaseOnly : Presence::OtherOnly;
                    diff.nodes.push_back(std::move(merged));
                    diff.nodes[parent].children.push_back(at);
                } else if (!isBase) {
                    diff.nodes[at].presence = Presence::Both;
                }
            }
            auto &values = isBase ? diff.nodes[at].base : diff.nodes[at].other;
            values.totalNs += node.totalNs;
            values.selfNs += node.selfNs;
            values.calls += node.calls;
            mergedOf[n] = at;
        }
    };
    merge(base, true);
    merge(other, false);
    diff.nodes[0].name = other.nodes.empty() ? std::string() : other.nodes[0].name;
    diff.nodes[0].presence = Presence::Both;
    return diff;
}

FlameGraph prepareDiffGraph(const FlameDiff &diff)
{
    FlameTree tree;
    tree.nodes.reserve(diff.nodes.size());
    std::vector<FlameValues> base;
    std::vector<Presence> presence;
    for (const auto &node : diff.nodes) {
        tree.nodes.push_back({node.name, node.category, node.parent, node.children, node.other.calls, node.other.selfNs,
                              node.other.totalNs});
        base.push_back(node.base);
        presence.push_back(node.presence);
    }
    auto graph = prepareFlameGraph(std::move(tree));
    graph.base = std::move(base);
    graph.presence = std::move(presence);
    return graph;
}

double diffHeat(std::int64_t baseNs, std::int64_t otherNs)
{
    if (baseNs <= 0 || otherNs <= 0)
        return 0;
    return std::clamp(std::log2(double(otherNs) / double(baseNs)), -1.0, 1.0);
}

} // namespace pyrometer::analysis
