#include "core/analysis/stepspans.h"

#include "core/analysis/workclass.h"
#include "core/trace/combine.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

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

namespace {

bool anyLaunchRecorded(const LaunchCalls &calls)
{
    for (const auto &track : calls.byTrack)
        for (const auto &call : track)
            if (call.isValid())
                return true;
    return false;
}

StepMark markOf(const trace::Trace &trace, TrackId t, std::uint32_t i)
{
    const auto &track = trace.track(t);
    return {
        std::string(trace.string(track.eventName[i])), {t, EventIndex(i)}, track.start[i], track.end(EventIndex(i))};
}

void sortByStart(std::vector<StepMark> &marks)
{
    std::sort(marks.begin(), marks.end(),
              [](const StepMark &a, const StepMark &b) { return a.cpuStartNs < b.cpuStartNs; });
}

// Outermost Optimizer.step#… annotations: iteration k ends where the k-th one ends.
std::vector<StepMark> optimizerSteps(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    std::vector<StepMark> marks;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (ti.kind[i] == EventKind::Op && isOutermostOptimizerStep(index, {TrackId(t), EventIndex(i)}))
                marks.push_back(markOf(trace, TrackId(t), i));
        }
    }
    sortByStart(marks);
    // Each part of a combined trace (a job's rank) counts its own iterations.
    std::map<std::uint32_t, std::pair<std::int64_t, std::size_t>> previous; // per part: end, count
    for (auto &mark : marks) {
        const auto part = trace::processPart(trace.processes[trace.track(mark.event.track).process.value]);
        auto &[previousEnd, count] = previous.try_emplace(part, trace.info.spanStart, 0).first->second;
        mark.name += " #" + std::to_string(++count);
        const auto end = mark.cpuEndNs;
        mark.cpuStartNs = std::min(previousEnd, mark.cpuStartNs);
        previousEnd = end;
    }
    return marks;
}

// Calls of the top-level annotation that repeats with the most time.
std::vector<StepMark> repeatedAnnotations(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    std::unordered_map<std::uint32_t, std::vector<StepMark>> byName; // top-level annotations
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (ti.kind[i] == EventKind::Op && !ti.opParent[i].isValid() &&
                isAnnotationCategory(trace.string(track.category[i])))
                byName[track.eventName[i].value].push_back(markOf(trace, TrackId(t), i));
    }
    // Calls of one name that follow one another (a step ends before the next begins) and cover at
    // least kRepeatedCoverage of the trace: concurrent requests of a server, or a short marker
    // repeated often, are not steps.
    const auto span = static_cast<double>(trace.info.spanEnd - trace.info.spanStart);
    std::vector<std::tuple<std::int64_t, std::uint32_t, std::vector<StepMark> *>> candidates;
    for (auto &[name, marks] : byName) {
        std::int64_t total = 0;
        for (const auto &mark : marks)
            total += mark.cpuEndNs - mark.cpuStartNs;
        if (marks.size() >= kMinRepeatedAnnotations && static_cast<double>(total) >= kRepeatedCoverage * span)
            candidates.push_back({total, name, &marks});
    }
    // The most time first; of equals, the name first in the string pool (a stable choice).
    std::sort(candidates.begin(), candidates.end(), [](const auto &a, const auto &b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
    });
    for (const auto &[total, name, marks] : candidates) {
        sortByStart(*marks);
        bool sequential = true;
        for (std::size_t k = 1; k < marks->size() && sequential; ++k)
            sequential = (*marks)[k].cpuStartNs >= (*marks)[k - 1].cpuEndNs;
        if (!sequential)
            continue;
        for (std::size_t k = 0; k < marks->size(); ++k)
            (*marks)[k].name += " #" + std::to_string(k + 1);
        return std::move(*marks);
    }
    return {};
}

} // namespace

std::string stepRuleText(StepRule rule, std::string_view example)
{
    const std::string named = example.empty() ? std::string() : " (" + std::string(example) + ")";
    switch (rule) {
    case StepRule::ProfilerStep: return "Steps are the trace's ProfilerStep#N annotations.";
    case StepRule::OptimizerStep:
        return "Steps end where the optimizer's steps end" + named + ": the trace has no ProfilerStep.";
    case StepRule::RepeatedAnnotation:
        return "Steps are the calls of a repeated top-level annotation" + named +
               ": the trace has no ProfilerStep or optimizer step.";
    case StepRule::None: break;
    }
    return "No steps: the trace has no ProfilerStep, optimizer step or repeated top-level annotation; figures are "
           "over the whole trace.";
}

StepMarks findSteps(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    StepMarks result;
    for (const auto ref : profilerSteps(index))
        result.marks.push_back(markOf(trace, ref.track, ref.event.value));
    if (!result.marks.empty()) {
        result.rule = StepRule::ProfilerStep;
        return result;
    }
    if (result.marks = optimizerSteps(index); !result.marks.empty()) {
        result.rule = StepRule::OptimizerStep;
        return result;
    }
    if (result.marks = repeatedAnnotations(index); !result.marks.empty())
        result.rule = StepRule::RepeatedAnnotation;
    return result;
}

