#include "core/analysis/advice.h"

#include "core/analysis/advicefixes.h"
#include "core/analysis/graphadvice.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/intervals.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kernelsequences.h"

#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/analysis/steps.h"
#include "core/analysis/workclass.h"
#include "core/util/format.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::TrackId;

std::string percentText(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100.0 * fraction);
    return text;
}

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

bool containsAny(std::string_view text, std::initializer_list<std::string_view> parts)
{
    return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return contains(text, p); });
}

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// Spans the step rules look at: each ProfilerStep, or the whole trace when it has none.
// The name of the one span stepsOrTrace gives for a trace without steps.
constexpr std::string_view kWholeTrace = "trace";

std::vector<StepRow> stepsOrTrace(const TraceIndex &index)
{
    auto steps = buildStepBreakdown(index).steps;
    if (steps.empty() && index.trace->info.spanEnd > index.trace->info.spanStart) {
        steps.push_back(breakdownSpan(index, index.trace->info.spanStart, index.trace->info.spanEnd));
        steps.back().name = kWholeTrace;
    }
    return steps;
}

void dataLoaderRule(const std::vector<StepRow> &steps, const AdviceOptions &options, std::vector<Finding> &out)
{
    std::int64_t loader = 0, total = 0, start = 0, end = 0;
    int hits = 0;
    for (const auto &step : steps) {
        if (step.durationNs <= 0)
            continue;
        const auto ns = step.ns(StepCategory::DataLoader);
        if (static_cast<double>(ns) <= options.dataLoaderFraction * static_cast<double>(step.durationNs))
            continue;
        if (hits++ == 0)
            start = step.startNs;
        end = step.startNs + step.durationNs;
        loader += ns;
        total += step.durationNs;
    }
    if (hits == 0)
        return;
    const double fraction = static_cast<double>(loader) / static_cast<double>(total);
    out.push_back(
        {"dataloader",
         "Steps wait for the DataLoader",
         std::to_string(hits) + " of " + std::to_string(steps.size()) + " steps spend " + percentText(fraction) +
             " of their time waiting for input data",
         {{"dataloader_pct", 100.0 * fraction, "%"},
          {"dataloader_us", static_cast<double>(loader) / 1000.0, "us"},
          {"steps", double(hits), "count"}},
         {},
         start,
         end,
         "Load data in worker processes: DataLoader(num_workers=N > 0, pin_memory=True, persistent_workers=True), "
         "and copy with .to(device, non_blocking=True)."});
}

