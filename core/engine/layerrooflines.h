#pragma once
// A model's per-layer roofline through a batch sweep, in either engine: what the CLI's
// `roofline MODEL` and the Model page's Roofline tab show.

#include "core/engine/engine.h"
#include "core/model/layerroofline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::engine {

struct LayerRooflineOptions {
    model::RunOptions run;              // inputs at any batch (the swept dimension written "B"), threads, runs
    std::vector<std::int64_t> batches;  // empty: the inputs' own batch
    // The roof; nothing: this CPU's, measured once and cached in cpuRoofCache, on the CPU; on
    // CUDA the table's entry for the GPU the worker names.
    std::optional<analysis::DeviceRoof> device;
    // The roof where the engine's device has none (a GPU the table lacks: Preferences').
    std::optional<analysis::DeviceRoof> fallbackDevice;
    std::filesystem::path cpuRoofCache;
};

struct LayerRooflines {
    std::optional<analysis::DeviceRoof> device;
    std::string engine; // which engine and device ran it
    std::vector<model::BatchRoofline> batches;
};

// The roof a model's layers meet in an engine: this CPU's at `threads`, measured once and cached
// in cpuRoofCache, on the CPU; on CUDA the table's entry for the GPU the worker names (nothing
// when the table lacks it).
Result<std::optional<analysis::DeviceRoof>> engineRoof(const Engine &engine, const std::filesystem::path &model, int threads,
                                                       const std::filesystem::path &cpuRoofCache, const StopToken &stop);

// Where this CPU's measured roof is kept between runs ($XDG_CACHE_HOME/pyrometer/cpu-roof.json).
std::filesystem::path defaultCpuRoofCache();

// Profiles the model at each batch size (profileLayers), then places each leaf layer under the
// roof (measured after the runs, so that a model or input that fails costs no measurement).
Result<LayerRooflines> runLayerRooflines(const Engine &engine, const std::filesystem::path &model,
                                         const LayerRooflineOptions &options, ProgressReporter &progress, const StopToken &stop);

// The n layers that took longest at the largest batch: the ones worth a trajectory.
std::vector<std::string> heaviestLayers(const std::vector<model::BatchRoofline> &batches, std::size_t n);

} // namespace pyrometer::engine
