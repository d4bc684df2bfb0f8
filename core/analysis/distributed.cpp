#include "core/analysis/distributed.h"

#include "core/analysis/intervals.h"
#include "core/analysis/steps.h"
#include "core/analysis/stepspans.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace pyrometer::analysis {

using trace::EventIndex;
using trace::TrackId;

namespace {

std::string lowered(std::string_view text)
{
    std::string out(text);
    for (auto &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

// "nccl:all_reduce", "gloo:broadcast", "rccl:..." annotations name a collective.
bool isCollectiveAnnotation(std::string_view name)
{
    return startsWith(name, "nccl:") || startsWith(name, "gloo:") || startsWith(name, "rccl:");
}

// The ops around a collective's launch that describe it: torch's c10d op and record_param_comms.
bool describesCollective(std::string_view name)
{
    return startsWith(name, "c10d::") || name == "record_param_comms";
}

// "ncclKernel_AllReduce_RING_LL_Sum_float(...)", "ncclDevKernel_AllGather_RING_LL(...)" ->
// "AllReduce", "AllGather"; empty when the name has no such part.
std::string_view kernelCollective(std::string_view name)
{
    const auto lower = lowered(name);
    auto at = lower.find("kernel_");
    if (at == std::string::npos || at > 16)
        return {};
    at += 7;
    auto end = at;
    while (end < name.size() && std::isalnum(static_cast<unsigned char>(name[end])))
        ++end;
    return name.substr(at, end - at);
}

// Each top-level entry of an "Input Dims" text ("[[2,3],[],[[4],[5]]]") as a count of elements:
// the product of its dims, summed over nested lists; 0 for an empty entry (a scalar or none).
std::vector<std::int64_t> elementCounts(std::string_view dims)
{
    std::vector<std::int64_t> counts;
    int depth = 0;
    std::int64_t product = 1;
    std::int64_t entry = 0;
    bool haveNumber = false;
    std::int64_t number = 0;
    bool inNumber = false;
    for (const char c : dims) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            number = number * 10 + (c - '0');
            inNumber = true;
            continue;
        }
        if (inNumber) {
            product *= number;
            haveNumber = true;
            number = 0;
            inNumber = false;
        }
        if (c == '[') {
            ++depth;
            if (depth >= 2) {
                product = 1;
                haveNumber = false;
            }
        } else if (c == ']') {
            if (depth >= 2 && haveNumber)
                entry += product;
            haveNumber = false;
            if (depth == 2) {
                counts.push_back(entry);
                entry = 0;
            }
            --depth;
        }
    }
    return counts;
}

// The strings of an "Input type" text (["float", "Scalar", ""]).
std::vector<std::string_view> typeNames(std::string_view types)
{
    std::vector<std::string_view> names;
    std::size_t at = 0;
    while ((at = types.find('"', at)) != std::string_view::npos) {
        const auto end = types.find('"', at + 1);
        if (end == std::string_view::npos)
            break;
        names.push_back(types.substr(at + 1, end - at - 1));
        at = end + 1;
    }
    return names;
}

struct Description {
    std::string name;
    std::int64_t bytes = -1;
    int groupSize = -1;
    std::int64_t largestTensor = 0; // for the group size of gathers and scatters
    std::int64_t smallestTensor = 0;
    std::string group;
    std::string groupDesc;
    std::string groupRanks;
    std::int64_t sequence = -1;
};

void describeFromArgs(const trace::Trace &trace, const trace::CollectiveArgs &args, Description &d)
{
    if (d.name.empty() && args.name.isValid())
        d.name = canonicalCollective(trace.string(args.name));
    if (d.bytes < 0 && args.dtype.isValid()) {
        const auto size = dtypeBytes(trace.string(args.dtype));
        const auto elements = std::max(args.inNelems, args.outNelems);
        if (size > 0 && elements >= 0)
            d.bytes = elements * size;
    }
    if (d.groupSize < 0 && args.groupSize > 0)
        d.groupSize = args.groupSize;
    if (d.group.empty() && args.groupName.isValid())
        d.group = trace.string(args.groupName);
    if (d.groupDesc.empty() && args.groupDesc.isValid())
        d.groupDesc = trace.string(args.groupDesc);
    if (d.groupRanks.empty() && args.groupRanks.isValid())
        d.groupRanks = trace.string(args.groupRanks);
    if (d.sequence < 0 && args.sequence >= 0)
        d.sequence = args.sequence;
}

void describeFromShapes(const trace::Trace &trace, const trace::EventArgs &args, Description &d)
{
    if (!args.inputDims.isValid() || !args.inputTypes.isValid())
        return;
    const auto counts = elementCounts(trace.string(args.inputDims));
    const auto types = typeNames(trace.string(args.inputTypes));
    for (std::size_t i = 0; i < counts.size() && i < types.size(); ++i) {
        const auto size = dtypeBytes(types[i]);
        if (counts[i] <= 0 || size <= 0)
            continue;
        d.bytes = std::max(d.bytes, counts[i] * size);
        d.largestTensor = std::max(d.largestTensor, counts[i]);
        d.smallestTensor = d.smallestTensor == 0 ? counts[i] : std::min(d.smallestTensor, counts[i]);
    }
}

// What the ops from `op` outwards (the op that launched a communication kernel, or a gloo
// annotation) say about the collective; `annotation` receives the nccl:/gloo: annotation.
Description describeChain(const TraceIndex &index, EventRef op, EventRef &annotation)
{
    Description d;
    const auto &trace = *index.trace;
    Description shapes;
    bool haveArgs = false;
    for (EventIndex e = op.event; op.track.isValid() && e.isValid(); e = index.track(op.track).opParent[e.value]) {
        const auto name = trace.string(trace.track(op.track).eventName[e.value]);
        const bool isAnnotation = isCollectiveAnnotation(name);
        if (isAnnotation && !annotation.isValid())
            annotation = {op.track, e};
        if (!isAnnotation && !describesCollective(name))
            continue;
        if (const auto *args = trace.collective(op.track, e)) {
            describeFromArgs(trace, *args, d);
            haveArgs = true;
        }
        if (const auto *args = trace.eventArgs(op.track, e))
            describeFromShapes(trace, *args, shapes);
        if (d.name.empty() && (isAnnotation || startsWith(name, "c10d::")))
            d.name = canonicalCollective(name);
    }
    if (!haveArgs || d.bytes < 0)
        d.bytes = shapes.bytes;
    // An all-gather's output is its input times the group (a reduce-scatter's, the other way).
    if (d.groupSize < 0 && (d.name == "all_gather" || d.name == "reduce_scatter") && shapes.smallestTensor > 0
        && shapes.largestTensor > shapes.smallestTensor && shapes.largestTensor % shapes.smallestTensor == 0)
        d.groupSize = static_cast<int>(shapes.largestTensor / shapes.smallestTensor);
    return d;
}

// Each step's own kernels (stepspans.h), computation and communication apart.
struct StepKernels {
    std::vector<Interval> compute;
    std::vector<Interval> communication;
};

std::vector<StepKernels> stepKernels(const TraceIndex &index, const StepSpans &spans)
{
    const auto &trace = *index.trace;
    std::vector<StepKernels> result(spans.steps.size());
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const auto step = spans.of(TrackId(t), i);
            if (ti.kind[i] != EventKind::Kernel || step < 0)
                continue;
            auto &kernels = result[static_cast<std::size_t>(step)];
            const Interval span{track.start[i], track.end(EventIndex(i))};
            if (isCommunicationEvent(trace, TrackId(t), i))
                kernels.communication.push_back(span);
            else
                kernels.compute.push_back(span);
        }
    }
    return result;
}

} // namespace

