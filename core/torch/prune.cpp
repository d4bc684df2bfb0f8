// Unstructured magnitude pruning of Conv and Linear weights, and what a module's weights hold
// (their count, their zeros). Includes libtorch.
#include "core/torch/prune.h"

#include "core/util/format.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace pyrometer::torch {
namespace {

bool isConvOrLinear(const std::string &type)
{
    return type == "Conv1d" || type == "Conv2d" || type == "Conv3d" || type == "Linear";
}

} // namespace

std::int64_t prunedCount(double amount, std::int64_t count)
{
    // Python's round() (halves to even), as torch.nn.utils.prune counts a fraction of a tensor.
    return std::clamp<std::int64_t>(std::int64_t(std::nearbyint(amount * double(count))), 0, count);
}

namespace {

at::Tensor weightOf(const ::torch::jit::Module &module)
{
    return module.attr("weight").toTensor();
}

// Zeros the elements of weight at flat indices, in place.
void zeroAt(at::Tensor weight, const at::Tensor &indices)
{
    auto flat = weight.detach().reshape({-1}).clone();
    flat.index_fill_(0, indices, 0);
    weight.detach().copy_(flat.view(weight.sizes()));
}

} // namespace

std::vector<WeightedLayer> convAndLinearLayers(const ::torch::jit::Module &module)
{
    std::vector<WeightedLayer> layers;
    for (const auto &named : module.named_modules()) {
        const auto &type = named.value.type();
        const std::string name = type->name() ? type->name()->name() : std::string();
        if (!isConvOrLinear(name) || !named.value.hasattr("weight") || !named.value.attr("weight").isTensor())
            continue;
        layers.push_back({named.name, name, named.value});
    }
    return layers;
}

Result<std::string> pruneL1(::torch::jit::Module &module, double amount, bool global)
{
    const auto layers = convAndLinearLayers(module);
    if (layers.empty())
        return Error{"the model has no Conv or Linear layer whose weights could be pruned"};
    ::torch::NoGradGuard noGrad;
    if (global) {
        // One threshold for the whole model: the smallest weights wherever they are.
        std::vector<at::Tensor> magnitudes;
        for (const auto &layer : layers)
            magnitudes.push_back(weightOf(layer.module).detach().abs().reshape({-1}).to(at::kFloat));
        const auto all = at::cat(magnitudes);
        const auto pruned = prunedCount(amount, all.numel());
        if (pruned > 0) {
            const auto chosen = std::get<1>(all.topk(pruned, 0, /*largest=*/false, /*sorted=*/false));
            std::int64_t offset = 0;
            for (std::size_t i = 0; i < layers.size(); ++i) {
                const auto count = magnitudes[i].numel();
                const auto mine =
                    chosen.masked_select((chosen >= offset).logical_and(chosen < offset + count)) - offset;
                zeroAt(weightOf(layers[i].module), mine);
                offset += count;
            }
        }
    } else {
        for (const auto &layer : layers) {
            auto weight = weightOf(layer.module);
            const auto pruned = prunedCount(amount, weight.numel());
            if (pruned == 0)
                continue;
            const auto magnitude = weight.detach().abs().reshape({-1}).to(at::kFloat);
            zeroAt(weight, std::get<1>(magnitude.topk(pruned, 0, /*largest=*/false, /*sorted=*/false)));
        }
    }
    return percentText(amount) + " of the weights of " + countOf(int(layers.size()), "Conv and Linear layer") +
           " set to zero (" + (global ? "the smallest of the whole model" : "the smallest of each layer") + ")";
}

std::vector<LayerSparsity> layerSparsity(const ::torch::jit::Module &module)
{
    std::vector<LayerSparsity> layers;
    for (const auto &layer : convAndLinearLayers(module)) {
        const auto weight = weightOf(layer.module);
        LayerSparsity entry{layer.name, layer.type, weight.numel(), 0};
        entry.zeros = weight.numel() - weight.count_nonzero().item<std::int64_t>();
        layers.push_back(std::move(entry));
    }
    return layers;
}

namespace {

// A packed int8 weight's elements: the tensors its unpack() gives (weight and bias).
std::int64_t packedElements(const c10::IValue &value)
{
    if (!value.isObject())
        return 0;
    auto *unpack = value.toObjectRef().type()->findMethod("unpack");
    if (!unpack)
        return 0;
    std::int64_t count = 0;
    try {
        const auto unpacked = (*unpack)({value});
        if (unpacked.isTuple())
            for (const auto &element : unpacked.toTupleRef().elements())
                if (element.isTensor() && element.toTensor().defined())
                    count += element.toTensor().numel();
    } catch (const std::exception &) {
        // An engine that cannot unpack it: not counted.
    }
    return count;
}

void countConstants(const ::torch::jit::Block *block, std::unordered_set<const void *> &seen, std::int64_t &count)
{
    for (const auto *node : block->nodes()) {
        for (const auto *inner : node->blocks())
            countConstants(inner, seen, count);
        if (node->kind() != c10::prim::Constant || !node->hasAttribute(c10::attr::value))
            continue;
        const auto value = ::torch::jit::toIValue(node->output());
        if (!value)
            continue;
        if (value->isTensor() && seen.insert(value->toTensor().unsafeGetTensorImpl()).second)
            count += value->toTensor().numel();
        else if (value->isObject() && seen.insert(value->internalToPointer()).second)
            count += packedElements(*value);
    }
}

} // namespace

std::int64_t heldWeights(const ::torch::jit::Module &module)
{
    std::int64_t count = 0;
    for (const auto &parameter : module.parameters())
        count += parameter.numel();
    std::unordered_set<const void *> seen;
    // Packed weights kept as attributes (int8 dynamic registers them so they serialize).
    for (const auto &attribute : module.named_attributes()) {
        const auto &value = attribute.value;
        if (value.isObject() && !value.toObjectRef().type()->is_module() &&
            seen.insert(value.internalToPointer()).second)
            count += packedElements(value);
    }
    // Constants of a frozen graph: its weights, folded and inlined.
    for (const auto &method : module.get_methods())
        countConstants(method.graph()->block(), seen, count);
    return count;
}

} // namespace pyrometer::torch
