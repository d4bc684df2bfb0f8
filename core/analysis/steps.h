#pragma once

#include "core/analysis/stepspans.h"
#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <array>
#include <cstdint>
#include <functional>
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
    std::int64_t startNs = 0;    // the step's span (stepspans.h): its CPU start, or the previous
    std::int64_t durationNs = 0; // step's end, to its CPU end or the end of its device work
    std::int64_t cpuStartNs = 0; // the ProfilerStep annotation on the CPU
    std::int64_t cpuEndNs = 0;
    std::int64_t gpuStartNs = 0; // the device work the step launched; 0 and 0 without any
    std::int64_t gpuEndNs = 0;
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
    StepRule rule = StepRule::None; // how the steps were found (stepspans.h)
    std::string ruleExample;        // the annotation that marks them
    bool operator==(const StepBreakdown &) const = default;
};

// One row per step (findSteps: ProfilerStep#N, else optimizer steps, else a repeated annotation)
// whose CPU annotation starts in range, over the step's span
// (stepspans.h: from its CPU start, or the previous step's end, to the later of its CPU end and
// the end of the device work it launched), so that a step's kernels that run while the CPU is
// already in the next step count in their own step. Within the span, time is split by what ran
// then, as the TensorBoard plugin splits it.
StepBreakdown buildStepBreakdown(const TraceIndex &index, const TimeRange &range = {}, const StopToken *stop = nullptr);

// The same breakdown over an arbitrary span (for a range selection), named "range"; its CPU
// span is the span and it has no GPU span.
StepRow breakdownSpan(const TraceIndex &index, std::int64_t start, std::int64_t end);

// Which steps a mean step time stands for. The one mean every page, report and the CLI show.
//  - partial: the first or the last step (of two or more) whose duration is below
//    kPartialFraction x the median of the other steps: the trace starts or ends inside it
//    (a 49 µs stub after a 9.3 ms step), so its duration is not a step's. Left out of the mean.
//  - warm-up: one of the leading steps (before the middle step, partial ones not counted) whose
//    duration is above kWarmUpFactor x the median of the steps after it (partial ones not
//    counted); the run ends at the first step that is not. Kept in tables, left out of the mean.
//  - steady: every other step. The mean is theirs; with none, the mean of every step.
enum class StepKind : std::uint8_t { Steady, WarmUp, Partial };
std::string_view stepKindName(StepKind kind); // "steady", "warm-up", "partial"
inline constexpr double kPartialFraction = 0.25;
inline constexpr double kWarmUpFactor = 1.5;

struct StepMean {
    std::vector<StepKind> kinds; // per step, in the order given
    std::int64_t meanNs = 0;     // over the steady steps (every step when none is steady); truncated
    std::size_t steady = 0;
    std::size_t warmUp = 0;
    std::size_t partial = 0;
    bool operator==(const StepMean &) const = default;
};

StepMean stepMean(const std::vector<std::int64_t> &durationsNs);
StepMean stepMean(const StepBreakdown &steps); // over the steps' spans

// "mean 95.7 ms over 8 steady steps; 2 warm-up steps, 1 partial step left out" (durations as
// format writes them); "" without steps.
std::string describeStepMean(const StepMean &mean, const std::function<std::string(std::int64_t)> &format = {});

} // namespace pyrometer::analysis
