#pragma once
// Internal to core/torch's .cpp files: pruning TorchScript modules in place, and what their
// Conv and Linear weights hold. Includes libtorch. Never include from a public header.

#include "core/torch/variant.h"

#include <torch/script.h>

#include <string>
#include <vector>

namespace pyrometer::torch {

// "50%", "12.5%": a fraction as a percentage, for notes.
std::string percentText(double fraction);

// How many of count weights or channels a fraction prunes: amount x count rounded as Python's
// round() does, as torch.nn.utils.prune counts them.
std::int64_t prunedCount(double amount, std::int64_t count);

// Every Conv and Linear submodule with a weight tensor, depth-first ("" is the root).
struct WeightedLayer {
    std::string name;
    std::string type; // "Conv2d", "Linear"
    ::torch::jit::Module module;
};
std::vector<WeightedLayer> convAndLinearLayers(const ::torch::jit::Module &module);

// Unstructured magnitude pruning, in place: the smallest |w| of each Conv and Linear weight
// set to zero, amount of each layer's weights (per layer) or of all of them together
// (global). Returns what it did ("50% of the weights of 21 Conv and Linear layers zeroed, per
// layer"), or why it could not (no Conv or Linear).
Result<std::string> pruneL1(::torch::jit::Module &module, double amount, bool global);

// Structured pruning, in place: the lowest-L1 output channels (amount of them) of Convs and
// Linears removed, with the matching channels of what consumes them (batch norms, depthwise
// convolutions, the next convolution's or linear's inputs), so the tensors shrink. Layers
// whose outputs meet (residual adds, concatenations) are pruned together, as one group of
// channels; a group whose consumers cannot be followed through the inlined forward graph is
// left whole and named in the note. Returns the note, or why nothing could be pruned.
Result<std::string> pruneChannels(::torch::jit::Module &module, double amount);

// The zero weights of each Conv and Linear that holds its weight as a module attribute (not
// frozen or quantized ones, whose weights are graph constants or packed).
std::vector<LayerSparsity> layerSparsity(const ::torch::jit::Module &module);

// The elements of every weight the module holds: its parameters, and the tensor and packed
// int8 weights a frozen or quantized module keeps as constants and attributes instead.
std::int64_t heldWeights(const ::torch::jit::Module &module);

} // namespace pyrometer::torch
