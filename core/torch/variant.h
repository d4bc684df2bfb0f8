#pragma once

#include "core/torch/modeltypes.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::torch {

// Builds and times every variant on the same random inputs, checks its outputs against the
// baseline's and measures its serialized size. A variant that cannot be built or run gets its
// error and the others still run; only a model that cannot be loaded or whose baseline
// fails is an Error. onRow (may be empty) hears of each row as soon as it is measured.
Result<CompareReport> compareVariants(const std::filesystem::path &path, const CompareOptions &options,
                                      const VariantCallback &onRow, ProgressReporter &progress, const StopToken &stop);

// Builds the variant of the model and saves it as TorchScript at out (written beside it, then
// renamed over it), recording inputs (empty: those the model records) as its example inputs,
// so that Pyrometer opens it ready to run. Returns what the variant applied. The baseline and
// threads=N are refused: they save nothing but the model itself.
Result<std::string> exportVariant(const std::filesystem::path &path, const Variant &variant,
                                  const std::vector<InputSpec> &inputs, const std::filesystem::path &out);

// A per-layer profile of one variant (torch::profileLayers on the variant's module, saved to a
// temporary TorchScript file next to nothing else and removed after). Frozen and int8 variants
// inline their submodules, so their time lands on the model's row. options.inputs: the
// baseline's shapes (empty: recorded); bf16 feeds them as bfloat16, threads=N runs N threads.
Result<ProfileReport> profileVariant(const std::filesystem::path &path, const Variant &variant,
                                     const RunOptions &options, ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::torch
