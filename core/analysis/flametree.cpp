#include "core/analysis/flametree.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;

struct FlameTreeBuilder {
    FlameTree tree;
    std::unordered_map<std::uint64_t, std::uint32_t> childByKey; // (parent, name id) -> node
    std::unordered_map<std::uint32_t, std::uint32_t> threadNode; // track -> node

    std::uint32_t child(std::uint32_t parent, std::uint64_t nameKey, const auto &makeName)
    {
        const auto key = (static_cast<std::uint64_t>(parent) << 33) ^ nameKey;
        auto [it, added] = childByKey.try_emplace(key, 0);
        if (added) {
            it->second = static_cast<std::uint32_t>(tree.nodes.size());
            FlameNode node;
            node.name = makeName();
            // ';' separates frames and ' ' ends the stack in the folded format.
            std::replace(node.name.begin(), node.name.end(), ';', ',');
            std::replace(node.name.begin(), node.name.end(), '\n', ' ');
            node.parent = parent;
            tree.nodes.push_back(std::move(node));
            tree.nodes[parent].children.push_back(it->second);
        }
        return it->second;
    }
};

} // namespace

std::string formatMicros(std::int64_t ns)
{
    const bool negative = ns < 0;
    const auto magnitude = negative ? -ns : ns;
    std::string text = (negative ? "-" : "") + std::to_string(magnitude / 1000);
    auto fraction = magnitude % 1000;
    if (fraction != 0) {
        std::string digits = std::to_string(fraction);
        digits.insert(0, 3 - digits.size(), '0');
        while (digits.back() == '0')
            digits.pop_back();
        text += "." + digits;
    }
    return text;
}

FlameTree buildFlameTree(const TraceIndex &index, const FlameOptions &options, const StopToken *stop)
{
    const auto &trace = *index.trace;
    FlameTreeBuilder b;
    b.tree.nodes.emplace_back();
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (ti.frameParent.empty() || (options.events == FlameEvents::Ops && !ti.hasOps) ||
            (stop && stop->stopRequested()))
            continue;
        const auto &track = trace.tracks[t];
        const auto wanted = [&](std::uint32_t i) {
            const auto kind = ti.kind[i];
            switch (options.events) {
            case FlameEvents::Ops: return kind == EventKind::Op;
            case FlameEvents::OpsPython: return kind == EventKind::Op || kind == EventKind::Python;
            case FlameEvents::All: return track.kind[i] != trace::SliceKind::Instant;
            }
            return false;
        };
        const auto parentOf = [&](std::uint32_t i) -> EventIndex {
            switch (options.events) {
            case FlameEvents::Ops: return ti.opParent[i];
            case FlameEvents::OpsPython: return ti.frameParent[i];
            case FlameEvents::All: return track.parent[i];
            }
            return {};
        };
        std::uint32_t root = 0;
        if (options.threadRoots)
            root = b.child(0, (1ull << 32) | t, [&] { return track.name; });
        // Events come parent first (sorted by start), so a parent's node exists before its
        // children ask for it. Nodes of events out of range hang from the thread root.
        std::vector<std::uint32_t> nodeOf(track.size(), 0);
        const auto [first, last] = eventsIn(trace, trace::TrackId(t), options.range);
        // Self time needs the children's durations whatever the range says.
        std::vector<std::int64_t> self(last - first, 0);
        std::int64_t lastEnd = std::numeric_limits<std::int64_t>::min();
        for (auto i = first; i < last; ++i) {
            if (!wanted(i))
                continue;
            lastEnd = std::max(lastEnd, track.end(EventIndex(i)));
            const auto p = parentOf(i);
            const auto parentNode = p.isValid() && p.value >= first ? nodeOf[p.value] : root;
            const auto name = track.eventName[i];
            nodeOf[i] = b.child(parentNode, name.value, [&] { return std::string(trace.string(name)); });
            auto &node = b.tree.nodes[nodeOf[i]];
            if (node.calls == 0)
                node.category = trace.string(track.category[i]);
            ++node.calls;
            self[i - first] += track.duration[i];
            if (p.isValid() && p.value >= first)
                self[p.value - first] -= track.duration[i];
        }
        // Children beyond the range still shorten their parents' self time.
        for (auto i = last; i < track.size() && track.start[i] < lastEnd; ++i) {
            if (!wanted(i))
                continue;
            const auto p = parentOf(i);
            if (p.isValid() && p.value >= first && p.value < last)
                self[p.value - first] -= track.duration[i];
        }
        for (auto i = first; i < last; ++i)
            if (wanted(i))
                b.tree.nodes[nodeOf[i]].selfNs += self[i - first];
    }
    // Totals bottom up: children always come after their parent.
    for (std::size_t n = b.tree.nodes.size(); n-- > 1;) {
        auto &node = b.tree.nodes[n];
        node.totalNs += node.selfNs;
        b.tree.nodes[node.parent].totalNs += node.totalNs;
    }
    b.tree.nodes[0].totalNs += b.tree.nodes[0].selfNs;
    return b.tree;
}

void writeFolded(std::ostream &out, const FlameTree &tree)
{
    std::vector<std::pair<std::string, std::int64_t>> lines;
    std::vector<std::string> path(tree.nodes.size());
    for (std::size_t n = 1; n < tree.nodes.size(); ++n) {
        const auto &node = tree.nodes[n];
        path[n] = node.parent == 0 ? node.name : path[node.parent] + ";" + node.name;
        if (node.calls > 0)
            lines.emplace_back(path[n], node.selfNs);
    }
    std::sort(lines.begin(), lines.end());
    for (const auto &[stack, ns] : lines)
        out << stack << ' ' << formatMicros(ns) << '\n';
}

} // namespace pyrometer::analysis
