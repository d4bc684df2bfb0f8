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
    std::string dtype;     // the first tensor argument's
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
    bool known() const { return flops >= 0; }
    bool operator==(const RooflineRow &) const = default;
};

struct Roofline {
    bool gpu = false;                // times are device times
    std::string traceDevice;         // the trace's first "deviceProperties" name; "" when none
    std::optional<DeviceRoof> device; // the roof used
    std::vector<RooflineRow> rows;   // ops of known work by time, longest first, then unknown ones
    std::int64_t totalNs = 0;        // device time (GPU) or time in top-level aten ops (CPU)
    std::int64_t knownNs = 0;        // the part of it spent in ops of known work
    bool operator==(const Roofline &) const = default;
};

// The roof an op of this dtype and unit meets on a device: its dtype's matrix peak for
// products, convolutions and attention (FP32 convolutions as TF32 on NVIDIA, as cuDNN does
// under torch's default allow_tf32), the FP32 vector peak for everything else.
Roof roofFor(const DeviceRoof &device, std::string_view dtype, WorkUnit unit, bool convolution);

// Works out a row's intensity, achieved rates and, with a device, its roof, share of the roof
// and bound, from its flops, bytes, time, dtype and unit (an op's or a model layer's alike).
void placeUnderRoof(RooflineRow &row, const std::optional<DeviceRoof> &device);

// Each op counted once: the outermost op whose FLOPs are known (aten::linear, not the
// aten::addmm inside it); an op of unknown work leaves the ops inside it to be counted. Time in
// ops of unknown work is kept in rows of unknown work, named after the outermost aten op.
Roofline buildRoofline(const TraceIndex &index, const RooflineOptions &options = {}, const StopToken *stop = nullptr);

// What to change, from a roofline: the heaviest memory-bound ops (fusion candidates: fewer
// trips through memory) and compute-bound ops far below their roof (dtype, layout, tiling).
struct RooflineFinding {
    enum class Kind { FuseMemoryBound, BelowComputeRoof };
    Kind kind = Kind::FuseMemoryBound;
    std::string op;
    std::string text;
    double share = 0; // of the roofline's total time
    bool operator==(const RooflineFinding &) const = default;
};
std::vector<RooflineFinding> rooflineFindings(const Roofline &roofline);

} // namespace pyrometer::analysis
