#pragma once

#include "core/torch/modeltypes.h"
#include "core/torch/session.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>

namespace pyrometer::torch {

// Loads path, times the cold first run, runs options.warmup untimed and options.iterations
// timed runs. Checks stop between runs: a cancelled run returns an Error ending "cancelled".
Result<LatencyReport> measureLatency(const std::filesystem::path &path, const RunOptions &options, ProgressReporter &progress,
                                     const StopToken &stop);

// The same on an open session (the GUI's sweeps and benchmarks reuse one).
Result<LatencyReport> measureLatency(ModelSession &session, const RunOptions &options, ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::torch
