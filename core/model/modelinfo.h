#pragma once
// What a model file holds, read without running it: its modules and parameters.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::model {

// One module of a model, in depth-first order ("" is the root).
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

} // namespace pyrometer::model
