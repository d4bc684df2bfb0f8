#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::torch {

// One module of a TorchScript model, in depth-first order ("" is the root).
struct ModuleInfo {
    std::string qualifiedName; // "layer1.0.conv1"
    std::string typeName;      // "Conv2d" (the class name, without its __torch__ prefix)
    int depth = 0;
    std::uint64_t ownParameters = 0;   // parameters held directly, not by submodules
    std::uint64_t totalParameters = 0; // including every submodule's
    bool operator==(const ModuleInfo &) const = default;
};

// What a TorchScript file holds, read without running it.
struct ModelInfo {
    std::filesystem::path path;
    std::uint64_t fileBytes = 0;
    std::uint64_t parameters = 0;     // elements of all parameters
    std::uint64_t parameterBytes = 0; // their storage
    std::vector<ModuleInfo> modules;
    std::string forwardSchema; // "forward(__torch__.Net self, Tensor x) -> Tensor"
    bool operator==(const ModelInfo &) const = default;
};

// Loads a TorchScript archive (what torch.jit.save writes) on the CPU and describes it.
// Anything else is refused with an Error that says what the file is and how to export
// TorchScript: a missing file, a pickled state_dict or module (torch.save), a zip that is
// not TorchScript, a file that is not a zip at all.
Result<ModelInfo> inspectModel(const std::filesystem::path &path);

// libtorch's version, as compiled in ("1.13.0").
std::string torchVersion();

} // namespace pyrometer::torch
