#include "core/analysis/advice.h"

#include "core/analysis/advicefixes.h"
#include "core/analysis/graphadvice.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kernelsequences.h"

#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/analysis/steps.h"
#include "core/util/format.h"

#include <algorithm>
#include <array>
#include <cstdio>

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

// Fires when the GPU idles for more than gpuIdleFraction of the step time in most steps (or in
// the whole trace when it has no steps): one slow step, a warm-up or a checkpoint, is not a
// pattern to act on.
void gpuIdleRule(const TraceIndex &index, const std::vector<StepRow> &steps, const AdviceOptions &options,
                 const GraphReplays &graphs, std::vector<Finding> &out)
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
    std::string detail = "The GPU runs nothing for " + percentText(fraction);
    if (wholeTrace)
        detail += " of the trace (it has no profiler steps)";
    else if (counted == 1)
        detail += " of its one step";
    else
        detail += " of the step time; " + std::to_string(hits) + " of " + std::to_string(counted) +
                  " steps idle for more than " + percentText(options.gpuIdleFraction) + " of theirs";
    out.push_back(
        {"gpu_idle",
         "The GPU is idle for much of each step",
         detail,
         {{"gpu_idle_pct", 100.0 * fraction, "%"},
          {"gpu_idle_us", static_cast<double>(idle) / 1000.0, "us"},
          {"steps", double(hits), "count"},
          {"steps_with_gpu_work", double(counted), "count"}},
         {},
         start,
         end,
         graphs.any()
             ? "Keep the GPU fed: overlap data loading (num_workers, pin_memory, non_blocking copies), remove "
               "CPU-GPU syncs between graph replays, or raise the batch size."
             : "Keep the GPU fed: overlap data loading (num_workers, pin_memory, non_blocking copies), remove "
               "CPU-GPU syncs, raise the batch size, or cut launch overhead with CUDA graphs / torch.compile."});
}

void syncRule(const TraceIndex &index, const std::vector<StepRow> &steps, std::vector<Finding> &out)
{
    const auto &trace = *index.trace;
    static constexpr std::array<std::string_view, 8> syncCalls{
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "hipDeviceSynchronize",
        "hipStreamSynchronize",  "hipEventSynchronize",   "aten::item",           "aten::_local_scalar_dense"};
    std::uint64_t count = 0;
    std::int64_t time = 0;
    std::vector<EventRef> examples;
    std::int64_t start = 0, end = 0;
    for (const auto &step : steps) {
        const auto stepEnd = step.startNs + step.durationNs;
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &ti = index.tracks[t];
            if (!ti.hasOps)
                continue;
            const auto &track = trace.tracks[t];
            const auto [first, last] = trace.startRange(TrackId(t), step.startNs, stepEnd);
            for (auto i = first.value; i < last.value; ++i) {
                if (ti.kind[i] != EventKind::Runtime && ti.kind[i] != EventKind::Op)
                    continue;
                const auto name = trace.string(track.eventName[i]);
                if (std::find(syncCalls.begin(), syncCalls.end(), name) == syncCalls.end())
                    continue;
                // aten::item calls _local_scalar_dense: count the outer one only.
                if (name == "aten::_local_scalar_dense" && ti.opParent[i].isValid() &&
                    trace.string(track.eventName[ti.opParent[i].value]) == "aten::item")
                    continue;
                if (count++ == 0)
                    start = track.start[i];
                end = std::max(end, track.end(EventIndex(i)));
                time += track.duration[i];
                if (examples.size() < 5)
                    examples.push_back({TrackId(t), EventIndex(i)});
            }
        }
    }
    if (count == 0 || !index.hasDevice)
        return;
    out.push_back(
        {"sync",
         "CPU-GPU synchronizations inside steps",
         std::to_string(count) + " calls wait for the GPU (item(), .cpu(), cudaDeviceSynchronize, ...), " +
             "so the CPU cannot queue work ahead",
         {{"syncs", double(count), "count"}, {"sync_us", static_cast<double>(time) / 1000.0, "us"}},
         examples,
         start,
         end,
         "Avoid .item(), .cpu(), .numpy(), print(tensor) and explicit synchronize() in the training loop; keep "
         "metrics on the GPU and read them every N steps; use non_blocking=True copies."});
}

void kernelRules(const TraceIndex &index, const Platform &platform, const AdviceOptions &options,
                 const GraphReplays &graphs, const LaunchCalls &calls, std::vector<Finding> &out)
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
    if (count > 0 && tiny >= options.tinyKernelMinCount &&
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

void dominantOpRule(const TraceIndex &index, const AdviceOptions &options, std::vector<Finding> &out)
{
    const auto table = buildOpTable(index);
    if (table.selfSumNs <= 0)
        return;
    for (const auto &row : table.rows) {
        if (row.name == "ProfilerStep*" || isProfilerStep(row.name))
            continue;
        const double fraction = static_cast<double>(row.selfNs) / static_cast<double>(table.selfSumNs);
        if (fraction <= options.dominantOpFraction)
            break; // rows are sorted by self time
        out.push_back(
            {"dominant_op",
             "One operator takes most of the time",
             row.name + " takes " + percentText(fraction) + " of all operator self time in " +
                 std::to_string(row.calls) + " calls",
             {{"self_pct", 100.0 * fraction, "%"},
              {"self_us", static_cast<double>(row.selfNs) / 1000.0, "us"},
              {"calls", double(row.calls), "count"}},
             firstCalls(index, row.name, 5),
             index.trace->info.spanStart,
             index.trace->info.spanEnd,
             "Look at this operator first: check its input shapes (ops --by shape), whether it runs in the layout "
             "and precision you expect, and whether a fused or compiled version (torch.compile) exists."});
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
    std::string name;
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
            if (text.rfind("Optimizer.step#", 0) != 0)
                continue;
            // Fused and foreach optimizers call aten::_fused_* / aten::_foreach_* inside the step.
            bool fused = false;
            for (auto j = i + 1; j < track.size() && track.start[j] < track.end(EventIndex(i)) && !fused; ++j)
                fused = ti.kind[j] == EventKind::Op &&
                        containsAny(trace.string(track.eventName[j]), {"_fused_", "_foreach_"});
            if (fused)
                continue;
            if (steps++ == 0) {
                start = track.start[i];
                name = std::string(text);
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
         optimizerFix(platform, name)});
}

// A run of kernels that repeats, with the GPU idle between them for a good part of their own
// time: launch-bound work that a fused kernel or a CUDA graph runs at once.
void repeatedKernelsRule(const TraceIndex &index, const AdviceOptions &options, bool replaysGraphs,
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
         replaysGraphs ? "Fuse the run (torch.compile the module that launches it: its ops are in the GPU page's "
                         "Sequences tab) or move it inside the captured region, so the graph replays it too."
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
    dataLoaderRule(steps, options, findings);
    syncRule(index, steps, findings);
    gpuIdleRule(index, steps, options, graphs, findings);
    const auto platform = platformOf(index.trace->info, index.hasDevice);
    kernelRules(index, platform, options, graphs, calls, findings);
    graphReplayRule(index, graphs, findings);
    if (stop && stop->stopRequested())
        return {};
    dominantOpRule(index, options, findings);
    churnRule(index, steps, options, findings);
    optimizerRule(index, platform, findings);
    if (index.hasDevice)
        repeatedKernelsRule(index, options, graphs.any(), findings);
    return findings;
}

} // namespace pyrometer::analysis
