#pragma once

#include "core/analysis/roofline.h"
#include "core/model/layerprofile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::model {

// The roofline of a model's layers from a per-layer profile: each leaf layer's FLOPs and the
// bytes its ops move (weights and activations in and out) over its time in one forward pass,
// under a device's roof. Rows are named by the layer's qualified name, `shape` holding its type
// ("Conv2d"); layers of unknown work stay, as unknown. A profile with device times (CUDA) places
// each layer's kernels' time, not the CPU's time launching them.
analysis::Roofline layerRoofline(const ProfileReport &profile, const std::optional<analysis::DeviceRoof> &device);
// One layer (leaf or not: a block's FLOPs and bytes are its ops') placed under the roof, over its
// device time when deviceTimes, else its time. Its precision is its first tensor's dtype (FP16 and
// BF16 apart: a V100 has FP16 units only).
analysis::RooflineRow layerRooflineRow(const LayerRow &layer, const std::optional<analysis::DeviceRoof> &device,
                                       bool deviceTimes = false);

// One batch of a sweep's per-layer roofline.
struct BatchRoofline {
    std::int64_t batch = 0;
    analysis::Roofline roofline;
    bool operator==(const BatchRoofline &) const = default;
};

// Where a layer turns compute-bound across a sweep (batches in increasing order): the first
// batch from which it stays compute-bound. 0 when it is memory-bound at the largest batch (or
// its bound is unknown there).
struct BoundTurn {
    std::string layer;
    std::int64_t batch = 0;
    bool operator==(const BoundTurn &) const = default;
};
std::vector<BoundTurn> boundTurns(const std::vector<BatchRoofline> &batches, const std::vector<std::string> &layers);

} // namespace pyrometer::model
