#include "core/model/layerroofline.h"

#include <algorithm>
#include <cctype>

namespace pyrometer::model {

analysis::RooflineRow layerRooflineRow(const LayerRow &layer, const std::optional<analysis::DeviceRoof> &device,
                                       bool deviceTimes)
{
    analysis::RooflineRow row;
    row.name = layer.module;
    row.shape = layer.type;
    row.calls = std::uint64_t(std::max(0, layer.calls));
    row.timeNs = std::int64_t((deviceTimes ? layer.deviceMs : layer.totalMs) * 1e6);
    row.flops = layer.flops > 0 ? layer.flops : analysis::OpWork::kUnknown;
    row.bytes = layer.bytes > 0 ? layer.bytes : analysis::OpWork::kUnknown;
    // Profiles without dtype names (older engines) had bfloat16 for their reduced precision.
    row.dtype = !layer.dtype.empty()      ? layer.dtype
                : layer.elementBytes == 2 ? "c10::BFloat16"
                : layer.elementBytes == 8 ? "double"
                                          : "float";
    std::string type = layer.type;
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    row.unit = analysis::opUnit(type);
    analysis::placeUnderRoof(row, device);
    return row;
}

analysis::Roofline layerRoofline(const ProfileReport &profile, const std::optional<analysis::DeviceRoof> &device)
{
    analysis::Roofline roofline;
    roofline.device = device;
    roofline.gpu = profile.engine.find("cuda") != std::string::npos;
    for (const auto &layer : profile.rows) {
        if (!layer.leaf || layer.module.empty())
            continue;
        auto row = layerRooflineRow(layer, device, profile.deviceTimes);
        roofline.totalNs += row.timeNs;
        if (row.known())
            roofline.knownNs += row.timeNs;
        roofline.rows.push_back(std::move(row));
    }
    std::stable_sort(roofline.rows.begin(), roofline.rows.end(), [](const auto &a, const auto &b) {
        if (a.known() != b.known())
            return a.known();
        return a.timeNs > b.timeNs;
    });
    return roofline;
}

std::vector<BoundTurn> boundTurns(const std::vector<BatchRoofline> &batches, const std::vector<std::string> &layers)
{
    std::vector<const BatchRoofline *> ordered;
    for (const auto &batch : batches)
        ordered.push_back(&batch);
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto *a, const auto *b) { return a->batch < b->batch; });
    std::vector<BoundTurn> turns;
    for (const auto &layer : layers) {
        BoundTurn turn{layer, 0};
        for (const auto *batch : ordered) {
            const auto &rows = batch->roofline.rows;
            const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto &r) { return r.name == layer; });
            const bool compute = row != rows.end() && row->bound == analysis::Bound::Compute;
            if (!compute)
                turn.batch = 0;
            else if (turn.batch == 0)
                turn.batch = batch->batch;
        }
        turns.push_back(turn);
    }
    return turns;
}

} // namespace pyrometer::model
