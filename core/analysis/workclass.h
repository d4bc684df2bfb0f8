#pragma once

// What a trace's work is, beyond its category (eventkind.h): the one place that names runtime
// calls (launch, synchronization, allocation, ...), communication kernels, annotations and
// compiled regions, and the accelerator a trace ran on. Every rule, page and subcommand asks
// here rather than matching names of its own.

#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace pyrometer::analysis {

// A runtime or driver call by what it does (CUDA, HIP, the driver API and MTIA's runtime).
enum class RuntimeCall : std::uint8_t {
    Other,
    Synchronize,  // *Synchronize, MTIA's synchronizeStream: the CPU waits for the device
    BlockingCopy, // cudaMemcpy, hipMemcpy, hipMemcpyWithStream, cuMemcpyDtoH: no Async, so
                  // the call returns when the copy (and the work queued before it) is done
    Allocate,     // cudaMalloc*, hipMalloc*, hipHostMalloc, cuMemAlloc*, cuMemCreate
    Free,         // cudaFree*, hipFree*, hipHostFree, cuMemFree*, cuMemRelease, cuMemUnmap
    GraphLaunch,  // *GraphLaunch
    EventRecord,  // cudaEventRecord, hipEventRecord, MTIA's recordEvent
    StreamWait,   // cudaStreamWaitEvent, hipStreamWaitEvent, MTIA's waitOnEvent
};
RuntimeCall runtimeCallOf(std::string_view name);
std::string_view runtimeCallName(RuntimeCall call); // "synchronize", "blocking copy", ...

// Whether the CPU waits for the device in this call: a synchronize or a blocking copy.
constexpr bool blocksHost(RuntimeCall call)
{
    return call == RuntimeCall::Synchronize || call == RuntimeCall::BlockingCopy;
}

// Ops that wait for the device to read a value back (tensor.item(), printing a tensor).
bool isHostReadOp(std::string_view name); // aten::item, aten::_local_scalar_dense

// A device kernel that communicates between devices: NCCL/RCCL (and NCCLX), expert-parallel
// dispatch/combine (DeepEP's deep_ep:: kernels, intranode/internode, notify_dispatch, pplx),
// custom all-reduce (vLLM's cross_device_reduce, torch's symmetric-memory one/two-shot
// all_reduce), NVSHMEM and MSCCL++ kernels, and any kernel named for a collective
// (allreduce, all_gather, reduce_scatter, alltoall, ...). Any case.
bool isCommunicationKernelName(std::string_view name);

// The same for one device event: its name, or the "Collective name" args newer torch writes.
bool isCommunicationEvent(const trace::Trace &trace, trace::TrackId track, std::uint32_t event);

// An annotation: a region the user or a library named (record_function, user_annotation
// category), not an operator. Its time is the time of what it holds.
bool isAnnotationCategory(std::string_view category); // user_annotation, gpu_user_annotation

// A region torch.compile runs (its compiled graph called as one): Inductor's "## Call
// CompiledFxGraph <hash> ##", AOTAutograd's "CompiledFunction" / "CompiledFunctionBackward",
// "Torch-Compiled Region: 0/0" (torch 2.1+).
bool isCompiledRegionName(std::string_view name);

// The names of every op-kind event of the trace that is an annotation (by category) or a
// compiled region (by name): the rules that judge operators leave them out. c10d's collective
// annotations ("gloo:all_reduce") time the collective itself and are not among them.
std::unordered_set<std::string> annotationNames(const TraceIndex &index);

// An optimizer's step annotation ("Optimizer.step#Adam.step"); an outermost one is one step of
// the optimizer however deep its nested ones go (torchrec's CombinedOptimizer holding Adam).
bool isOptimizerStepName(std::string_view name);
bool isOutermostOptimizerStep(const TraceIndex &index, EventRef op);

// Whether an op event runs inside a compiled region (one of its enclosing ops is one).
bool insideCompiledRegion(const TraceIndex &index, EventRef op);

// The accelerator's word, for text: "GPU" for CUDA and ROCm, else the first word of the device
// processes' labels or names ("MTIA 17" -> "MTIA", "HPU 0" -> "HPU"); "GPU" without device work.
std::string acceleratorName(const TraceIndex &index);

// Categories of a trace's slices that no analysis reads (none of eventkind.h's and not known
// bookkeeping such as "overhead" or "Trace"), with their counts, most events first.
struct CategoryCount {
    std::string name;
    std::uint64_t events = 0;
    bool operator==(const CategoryCount &) const = default;
};
std::vector<CategoryCount> unreadCategories(const TraceIndex &index);

// One sentence for an empty device table: why it is empty ("This trace holds no kernels,
// copies or other device work: it was recorded without a device activity (CUDA, HIP, MTIA)";
// or names the categories it could not read).
std::string noDeviceWorkText(const TraceIndex &index);

} // namespace pyrometer::analysis
