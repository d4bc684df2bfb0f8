#pragma once

#include "core/analysis/diff.h"
#include "core/analysis/flametree.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// What one run spent in one stack.
struct FlameValues {
    std::int64_t totalNs = 0;
    std::int64_t selfNs = 0;
    std::uint64_t calls = 0;
    bool operator==(const FlameValues &) const = default;
};

// A flame tree ready to draw. Children are ordered widest first ("left heavy"), so the frames
// too narrow to draw are each parent's last ones; a node's parent always comes before it.
// A diff graph (see flamediff.h) also holds the base run's values per node, while `tree`
// holds the other run's, which give the widths.
struct FlameGraph {
    FlameTree tree;
    std::vector<std::uint32_t> depth;  // the root's is 0
    std::vector<std::uint32_t> height; // rows of the subtree, the node's own included
    std::vector<FlameValues> base;     // diff graphs only, per node
    std::vector<Presence> presence;    // diff graphs only, per node

    bool isDiff() const { return !base.empty(); }
    FlameValues values(std::uint32_t node) const;
    // "all" for an unnamed root.
    std::string_view label(std::uint32_t node) const;
};

FlameGraph prepareFlameGraph(FlameTree tree);

// "ProfilerStep#12" -> "ProfilerStep#*", any other name as it is: steps are one frame when
// merging steps or matching runs.
std::string_view stepMatchName(std::string_view name);

// The same tree with every ProfilerStep#N frame of a parent merged into one ProfilerStep#*
// (calls, self and totals added), so the stacks of all steps add up.
FlameTree mergeProfilerSteps(const FlameTree &tree);

// The nodes from the root down to `node`, both included: what a breadcrumb shows.
std::vector<std::uint32_t> flamePath(const FlameTree &tree, std::uint32_t node);

// ---- Icicle layout: a pure function from a graph and a viewport to integer rectangles.

struct IcicleViewport {
    std::uint32_t zoom = 0; // drawn at full width on the first row
    int width = 0;
    int rowHeight = 18;
    int scrollY = 0; // content y at the top of the widget
    int height = std::numeric_limits<int>::max();
    bool inverted = false; // the zoomed frame at the bottom, its children above it
    double minFrameWidth = 1; // narrower frames are merged, per parent, into one box
    bool operator==(const IcicleViewport &) const = default;
};

// One rectangle in widget coordinates: a frame, or (merged > 0) the `merged` frames of one
// parent that were each narrower than the minimum, drawn as one; `node` is then the first.
struct FlameBox {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
    std::uint32_t node = 0;
    std::uint32_t merged = 0;
    bool operator==(const FlameBox &) const = default;
};

struct IcicleLayout {
    IcicleViewport viewport;
    std::vector<FlameBox> boxes; // parents before children
    int contentHeight = 0;       // rows of the zoomed subtree times the row height
};

// Costs O(boxes): a frame narrower than the minimum is never descended into.
IcicleLayout layoutIcicle(const FlameGraph &graph, const IcicleViewport &viewport);

// The box under a point, or -1.
int hitBox(const std::vector<FlameBox> &boxes, int x, int y);

// ---- Search.

struct FlameSearch {
    std::vector<bool> matched;  // per node
    std::size_t frames = 0;     // matched nodes
    std::int64_t matchedNs = 0; // total of matched nodes that have no matched ancestor
    double share = 0;           // matchedNs over the root's total, 0..1
};

// Nodes whose name contains `needle`, ignoring ASCII case. Nested matches count once in the
// share, so it never exceeds the whole.
FlameSearch searchFlame(const FlameTree &tree, std::string_view needle);

// ---- Sandwich: one function's callers and callees, each merged over every stack it is on.

struct Sandwich {
    std::string function;
    // Root: the function; children: its direct callers, and theirs above them (the tree reads
    // upwards). Totals are the function's time through each caller path.
    FlameTree callers;
    // Root: the function; below it, what it calls, merged over all its stacks.
    FlameTree callees;
    std::size_t stacks = 0; // distinct stacks the function is on, nested recursion excluded
};

// Recursive calls nested in another call of the function are counted once, through the
// outermost call, so the root's total is the function's inclusive time.
Sandwich buildSandwich(const FlameTree &tree, std::string_view function);

} // namespace pyrometer::analysis
