#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// What one operator did to one device's memory, from the [memory] events inside it.
struct OpMemoryRow {
    std::string name;   // the innermost op around the events; kNoOp outside every op
    std::string device; // "cpu", "cuda:0", as deviceName()
    std::uint64_t allocations = 0;
    std::uint64_t frees = 0;
    std::int64_t allocatedBytes = 0; // sum of positive Bytes
    std::int64_t freedBytes = 0;     // sum of negative Bytes, as a positive number
    std::int64_t peakBytes = 0;      // its allocations still held at the device's peak (needs Addr)
    bool operator==(const OpMemoryRow &) const = default;
};

struct OpMemoryTable {
    std::vector<OpMemoryRow> rows; // by allocated bytes, most first; then by device and name
    bool hasAddresses = false;     // the events carry Addr, so peakBytes is known
    bool operator==(const OpMemoryTable &) const = default;
};

inline constexpr std::string_view kNoOp = "(outside any op)";

// Per op and device: the events in range. A block counts towards peakBytes when an op allocated
// it in range and no free of its address came before the device's peak in range (the highest
// level, "Total Allocated" where the trace gives it, as buildMemoryReport finds it).
OpMemoryTable buildOpMemoryTable(const TraceIndex &index, const TimeRange &range = {}, const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
