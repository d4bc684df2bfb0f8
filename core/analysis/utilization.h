#pragma once

#include "core/analysis/steps.h"
#include "core/analysis/timerange.h"
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

// The same over several windows ([start, end) pairs, in any order, overlaps counted once):
// busy inside any window over the windows' total length. One entry per device that ran
// anything between the first window's start and the last one's end.
std::vector<DeviceBusy> deviceUtilization(const TraceIndex &index, std::vector<std::pair<std::int64_t, std::int64_t>> windows);

// The GPU utilization that every view shows (the Overview, reports, `pyrometer-cli steps`):
// per device, the time it ran a kernel, memcpy or memset inside the steps over the sum of the
// step times. Without steps, over the trace's span within range, and overSteps says so.
struct GpuUtilization {
    std::vector<DeviceBusy> devices; // spanNs: the summed step time, or the span
    bool overSteps = false;
    std::size_t steps = 0;
    bool operator==(const GpuUtilization &) const = default;
};
GpuUtilization gpuUtilization(const TraceIndex &index, const std::vector<StepRow> &steps, const TimeRange &range = {});

} // namespace pyrometer::analysis
