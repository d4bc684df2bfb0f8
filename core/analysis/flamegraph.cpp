#include "core/analysis/flamegraph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace pyrometer::analysis {

namespace {

char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

bool containsIgnoringCase(std::string_view haystack, std::string_view needle)
{
    return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                       [](char a, char b) { return asciiLower(a) == asciiLower(b); }) != haystack.end();
}

using ChildIndex = std::map<std::pair<std::uint32_t, std::string_view>, std::uint32_t>;

// Adds a child named `name` (which must outlive byName) like `from` under `parent`, or finds
// the one already there.
std::uint32_t mergedChild(FlameTree &tree, ChildIndex &byName, std::uint32_t parent, const FlameNode &from,
                          std::string_view name)
{
    const auto [it, added] = byName.try_emplace({parent, name}, std::uint32_t(tree.nodes.size()));
    if (added) {
        FlameNode node;
        node.name = std::string(name);
        node.category = from.category;
        node.parent = parent;
        tree.nodes.push_back(std::move(node));
        tree.nodes[parent].children.push_back(it->second);
    }
    return it->second;
}

std::uint32_t mergedChild(FlameTree &tree, ChildIndex &byName, std::uint32_t parent, const FlameNode &from)
{
    return mergedChild(tree, byName, parent, from, from.name);
}

void sumTotals(FlameTree &tree)
{
    for (std::size_t n = tree.nodes.size(); n-- > 1;)
        tree.nodes[tree.nodes[n].parent].totalNs += tree.nodes[n].totalNs;
}

} // namespace

FlameValues FlameGraph::values(std::uint32_t node) const
{
    const auto &n = tree.nodes[node];
    return {n.totalNs, n.selfNs, n.calls};
}

std::string_view FlameGraph::label(std::uint32_t node) const
{
    const auto &name = tree.nodes[node].name;
    return node == 0 && name.empty() ? std::string_view("all") : std::string_view(name);
}

FlameGraph prepareFlameGraph(FlameTree tree)
{
    FlameGraph graph;
    graph.tree = std::move(tree);
    auto &nodes = graph.tree.nodes;
    if (nodes.empty())
        nodes.emplace_back();
    for (auto &node : nodes) {
        std::stable_sort(node.children.begin(), node.children.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return nodes[a].totalNs > nodes[b].totalNs; });
    }
    graph.depth.assign(nodes.size(), 0);
    graph.height.assign(nodes.size(), 1);
    for (std::size_t n = 1; n < nodes.size(); ++n)
        graph.depth[n] = graph.depth[nodes[n].parent] + 1;
    for (std::size_t n = nodes.size(); n-- > 1;) {
        auto &up = graph.height[nodes[n].parent];
        up = std::max(up, graph.height[n] + 1);
    }
    return graph;
}

std::string_view stepMatchName(std::string_view name)
{
    return isProfilerStep(name) ? std::string_view("ProfilerStep#*") : name;
}

FlameTree mergeProfilerSteps(const FlameTree &tree)
{
    FlameTree merged;
    merged.nodes.emplace_back();
    if (tree.nodes.empty())
        return merged;
    merged.nodes[0].name = tree.nodes[0].name;
    merged.nodes[0].calls = tree.nodes[0].calls;
    merged.nodes[0].selfNs = tree.nodes[0].selfNs;
    ChildIndex byName;
    std::vector<std::uint32_t> mergedOf(tree.nodes.size(), 0);
    for (std::uint32_t n = 1; n < tree.nodes.size(); ++n) {
        const auto &node = tree.nodes[n];
        const auto at = mergedChild(merged, byName, mergedOf[node.parent], node, stepMatchName(node.name));
        mergedOf[n] = at;
        merged.nodes[at].calls += node.calls;
        merged.nodes[at].selfNs += node.selfNs;
    }
    for (auto &node : merged.nodes)
        node.totalNs = node.selfNs;
    sumTotals(merged);
    return merged;
}

std::vector<std::uint32_t> flamePath(const FlameTree &tree, std::uint32_t node)
{
    std::vector<std::uint32_t> path{node};
    while (node != 0 && node < tree.nodes.size()) {
        node = tree.nodes[node].parent;
        path.push_back(node);
    }
    std::reverse(path.begin(), path.end());
    return path;
}

