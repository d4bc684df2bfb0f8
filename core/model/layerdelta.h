#pragma once

#include "core/model/layerprofile.h"

#include <optional>
#include <string>
#include <vector>

namespace pyrometer::model {

// One module's time in two per-layer profiles (a baseline and another run), matched by
// qualified name.
struct LayerDelta {
    std::string module; // "" for the model
    std::string type;
    int depth = 0;
    bool inBase = false;
    bool inOther = false;
    double baseMs = 0; // total ms per iteration, 0 when absent
    double otherMs = 0;
    double deltaMs = 0; // otherMs - baseMs
    std::optional<double> deltaPercent =
        std::nullopt; // deltaMs / baseMs * 100; nothing when new in other (base has no time)
    bool operator==(const LayerDelta &) const = default;
};

// The modules of base in their order, then those only other has, in its order.
std::vector<LayerDelta> layerDeltas(const std::vector<LayerRow> &base, const std::vector<LayerRow> &other);

} // namespace pyrometer::model
