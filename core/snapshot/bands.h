#pragma once

#include "core/analysis/flametree.h"
#include "core/snapshot/replay.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::snapshot {

// Active memory over time split by what allocated it: the `top` stacks largest at the peak each
// a band, the rest one band ("other stacks"), the blocks from before the trace another. Sampled
// at most `samples` times: in each slice of the trace, at the event where the total was highest,
// so that no peak is lost.
struct StackBands {
    std::vector<double> x;              // ms after the device's first event, or the event's number without times
    std::vector<std::int64_t> position; // the event each sample is after
    bool xIsTime = true;
    std::vector<std::string> labels;              // per band, the last one "other stacks"
    std::vector<std::string> keys;                // per band: the folded stack ("" for other)
    std::vector<std::vector<std::int64_t>> bytes; // per band, per sample
    bool operator==(const StackBands &) const = default;
};
StackBands stackBands(const Snapshot &snapshot, const DeviceReplay &device, std::size_t top, std::size_t samples);

// The live groups of GroupBy::Stack as a flame tree by bytes: a frame's total is the bytes live
// under it (FlameNode's totalNs holds bytes, calls the blocks), for the flame graph's views.
analysis::FlameTree liveFlameTree(const std::vector<LiveGroup> &stackGroups);

} // namespace pyrometer::snapshot
