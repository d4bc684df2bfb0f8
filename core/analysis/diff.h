#pragma once

#include "core/analysis/traceindex.h"
#include "core/util/noise.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::analysis {

enum class Presence : std::uint8_t { Both, BaseOnly, OtherOnly };

// One op (by name, self time) or kernel (by kind and name, total time) in two traces.
struct DiffRow {
    std::string kind; // "op", "kernel", "memcpy", "memset"
    std::string name;
    std::int64_t baseNs = 0;
    std::int64_t otherNs = 0;
    std::uint64_t baseCalls = 0;
    std::uint64_t otherCalls = 0;
    Presence presence = Presence::Both;
    std::int64_t deltaNs() const { return otherNs - baseNs; }
    // Of base; nothing for a row that is new in other (base 0, other not), 0 when both are 0.
    std::optional<double> deltaPercent() const;
    bool operator==(const DiffRow &) const = default;
};

struct DiffTotal {
    std::int64_t baseNs = 0;
    std::int64_t otherNs = 0;
    std::int64_t deltaNs() const { return otherNs - baseNs; }
    double deltaPercent() const;
    bool operator==(const DiffTotal &) const = default;
};

// Two traces' steady steps (stepMean's: warm-up and partial steps left out), in ms: whether
// their step times differ by more than the steps' own noise.
struct StepTimes {
    Sample base;
    Sample other;
    std::optional<pyrometer::Interval> ratio; // other's mean over base's, 95% confidence (not analysis::Interval)
    double ratioOfMeans() const { return base.mean > 0 ? other.mean / base.mean : 0; }
    bool operator==(const StepTimes &) const = default;
};

struct TraceDiff {
    std::vector<DiffRow> rows; // by |delta|, largest first
    DiffTotal total;           // summed self time of operators plus device time of kernels
    DiffTotal ops;
    DiffTotal kernels;
    std::optional<StepTimes> steps; // when both traces have steady steps
    bool operator==(const TraceDiff &) const = default;
};

TraceDiff diffTraces(const TraceIndex &base, const TraceIndex &other, const StopToken *stop = nullptr);

std::string_view presenceName(Presence presence); // "both", "base_only", "other_only"

} // namespace pyrometer::analysis
