#pragma once

#include "core/torch/modeltypes.h"
#include "core/util/result.h"

#include <filesystem>
#include <vector>

namespace pyrometer::torch {

// Loads path, runs one forward pass with random inputs (inputs empty: those the model
// records) and counts parameters and FLOPs per module.
Result<FlopsReport> countFlops(const std::filesystem::path &path, const std::vector<InputSpec> &inputs);

} // namespace pyrometer::torch
