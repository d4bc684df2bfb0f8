#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

struct MemoryPoint {
    std::int64_t timeNs = 0;
    std::int64_t bytes = 0;
    bool operator==(const MemoryPoint &) const = default;
};

struct AllocatingOp {
    std::string name;
    std::uint64_t allocations = 0;
    std::int64_t allocatedBytes = 0; // sum of positive Bytes
    bool operator==(const AllocatingOp &) const = default;
};

struct DeviceMemory {
    std::string device; // "cpu", "cuda:0", or "device<type>:<id>"
    std::int32_t deviceType = 0;
    std::int32_t deviceId = 0;
    std::vector<MemoryPoint> allocated; // after each event, in time order
    std::vector<MemoryPoint> reserved;  // where the trace gives Total Reserved
    std::int64_t peakBytes = 0;
    std::int64_t peakTimeNs = 0;
    bool peakFromTotals = false; // from "Total Allocated", else the running sum of Bytes
    std::uint64_t allocations = 0;
    std::uint64_t frees = 0;
    std::vector<AllocatingOp> topOps; // by allocated bytes
    bool operator==(const DeviceMemory &) const = default;
};

struct MemoryReport {
    std::vector<DeviceMemory> devices; // cpu first, then by type and id
    bool operator==(const MemoryReport &) const = default;
};

struct MemoryOptions {
    TimeRange range;
    std::size_t topOps = 10;
    bool curves = true;
    bool operator==(const MemoryOptions &) const = default;
};

// [memory] events per device. The running sum starts at 0 at the trace's first event, so a
// range shows the level inside it as the whole trace does.
MemoryReport buildMemoryReport(const TraceIndex &index, const MemoryOptions &options = {},
                               const StopToken *stop = nullptr);

std::string deviceName(std::int32_t deviceType, std::int32_t deviceId);

} // namespace pyrometer::analysis
