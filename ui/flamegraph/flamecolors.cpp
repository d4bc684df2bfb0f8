#include "ui/flamegraph/flamecolors.h"

#include "core/analysis/flamediff.h"
#include "ui/timeline/colors.h"

#include <cmath>

namespace pyrometer::ui::flamegraph {

namespace {

std::uint32_t mix(std::uint32_t from, std::uint32_t to, double t)
{
    std::uint32_t out = 0xff000000;
    for (int shift : {0, 8, 16}) {
        const double a = double((from >> shift) & 0xff);
        const double b = double((to >> shift) & 0xff);
        out |= std::uint32_t(std::lround(a + (b - a) * t)) << shift;
    }
    return out;
}

} // namespace

std::uint32_t changeColor(double heat)
{
    constexpr std::uint32_t slower = 0xffd62728;
    constexpr std::uint32_t faster = 0xff1f6fd6;
    // Square root: a 10% change is already visibly tinted, a 2x change fully coloured.
    const double t = std::sqrt(std::min(1.0, std::abs(heat)));
    return mix(kNeutralColor, heat > 0 ? slower : faster, t);
}

std::uint32_t frameColor(const analysis::FlameGraph &graph, std::uint32_t node, FlameColorMode mode)
{
    const auto &n = graph.tree.nodes[node];
    if (mode == FlameColorMode::ByChange && graph.isDiff()) {
        if (graph.presence[node] != analysis::Presence::Both)
            return kNeutralColor;
        return changeColor(analysis::diffHeat(graph.base[node].totalNs, n.totalNs));
    }
    if (n.calls == 0)
        return kNeutralColor; // the root and thread rows
    if (mode == FlameColorMode::ByName)
        return timeline::nameColor(n.name);
    return timeline::categoryColor(n.category);
}

} // namespace pyrometer::ui::flamegraph
