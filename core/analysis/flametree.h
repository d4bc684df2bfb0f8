#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pyrometer::analysis {

enum class FlameEvents {
    Ops,       // operator events, nested by torch's rule
    OpsPython, // operators and python_function frames
    All,       // every slice on the CPU tracks, nested as the trace model nests them
};

struct FlameOptions {
    FlameEvents events = FlameEvents::Ops;
    bool threadRoots = true; // a first level naming the thread
    TimeRange range;
    bool operator==(const FlameOptions &) const = default;
};

// A node of the aggregated call tree: one distinct stack. Node 0 is the root (no name).
struct FlameNode {
    std::string name;
    std::string category; // of the first event seen on this stack; empty for the root and threads
    std::uint32_t parent = 0;
    std::vector<std::uint32_t> children; // in first-seen order
    std::uint64_t calls = 0;
    std::int64_t selfNs = 0;
    std::int64_t totalNs = 0;
    bool operator==(const FlameNode &) const = default;
};

struct FlameTree {
    std::vector<FlameNode> nodes;
    bool operator==(const FlameTree &) const = default;
};

FlameTree buildFlameTree(const TraceIndex &index, const FlameOptions &options = {}, const StopToken *stop = nullptr);

// Folded stacks (flamegraph.pl, speedscope): "a;b;c SELF_US" per node with self time, stacks
// sorted, values in µs with up to three decimals.
void writeFolded(std::ostream &out, const FlameTree &tree);
// Microseconds with up to three decimals and no trailing zeros: 1500 -> "1.5".
std::string formatMicros(std::int64_t ns);

} // namespace pyrometer::analysis
