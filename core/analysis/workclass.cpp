#include "core/analysis/workclass.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

std::string lowerCase(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool has(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

bool hasAny(std::string_view text, std::initializer_list<std::string_view> parts)
{
    return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return has(text, p); });
}

// Categories of slices that are bookkeeping, not work: nothing is lost by not reading them.
constexpr std::string_view kBookkeeping[] = {
    "overhead",     "Trace",   "cpu_instant_event", "external_correlation", "cuda_profiler_range",
    "mtia_insight", "Overhead"};

// c10d's annotations of a collective ("nccl:all_reduce", "gloo:broadcast") time the collective
// itself: they are operators for the rules, not wrappers.
bool namesCollective(std::string_view name)
{
    return name.starts_with("nccl:") || name.starts_with("gloo:") || name.starts_with("rccl:");
}

} // namespace

RuntimeCall runtimeCallOf(std::string_view name)
{
    const auto lower = lowerCase(name);
    if (has(lower, "synchronize"))
        return RuntimeCall::Synchronize;
    if (has(lower, "graphlaunch"))
        return RuntimeCall::GraphLaunch;
    if (hasAny(lower, {"eventrecord", "recordevent"}))
        return RuntimeCall::EventRecord;
    if (hasAny(lower, {"streamwaitevent", "waitonevent"}))
        return RuntimeCall::StreamWait;
    if (has(lower, "memcpy") && !has(lower, "async"))
        return RuntimeCall::BlockingCopy;
    // cuMemAlloc, cudaMalloc*, hipMalloc*, hipHostMalloc, hipExtMallocWithFlags, cudaHostAlloc;
    // expandable segments map physical memory with cuMemCreate / cuMemMap.
    if (hasAny(lower, {"malloc", "memalloc", "hostalloc"}) || lower == "cumemcreate" || lower == "cumemmap")
        return RuntimeCall::Allocate;
    if (hasAny(lower, {"cudafree", "hipfree", "hiphostfree", "cumemfree", "cudahostfree"}) || lower == "cumemrelease" ||
        lower == "cumemunmap")
        return RuntimeCall::Free;
    return RuntimeCall::Other;
}

std::string_view runtimeCallName(RuntimeCall call)
{
    switch (call) {
    case RuntimeCall::Synchronize: return "synchronize";
    case RuntimeCall::BlockingCopy: return "blocking copy";
    case RuntimeCall::Allocate: return "allocate";
    case RuntimeCall::Free: return "free";
    case RuntimeCall::GraphLaunch: return "graph launch";
    case RuntimeCall::EventRecord: return "event record";
    case RuntimeCall::StreamWait: return "stream wait";
    case RuntimeCall::Other: break;
    }
    return "other";
}

bool isHostReadOp(std::string_view name)
{
    return name == "aten::item" || name == "aten::_local_scalar_dense";
}

bool isCommunicationKernelName(std::string_view name)
{
    const auto lower = lowerCase(name);
    return hasAny(lower, {"nccl", "rccl", "deep_ep", "intranode", "internode", "notify_dispatch", "notify_combine",
                          "pplx", "cross_device_reduce", "nvshmem", "msccl", "allreduce", "all_reduce", "allgather",
                          "all_gather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all"});
}

bool isCommunicationEvent(const trace::Trace &trace, trace::TrackId track, std::uint32_t event)
{
    if (isCommunicationKernelName(trace.string(trace.track(track).eventName[event])))
        return true;
    const auto *collective = trace.collective(track, EventIndex(event));
    return collective && collective->name.isValid() && !trace.string(collective->name).empty();
}

bool isAnnotationCategory(std::string_view category)
{
    return category == "user_annotation" || category == "gpu_user_annotation";
}

bool isCompiledRegionName(std::string_view name)
{
    return has(name, "CompiledFxGraph") || name.starts_with("CompiledFunction") ||
           name.starts_with("Torch-Compiled Region");
}