// The host's blocking calls (workclass.h: synchronizations, blocking copies, item()) in the
// spans, each counted once (hostCalls below).
struct BlockingCalls {
    std::uint64_t count = 0;
    std::int64_t ns = 0;           // wall time some thread was blocked: the union over threads
    std::int64_t spansNs = 0;      // the spans looked at
    std::vector<EventRef> longest; // the longest first, up to five
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

// Fires when the host's blocking calls take at least syncFraction of the spans: a few
// microseconds of item() are not worth a finding, a copy that blocks for 42 ms is.
void syncRule(const TraceIndex &index, const BlockingCalls &calls, const AdviceOptions &options,
              std::vector<Finding> &out)
{
    if (calls.count == 0 || !index.hasDevice || calls.spansNs <= 0 ||
        static_cast<double>(calls.ns) < options.syncFraction * static_cast<double>(calls.spansNs))
        return;
    const auto &trace = *index.trace;
    const auto longest = calls.longest.front();
    const auto &track = trace.track(longest.track);
    const auto device = acceleratorName(index);
    out.push_back(
        {"sync",
         "The CPU waits for the " + device + " inside steps",
         std::to_string(calls.count) + " calls wait for the " + device +
             " (synchronize, blocking copies, item()): a thread is blocked for " + formatDuration(calls.ns) + ", " +
             percentText(double(calls.ns) / double(calls.spansNs)) + " of the time; the longest, " +
             std::string(trace.string(track.eventName[longest.event.value])) + ", blocks for " +
             formatDuration(track.duration[longest.event.value]),
         {{"syncs", double(calls.count), "count"},
          {"sync_us", static_cast<double>(calls.ns) / 1000.0, "us"},
          {"sync_pct", 100.0 * double(calls.ns) / double(calls.spansNs), "%"},
          {"longest_sync_us", static_cast<double>(track.duration[longest.event.value]) / 1000.0, "us"}},
         calls.longest,
         calls.startNs,
         calls.endNs,
         "Avoid .item(), .cpu(), .numpy(), print(tensor) and explicit synchronize() in the loop; keep metrics on the "
         "device and read them every N steps; copy with .to(device, non_blocking=True) from pinned memory, so a copy "
         "does not wait for the work queued before it."});
}

// Runtime allocation and free calls (cudaMalloc/cudaFree, hipMalloc/hipFree, cuMemCreate, ...):
// PyTorch's caching allocator makes them rare after the first step; many of them, or a long
// time in them, mean the cache is bypassed or emptied.
struct AllocatorCalls {
    std::uint64_t allocations = 0;
    std::uint64_t frees = 0;
    std::int64_t allocateNs = 0;
    std::int64_t freeNs = 0;
    std::int64_t spansNs = 0;
    std::string heaviest; // the call name with the most time
    bool hip = false;
    std::vector<EventRef> examples; // the longest calls
    std::int64_t ns() const { return allocateNs + freeNs; }
};

// The longest of some calls (each with its negated duration), longest first, up to five.
std::vector<EventRef> longestFive(std::vector<std::pair<std::int64_t, EventRef>> found)
{
    std::sort(found.begin(), found.end());
    std::vector<EventRef> longest;
    for (std::size_t k = 0; k < found.size() && k < 5; ++k)
        longest.push_back(found[k].second);
    return longest;
}

struct HostCalls {
    BlockingCalls blocking;
    AllocatorCalls allocator;
};

// One pass over the host's calls in the spans: blocking ones (a call inside an item() is the
// item's) and runtime allocations and frees.
HostCalls hostCalls(const TraceIndex &index, const std::vector<StepRow> &steps)
{
    const auto &trace = *index.trace;
    HostCalls calls;
    auto &blocking = calls.blocking;
    auto &allocator = calls.allocator;
    std::vector<std::pair<std::int64_t, EventRef>> blockingFound, allocatorFound;
    std::vector<Interval> blocked;
    std::vector<std::int64_t> byName(trace.strings.size(), 0);
    for (const auto &step : steps) {
        blocking.spansNs += step.durationNs;
        allocator.spansNs += step.durationNs;
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &ti = index.tracks[t];
            if (!ti.hasOps)
                continue;
            const auto &track = trace.tracks[t];
            const auto [first, last] = trace.startRange(TrackId(t), step.startNs, step.startNs + step.durationNs);
            std::int64_t readEnd = std::numeric_limits<std::int64_t>::min(); // the item() open now
            for (auto i = first.value; i < last.value; ++i) {
                const auto kind = ti.kind[i];
                if (kind != EventKind::Op && kind != EventKind::Runtime)
                    continue;
                const auto name = trace.string(track.eventName[i]);
                const auto call = kind == EventKind::Runtime ? runtimeCallOf(name) : RuntimeCall::Other;
                const EventRef ref{TrackId(t), EventIndex(i)};
                if (call == RuntimeCall::Allocate || call == RuntimeCall::Free) {
                    (call == RuntimeCall::Allocate ? allocator.allocations : allocator.frees) += 1;
                    (call == RuntimeCall::Allocate ? allocator.allocateNs : allocator.freeNs) += track.duration[i];
                    byName[track.eventName[i].value] += track.duration[i];
                    allocator.hip = allocator.hip || name.starts_with("hip");
                    allocatorFound.push_back({-track.duration[i], ref});
                    continue;
                }
                bool isBlocking = false;
                if (kind == EventKind::Op && isHostReadOp(name)) {
                    // aten::item calls _local_scalar_dense: count the outer one only.
                    isBlocking = track.start[i] >= readEnd;
                    readEnd = std::max(readEnd, track.end(EventIndex(i)));
                } else {
                    isBlocking = blocksHost(call) && track.start[i] >= readEnd;
                }
                if (!isBlocking)
                    continue;
                if (blocking.count++ == 0 || track.start[i] < blocking.startNs)
                    blocking.startNs = track.start[i];
                blocking.endNs = std::max(blocking.endNs, track.end(EventIndex(i)));
                blocked.push_back({track.start[i], track.end(EventIndex(i))});
                blockingFound.push_back({-track.duration[i], ref});
            }
        }
    }
    blocking.ns = IntervalSet(std::move(blocked)).length();
    blocking.longest = longestFive(std::move(blockingFound));
    if (const auto top = std::max_element(byName.begin(), byName.end()); top != byName.end() && *top > 0)
        allocator.heaviest = std::string(trace.string(trace::StringId(std::uint32_t(top - byName.begin()))));
    allocator.examples = longestFive(std::move(allocatorFound));
    return calls;
}

