#pragma once
// Internal to core/torch's .cpp files: which layers of a TorchScript module hold which
// channels, found over its inlined forward graph, for structured pruning. Includes libtorch.
// Never include from a public header.

#include <torch/script.h>

#include <optional>
#include <string>
#include <vector>

namespace pyrometer::torch {

// A set of channels that must be pruned as one: the outputs of every layer that produces them
// (outputs added together are one group), and why it must stay whole, if it must.
struct ChannelGroup {
    int parent = -1; // union-find: -1 for a root
    std::int64_t channels = 0;
    std::vector<std::string> producers; // convs and linears: weight dim 0 and bias
    std::string blocked;                // why it must stay whole; empty when it may be pruned
};

// A module that holds a slice of some groups' channels, in their order: a consumer's input
// channels (weight dim 1; after a flatten each channel is a block of elements), or a batch
// norm's or depthwise convolution's per-channel tensors (dim 0).
struct ChannelSlice {
    std::string module;
    std::vector<int> groups;
    bool perChannelParams = false; // batch norm or depthwise convolution
    bool depthwise = false;
    bool flattened = false;
};

struct ChannelGroups {
    std::vector<ChannelGroup> groups;
    std::vector<ChannelSlice> slices;
    // The group that group was merged into.
    int find(int group) const;
    // Keeps the group whole, for the first reason given.
    void block(int group, const std::string &why);
};

// Follows every tensor of the inlined forward graph of root (graph: a copy, inlined) from the
// convolutions and linears that produce channels to what reads them. Whatever reads channels
// in a way not followed here (views, control flow, the model's output) keeps their groups
// whole; a module reached on tensors of other channels too keeps all of them whole.
ChannelGroups analyseChannels(const ::torch::jit::Module &root, ::torch::jit::Graph &graph);

// The submodule at a dotted path ("layer1.0.conv1"; "" is root).
::torch::jit::Module submodule(const ::torch::jit::Module &root, const std::string &path);

// A convolution node's position of its groups argument; nothing for other nodes.
std::optional<std::size_t> convolutionGroupsInput(const ::torch::jit::Node *node);

std::optional<std::int64_t> constantInt(const ::torch::jit::Value *value);

} // namespace pyrometer::torch