std::unordered_set<std::string> annotationNames(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    std::vector<bool> annotation(trace.strings.size(), false);
    for (const std::string_view category : {"user_annotation", "gpu_user_annotation"})
        if (const auto id = trace.strings.find(category); id.isValid() && id.value < annotation.size())
            annotation[id.value] = true;
    std::unordered_set<std::string> names;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (ti.kind[i] != EventKind::Op)
                continue;
            const auto category = track.category[i];
            const auto name = trace.string(track.eventName[i]);
            if (((category.isValid() && category.value < annotation.size() && annotation[category.value]) ||
                 isCompiledRegionName(name)) &&
                !namesCollective(name))
                names.emplace(name);
        }
    }
    return names;
}

bool isOptimizerStepName(std::string_view name)
{
    return name.starts_with("Optimizer.step#");
}

bool isOutermostOptimizerStep(const TraceIndex &index, EventRef op)
{
    const auto &trace = *index.trace;
    const auto &ti = index.track(op.track);
    const auto &track = trace.track(op.track);
    if (!isOptimizerStepName(trace.string(track.eventName[op.event.value])))
        return false;
    for (auto p = ti.opParent[op.event.value]; p.isValid(); p = ti.opParent[p.value])
        if (isOptimizerStepName(trace.string(track.eventName[p.value])))
            return false;
    return true;
}

bool insideCompiledRegion(const TraceIndex &index, EventRef op)
{
    const auto &trace = *index.trace;
    const auto &ti = index.track(op.track);
    const auto &track = trace.track(op.track);
    if (ti.opParent.empty())
        return false;
    for (auto p = ti.opParent[op.event.value]; p.isValid(); p = ti.opParent[p.value])
        if (isCompiledRegionName(trace.string(track.eventName[p.value])))
            return true;
    return false;
}

std::string acceleratorName(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    std::map<std::string, std::uint64_t> words;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        if (!index.tracks[t].hasDevice)
            continue;
        const auto &process = trace.process(trace.tracks[t].process);
        std::string_view text = process.label.empty() ? std::string_view(process.name) : process.label;
        const auto space = text.find(' ');
        auto word = std::string(text.substr(0, space));
        if (!word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) { return std::isupper(c); }))
            words[word] += trace.tracks[t].size();
    }
    if (words.empty() || words.count("GPU"))
        return "GPU";
    return std::max_element(words.begin(), words.end(),
                            [](const auto &a, const auto &b) { return a.second < b.second; })
        ->first;
}

std::vector<CategoryCount> unreadCategories(const TraceIndex &index)
{
    const auto &trace = *index.trace;
    std::map<std::uint32_t, std::uint64_t> counts;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (ti.kind[i] == EventKind::Other && track.kind[i] == trace::SliceKind::Complete &&
                track.category[i].isValid())
                ++counts[track.category[i].value];
    }
    std::vector<CategoryCount> out;
    for (const auto &[id, n] : counts) {
        const auto name = trace.string(trace::StringId(id));
        if (std::find(std::begin(kBookkeeping), std::end(kBookkeeping), name) == std::end(kBookkeeping))
            out.push_back({std::string(name), n});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const CategoryCount &a, const CategoryCount &b) { return a.events > b.events; });
    return out;
}

std::string noDeviceWorkText(const TraceIndex &index)
{
    const auto unread = unreadCategories(index);
    if (unread.empty())
        return "This trace holds no kernels, copies or other device work: it was recorded without a device "
               "activity (ProfilerActivity.CUDA, or the accelerator's own).";
    std::string text = "This trace holds no device work Pyrometer can read; it holds events in categories it does "
                       "not understand: ";
    for (std::size_t k = 0; k < unread.size() && k < 4; ++k)
        text += (k ? ", " : "") + unread[k].name + " (" + std::to_string(unread[k].events) + ")";
    return text + ".";
}

} // namespace pyrometer::analysis