void allocatorRule(const std::vector<StepRow> &steps, const AllocatorCalls &calls, const AdviceOptions &options,
                   std::vector<Finding> &out)
{
    if (calls.spansNs <= 0 || calls.allocations + calls.frees < options.allocatorMinCalls ||
        static_cast<double>(calls.ns()) < options.allocatorFraction * static_cast<double>(calls.spansNs))
        return;
    const auto perStep = (calls.allocations + calls.frees) / std::max<std::size_t>(1, steps.size());
    const std::string api = calls.hip ? "hipMalloc/hipFree" : "cudaMalloc/cudaFree";
    const std::string conf = calls.hip ? "PYTORCH_HIP_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
    const bool wholeTrace = steps.size() == 1 && steps.front().name == kWholeTrace;
    out.push_back(
        {"allocator",
         "Runtime allocations and frees take the time: the caching allocator is bypassed",
         std::to_string(calls.allocations) + " allocation and " + std::to_string(calls.frees) + " free calls (" + api +
             ") take " + formatDuration(calls.ns()) + ", " + percentText(double(calls.ns()) / double(calls.spansNs)) +
             " of the " + (wholeTrace ? "trace" : "step time") + "; " + calls.heaviest + " most of it" +
             (wholeTrace ? std::string() : ", " + std::to_string(perStep) + " calls per step"),
         {{"allocations", double(calls.allocations), "count"},
          {"frees", double(calls.frees), "count"},
          {"allocate_us", static_cast<double>(calls.allocateNs) / 1000.0, "us"},
          {"free_us", static_cast<double>(calls.freeNs) / 1000.0, "us"},
          {"allocator_pct", 100.0 * double(calls.ns()) / double(calls.spansNs), "%"}},
         calls.examples,
         steps.front().startNs,
         steps.back().startNs + steps.back().durationNs,
         "PyTorch's caching allocator should serve every step after the first without these calls. Remove "
         "torch.cuda.empty_cache() (and gc.collect()) from the loop; check that caching is not turned off "
         "(PYTORCH_NO_CUDA_MEMORY_CACHING); if the cache is freed because memory runs out or is fragmented by "
         "changing shapes, set " +
             conf +
             "=expandable_segments:True, pad inputs to a few shapes, or lower the batch size, and keep tensors "
             "made every step preallocated."});
}

