#pragma once

#include "core/analysis/launches.h"
#include "core/analysis/traceindex.h"
#include "core/util/progress.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// The steps of a trace on both clocks. The CPU runs ahead of the GPU (in any GPU-bound loop a
// step's kernels run while the CPU is in the next ProfilerStep), so device work belongs to the
// step that launched it, not to the step whose CPU span it runs in (as Holistic Trace Analysis
// assigns iterations):
//  - a kernel, memcpy or memset belongs to the step whose CPU span contains the start of its
//    launching call (launchCalls(), the same correlation id);
//  - device work with no launching call in the trace falls back to time: the step whose CPU
//    span contains its start;
//  - a step's GPU span runs from the first start to the last end of its own device work;
//  - a step's span (the time it took, as the TensorBoard plugin measures it) runs from the later
//    of its CPU start and the previous step's end to the later of its CPU end and its GPU end.
//    Consecutive spans do not overlap, so per-step figures over them add up: the time the GPU
//    spent on step N's kernels while the CPU was already in step N+1 is step N's.
// CPU figures use the CPU span; per-step device figures, the attribution and the span.

inline constexpr std::int32_t kNoStep = -1;
// A device event launched before the profiler started: its correlation id has no call in a
// trace that records launches, and it ran on its stream before any event launched in the trace
// (it was queued already). It belongs to no step, and no step's breakdown counts it.
inline constexpr std::int32_t kLaunchedBefore = -2;

struct StepSpan {
    std::string name;  // "ProfilerStep#12"
    EventRef event;    // the ProfilerStep#N op
    std::int64_t cpuStartNs = 0;
    std::int64_t cpuEndNs = 0;
    std::int64_t gpuStartNs = 0; // both 0 when the step launched no device work
    std::int64_t gpuEndNs = 0;
    std::uint64_t deviceEvents = 0; // kernels, memcpy and memset attributed to the step
    std::int64_t startNs = 0;       // the step's span
    std::int64_t endNs = 0;
    // The part of a combined trace (a job's rank, trace::processPart) whose step it is; 0 in a
    // trace of one process. Each part's steps follow one another; parts' steps overlap.
    std::uint32_t part = 0;
    bool hasGpu() const { return deviceEvents > 0; }
    std::int64_t durationNs() const { return endNs - startNs; }
    bool operator==(const StepSpan &) const = default;
};

// How a trace's steps were found, the first rule that finds any:
//  - ProfilerStep: torch.profiler's ProfilerStep#N annotations (prof.step() in the loop);
//  - OptimizerStep: without those, the optimizer's Optimizer.step#… annotations (the outermost
//    of nested ones, as torchrec's CombinedOptimizer holds Adam's): an iteration ends where its
//    optimizer step ends, so step k runs from step k-1's end (the trace's start for the first);
//  - RepeatedAnnotation: else the top-level annotation (user_annotation) with three or more
//    calls that follow one another (none overlaps the next: concurrent requests of a server are
//    not steps) and cover at least kRepeatedCoverage of the trace, the most time first: each
//    call is a step, over its own span (vLLM's execute_context_… per scheduler step);
//  - None: no steps; analyses take the whole trace as one span.
enum class StepRule : std::uint8_t { None, ProfilerStep, OptimizerStep, RepeatedAnnotation };
// One sentence on how the steps were found: "Steps end where the optimizer's steps end
// (Optimizer.step#SGD.step): the trace has no ProfilerStep.", ...
std::string stepRuleText(StepRule rule, std::string_view example = {});
inline constexpr std::size_t kMinRepeatedAnnotations = 3;
inline constexpr double kRepeatedCoverage = 0.5;

struct StepMark {
    std::string name;
    EventRef event; // the annotation that marks the step
    std::int64_t cpuStartNs = 0;
    std::int64_t cpuEndNs = 0;
    bool operator==(const StepMark &) const = default;
};

struct StepMarks {
    StepRule rule = StepRule::None;
    std::vector<StepMark> marks; // by CPU start
    bool operator==(const StepMarks &) const = default;
};

// The steps of a trace by the first rule above that finds any (cheap: no device work looked at).
StepMarks findSteps(const TraceIndex &index);

struct StepSpans {
    StepRule rule = StepRule::None;              // how steps were found
    std::string ruleExample;                     // the annotation's name ("Optimizer.step#SGD.step")
    std::vector<StepSpan> steps;                 // by CPU start
    std::vector<std::vector<std::int32_t>> step; // by TrackId, per event: a device event's step
                                                 // (index into steps), kNoStep or
                                                 // kLaunchedBefore; empty for tracks without
                                                 // device events
    std::uint64_t byLaunch = 0; // device events attributed through their launching call
    std::uint64_t byTime = 0;   // device events without one, attributed by time

    std::int32_t of(trace::TrackId track, std::uint32_t event) const
    {
        const auto &ofTrack = step[track.value];
        return event < ofTrack.size() ? ofTrack[event] : kNoStep;
    }
    std::int32_t of(EventRef deviceEvent) const { return of(deviceEvent.track, deviceEvent.event.value); }
    bool operator==(const StepSpans &) const = default;
};

// The ProfilerStep#N ops of a trace, in time order (cheap: no device work looked at).
std::vector<EventRef> profilerSteps(const TraceIndex &index);

// Every step of the trace (findSteps), with its device work. Empty when stopped.
StepSpans buildStepSpans(const TraceIndex &index, const StopToken *stop = nullptr);
// The same with the launching calls found already.
StepSpans buildStepSpans(const TraceIndex &index, const LaunchCalls &calls, const StopToken *stop = nullptr);

// The longest step by its span (the first of equals), where a fix pays most; kNoStep when
// there is none.
std::int32_t longestStep(const std::vector<StepSpan> &steps);

// The step (index into spans) whose CPU span contains time, else kNoStep. Steps of one part.
std::int32_t stepAtCpuTime(const std::vector<StepSpan> &steps, std::int64_t time);

} // namespace pyrometer::analysis
