#include "core/engine/layerrooflines.h"

#include "core/torch/cpuroof.h"
#include "core/torch/sweep.h"

#include <algorithm>

namespace pyrometer::engine {

Result<LayerRooflines> runLayerRooflines(const Engine &engine, const std::filesystem::path &model,
                                         const LayerRooflineOptions &options, ProgressReporter &progress, const StopToken &stop)
{
    LayerRooflines result;
    const auto chosen = resolveEngine(engine, model);
    // The batches first: a model or input that fails does so before the roof costs a measurement.
    std::vector<std::pair<std::int64_t, model::ProfileReport>> profiles;
    const std::size_t count = std::max<std::size_t>(1, options.batches.size());
    for (std::size_t i = 0; i < count; ++i) {
        auto run = options.run;
        if (!options.batches.empty())
            run.inputs = model::withBatch(options.run.inputs, options.batches[i]);
        ProgressReporter quiet;
        auto profile = profileLayers(chosen, model, run, quiet, stop);
        if (!profile.ok())
            return profile.error();
        auto &p = profile.value();
        const auto batch = !options.batches.empty() ? options.batches[i]
                                                    : (p.inputs.empty() || p.inputs.front().shape.empty() ? 1 : p.inputs.front().shape.front());
        result.engine = p.engine;
        profiles.emplace_back(batch, std::move(p));
        progress.reportPermille(int(900 * (i + 1) / count));
    }
    result.device = options.device;
    if (!result.device) {
        auto roof = engineRoof(chosen, model, options.run.threads, options.cpuRoofCache, stop);
        if (!roof.ok())
            return roof.error();
        result.device = roof.value() ? roof.value() : options.fallbackDevice;
    }
    for (const auto &[batch, profile] : profiles)
        result.batches.push_back({batch, model::layerRoofline(profile, result.device)});
    progress.reportPermille(1000);
    return result;
}

std::filesystem::path defaultCpuRoofCache()
{
    return torch::defaultCpuRoofCache();
}

Result<std::optional<analysis::DeviceRoof>> engineRoof(const Engine &engine, const std::filesystem::path &model, int threads,
                                                       const std::filesystem::path &cpuRoofCache, const StopToken &stop)
{
    const auto chosen = resolveEngine(engine, model);
    const bool cuda = isPython(chosen) && chosen.device.rfind("cuda", 0) == 0;
    if (!cuda) {
        auto measured = torch::thisCpuRoof(threads, cpuRoofCache, stop);
        if (!measured.ok())
            return measured.error();
        return std::optional<analysis::DeviceRoof>(torch::cpuDevice(measured.value()));
    }
    // The GPU the worker runs on, by the name its torch gives it.
    auto info = probePython(chosen.python, stop);
    if (!info.ok())
        return info.error();
    const auto colon = chosen.device.find(':');
    const std::size_t index = colon == std::string::npos ? 0 : std::size_t(std::stoul(chosen.device.substr(colon + 1)));
    if (index < info->deviceNames.size())
        return analysis::findDevice(info->deviceNames[index]);
    return std::optional<analysis::DeviceRoof>();
}

std::vector<std::string> heaviestLayers(const std::vector<model::BatchRoofline> &batches, std::size_t n)
{
    if (batches.empty())
        return {};
    const auto largest = std::max_element(batches.begin(), batches.end(), [](const auto &a, const auto &b) { return a.batch < b.batch; });
    std::vector<const analysis::RooflineRow *> rows;
    for (const auto &row : largest->roofline.rows)
        if (row.known())
            rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(), [](const auto *a, const auto *b) { return a->timeNs > b->timeNs; });
    std::vector<std::string> names;
    for (std::size_t i = 0; i < rows.size() && i < n; ++i)
        names.push_back(rows[i]->name);
    return names;
}

} // namespace pyrometer::engine
