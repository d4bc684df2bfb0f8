#pragma once

#include "core/analysis/opcost.h"

#include <string>
#include <string_view>

namespace pyrometer::analysis {

// Where an op's arithmetic runs: matrix units (tensor cores, AMD's matrix cores, a CPU's GEMM
// kernels) for products, convolutions and attention; vector units for everything else.
enum class WorkUnit { Matrix, Vector };

// The work of one op call, from what a trace recorded of its arguments. A figure that cannot be
// known (no formula, a missing shape or scalar value, an unknown dtype) is kUnknown, never 0.
struct OpWork {
    static constexpr double kUnknown = -1;
    double flops = kUnknown;
    // Minimum bytes moved: each tensor argument read once and each output written once, at its
    // dtype's size (an in-place op's output counts as written).
    double bytes = kUnknown;
    std::string dtype; // of the first tensor argument, as written ("float", "c10::BFloat16")
    WorkUnit unit = WorkUnit::Vector;
    bool hasFormula = false; // the op is one the formulas know (its figures may still be unknown)
    bool knownFlops() const { return flops >= 0; }
    bool knownBytes() const { return bytes >= 0; }
    bool known() const { return knownFlops() && knownBytes(); }
    bool operator==(const OpWork &) const = default;
};

// The work of a call of `name` from the raw JSON texts of its "Input Dims", "Input type" and
// "Concrete Inputs" args (concrete empty when the trace has none, as before torch 2.0).
//
// FLOPs come from the shape formulas the model engines use (opcost.h: a multiply-accumulate is
// two FLOPs); this adds the output shapes a trace does not record and the bytes:
// - mm, bmm, matmul, addmm, baddbmm, addbmm, linear: output from the operands' shapes.
// - conv1d/2d/3d, convolution, _convolution, conv_transpose1d/2d/3d: output from stride,
//   padding, dilation (and output_padding, groups when transposed) in Concrete Inputs.
// - convolution_backward (needs output_mask), cudnn_convolution_backward_input/_weight: each
//   gradient costs the forward's MACs; outputs are the gradients of input, weight and bias.
// - scaled_dot_product_attention and its flash, efficient, cudnn and math forms: output like
//   q with v's last dimension; their backward forms: four products (as
//   torch.utils.flop_counter), outputs the gradients of q, k and v.
// - layer, group, instance and batch norms (batch norm needs its training flag), softmax and
//   log_softmax, elementwise and activation ops: output like the input, or the broadcast of
//   the tensor arguments; the backward forms of these cost their forward's FLOPs per gradient
//   element and write one gradient.
// - sum and mean: output from the reduced dims and keepdim in Concrete Inputs.
// - torch.compile's generated pointwise and reduction kernels (triton_poi_, triton_red_,
//   triton_per_ ops): every tensor argument is a buffer read or written once (outputs are among
//   them); FLOPs are the largest buffer's elements, one operation each, a lower bound.
OpWork opWork(std::string_view name, std::string_view inputDims, std::string_view inputTypes, std::string_view concrete);

// The minimum bytes of a call a model engine recorded (its tensors with their element sizes, its
// outputs at the first tensor's): each tensor argument read once, each output written once.
// Unknown (OpWork::kUnknown) when a tensor's element size was not recorded; 0 for movesNoData.
double opBytes(const OpRecord &op);
// Ops that only make a new view of a tensor, or a tensor not yet written (aten::view, reshape,
// t, permute, expand, empty …): they move no data, so their minimum bytes are 0 and a chain of
// memory-bound ops runs on across them.
bool movesNoData(std::string_view name);
// Matrix for the products, convolutions and attention the formulas know, else Vector.
WorkUnit opUnit(std::string_view name);

// Bytes of one element of a tensor's dtype as "Input type" writes it (the C++ type's name:
// "float", "c10::BFloat16", "long int"); 0 for anything else. Exact: a scalar argument is written
// "Int", "Bool" or "Double", and must not read as a tensor (distributed.h's dtypeBytes reads
// collectives' looser "dtype" names).
int tensorDtypeBytes(std::string_view dtype);

} // namespace pyrometer::analysis