// Fires when the GPU idles for more than gpuIdleFraction of the step time in most steps (or in
// the whole trace when it has no steps): one slow step, a warm-up or a checkpoint, is not a
// pattern to act on.
void gpuIdleRule(const TraceIndex &index, const std::vector<StepRow> &steps, const AdviceOptions &options,
                 const GraphReplays &graphs, const AllocatorCalls &allocator, const BlockingCalls &blocking,
                 bool compiled, std::vector<Finding> &out)
{
    if (!index.hasDevice)
        return;
    std::int64_t idle = 0, total = 0, start = 0, end = 0;
    int hits = 0, counted = 0;
    for (const auto &step : steps) {
        if (step.durationNs <= 0 || step.gpuBusyNs == 0)
            continue;
        // A step that captures a CUDA graph records its launches instead of running them: its
        // GPU is idle by design.
        if (std::any_of(graphs.captures.begin(), graphs.captures.end(), [&](const GraphCapture &c) {
                return c.startNs < step.startNs + step.durationNs && c.endNs > step.startNs;
            }))
            continue;
        ++counted;
        const auto stepIdle = step.durationNs - step.gpuBusyNs;
        idle += stepIdle;
        total += step.durationNs;
        if (static_cast<double>(stepIdle) <= options.gpuIdleFraction * static_cast<double>(step.durationNs))
            continue;
        if (hits++ == 0)
            start = step.startNs;
        end = step.startNs + step.durationNs;
    }
    if (hits == 0 || 2 * hits <= counted)
        return;
    const double fraction = static_cast<double>(idle) / static_cast<double>(total);
    const bool wholeTrace = steps.size() == 1 && steps.front().name == kWholeTrace;
    const auto device = acceleratorName(index);
    std::string detail = "The " + device + " runs nothing for " + percentText(fraction);
    if (wholeTrace)
        detail += " of the trace (it has no profiler steps)";
    else if (counted == 1)
        detail += " of its one step";
    else
        detail += " of the step time; " + std::to_string(hits) + " of " + std::to_string(counted) +
                  " steps idle for more than " + percentText(options.gpuIdleFraction) + " of theirs";
    // What the host did meanwhile, when one thing explains most of the idle time: the fix is that.
    std::string fix =
        graphs.any() ? "Keep the GPU fed: overlap data loading (num_workers, pin_memory, non_blocking copies), remove "
                       "CPU-GPU syncs between graph replays, or raise the batch size."
        : compiled   ? "Keep the GPU fed: overlap data loading (num_workers, pin_memory, non_blocking copies), remove "
                       "CPU-GPU syncs, raise the batch size, or cut launch overhead with CUDA graphs: the run is "
                       "compiled already, so torch.compile(mode=\"reduce-overhead\") replays its graphs."
                     : "Keep the GPU fed: overlap data loading (num_workers, pin_memory, non_blocking copies), remove "
                       "CPU-GPU syncs, raise the batch size, or cut launch overhead with CUDA graphs / torch.compile.";
    if (2 * allocator.ns() >= idle) {
        detail += "; runtime allocation and free calls take " + formatDuration(allocator.ns()) + " meanwhile";
        fix = "The " + device + " waits for the host's allocation and free calls: see the allocator finding.";
    } else if (2 * blocking.ns >= idle) {
        detail += "; the host waits in blocking calls for " + formatDuration(blocking.ns) + " meanwhile";
        fix = "The " + device + " idles while the host waits on it: see the sync finding.";
    }
    out.push_back({"gpu_idle",
                   "The " + device + " is idle for much of each step",
                   detail,
                   {{"gpu_idle_pct", 100.0 * fraction, "%"},
                    {"gpu_idle_us", static_cast<double>(idle) / 1000.0, "us"},
                    {"steps", double(hits), "count"},
                    {"steps_with_gpu_work", double(counted), "count"}},
                   {},
                   start,
                   end,
                   fix});
}