std::string canonicalCollective(std::string_view name)
{
    for (const std::string_view prefix : {"nccl:", "gloo:", "rccl:", "c10d::"}) {
        if (startsWith(name, prefix)) {
            name.remove_prefix(prefix.size());
            break;
        }
    }
    if (const auto part = kernelCollective(name); !part.empty())
        name = part;
    std::string key;
    for (const char c : name) {
        if (std::isalpha(static_cast<unsigned char>(c)))
            key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    struct Rule {
        std::string_view prefix;
        std::string_view canonical;
        bool exact;
    };
    static constexpr Rule rules[] = {
        {"allreduce", "all_reduce", false},      {"allgather", "all_gather", false},
        {"reducescatter", "reduce_scatter", false}, {"alltoall", "all_to_all", false},
        {"broadcast", "broadcast", false},       {"sendrecv", "send_recv", false},
        {"reduce", "reduce", true},
        {"gather", "gather", true},              {"scatter", "scatter", true},
        {"send", "send", true},                  {"recv", "recv", true},
    };
    if (key.find("barrier") != std::string::npos) // barrier, monitored_barrier
        return "barrier";
    for (const auto &rule : rules) {
        if (rule.exact ? key == rule.prefix : startsWith(key, rule.prefix))
            return std::string(rule.canonical);
    }
    std::string plain(name);
    while (!plain.empty() && plain.back() == '_')
        plain.pop_back();
    return plain;
}

double busBandwidthFactor(std::string_view name, int ranks)
{
    if (ranks < 1)
        return 1.0;
    const double n = ranks;
    if (name == "all_reduce")
        return 2.0 * (n - 1) / n;
    if (name == "all_gather" || name == "reduce_scatter" || name == "all_to_all")
        return (n - 1) / n;
    return 1.0;
}

int dtypeBytes(std::string_view dtype)
{
    auto type = lowered(dtype);
    if (startsWith(type, "c10::"))
        type.erase(0, 5);
    if (startsWith(type, "float8") || type == "unsigned char" || type == "signed char" || type == "char"
        || type == "bool" || type == "uint8" || type == "int8" || type == "byte")
        return 1;
    if (type == "half" || type == "bfloat16" || type == "float16" || type == "short" || type == "short int"
        || type == "int16")
        return 2;
    if (type == "float" || type == "float32" || type == "int" || type == "int32" || type == "unsigned int")
        return 4;
    if (type == "double" || type == "float64" || type == "long" || type == "long int" || type == "long long"
        || type == "int64" || type == "complex<float>" || type == "complexfloat")
        return 8;
    if (type == "complex<double>" || type == "complexdouble")
        return 16;
    return 0;
}

double RankFigures::computePerStepUs() const
{
    const auto perStep = steps.empty() ? static_cast<double>(computeNs) : static_cast<double>(computeNs) / steps.size();
    return perStep / 1000.0;
}

int RankFigures::stepOf(const CollectiveCall &call) const
{
    if (call.onDevice) {
        for (std::size_t s = 0; s < steps.size(); ++s) {
            if (steps[s].gpuEndNs > steps[s].gpuStartNs && call.startNs >= steps[s].gpuStartNs &&
                call.startNs < steps[s].gpuEndNs)
                return static_cast<int>(s);
        }
    }
    const auto after = std::upper_bound(steps.begin(), steps.end(), call.startNs,
                                        [](std::int64_t t, const RankStep &step) { return t < step.startNs; });
    return static_cast<int>(after - steps.begin()) - 1;
}

namespace {

// What a rank's tracks did: the spans of computation, communication and memory traffic, and
// the collective calls by the annotation (or op, or kernel) they belong to.
struct RankActivity {
    std::vector<Interval> compute;
    std::vector<Interval> communication;
    std::vector<Interval> memory;
    std::map<EventRef, CollectiveCall> calls;

    void addCall(EventRef key, const Description &d, std::int64_t start, std::int64_t end, bool onDevice)
    {
        auto [it, added] = calls.try_emplace(key);
        auto &call = it->second;
        if (added) {
            call = {d.name, d.bytes, d.groupSize, start, end, onDevice, d.group, d.groupDesc, d.groupRanks, d.sequence};
        } else {
            call.startNs = std::min(call.startNs, start);
            call.endNs = std::max(call.endNs, end);
        }
    }
};

// A device track: communication kernels (each a collective call), compute kernels, copies and sets.
void addDeviceTrack(const TraceIndex &index, TrackId id, RankActivity &activity)
{
    const auto &trace = *index.trace;
    const auto &track = trace.tracks[id.value];
    const auto &ti = index.tracks[id.value];
    for (std::uint32_t i = 0; i < track.size(); ++i) {
        const Interval span{track.start[i], track.start[i] + track.duration[i]};
        switch (ti.kind[i]) {
        case EventKind::Kernel:
            if (isCommunicationEvent(trace, id, i)) {
                activity.communication.push_back(span);
                EventRef annotation;
                auto d = describeChain(index, ti.launchOp.empty() ? EventRef{} : ti.launchOp[i], annotation);
                if (const auto *args = trace.collective(id, EventIndex(i)))
                    describeFromArgs(trace, *args, d);
                if (d.name.empty())
                    d.name = canonicalCollective(trace.string(track.eventName[i]));
                const EventRef own{id, EventIndex(i)};
                activity.addCall(annotation.isValid() ? annotation : own, d, span.first, span.second, true);
            } else {
                activity.compute.push_back(span);
            }
            break;
        case EventKind::Memcpy:
        case EventKind::Memset: activity.memory.push_back(span); break;
        default: break;
        }
    }
}

// A CPU-only job's thread: gloo annotations are the communication; the ops outside them (and
// outside the steps, and not enclosing a collective) the computation.
void addCpuTrack(const TraceIndex &index, TrackId id, RankActivity &activity)
{
    const auto &trace = *index.trace;
    const auto &track = trace.tracks[id.value];
    const auto &ti = index.tracks[id.value];
    std::vector<bool> skip(track.size(), false);
    for (std::uint32_t i = 0; i < track.size(); ++i) {
        if (ti.kind[i] != EventKind::Op)
            continue;
        const auto name = trace.string(track.eventName[i]);
        if (!isCollectiveAnnotation(name))
            continue;
        const Interval span{track.start[i], track.start[i] + track.duration[i]};
        activity.communication.push_back(span);
        EventRef annotation;
        const auto d = describeChain(index, {id, EventIndex(i)}, annotation);
        activity.addCall({id, EventIndex(i)}, d, span.first, span.second, false);
        for (auto p = EventIndex(i); p.isValid(); p = ti.opParent[p.value])
            skip[p.value] = true;
    }
    for (std::uint32_t i = 0; i < track.size(); ++i) {
        if (ti.kind[i] != EventKind::Op || skip[i] || isProfilerStep(trace.string(track.eventName[i])))
            continue;
        bool insideCollective = false;
        for (auto p = ti.opParent[i]; p.isValid() && !insideCollective; p = ti.opParent[p.value])
            insideCollective = isCollectiveAnnotation(trace.string(track.eventName[p.value]));
        if (!insideCollective)
            activity.compute.push_back({track.start[i], track.start[i] + track.duration[i]});
    }
}

// Each step's computation and communication: the kernels its launches ran, or on a CPU-only
// job the spans within its CPU time.
void addSteps(const TraceIndex &index, const StepSpans &spans, const IntervalSet &computeSet,
              const IntervalSet &communicationSet, RankFigures &f)
{
    std::vector<std::int64_t> stepDurations;
    const auto kernels = f.cpuOnly ? std::vector<StepKernels>{} : stepKernels(index, spans);
    for (std::size_t s = 0; s < spans.steps.size(); ++s) {
        const auto &step = spans.steps[s];
        RankStep row{step.name, step.cpuStartNs, step.cpuEndNs - step.cpuStartNs, 0, 0, step.gpuStartNs, step.gpuEndNs};
        const auto stepCompute =
            f.cpuOnly ? computeSet.clipped(step.cpuStartNs, step.cpuEndNs) : IntervalSet(kernels[s].compute);
        const auto stepCommunication = f.cpuOnly ? communicationSet.clipped(step.cpuStartNs, step.cpuEndNs)
                                                 : IntervalSet(kernels[s].communication);
        row.computeNs = stepCompute.length();
        row.communicationNs = stepCommunication.length();
        row.exposedCommunicationNs = row.communicationNs - stepCompute.intersection(stepCommunication).length();
        stepDurations.push_back(row.durationNs);
        f.steps.push_back(std::move(row));
    }
    f.stepTimeUs = static_cast<double>(stepMean(stepDurations).meanNs) / 1000.0;
}

} // namespace

RankFigures rankFigures(const TraceIndex &index, const StopToken *stop)
{
    const auto &trace = *index.trace;
    RankFigures f;
    f.rank = trace.info.distributed.rank;
    f.worldSize = trace.info.distributed.worldSize;
    f.backend = trace.info.distributed.backend;
    f.file = trace.info.file.string();
    f.cpuOnly = !index.hasDevice;

    RankActivity activity;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        if (stop && stop->stopRequested())
            return {};
        if (index.tracks[t].hasDevice)
            addDeviceTrack(index, TrackId(t), activity);
        else if (f.cpuOnly && index.tracks[t].hasOps)
            addCpuTrack(index, TrackId(t), activity);
    }

    const auto spans = buildStepSpans(index, stop);
    if (stop && stop->stopRequested())
        return {};
    IntervalSet computeSet(std::move(activity.compute));
    IntervalSet communicationSet(std::move(activity.communication));
    IntervalSet memorySet(std::move(activity.memory));
    const auto busyAll = computeSet.united(communicationSet).united(memorySet);
    if (!spans.steps.empty()) {
        f.windowStartNs = spans.steps.front().startNs;
        f.windowEndNs = spans.steps.back().endNs;
    } else if (!busyAll.empty()) {
        f.windowStartNs = busyAll.spans().front().first;
        f.windowEndNs = busyAll.spans().back().second;
    }

    const auto from = f.windowStartNs;
    const auto to = f.windowEndNs;
    computeSet = computeSet.clipped(from, to);
    communicationSet = communicationSet.clipped(from, to);
    memorySet = memorySet.clipped(from, to);
    const auto computeOrCommunication = computeSet.united(communicationSet);
    const auto busy = computeOrCommunication.united(memorySet);
    f.computeNs = computeSet.length();
    f.communicationNs = communicationSet.length();
    f.memoryNs = memorySet.length();
    f.overlapNs = computeSet.intersection(communicationSet).length();
    f.idleNs = (to - from) - busy.length();
    f.overlapPct = f.communicationNs > 0 ? 100.0 * static_cast<double>(f.overlapNs) / f.communicationNs : 0.0;
    f.computeOnlyNs = f.computeNs - f.overlapNs;
    f.hiddenCommunicationNs = f.overlapNs;
    f.exposedCommunicationNs = f.communicationNs - f.overlapNs;
    f.memoryOnlyNs = busy.length() - computeOrCommunication.length();

    addSteps(index, spans, computeSet, communicationSet, f);
    for (auto &[key, call] : activity.calls)
        f.collectives.push_back(std::move(call));
    std::sort(f.collectives.begin(), f.collectives.end(), [](const CollectiveCall &a, const CollectiveCall &b) {
        return std::tie(a.startNs, a.endNs) < std::tie(b.startNs, b.endNs);
    });
    return f;
}

} // namespace pyrometer::analysis
