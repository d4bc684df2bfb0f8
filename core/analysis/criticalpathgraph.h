#pragma once

// The critical path's dependency graph (criticalpath.cpp builds it from a trace and walks it).
#include "core/analysis/criticalpath.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace pyrometer::analysis::pathgraph {

using trace::StringId;

// Each node is two vertices, its start (2i) and its end (2i + 1), so that a sync's end can wait
// for a device event that itself began after the sync did (a synchronous cudaMemcpy and its
// copy): as one vertex per node, that would be a cycle. Edges: start -> end of a node; end ->
// start (a thread's order, a launch, a stream's order, a flow); start -> start (a device event
// that began before its launch call returned); a device event's end -> a sync's end.
//
// A vertex's time is the latest of its predecessors' plus its own latency: for a start, what
// the trace shows after that latest predecessor (so the trace's times come back exactly); for an
// end, the node's own time. A sync's own time is what follows the later of its start and the end
// of the device event it waited for, so a faster device lets it return sooner.
struct Node {
    EventRef event;
    PathNodeKind kind = PathNodeKind::Cpu;
    StringId name;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t own = 0; // the latency of its end: what a what-if halves
};

struct Graph {
    std::vector<Node> nodes;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges; // vertex -> vertex
    std::vector<std::uint32_t> inStart, outStart;               // CSR offsets per vertex
    std::vector<std::uint32_t> in, out;                         // predecessor / successor vertices
    std::vector<std::int64_t> latency;                          // per vertex
    std::vector<std::uint32_t> order;                           // a topological order of the vertices
    std::vector<std::uint32_t> position;                        // vertex -> index in order

    std::uint32_t vertexCount() const { return static_cast<std::uint32_t>(nodes.size() * 2); }
    std::int64_t baseline(std::uint32_t v) const { return v & 1u ? nodes[v / 2].end : nodes[v / 2].start; }
    bool isSource(std::uint32_t v) const { return inStart[v] == inStart[v + 1]; }
    void link(std::uint32_t from, std::uint32_t to) { edges.push_back({from, to}); }

    void finish()
    {
        const auto n = vertexCount();
        for (std::uint32_t i = 0; i < nodes.size(); ++i)
            link(2 * i, 2 * i + 1);
        inStart.assign(n + 1, 0);
        outStart.assign(n + 1, 0);
        for (const auto &[from, to] : edges) {
            ++inStart[to + 1];
            ++outStart[from + 1];
        }
        for (std::uint32_t v = 0; v < n; ++v) {
            inStart[v + 1] += inStart[v];
            outStart[v + 1] += outStart[v];
        }
        in.resize(edges.size());
        out.resize(edges.size());
        auto inFill = inStart;
        auto outFill = outStart;
        for (const auto &[from, to] : edges) {
            in[inFill[to]++] = from;
            out[outFill[from]++] = to;
        }
        edges = {};
        latency.resize(n);
        for (std::uint32_t v = 0; v < n; ++v) {
            if (v & 1u) {
                latency[v] = nodes[v / 2].own;
            } else if (!isSource(v)) {
                auto ready = std::numeric_limits<std::int64_t>::min();
                for (auto k = inStart[v]; k < inStart[v + 1]; ++k)
                    ready = std::max(ready, baseline(in[k]));
                latency[v] = baseline(v) - ready;
            }
        }
        // Kahn's algorithm. Every edge goes forward or level in time, so a cycle needs a loop of
        // zero-length edges at one instant; should one occur, its vertices follow in time order.
        std::vector<std::uint32_t> pending(n);
        order.clear();
        order.reserve(n);
        for (std::uint32_t v = 0; v < n; ++v) {
            pending[v] = inStart[v + 1] - inStart[v];
            if (pending[v] == 0)
                order.push_back(v);
        }
        for (std::size_t head = 0; head < order.size(); ++head)
            for (auto k = outStart[order[head]]; k < outStart[order[head] + 1]; ++k)
                if (--pending[out[k]] == 0)
                    order.push_back(out[k]);
        if (order.size() < n) {
            std::vector<std::uint32_t> rest;
            for (std::uint32_t v = 0; v < n; ++v)
                if (pending[v] > 0)
                    rest.push_back(v);
            std::sort(rest.begin(), rest.end(), [&](std::uint32_t a, std::uint32_t b) {
                return std::pair(baseline(a), a) < std::pair(baseline(b), b);
            });
            order.insert(order.end(), rest.begin(), rest.end());
        }
        position.resize(n);
        for (std::uint32_t p = 0; p < n; ++p)
            position[order[p]] = p;
    }

    std::int64_t evaluate(std::uint32_t v, const std::vector<std::int64_t> &time) const
    {
        if (isSource(v))
            return baseline(v);
        auto ready = std::numeric_limits<std::int64_t>::min();
        for (auto k = inStart[v]; k < inStart[v + 1]; ++k)
            ready = std::max(ready, time[in[k]]);
        return ready + latency[v];
    }
};

} // namespace pyrometer::analysis::pathgraph
