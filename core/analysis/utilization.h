#pragma once

#include "core/analysis/traceindex.h"

#include <cstdint>
#include <vector>

namespace pyrometer::analysis {

// How busy one GPU was over a span: the union of its kernels, memcpy and memset, clipped to
// the span, over the span's length.
struct DeviceBusy {
    std::int32_t device = -1;
    std::int64_t busyNs = 0;
    std::int64_t spanNs = 0;
    double utilization() const { return spanNs > 0 ? static_cast<double>(busyNs) / static_cast<double>(spanNs) : 0.0; }
    bool operator==(const DeviceBusy &) const = default;
};

// One entry per device that ran anything in [start, end), by device id. Empty for CPU traces.
std::vector<DeviceBusy> deviceUtilization(const TraceIndex &index, std::int64_t start, std::int64_t end);

} // namespace pyrometer::analysis
