#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// The TensorBoard plugin's categories, highest priority first: time covered by several goes to
// the first of them.
enum class StepCategory : std::uint8_t { Kernel, Memcpy, Memset, Runtime, DataLoader, CpuExec, Other };
inline constexpr std::size_t kStepCategoryCount = 7;
std::string_view stepCategoryName(StepCategory category); // "kernel", "memcpy", ..., "cpu_exec", "other"

struct IdleGap {
    std::int64_t startNs = 0;
    std::int64_t durationNs = 0;
    bool operator==(const IdleGap &) const = default;
};

struct StepRow {
    std::string name; // "ProfilerStep#12"
    std::int64_t startNs = 0;
    std::int64_t durationNs = 0;
    std::array<std::int64_t, kStepCategoryCount> categoryNs{}; // by StepCategory, sums to durationNs
    std::int64_t gpuBusyNs = 0;                                // union of kernels, memcpy and memset in the step
    double gpuUtilization = 0;                                 // gpuBusyNs / durationNs; 0 without device events
    std::vector<IdleGap> largestIdleGaps;                      // up to three, longest first; GPU traces only
    std::int64_t ns(StepCategory c) const { return categoryNs[static_cast<std::size_t>(c)]; }
    bool operator==(const StepRow &) const = default;
};

struct StepBreakdown {
    std::vector<StepRow> steps; // in time order
    bool hasDevice = false;
    bool operator==(const StepBreakdown &) const = default;
};

// One row per ProfilerStep#N op that starts in range. A step spans its CPU annotation; device
// time in it is what runs on the GPU during that span.
StepBreakdown buildStepBreakdown(const TraceIndex &index, const TimeRange &range = {}, const StopToken *stop = nullptr);

// The same breakdown over an arbitrary span (for a range selection), named "range".
StepRow breakdownSpan(const TraceIndex &index, std::int64_t start, std::int64_t end);

} // namespace pyrometer::analysis