IcicleLayout layoutIcicle(const FlameGraph &graph, const IcicleViewport &viewport)
{
    IcicleLayout layout;
    layout.viewport = viewport;
    const auto &nodes = graph.tree.nodes;
    if (viewport.zoom >= nodes.size() || viewport.width <= 0)
        return layout;
    const int rows = int(graph.height[viewport.zoom]);
    layout.contentHeight = rows * viewport.rowHeight;
    const auto zoomTotal = nodes[viewport.zoom].totalNs;
    if (zoomTotal <= 0)
        return layout;
    const double scale = double(viewport.width) / double(zoomTotal);
    const int top = viewport.scrollY;
    const int bottom = viewport.height == std::numeric_limits<int>::max() ? viewport.height : top + viewport.height;
    const auto rowY = [&](int row) {
        return (viewport.inverted ? rows - 1 - row : row) * viewport.rowHeight - viewport.scrollY;
    };
    const auto emit = [&](double x0, double x1, int row, std::uint32_t node, std::uint32_t merged) {
        const int y = rowY(row);
        if (y + viewport.rowHeight <= 0 || y + top >= bottom)
            return;
        const int left = int(std::lround(x0));
        const int right = std::max(left + 1, int(std::lround(x1)));
        layout.boxes.push_back({left, y, right - left, viewport.rowHeight, node, merged});
    };

    struct Item {
        std::uint32_t node;
        double x0;
        int row;
    };
    std::vector<Item> stack{{viewport.zoom, 0.0, 0}};
    while (!stack.empty()) {
        const auto [node, x0, row] = stack.back();
        stack.pop_back();
        emit(x0, x0 + double(nodes[node].totalNs) * scale, row, node, 0);
        double x = x0;
        const auto &children = nodes[node].children;
        for (std::size_t c = 0; c < children.size(); ++c) {
            const auto child = children[c];
            const double width = double(nodes[child].totalNs) * scale;
            if (width >= viewport.minFrameWidth) {
                stack.push_back({child, x, row + 1});
                x += width;
                continue;
            }
            // The rest are at most this narrow (widest first): one box for all of them, if
            // together they cover a pixel.
            double rest = 0;
            for (auto d = c; d < children.size(); ++d)
                rest += double(nodes[children[d]].totalNs) * scale;
            if (rest >= 1)
                emit(x, x + rest, row + 1, child, std::uint32_t(children.size() - c));
            break;
        }
    }
    return layout;
}

int hitBox(const std::vector<FlameBox> &boxes, int x, int y)
{
    // Later boxes are deeper and drawn over earlier ones.
    for (auto i = boxes.size(); i-- > 0;) {
        const auto &b = boxes[i];
        if (x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height)
            return int(i);
    }
    return -1;
}

FlameSearch searchFlame(const FlameTree &tree, std::string_view needle)
{
    FlameSearch search;
    const auto &nodes = tree.nodes;
    search.matched.assign(nodes.size(), false);
    if (needle.empty() || nodes.empty())
        return search;
    // covered[n]: n or an ancestor of n matched. Parents come before their children.
    std::vector<bool> covered(nodes.size(), false);
    for (std::size_t n = 1; n < nodes.size(); ++n) {
        const auto &node = nodes[n];
        const bool match = containsIgnoringCase(node.name, needle);
        search.matched[n] = match;
        covered[n] = match || covered[node.parent];
        if (!match)
            continue;
        ++search.frames;
        if (!covered[node.parent])
            search.matchedNs += node.totalNs;
    }
    if (nodes[0].totalNs > 0)
        search.share = double(search.matchedNs) / double(nodes[0].totalNs);
    return search;
}

Sandwich buildSandwich(const FlameTree &tree, std::string_view function)
{
    Sandwich sandwich;
    sandwich.function = std::string(function);
    for (auto *side : {&sandwich.callers, &sandwich.callees}) {
        side->nodes.emplace_back();
        side->nodes[0].name = sandwich.function;
    }
    const auto &nodes = tree.nodes;
    std::vector<bool> inside(nodes.size(), false); // n or an ancestor is the function
    std::vector<std::uint32_t> calleeOf(nodes.size(), 0);
    ChildIndex callerByName;
    ChildIndex calleeByName;
    auto &callers = sandwich.callers.nodes;
    auto &callees = sandwich.callees.nodes;
    for (std::uint32_t n = 1; n < nodes.size(); ++n) {
        const auto &node = nodes[n];
        const bool isFunction = node.name == function;
        const bool outer = isFunction && !inside[node.parent];
        inside[n] = isFunction || inside[node.parent];
        if (outer) {
            if (sandwich.stacks++ == 0) {
                callers[0].category = node.category;
                callees[0].category = node.category;
            }
            callers[0].calls += node.calls;
            callers[0].totalNs += node.totalNs;
            callees[0].calls += node.calls;
            callees[0].selfNs += node.selfNs;
            calleeOf[n] = 0;
            // Up the stack: each caller gets the function's time through it.
            std::uint32_t at = 0;
            for (auto up = node.parent; up != 0; up = nodes[up].parent) {
                at = mergedChild(sandwich.callers, callerByName, at, nodes[up]);
                callers[at].calls += nodes[up].calls;
                callers[at].totalNs += node.totalNs;
            }
            continue;
        }
        if (!inside[n])
            continue;
        // Below an outermost call: merge by path relative to it.
        const auto at = mergedChild(sandwich.callees, calleeByName, calleeOf[node.parent], node);
        calleeOf[n] = at;
        callees[at].calls += node.calls;
        callees[at].selfNs += node.selfNs;
    }
    // Callers: self is what stops at a node (its total less its callers'), as a tree needs.
    for (auto &node : callers)
        node.selfNs = node.totalNs;
    for (std::size_t n = 1; n < callers.size(); ++n)
        callers[callers[n].parent].selfNs -= callers[n].totalNs;
    for (auto &node : callees)
        node.totalNs = node.selfNs;
    sumTotals(sandwich.callees);
    return sandwich;
}

} // namespace pyrometer::analysis
