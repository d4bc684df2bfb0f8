#pragma once
// Input shapes read from the user's data: what the embedded engine's reader of torch.save files sees.

#include "core/torch/modeltypes.h"
#include "core/util/result.h"

#include <filesystem>
#include <vector>

namespace pyrometer::torch {

// The shapes and types of a batch of the data file's samples (kEvaluationBatch of them, or all
// when fewer), as a profile or a compare feeds them; with BatchDim::Swept, every input's first
// dimension is the batch a sweep varies. An Error names the file and what is wrong with it.
Result<std::vector<InputSpec>> inputsOfData(const std::filesystem::path &data, BatchDim batch = BatchDim::Fixed);

} // namespace pyrometer::torch