void kernelRules(const TraceIndex &index, const Platform &platform, const AdviceOptions &options,
                 const GraphReplays &graphs, const LaunchCalls &calls, LaunchBound bound, std::vector<Finding> &out)
{
    if (!index.hasDevice)
        return;
    const auto kernels = buildKernelTable(index);
    std::uint64_t count = 0, tiny = 0;
    std::int64_t tinyNs = 0, kernelNs = 0, fp32Ns = 0, nchwNs = 0;
    bool tensorCores = false;
    std::string fp32Example, nchwExample;
    const auto &trace = *index.trace;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (ti.kind[i] != EventKind::Kernel)
                continue;
            kernelNs += track.duration[i];
            // A replayed graph launches its kernels at once: only eager ones cost a launch each.
            if (graphs.any() && isGraphEvent(trace, calls, TrackId(t), i))
                continue;
            ++count;
            if (track.duration[i] < options.tinyKernelNs) {
                ++tiny;
                tinyNs += track.duration[i];
            }
        }
    }
    for (const auto &row : kernels.rows) {
        if (row.kind != EventKind::Kernel)
            continue;
        const auto name = lower(row.name);
        // Kernels only tensor-core GPUs (Volta and later) run: cuBLAS/cuDNN arch prefixes and MMA names.
        tensorCores = tensorCores || containsAny(name, {"sm70", "sm75", "sm80", "sm86", "sm89", "sm90", "volta_",
                                                        "turing_", "ampere_", "hopper", "hmma", "xmma", "wgmma", "884",
                                                        "1688", "16816", "cutlass_tensorop", "tensorop"});
        const bool conv = containsAny(name, {"conv", "implicit_gemm", "implicit_convolve", "wgrad", "dgrad", "fprop"});
        const bool fp32 = containsAny(name, {"sgemm", "implicit_convolve_sgemm", "_fp32_", "float,"}) &&
                          !containsAny(name, {"1688", "tf32", "hmma"});
        if (fp32 && (conv || contains(name, "gemm"))) {
            fp32Ns += row.totalNs;
            if (fp32Example.empty())
                fp32Example = row.name;
        }
        if (conv && contains(name, "nchw") && !contains(name, "nhwc")) {
            nchwNs += row.totalNs;
            if (nchwExample.empty())
                nchwExample = row.name;
        }
    }
    // The launch verdict (launches.h) decides: where launches queue deep behind running kernels and
    // the device is rarely empty, their overhead is hidden and tiny kernels cost no launch time.
    if (bound != LaunchBound::GpuBound && count > 0 && tiny >= options.tinyKernelMinCount &&
        static_cast<double>(tiny) >= options.tinyKernelFraction * static_cast<double>(count)) {
        out.push_back(
            {"tiny_kernels",
             "Many tiny kernels: the run is launch-bound",
             std::to_string(tiny) + " of " + std::to_string(count) + (graphs.any() ? " eager" : "") +
                 " kernels run under " + std::to_string(options.tinyKernelNs / 1000) +
                 " us, less than it takes to launch them" +
                 (graphs.any() ? " (kernels that CUDA graph replays ran are not counted)" : ""),
             {{"tiny_kernels", double(tiny), "count"},
              {"tiny_kernel_pct", 100.0 * double(tiny) / double(count), "%"},
              {"tiny_kernel_us", static_cast<double>(tinyNs) / 1000.0, "us"}},
             {},
             trace.info.spanStart,
             trace.info.spanEnd,
             graphs.any()
                 ? "Cut the eager launches between graph replays: capture them into the graph too (the code that "
                   "launches them runs outside the captured region), fuse elementwise ops, or raise the batch size."
                 : "Cut launches: torch.compile (mode=\"reduce-overhead\" adds CUDA graphs), capture the step with "
                   "CUDA graphs, fuse elementwise ops, use foreach/fused optimizers, or raise the batch size."});
    }
    if (tensorCores && kernelNs > 0 &&
        static_cast<double>(nchwNs) > options.slowKernelFraction * static_cast<double>(kernelNs)) {
        out.push_back(
            {"channels_last",
             "NCHW convolutions on a GPU with tensor cores",
             "Convolution kernels in NCHW layout take " + percentText(double(nchwNs) / double(kernelNs)) +
                 " of kernel time, e.g. " + nchwExample,
             {{"nchw_conv_us", static_cast<double>(nchwNs) / 1000.0, "us"},
              {"nchw_conv_pct", 100.0 * double(nchwNs) / double(kernelNs), "%"}},
             {},
             trace.info.spanStart,
             trace.info.spanEnd,
             "Use channels_last: model = model.to(memory_format=torch.channels_last) and the same for inputs, "
             "together with AMP, so cuDNN picks NHWC tensor-core kernels."});
    }
    if (tensorCores && hasTensorCores(platform) && kernelNs > 0 &&
        static_cast<double>(fp32Ns) > options.slowKernelFraction * static_cast<double>(kernelNs)) {
        out.push_back(
            {"fp32_math",
             "FP32 matmul or convolution on a GPU with tensor cores",
             "FP32 (non tensor-core) GEMM/convolution kernels take " + percentText(double(fp32Ns) / double(kernelNs)) +
                 " of kernel time, e.g. " + fp32Example,
             {{"fp32_us", static_cast<double>(fp32Ns) / 1000.0, "us"},
              {"fp32_pct", 100.0 * double(fp32Ns) / double(kernelNs), "%"}},
             {},
             trace.info.spanStart,
             trace.info.spanEnd,
             precisionFix(platform)});
    }
}