namespace {

// A device event with a correlation id (whose call the trace does not hold).
bool launchedOutsideWindow(const trace::Trace &trace, trace::TrackId track, std::uint32_t event)
{
    const auto *args = trace.eventArgs(track, EventIndex(event));
    return args && args->correlation > 0;
}

} // namespace

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

// The steps of each part of a combined trace (a job's ranks side by side), each part's by CPU
// start: a rank's device work belongs to its own rank's steps, which overlap other ranks'.
class PartSteps {
public:
    PartSteps(const trace::Trace &trace, const std::vector<StepSpan> &steps) : m_trace(trace), m_steps(steps)
    {
        for (std::size_t s = 0; s < steps.size(); ++s)
            m_parts[steps[s].part].push_back(std::int32_t(s));
    }

    std::uint32_t partOf(TrackId track) const
    {
        return trace::processPart(m_trace.processes[m_trace.track(track).process.value]);
    }

    // The step of the track's part whose CPU span contains time, else kNoStep.
    std::int32_t at(TrackId track, std::int64_t time) const
    {
        const auto found = m_parts.find(partOf(track));
        if (found == m_parts.end())
            return kNoStep;
        const auto &order = found->second;
        const auto after = std::upper_bound(order.begin(), order.end(), time, [&](std::int64_t t, std::int32_t s) {
            return t < m_steps[std::size_t(s)].cpuStartNs;
        });
        if (after == order.begin())
            return kNoStep;
        const auto s = *(after - 1);
        return time < m_steps[std::size_t(s)].cpuEndNs ? s : kNoStep;
    }

    const std::map<std::uint32_t, std::vector<std::int32_t>> &parts() const { return m_parts; }

private:
    const trace::Trace &m_trace;
    const std::vector<StepSpan> &m_steps;
    std::map<std::uint32_t, std::vector<std::int32_t>> m_parts;
};

StepSpans spansOf(const TraceIndex &index, const LaunchCalls *knownCalls, const StopToken *stop)
{
    const auto &trace = *index.trace;
    StepSpans result;
    auto found = findSteps(index);
    result.rule = found.rule;
    if (!found.marks.empty()) {
        const auto &first = found.marks.front().event;
        result.ruleExample = std::string(trace.string(trace.track(first.track).eventName[first.event.value]));
    }
    for (auto &mark : found.marks) {
        StepSpan step;
        step.name = std::move(mark.name);
        step.event = mark.event;
        step.cpuStartNs = mark.cpuStartNs;
        step.cpuEndNs = mark.cpuEndNs;
        step.part = trace::processPart(trace.processes[trace.track(mark.event.track).process.value]);
        result.steps.push_back(std::move(step));
    }
    const PartSteps partSteps(trace, result.steps);
    result.step.resize(trace.tracks.size());
    if (index.hasDevice && !result.steps.empty()) {
        LaunchCalls ownCalls;
        if (!knownCalls) {
            ownCalls = launchCalls(index, stop);
            if (stop && stop->stopRequested())
                return {};
        }
        const auto &calls = knownCalls ? *knownCalls : ownCalls;
        const bool launchesRecorded = anyLaunchRecorded(calls);
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &ti = index.tracks[t];
            if (!ti.hasDevice)
                continue;
            const auto &track = trace.tracks[t];
            auto &steps = result.step[t];
            steps.assign(track.size(), kNoStep);
            // The first start on this stream of an event whose call the trace holds: what ran
            // before it without a call had been queued before the profiler started.
            auto firstLaunched = std::numeric_limits<std::int64_t>::max();
            for (std::uint32_t i = 0; i < track.size() && launchesRecorded; ++i)
                if (isDeviceKind(ti.kind[i]) && calls.of(TrackId(t), i).isValid()) {
                    firstLaunched = track.start[i];
                    break;
                }
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (!isDeviceKind(ti.kind[i]))
                    continue;
                std::int32_t s = kNoStep;
                if (const auto call = calls.of(TrackId(t), i); call.isValid()) {
                    s = partSteps.at(call.track, trace.track(call.track).start[call.event.value]);
                    ++result.byLaunch;
                } else if (launchesRecorded && track.start[i] < firstLaunched &&
                           launchedOutsideWindow(trace, TrackId(t), i)) {
                    steps[i] = kLaunchedBefore; // queued before the profiler started: no step's work
                    continue;
                } else {
                    s = partSteps.at(TrackId(t), track.start[i]);
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
    for (const auto &[part, order] : partSteps.parts()) {
        std::int64_t previousEnd = 0;
        for (std::size_t k = 0; k < order.size(); ++k) {
            auto &step = result.steps[std::size_t(order[k])];
            step.startNs = k == 0 ? step.cpuStartNs : std::max(step.cpuStartNs, previousEnd);
            step.endNs = std::max(step.cpuEndNs, step.startNs);
            if (step.hasGpu())
                step.endNs = std::max(step.endNs, step.gpuEndNs);
            previousEnd = step.endNs;
        }
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
