#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// One argument of a recorded operator call, reduced to what cost formulas need.
struct OpArg {
    enum class Kind { None, Tensor, Int, Double, Bool, IntList, TensorList, Other };
    Kind kind = Kind::None;
    std::vector<std::int64_t> values; // Tensor: its sizes; IntList: the ints; Int/Bool: one value
    std::vector<std::vector<std::int64_t>> tensors; // TensorList: each tensor's sizes
    double number = 0;                              // Double
    int elementBytes = 0; // Tensor: the size of one element of its dtype; 0 when not recorded
    std::string dtype = {}; // Tensor: its dtype as a trace's "Input type" writes it ("c10::Half"); "" not recorded
    bool operator==(const OpArg &) const = default;
};

// One top-level operator call of a forward pass (an aten op not nested in another one):
// what the TorchScript graph ran, with the module that ran it.
struct OpRecord {
    std::string name;                       // "aten::_convolution"
    std::vector<std::string> moduleFrames;  // "TOP(ResNet)::forward", "layer1(Sequential)::forward", ...
    std::vector<OpArg> args;
    std::vector<std::vector<std::int64_t>> outputShapes; // of each tensor output
    bool operator==(const OpRecord &) const = default;
};

// Cost of one operator call. Convention: a multiply-accumulate is one MAC and two FLOPs, so
// flops = 2 x macs for conv, linear, matmul, attention and RNN cells; elementwise,
// normalization, pooling and softmax ops add FLOPs (one per element and elementary
// operation) without MACs. Published "GFLOPs" of torchvision models are MACs.
struct OpCost {
    double macs = 0;
    double flops = 0;
    bool counted = false; // false: no formula for this op (data movement, views, unknown ops)
    bool operator==(const OpCost &) const = default;
};

OpCost opCost(const OpRecord &op);

} // namespace pyrometer::analysis