// The first n calls of an op, as examples.
std::vector<EventRef> firstCalls(const TraceIndex &index, std::string_view name, std::size_t n)
{
    const auto &trace = *index.trace;
    std::vector<std::pair<std::int64_t, EventRef>> calls;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        if (!index.tracks[t].hasOps)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0, found = 0; i < track.size() && found < n; ++i) {
            if (index.tracks[t].kind[i] == EventKind::Op && trace.string(track.eventName[i]) == name) {
                calls.push_back({track.start[i], {TrackId(t), EventIndex(i)}});
                ++found;
            }
        }
    }
    std::sort(calls.begin(), calls.end());
    std::vector<EventRef> examples;
    for (std::size_t k = 0; k < calls.size() && k < n; ++k)
        examples.push_back(calls[k].second);
    return examples;
}

// Judges operators, not the annotations and compiled regions around them (workclass.h): their
// self time is the gaps between the ops they hold, not a cost of their own.
void dominantOpRule(const TraceIndex &index, const std::unordered_set<std::string> &annotations,
                    const AdviceOptions &options, std::vector<Finding> &out)
{
    const auto table = buildOpTable(index);
    std::int64_t opSelfNs = 0;
    for (const auto &row : table.rows)
        if (!annotations.count(row.name) && row.name != "ProfilerStep*" && !isProfilerStep(row.name))
            opSelfNs += row.selfNs;
    if (opSelfNs <= 0)
        return;
    for (const auto &row : table.rows) {
        if (row.name == "ProfilerStep*" || isProfilerStep(row.name) || annotations.count(row.name))
            continue;
        const double fraction = static_cast<double>(row.selfNs) / static_cast<double>(opSelfNs);
        if (fraction <= options.dominantOpFraction)
            break; // rows are sorted by self time
        const auto examples = firstCalls(index, row.name, 5);
        const bool compiled = !examples.empty() && insideCompiledRegion(index, examples.front());
        out.push_back(
            {"dominant_op",
             "One operator takes most of the time",
             row.name + " takes " + percentText(fraction) + " of all operator self time (annotations left out) in " +
                 std::to_string(row.calls) + " calls" +
                 (row.calls > 1 && 2 * row.maxNs > row.totalNs
                      ? "; one call of " + formatDuration(row.maxNs) +
                            " holds most of it (a one-time cost such as a first call's kernel loading or "
                            "autotuning is not the op's steady cost)"
                      : std::string()),
             {{"self_pct", 100.0 * fraction, "%"},
              {"self_us", static_cast<double>(row.selfNs) / 1000.0, "us"},
              {"calls", double(row.calls), "count"}},
             examples,
             index.trace->info.spanStart,
             index.trace->info.spanEnd,
             compiled ? "Look at this operator first: it runs inside a torch.compile graph already, so check its "
                        "input shapes (ops --by shape), the layout and precision it runs in, and the kernels it "
                        "launches (kernels, with their generated source)."
                      : "Look at this operator first: check its input shapes (ops --by shape), whether it runs in the "
                        "layout and precision you expect, and whether a fused or compiled version (torch.compile) "
                        "exists."});
    }
}

