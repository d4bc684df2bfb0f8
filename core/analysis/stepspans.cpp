#include "core/analysis/stepspans.h"

#include <algorithm>

namespace pyrometer::analysis {

using trace::EventIndex;
using trace::TrackId;

std::vector<EventRef> profilerSteps(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    std::vector<std::int8_t> isStep(trace.strings.size(), -1);
    std::vector<std::pair<std::int64_t, EventRef>> steps;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (ti.kind[i] != EventKind::Op)
                continue;
            auto &known = isStep[track.eventName[i].value];
            if (known < 0)
                known = isProfilerStep(trace.string(track.eventName[i])) ? 1 : 0;
            if (known == 1)
                steps.push_back({track.start[i], {TrackId(t), EventIndex(i)}});
        }
    }
    std::sort(steps.begin(), steps.end());
    std::vector<EventRef> result;
    result.reserve(steps.size());
    for (const auto &[start, ref] : steps)
        result.push_back(ref);
    return result;
}

std::int32_t stepAtCpuTime(const std::vector<StepSpan> &steps, std::int64_t time)
{
    // The last step that starts at or before time; steps on the CPU follow one another.
    const auto after =
        std::upper_bound(steps.begin(), steps.end(), time, [](std::int64_t t, const StepSpan &s) { return t < s.cpuStartNs; });
    if (after == steps.begin())
        return kNoStep;
    const auto &step = *(after - 1);
    return time < step.cpuEndNs ? static_cast<std::int32_t>(after - 1 - steps.begin()) : kNoStep;
}

namespace {

StepSpans spansOf(const TraceIndex &index, const LaunchCalls *knownCalls, const StopToken *stop)
{
    const auto &trace = *index.trace;
    StepSpans result;
    for (const auto ref : profilerSteps(index)) {
        const auto &track = trace.track(ref.track);
        StepSpan step;
        step.name = std::string(trace.string(track.eventName[ref.event.value]));
        step.event = ref;
        step.cpuStartNs = track.start[ref.event.value];
        step.cpuEndNs = track.end(ref.event);
        result.steps.push_back(std::move(step));
    }
    result.step.resize(trace.tracks.size());
    if (index.hasDevice && !result.steps.empty()) {
        LaunchCalls found;
        if (!knownCalls) {
            found = launchCalls(index, stop);
            if (stop && stop->stopRequested())
                return {};
        }
        const auto &calls = knownCalls ? *knownCalls : found;
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &ti = index.tracks[t];
            if (!ti.hasDevice)
                continue;
            const auto &track = trace.tracks[t];
            auto &steps = result.step[t];
            steps.assign(track.size(), kNoStep);
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (!isDeviceKind(ti.kind[i]))
                    continue;
                std::int32_t s = kNoStep;
                if (const auto call = calls.of(TrackId(t), i); call.isValid()) {
                    s = stepAtCpuTime(result.steps, trace.track(call.track).start[call.event.value]);
                    ++result.byLaunch;
                } else {
                    s = stepAtCpuTime(result.steps, track.start[i]);
                    ++result.byTime;
                }
                steps[i] = s;
                if (s == kNoStep)
                    continue;
                auto &step = result.steps[static_cast<std::size_t>(s)];
                const auto start = track.start[i];
                const auto end = track.end(EventIndex(i));
                step.gpuStartNs = step.deviceEvents == 0 ? start : std::min(step.gpuStartNs, start);
                step.gpuEndNs = step.deviceEvents == 0 ? end : std::max(step.gpuEndNs, end);
                ++step.deviceEvents;
            }
        }
    }
    std::int64_t previousEnd = 0;
    for (std::size_t s = 0; s < result.steps.size(); ++s) {
        auto &step = result.steps[s];
        step.startNs = s == 0 ? step.cpuStartNs : std::max(step.cpuStartNs, previousEnd);
        step.endNs = std::max(step.cpuEndNs, step.startNs);
        if (step.hasGpu())
            step.endNs = std::max(step.endNs, step.gpuEndNs);
        previousEnd = step.endNs;
    }
    if (stop && stop->stopRequested())
        return {};
    return result;
}

} // namespace

StepSpans buildStepSpans(const TraceIndex &index, const StopToken *stop)
{
    return spansOf(index, nullptr, stop);
}

StepSpans buildStepSpans(const TraceIndex &index, const LaunchCalls &calls, const StopToken *stop)
{
    return spansOf(index, &calls, stop);
}

std::int32_t longestStep(const std::vector<StepSpan> &steps)
{
    std::int32_t longest = kNoStep;
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (longest == kNoStep || steps[i].durationNs() > steps[std::size_t(longest)].durationNs())
            longest = std::int32_t(i);
    return longest;
}

} // namespace pyrometer::analysis
