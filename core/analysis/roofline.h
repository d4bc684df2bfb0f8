#pragma once

#include "core/analysis/deviceroof.h"
#include "core/analysis/opwork.h"
#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::analysis {

enum class Bound { Unknown, Memory, Compute };
std::string_view boundName(Bound bound); // "memory", "compute", "unknown"

struct RooflineOptions {
    bool byShape = false; // one row per (op, input dims) instead of per op
    // One row per GPU kernel (memcpy, memset) and stream instead of per op: a kernel has the work
    // of the call that launched it when that call launched nothing else (a call that launched
    // several shares its work in ways a trace does not record: they are unknown). Nothing on a CPU
    // trace.
    bool byKernel = false;
    // Every op of known work on its own, nested ones too (aten::addmm inside aten::linear), each
    // over the device time of all it launched or its whole CPU duration: the figures of the
    // Operators table's rows. No rows of unknown work; totalNs and knownNs count nested ops' time
    // again in each op around them.
    bool everyOp = false;
    std::size_t top = 0;  // 0: every row
    TimeRange range;
    ProcessSet processes;
    // The roof to put the ops under; nothing: the trace's first device from the table, if any.
    std::optional<DeviceRoof> device;
    // The roof when neither `device` nor the table gives one (Preferences' roof for a device the
    // table lacks).
    std::optional<DeviceRoof> fallbackDevice;
    bool operator==(const RooflineOptions &) const = default;
};

// Where a roof stands for one kind of work on one device.
struct Roof {
    Precision precision = Precision::FP32;
    double peakFlops = 0; // FLOP/s
    double bandwidth = 0; // bytes/s
    double ridge() const { return bandwidth > 0 ? peakFlops / bandwidth : 0; } // FLOP/byte
    // The attainable FLOP/s at an arithmetic intensity (FLOP/byte).
    double at(double intensity) const { return std::min(peakFlops, intensity * bandwidth); }
    bool operator==(const Roof &) const = default;
};

// One op (or op and shape): the calls whose work is known, over the time they took. On a GPU
// trace the time is what the device ran for them (the kernels, copies and sets they launched,
// matched by correlation); on a CPU trace it is their own duration. Figures unknown are -1.
struct RooflineRow {
    std::string name;
    std::string shape;     // byShape: the input dims as written
    // The first tensor argument's of the call that ran: under torch.autocast the product inside
    // an op (the bf16 aten::addmm in an fp32 aten::linear). Rows of one op and different dtypes
    // are apart.
    std::string dtype;
    WorkUnit unit = WorkUnit::Vector;
    std::uint64_t calls = 0;
    std::int64_t timeNs = 0;
    double flops = OpWork::kUnknown; // summed over the calls
    double bytes = OpWork::kUnknown; // unknown when any call's is
    double intensity = OpWork::kUnknown;     // FLOP/byte
    double achievedFlops = OpWork::kUnknown; // FLOP/s
    double achievedBandwidth = OpWork::kUnknown; // bytes/s
    std::optional<Roof> roof;                // nothing without a device
    double percentOfRoof = OpWork::kUnknown; // of the roof at its intensity (of the peak when unknown)
    Bound bound = Bound::Unknown;
    EventRef longest; // its longest call, to show in the Timeline
    // byKernel rows: the op that launched most of its known time (or of its time, when unknown),
    // and the kernel's device and stream.
    std::string launcher;
    // byKernel rows of a generated kernel: "triton HASH FILE" from its launching op's args.
    std::string source;
    std::int32_t device = -1;
    std::int32_t stream = -1;
    // byKernel: the kernel was given all of its launching call's work although the call launched
    // other kernels too, as they were small (a bias add, a split-K reduction: kLauncherShare).
    bool workOfLauncher = false;
    // The achieved bandwidth is above main memory's: the share of the roof is against the
    // device's cache (DeviceRoof::cacheBandwidth), where the data must have stayed.
    bool cacheRoof = false;
    bool known() const { return flops >= 0; }
    bool operator==(const RooflineRow &) const = default;
};

// Memory-bound vector ops (elementwise, normalizations, softmax, reductions) that ran one after
// the other on one thread: what one fused kernel could do with a single trip through memory.
// Ops that took no time (views on a CPU trace, ops that launched nothing on a GPU one) are passed
// over; a matrix op, a compute-bound op or one of unknown work that took time ends a chain.
// Chains of the same ops are summed.
struct RooflineChain {
    std::vector<std::string> ops; // in order, at least two
    std::uint64_t occurrences = 0;
    std::int64_t timeNs = 0;       // of the ops in its occurrences
    double bytes = 0;              // what they moved, each op alone
    EventRef first;                // the first op of its longest occurrence
    std::int64_t longestNs = 0;
    bool operator==(const RooflineChain &) const = default;
};

struct Roofline {
    bool gpu = false;                // times are device times
    std::string traceDevice;         // the trace's first "deviceProperties" name; "" when none
    std::optional<DeviceRoof> device; // the roof used
    std::vector<RooflineRow> rows;   // ops of known work by time, longest first, then unknown ones
    std::int64_t totalNs = 0;        // device time (GPU) or time in top-level aten ops (CPU)
    std::int64_t knownNs = 0;        // the part of it spent in ops of known work
    // Per op rows (neither byKernel nor everyOp) under a roof: memory-bound chains, longest first.
    std::vector<RooflineChain> chains;
    bool operator==(const Roofline &) const = default;
};

// The roof an op of this dtype and unit meets on a device: its dtype's matrix peak for
// products, convolutions and attention (FP32 convolutions as TF32 on NVIDIA, as cuDNN does
// under torch's default allow_tf32), the FP32 vector peak for everything else.
Roof roofFor(const DeviceRoof &device, std::string_view dtype, WorkUnit unit, bool convolution);

// A kernel that takes at least this share of its launching call's device time is given the
// call's work (RooflineRow::workOfLauncher).
inline constexpr double kLauncherShare = 0.8;

// Works out a row's intensity, achieved rates and, with a device, its roof, share of the roof
// and bound, from its flops, bytes, time, dtype and unit (an op's or a model layer's alike).
void placeUnderRoof(RooflineRow &row, const std::optional<DeviceRoof> &device);

// Each op counted once: the outermost op whose FLOPs are known (aten::linear, not the
// aten::addmm inside it), with the work (FLOPs, bytes, dtype) of the one product inside it when
// it holds one (under torch.autocast an fp32 aten::linear runs a bf16 aten::addmm; the casts
// around it are ops of their own); an op of unknown work leaves the ops inside it to be counted. Time in
// ops of unknown work is kept in rows of unknown work, named after the outermost aten op.
Roofline buildRoofline(const TraceIndex &index, const RooflineOptions &options = {}, const StopToken *stop = nullptr);

// What to change, from a roofline: the heaviest chains of memory-bound ops and memory-bound ops
// alone (fusion candidates: fewer trips through memory) and compute-bound ops far below their
// roof (dtype, layout, tiling).
struct RooflineFinding {
    enum class Kind { FuseChain, FuseMemoryBound, BelowComputeRoof };
    Kind kind = Kind::FuseMemoryBound;
    std::string op;
    std::string text;
    double share = 0; // of the roofline's total time
    bool operator==(const RooflineFinding &) const = default;
};
std::vector<RooflineFinding> rooflineFindings(const Roofline &roofline);
// "aten::add → aten::gelu → aten::mul"; the middle of a long chain elided.
std::string chainName(const RooflineChain &chain);

} // namespace pyrometer::analysis
