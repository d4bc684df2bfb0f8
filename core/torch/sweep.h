#pragma once

#include "core/torch/modeltypes.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>

namespace pyrometer::torch {

// Runs every variant over the batches: warmup untimed and iterations timed runs per point.
// onPoint (may be empty) hears of each point as soon as it is measured, on the calling
// thread. Running out of memory at a batch ends that variant's sweep there with a note; a
// variant that cannot be built gets its error and the others still run. Stop is checked
// between runs; a stopped sweep returns an Error ending "cancelled".
Result<SweepReport> runSweep(const std::filesystem::path &path, const SweepOptions &options, const SweepCallback &onPoint,
                             ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::torch
