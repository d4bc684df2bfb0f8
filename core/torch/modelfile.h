#pragma once

#include "core/torch/modeltypes.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>

namespace pyrometer::torch {

// Loads a TorchScript archive (what torch.jit.save writes) on the CPU and describes it.
// Anything else is refused with an Error that says what the file is and how to export
// TorchScript: a missing file, a pickled state_dict or module (torch.save), a zip that is
// not TorchScript, a file that is not a zip at all.
Result<ModelInfo> inspectModel(const std::filesystem::path &path);

// libtorch's version, as compiled in ("1.13.0").
std::string torchVersion();

} // namespace pyrometer::torch
