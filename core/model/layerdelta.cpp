#include "core/model/layerdelta.h"

#include <unordered_map>

namespace pyrometer::model {

std::vector<LayerDelta> layerDeltas(const std::vector<LayerRow> &base, const std::vector<LayerRow> &other)
{
    std::unordered_map<std::string, const LayerRow *> others;
    for (const auto &row : other)
        others.emplace(row.module, &row);
    std::unordered_map<std::string, bool> seen;
    std::vector<LayerDelta> deltas;
    const auto add = [&](const LayerRow &row, const LayerRow *baseRow, const LayerRow *otherRow) {
        LayerDelta delta{row.module, row.type, row.depth, baseRow != nullptr, otherRow != nullptr};
        delta.baseMs = baseRow ? baseRow->totalMs : 0;
        delta.otherMs = otherRow ? otherRow->totalMs : 0;
        delta.deltaMs = delta.otherMs - delta.baseMs;
        if (delta.baseMs > 0)
            delta.deltaPercent = delta.deltaMs / delta.baseMs * 100.0;
        else if (delta.otherMs <= 0)
            delta.deltaPercent = 0.0;
        deltas.push_back(std::move(delta));
    };
    for (const auto &row : base) {
        const auto found = others.find(row.module);
        add(row, &row, found == others.end() ? nullptr : found->second);
        seen[row.module] = true;
    }
    for (const auto &row : other)
        if (!seen.count(row.module))
            add(row, nullptr, &row);
    return deltas;
}

} // namespace pyrometer::model