void churnRule(const TraceIndex &index, const std::vector<StepRow> &steps, const AdviceOptions &options,
               std::vector<Finding> &out)
{
    const auto &memory = index.trace->memory;
    if (memory.size() == 0 || steps.empty())
        return;
    std::vector<std::int64_t> starts;
    for (const auto &step : steps)
        starts.push_back(step.startNs);
    std::vector<std::uint64_t> perStep(steps.size(), 0);
    for (std::size_t m = 0; m < memory.size(); ++m) {
        const auto time = memory.time[m];
        const auto it = std::upper_bound(starts.begin(), starts.end(), time);
        if (it == starts.begin())
            continue;
        const auto s = static_cast<std::size_t>(it - starts.begin() - 1);
        if (time < steps[s].startNs + steps[s].durationNs)
            ++perStep[s];
    }
    std::uint64_t total = 0;
    for (const auto n : perStep)
        total += n;
    const auto average = total / steps.size();
    if (average < options.churnPerStep)
        return;
    out.push_back({"memory_churn",
                   "Memory churn: many allocations and frees per step",
                   std::to_string(average) + " allocations and frees per step on average",
                   {{"memory_events_per_step", double(average), "count"}, {"steps", double(steps.size()), "count"}},
                   {},
                   steps.front().startNs,
                   steps.back().startNs + steps.back().durationNs,
                   "Reuse buffers instead of creating tensors every step (preallocate, in-place ops, out= arguments), "
                   "set optimizer.zero_grad(set_to_none=True), and consider torch.compile or CUDA graphs."});
}

void optimizerRule(const TraceIndex &index, const Platform &platform, std::vector<Finding> &out)
{
    const auto &trace = *index.trace;
    std::uint64_t steps = 0;
    std::vector<EventRef> examples;
    std::string name, fixName;
    std::int64_t start = 0, end = 0, time = 0;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps)
            continue;
        const auto &track = trace.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (ti.kind[i] != EventKind::Op)
                continue;
            const auto text = trace.string(track.eventName[i]);
            // Nested optimizer steps (torchrec's CombinedOptimizer holding Adam) are one step: count
            // the outermost, and name the innermost torch.optim class for the fix.
            if (!isOutermostOptimizerStep(index, {TrackId(t), EventIndex(i)}))
                continue;
            std::string_view known = isTorchOptimizer(optimizerClass(text)) ? text : std::string_view();
            // Fused and foreach optimizers call aten::_fused_* / aten::_foreach_* inside the step.
            bool fused = false;
            for (auto j = i + 1; j < track.size() && track.start[j] < track.end(EventIndex(i)) && !fused; ++j) {
                if (ti.kind[j] != EventKind::Op)
                    continue;
                const auto inner = trace.string(track.eventName[j]);
                fused = containsAny(inner, {"_fused_", "_foreach_"});
                if (isOptimizerStepName(inner) && isTorchOptimizer(optimizerClass(inner)))
                    known = inner;
            }
            if (fused)
                continue;
            if (steps++ == 0) {
                start = track.start[i];
                name = std::string(text);
                fixName = std::string(known.empty() ? text : known);
            }
            end = track.end(EventIndex(i));
            time += track.duration[i];
            if (examples.size() < 5)
                examples.push_back({TrackId(t), EventIndex(i)});
        }
    }
    if (steps == 0)
        return;
    out.push_back(
        {"unfused_optimizer",
         "The optimizer step is not fused",
         name + " updates parameters one tensor at a time (" + std::to_string(steps) +
             " steps, no _foreach_ or _fused_ kernels)",
         {{"optimizer_steps", double(steps), "count"}, {"optimizer_us", static_cast<double>(time) / 1000.0, "us"}},
         examples,
         start,
         end,
         optimizerFix(platform, fixName)});
}

