// The only translation units that include libtorch live in core/torch; their headers expose
// plain structs, so Qt code never sees torch's `slots` identifiers.
#include "core/torch/modelfile.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>
#include <torch/version.h>

#include <array>
#include <fstream>
#include <sstream>

namespace pyrometer::torch {
namespace fs = std::filesystem;

namespace {

constexpr const char *kExportHint =
    "export TorchScript with torch.jit.trace(model, example_inputs) or "
    "torch.jit.script(model), then .save(\"model.pt\")";

std::string quoted(const fs::path &path)
{
    return path.string();
}

// Tells what kind of file a non-TorchScript input is, for the refusal message; empty when it
// looks like a TorchScript archive.
std::string describeNonTorchScript(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 4> magic{};
    in.read(reinterpret_cast<char *>(magic.data()), magic.size());
    const auto got = in.gcount();
    if (got == 0)
        return "the file is empty";
    if (got >= 2 && magic[0] == 0x80 && magic[1] <= 5)
        return "it is a Python pickle (the legacy torch.save format), not TorchScript";
    if (got < 4 || magic[0] != 'P' || magic[1] != 'K' || magic[2] != 3 || magic[3] != 4)
        return "it is not a TorchScript archive (not a zip file)";
    try {
        caffe2::serialize::PyTorchStreamReader reader(path.string());
        if (reader.hasRecord("constants.pkl") && reader.hasRecord("data.pkl"))
            return {};
        if (reader.hasRecord("data.pkl"))
            return "it is a torch.save checkpoint (a state_dict or pickled module), not TorchScript";
        return "it is a zip archive without TorchScript code";
    } catch (const std::exception &) {
        return "it is a zip archive without TorchScript code (not a PyTorch archive)";
    }
}

std::string stripTypePrefix(std::string name)
{
    // "__torch__.torch.nn.modules.conv.Conv2d" -> "Conv2d"
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::uint64_t countOwnParameters(const ::torch::jit::Module &module, std::uint64_t *bytes)
{
    std::uint64_t count = 0;
    for (const auto &parameter : module.named_parameters(/*recurse=*/false)) {
        count += static_cast<std::uint64_t>(parameter.value.numel());
        *bytes += static_cast<std::uint64_t>(parameter.value.numel() * parameter.value.element_size());
    }
    return count;
}

// Appends module and its descendants depth-first; returns the subtree's parameter count.
std::uint64_t collectModules(const ::torch::jit::Module &module, const std::string &name, int depth, ModelInfo &info)
{
    const auto index = info.modules.size();
    ModuleInfo entry;
    entry.qualifiedName = name;
    entry.typeName = module.type()->name() ? stripTypePrefix(module.type()->name()->qualifiedName()) : "Module";
    entry.depth = depth;
    entry.ownParameters = countOwnParameters(module, &info.parameterBytes);
    info.parameters += entry.ownParameters;
    std::uint64_t total = entry.ownParameters;
    info.modules.push_back(std::move(entry));
    for (const auto &child : module.named_children())
        total += collectModules(child.value, name.empty() ? child.name : name + "." + child.name, depth + 1, info);
    info.modules[index].totalParameters = total;
    return total;
}

} // namespace

Result<ModelInfo> inspectModel(const fs::path &path)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        return Error{quoted(path) + ": no such file"};
    if (fs::is_directory(path, ec))
        return Error{quoted(path) + ": is a directory, not a TorchScript model file"};
    if (const auto what = describeNonTorchScript(path); !what.empty())
        return Error{quoted(path) + ": " + what + "; " + kExportHint};

    ModelInfo info;
    info.path = path;
    info.fileBytes = fs::file_size(path, ec);
    try {
        const auto module = ::torch::jit::load(path.string(), ::torch::kCPU);
        collectModules(module, "", 0, info);
        if (const auto forward = module.find_method("forward")) {
            std::ostringstream schema;
            schema << forward->function().getSchema();
            info.forwardSchema = schema.str();
        }
    } catch (const c10::Error &error) {
        return Error{quoted(path) + ": libtorch cannot load it: " + error.what_without_backtrace()};
    } catch (const std::exception &error) {
        return Error{quoted(path) + ": libtorch cannot load it: " + error.what()};
    }
    return info;
}

std::string torchVersion()
{
    return TORCH_VERSION;
}

} // namespace pyrometer::torch
