// Structured channel pruning: the lowest-L1 channels of each group channelgraph finds, removed
// from every weight that holds them. Includes libtorch.
#include "core/torch/prune.h"

#include "core/torch/channelgraph.h"
#include "core/util/format.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <cstdio>
#include <map>

namespace pyrometer::torch {
namespace {

namespace jit = ::torch::jit;

void replaceTensor(jit::Module &module, const std::string &name, const at::Tensor &tensor)
{
    const auto old = module.attr(name).toTensor();
    auto replacement = tensor.contiguous().clone();
    replacement.set_requires_grad(old.requires_grad());
    module.setattr(name, replacement);
}

// Sets the groups of a depthwise module's convolutions, in the graphs of its own methods.
void setGroups(jit::Module &module, std::int64_t from, std::int64_t to)
{
    for (const auto &method : module.get_methods()) {
        auto &function = jit::toGraphFunction(method.function());
        for (auto *node : function.graph()->nodes()) {
            const auto at = convolutionGroupsInput(node);
            if (!at || constantInt(node->input(*at)) != from)
                continue;
            jit::WithInsertPoint point(node);
            node->replaceInput(*at, function.graph()->insertConstant(to));
        }
        function.clear_optimized_graphs();
    }
}

// What holds a module's channels: its weight, or a batch norm's running mean without one.
at::Tensor channelTensor(const jit::Module &layer)
{
    for (const char *name : {"weight", "running_mean"})
        if (layer.hasattr(name) && layer.attr(name).isTensor())
            return layer.attr(name).toTensor();
    return {};
}

} // namespace

std::string percentText(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g%%", fraction * 100);
    return text;
}

Result<std::string> pruneChannels(jit::Module &module, double amount)
{
    auto graph = module.get_method("forward").graph()->copy();
    jit::Inline(*graph);
    jit::ConstantPropagation(graph);
    jit::EliminateDeadCode(graph);
    auto analysis = analyseChannels(module, *graph);
    // Inlining filled the callees' caches of optimized graphs, which setGroups makes stale.
    for (const auto &child : module.modules())
        for (const auto &method : child.get_methods())
            jit::toGraphFunction(method.function()).clear_optimized_graphs();

    auto &groups = analysis.groups;
    std::map<int, at::Tensor> kept; // root group -> kept channel indices, ascending
    std::vector<std::string> whole;
    std::int64_t removed = 0;
    ::torch::NoGradGuard noGrad;
    for (int g = 0; g < int(groups.size()); ++g) {
        if (analysis.find(g) != g)
            continue;
        const auto &group = groups[std::size_t(g)];
        if (!group.blocked.empty()) {
            std::string names;
            for (const auto &producer : group.producers)
                names += (names.empty() ? "" : ", ") + producer;
            whole.push_back(names + " (" + group.blocked + ")");
            continue;
        }
        const auto drop = std::min<std::int64_t>(group.channels - 1, prunedCount(amount, group.channels));
        if (drop <= 0)
            continue;
        // A channel's importance: the L1 norm of its weights in every layer that produces it.
        auto importance = at::zeros({group.channels}, at::kDouble);
        for (const auto &producer : group.producers)
            importance += submodule(module, producer)
                              .attr("weight")
                              .toTensor()
                              .detach()
                              .abs()
                              .reshape({group.channels, -1})
                              .sum(1)
                              .to(at::kDouble);
        const auto keep = std::get<1>(importance.topk(group.channels - drop, 0, /*largest=*/true, /*sorted=*/false));
        kept[g] = std::get<0>(keep.sort());
        removed += drop;
        for (const auto &producer : group.producers) {
            auto layer = submodule(module, producer);
            replaceTensor(layer, "weight", layer.attr("weight").toTensor().index_select(0, kept[g]));
            if (layer.hasattr("bias") && layer.attr("bias").isTensor())
                replaceTensor(layer, "bias", layer.attr("bias").toTensor().index_select(0, kept[g]));
        }
    }
    if (kept.empty())
        return Error{"no layer's channels could be pruned" +
                     (whole.empty() ? std::string() : ": left whole: " + whole.front())};

    for (const auto &slice : analysis.slices) {
        // The slice's kept positions, channel by channel across its groups.
        std::vector<at::Tensor> parts;
        std::int64_t offset = 0;
        std::int64_t channels = 0;
        for (const auto group : slice.groups)
            channels += groups[std::size_t(analysis.find(group))].channels;
        auto layer = submodule(module, slice.module);
        const auto weight = channelTensor(layer);
        const auto width = slice.perChannelParams ? weight.size(0) : weight.size(1);
        const auto block = slice.flattened ? width / channels : 1;
        if (width != channels * block)
            return Error{slice.module + " holds " + std::to_string(width) + " channels where " +
                         std::to_string(channels) + " reach it"};
        for (const auto group : slice.groups) {
            const auto root = analysis.find(group);
            const auto count = groups[std::size_t(root)].channels;
            const auto found = kept.find(root);
            const auto indices = found == kept.end() ? at::arange(count, at::kLong) : found->second;
            const auto positions = (indices + offset).unsqueeze(1) * block + at::arange(block, at::kLong).unsqueeze(0);
            parts.push_back(positions.reshape({-1}));
            offset += count;
        }
        const auto positions = at::cat(parts);
        if (positions.numel() == width)
            continue; // none of its groups was pruned
        if (!slice.perChannelParams) {
            replaceTensor(layer, "weight", weight.index_select(1, positions));
            continue;
        }
        for (const char *name : {"weight", "bias", "running_mean", "running_var"})
            if (layer.hasattr(name) && layer.attr(name).isTensor() && layer.attr(name).toTensor().dim() > 0)
                replaceTensor(layer, name, layer.attr(name).toTensor().index_select(0, positions));
        if (slice.depthwise)
            setGroups(layer, width, positions.numel());
    }
    std::string note = percentText(amount) + " of the output channels of " +
                       countOf(std::int64_t(kept.size()), "channel group") + " removed (" +
                       countOf(removed, "channel") + ")";
    if (!whole.empty()) {
        note += "; left whole: ";
        for (std::size_t i = 0; i < whole.size(); ++i)
            note += (i ? "; " : "") + whole[i];
    }
    return note;
}

} // namespace pyrometer::torch
