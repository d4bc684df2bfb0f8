#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

enum class OpGrouping { Name, Shape, Module, Stack };
enum class OpSort { Self, Total, Calls, Name };

struct OpTableOptions {
    OpGrouping grouping = OpGrouping::Name;
    OpSort sort = OpSort::Self;
    int stackFrames = 5;    // Stack grouping: python_function frames kept, innermost first
    std::size_t top = 0;    // 0: every row
    bool mergeSteps = true; // one "ProfilerStep*" row for every ProfilerStep#N, as key_averages()
    TimeRange range;
    ProcessSet processes; // the processes counted; empty: all
    bool operator==(const OpTableOptions &) const = default;
};

// One row: the columns of torch's key_averages() table. Times in ns. As key_averages(), an op
// recorded inside itself as its parent's only child counts once, and memory events inside no op
// make a row "[memory]" (calls: how many; bytes; no time).
struct OpRow {
    std::string name;
    std::string group; // Shape: input dims; Module: nn.Module path; Stack: frames; else empty
    std::uint64_t calls = 0;
    std::int64_t totalNs = 0;
    std::int64_t selfNs = 0;
    std::int64_t minNs = 0;
    std::int64_t maxNs = 0;
    std::int64_t deviceSelfNs = 0;    // device events launched by the op itself
    std::int64_t deviceTotalNs = 0;   // ... by it and the ops nested in it
    std::int64_t cpuMemSelfBytes = 0; // [memory] Bytes on the CPU inside the op, net
    std::int64_t cpuMemTotalBytes = 0;
    std::int64_t deviceMemSelfBytes = 0;
    std::int64_t deviceMemTotalBytes = 0;
    double selfPercent = 0; // of the summed self time of every op in the table
    double totalPercent = 0;
    std::int64_t avgNs() const { return calls ? totalNs / static_cast<std::int64_t>(calls) : 0; }
    bool operator==(const OpRow &) const = default;
};

struct OpTable {
    std::vector<OpRow> rows;
    std::int64_t selfSumNs = 0; // over every op, before --top
    std::int64_t deviceSumNs = 0;
    bool operator==(const OpTable &) const = default;
};

OpTable buildOpTable(const TraceIndex &index, const OpTableOptions &options = {}, const StopToken *stop = nullptr);

// The nn.Module path of an op from its python_function frames ("nn.Module: Linear_0"),
// outermost first, joined by '/'; empty when the trace recorded no module frames.
std::string modulePath(const TraceIndex &index, EventRef op);
// Up to n python_function frames around an op, innermost first, joined by ';'.
std::string pythonStack(const TraceIndex &index, EventRef op, int n);

} // namespace pyrometer::analysis