// A run of kernels that repeats, with the GPU idle between them for a good part of their own
// time: launch-bound work that a fused kernel or a CUDA graph runs at once.
void repeatedKernelsRule(const TraceIndex &index, const AdviceOptions &options, bool replaysGraphs, bool compiled,
                         std::vector<Finding> &out)
{
    SequenceOptions sequenceOptions;
    sequenceOptions.minLength = 3;
    sequenceOptions.top = 8;
    const auto sequences = findKernelSequences(index, sequenceOptions);
    // A run that graph replays launch is launched at once already (graphadvice.h judges those).
    const auto eager =
        std::find_if(sequences.begin(), sequences.end(), [](const KernelSequence &s) { return s.replayedPct < 50.0; });
    if (eager == sequences.end())
        return;
    const auto &s = *eager;
    if (s.totalNs <= 0 || static_cast<double>(s.gapNs) < options.repeatedGapFraction * static_cast<double>(s.totalNs))
        return;
    const auto &info = index.trace->info;
    out.push_back(
        {"repeated_kernels",
         "A run of kernels repeats, with the GPU waiting between them",
         "The same " + std::to_string(s.kernels.size()) + " kernels (from " + shortKernelName(s.kernels.front(), 80) +
             ") run " + std::to_string(s.occurrences) + " times on stream " + std::to_string(s.stream) + ": " +
             formatDuration(s.totalNs) + " of kernels with " + formatDuration(s.gapNs) + " idle between them",
         {{"length", double(s.kernels.size()), "count"},
          {"occurrences", double(s.occurrences), "count"},
          {"kernel_us", static_cast<double>(s.totalNs) / 1000.0, "us"},
          {"gap_us", static_cast<double>(s.gapNs) / 1000.0, "us"}},
         {},
         info.spanStart,
         info.spanEnd,
         acceleratorName(index) != "GPU"
             ? "Fuse the run: torch.compile the module that launches it (its ops are in the GPU page's Sequences tab)."
         : replaysGraphs ? "Fuse the run (torch.compile the module that launches it: its ops are in the GPU page's "
                           "Sequences tab) or move it inside the captured region, so the graph replays it too."
         : compiled
             ? "The run is compiled already: replay it with CUDA graphs (torch.compile(mode=\"reduce-overhead\")), "
               "so its launches cost one, or fuse it further (its ops are in the GPU page's Sequences tab)."
             : "Fuse the run (torch.compile the module that launches it: its ops are in the GPU page's "
               "Sequences tab) or capture it once and replay it with CUDA graphs (torch.cuda.graphs, or "
               "torch.compile mode=\"reduce-overhead\")."});
}

} // namespace

std::vector<Finding> adviseTrace(const TraceIndex &index, const AdviceOptions &options, const StopToken *stop)
{
    std::vector<Finding> findings;
    const auto steps = stepsOrTrace(index);
    if (stop && stop->stopRequested())
        return {};
    const auto calls = index.hasDevice ? graphLaunchCalls(index, stop) : LaunchCalls{};
    const auto graphs = index.hasDevice ? buildGraphReplays(index, calls, {}, stop) : GraphReplays{};
    const auto [blocking, allocator] = hostCalls(index, steps);
    dataLoaderRule(steps, options, findings);
    allocatorRule(steps, allocator, options, findings);
    syncRule(index, blocking, options, findings);
    // A run torch.compile compiled is not told to compile: its regions (workclass.h) show it.
    const auto annotations = annotationNames(index);
    const bool compiled = std::any_of(annotations.begin(), annotations.end(),
                                      [](const std::string &n) { return isCompiledRegionName(n); });
    gpuIdleRule(index, steps, options, graphs, allocator, blocking, compiled, findings);
    const auto platform = platformOf(index.trace->info, index.hasDevice);
    const auto bound = index.hasDevice ? buildLaunchStats(index, {}, stop).queue.bound : LaunchBound::None;
    kernelRules(index, platform, options, graphs, calls, bound, findings);
    graphReplayRule(index, graphs, findings);
    if (stop && stop->stopRequested())
        return {};
    dominantOpRule(index, annotations, options, findings);
    churnRule(index, steps, options, findings);
    optimizerRule(index, platform, findings);
    if (index.hasDevice)
        repeatedKernelsRule(index, options, graphs.any(), compiled, findings);
    return findings;
}

} // namespace pyrometer::analysis
