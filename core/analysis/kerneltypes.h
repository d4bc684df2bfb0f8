#pragma once

#include "core/analysis/stepspans.h"
#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// What a GPU event does, from its kind and name: communication (NCCL/RCCL kernels), memory
// (memcpy, memset), or a kind of computation found by documented name rules (see
// kerneltypes.cpp and README), checked in this order: Triton (torch.compile's `triton_`
// kernels), communication, attention, convolution (before GEMM: cuDNN's implicit-GEMM
// convolutions have "gemm" in their names), GEMM, normalization, reduction, elementwise, other.
enum class KernelType : std::uint8_t {
    Communication,
    Memory,
    Gemm,
    Convolution,
    Attention,
    Normalization,
    Reduction,
    Elementwise,
    Triton,
    Other,
};
inline constexpr std::size_t kKernelTypeCount = 10;

// "communication", "memory", "gemm", "convolution", "attention", "normalization",
// "reduction", "elementwise", "triton", "other": lower case, as the CLI's JSON spells them.
std::string_view kernelTypeName(KernelType type);
// "GEMM", "Convolution", ...: for tables and charts.
std::string_view kernelTypeLabel(KernelType type);

// The type of a device event of this kind (Kernel, Memcpy or Memset) and name.
KernelType classifyKernel(EventKind kind, std::string_view name);

struct KernelTypeRow {
    KernelType type = KernelType::Other;
    std::uint64_t calls = 0;
    std::int64_t totalNs = 0;
    double percent = 0; // of all device time in range
    bool operator==(const KernelTypeRow &) const = default;
};

struct KernelTypeBreakdown {
    std::vector<KernelTypeRow> rows; // types with calls only, by total time, longest first
    std::int64_t totalNs = 0;
    bool operator==(const KernelTypeBreakdown &) const = default;
};

// Time, share and count per type of the device events that start in range.
KernelTypeBreakdown buildKernelTypeBreakdown(const TraceIndex &index, const TimeRange &range = {},
                                             const StopToken *stop = nullptr);
// The same for the device events that step steps.steps[step] launched (stepspans.h), wherever
// they run: a step's time range holds the previous step's kernels when the CPU runs ahead.
KernelTypeBreakdown buildKernelTypeBreakdown(const TraceIndex &index, const StepSpans &steps, std::size_t step,
                                             const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
