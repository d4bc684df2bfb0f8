#pragma once
// The operator families both work counters know: opcost (a forward's recorded ops and their
// arguments, for FLOPs) and opwork (a trace's ops and their shapes, for the roofline). One list
// per family, so that an op one of them learns the other learns too; what only one can count
// stays beside its formula.

#include <algorithm>
#include <iterator>
#include <string_view>

namespace pyrometer::analysis::opnames {

// Products of two operands: a (..., m, k) by (..., k, n).
inline constexpr std::string_view kProducts[] = {"aten::mm", "aten::bmm", "aten::matmul"};
// The same, added to a first operand (addmm(self, a, b)).
inline constexpr std::string_view kAddedProducts[] = {"aten::addmm", "aten::baddbmm", "aten::addbmm"};
// Convolutions with the arguments of conv2d/convolution (input, weight, bias, stride, padding, ...).
inline constexpr std::string_view kConvolutions[] = {
    "aten::conv1d",       "aten::conv2d",           "aten::conv3d",           "aten::convolution",
    "aten::_convolution", "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d"};
// scaled_dot_product_attention and the kernels it dispatches to: q, k, v first in each.
inline constexpr std::string_view kAttention[] = {"aten::scaled_dot_product_attention",
                                                  "aten::_scaled_dot_product_attention",
                                                  "aten::_scaled_dot_product_flash_attention",
                                                  "aten::_scaled_dot_product_flash_attention_for_cpu",
                                                  "aten::_scaled_dot_product_efficient_attention",
                                                  "aten::_scaled_dot_product_cudnn_attention",
                                                  "aten::_scaled_dot_product_attention_math"};
// Batch norms: training (or momentum, for _no_training) as their sixth argument.
inline constexpr std::string_view kBatchNorms[] = {"aten::batch_norm", "aten::native_batch_norm",
                                                   "aten::_native_batch_norm_legit",
                                                   "aten::_native_batch_norm_legit_no_training"};
// Normalizations over the input's elements.
inline constexpr std::string_view kNorms[] = {"aten::layer_norm", "aten::native_layer_norm", "aten::group_norm",
                                              "aten::instance_norm"};
inline constexpr std::string_view kSoftmaxes[] = {"aten::softmax", "aten::_softmax", "aten::log_softmax",
                                                  "aten::_log_softmax"};
// Activations of a few FLOPs per element (transcendental).
inline constexpr std::string_view kActivations[] = {
    "aten::gelu",         "aten::silu",  "aten::silu_",     "aten::sigmoid",    "aten::sigmoid_",
    "aten::tanh",         "aten::tanh_", "aten::hardswish", "aten::hardswish_", "aten::hardsigmoid",
    "aten::hardsigmoid_", "aten::mish",  "aten::elu",       "aten::softplus"};
// One FLOP per element of the broadcast result.
inline constexpr std::string_view kElementwise[] = {
    "aten::add",       "aten::add_",       "aten::sub",         "aten::sub_",    "aten::mul",    "aten::mul_",
    "aten::div",       "aten::div_",       "aten::relu",        "aten::relu_",   "aten::relu6",  "aten::hardtanh",
    "aten::hardtanh_", "aten::leaky_relu", "aten::leaky_relu_", "aten::clamp",   "aten::clamp_", "aten::clamp_min",
    "aten::neg",       "aten::abs",        "aten::maximum",     "aten::minimum", "aten::where",  "aten::dropout",
    "aten::pow",       "aten::rsub",       "aten::sqrt",        "aten::rsqrt",   "aten::exp",    "aten::log",
    "aten::reciprocal"};

// Ops that do no work of their own: they make a view of a tensor or allocate one without
// touching its memory (a reshape that copies does so in a child op, which is counted).
inline constexpr std::string_view kNoWork[] = {"aten::view",
                                               "aten::_unsafe_view",
                                               "aten::_reshape_alias",
                                               "aten::reshape",
                                               "aten::as_strided",
                                               "aten::empty",
                                               "aten::empty_like",
                                               "aten::empty_strided",
                                               "aten::transpose",
                                               "aten::t",
                                               "aten::permute",
                                               "aten::expand",
                                               "aten::expand_as",
                                               "aten::unsqueeze",
                                               "aten::squeeze",
                                               "aten::select",
                                               "aten::slice",
                                               "aten::narrow",
                                               "aten::detach",
                                               "aten::detach_",
                                               "aten::alias",
                                               "aten::unbind",
                                               "aten::split",
                                               "aten::chunk",
                                               "aten::lift_fresh",
                                               "aten::resize_",
                                               "aten::flatten",
                                               "aten::unflatten",
                                               "aten::split_with_sizes",
                                               "aten::view_as"};

inline bool doesNoWork(std::string_view op)
{
    return std::find(std::begin(kNoWork), std::end(kNoWork), op) != std::end(kNoWork);
}

} // namespace pyrometer::analysis::opnames
