#pragma once

#include "core/analysis/flamegraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// Two flame trees merged by stack (the path of names from the root): per node, what each run
// spent there. ProfilerStep#N frames match whatever their number, as one "ProfilerStep#*"
// frame. A node's parent comes before it; node 0 is the root. Trees built with thread roots
// match threads by name, which differ between runs of most traces: diff merged trees.
struct FlameDiffNode {
    std::string name;
    std::string category;
    std::uint32_t parent = 0;
    std::vector<std::uint32_t> children;
    FlameValues base;
    FlameValues other;
    Presence presence = Presence::Both;
    std::int64_t deltaNs() const { return other.totalNs - base.totalNs; }
    bool operator==(const FlameDiffNode &) const = default;
};

struct FlameDiff {
    std::vector<FlameDiffNode> nodes;
    bool operator==(const FlameDiff &) const = default;
};

FlameDiff diffFlameTrees(const FlameTree &base, const FlameTree &other);

// A graph to draw: widths from the other run (what it is now), the base's values kept per
// node for colours and tooltips. Stacks only the base ran have no width there.
FlameGraph prepareDiffGraph(const FlameDiff &diff);

// How much slower (> 0) or faster (< 0) a node ran, -1..1: log2 of other / base, saturating
// at twice as slow or fast. 0 for a node only one run has (nothing to compare).
double diffHeat(std::int64_t baseNs, std::int64_t otherNs);

} // namespace pyrometer::analysis
