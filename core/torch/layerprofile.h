#pragma once

#include "core/torch/modeltypes.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>

namespace pyrometer::torch {

// Loads path, warms up (options.warmup runs), counts FLOPs on one run, then profiles
// options.iterations runs. Checks stop between runs.
Result<ProfileReport> profileLayers(const std::filesystem::path &path, const RunOptions &options, ProgressReporter &progress,
                                    const StopToken &stop);

} // namespace pyrometer::torch
