#include "core/analysis/opcost.h"

#include "core/analysis/opnames.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <span>
#include <string_view>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using Shape = std::vector<std::int64_t>;

double product(const Shape &shape, std::size_t from = 0, std::size_t to = SIZE_MAX)
{
    double result = 1;
    for (std::size_t i = from; i < std::min(to, shape.size()); ++i)
        result *= double(shape[i]);
    return result;
}

const Shape *tensorArg(const OpRecord &op, std::size_t index)
{
    if (index < op.args.size() && op.args[index].kind == OpArg::Kind::Tensor)
        return &op.args[index].values;
    return nullptr;
}

double elements(const OpRecord &op, std::size_t index)
{
    const auto *shape = tensorArg(op, index);
    return shape ? product(*shape) : 0;
}

double outputElements(const OpRecord &op)
{
    return op.outputShapes.empty() ? 0 : product(op.outputShapes.front());
}

// Largest tensor among inputs and first output: the element count of a broadcast op.
double broadcastElements(const OpRecord &op)
{
    double most = outputElements(op);
    for (std::size_t i = 0; i < op.args.size(); ++i)
        most = std::max(most, elements(op, i));
    return most;
}

OpCost macs(double count, double extraFlops = 0)
{
    return {count, 2 * count + extraFlops, true};
}

OpCost flopsOnly(double count)
{
    return {0, count, true};
}

OpCost &operator+=(OpCost &sum, const OpCost &part)
{
    sum.macs += part.macs;
    sum.flops += part.flops;
    sum.counted = sum.counted || part.counted;
    return sum;
}

// FLOPs per element: softmax (max, sub, exp, sum, div), normalization (mean, variance,
// normalize, scale, shift), transcendental activations (gelu, tanh, ...).
constexpr double kSoftmaxFlops = 5;
constexpr double kNormFlops = 5;
constexpr double kTranscendentalFlops = 4;

// conv: output elements x (input channels / groups) x kernel elements; the weight is
// [Cout, Cin/groups, k...] for a convolution and [Cin, Cout/groups, k...] transposed.
OpCost convolution(const OpRecord &op)
{
    const auto *input = tensorArg(op, 0);
    const auto *weight = tensorArg(op, 1);
    if (!input || !weight || weight->size() < 3 || op.outputShapes.empty())
        return {};
    const bool transposed = op.name == "aten::_convolution" || op.name == "aten::convolution"
        ? (op.args.size() > 6 && op.args[6].kind == OpArg::Kind::Bool && !op.args[6].values.empty() && op.args[6].values[0] != 0)
        : op.name.find("transpose") != std::string::npos;
    const double kernel = product(*weight, 2);
    double result = 0;
    if (!transposed) {
        result = outputElements(op) * double((*weight)[1]) * kernel;
    } else {
        // Each input element is scattered through the kernel into Cout/groups channels.
        result = product(*input) * double((*weight)[1]) * kernel;
    }
    const bool bias = tensorArg(op, 2) != nullptr;
    return macs(result, bias ? outputElements(op) : 0);
}

// Quantized convolutions take their weight packed (recorded as the unpacked weight) after the
// input, and some records carry an extra tensor before them: the weight is the last tensor
// argument whose first dimension is the output's channels, the input the one before it.
OpCost quantizedConvolution(const OpRecord &op)
{
    if (op.outputShapes.empty() || op.outputShapes.front().size() < 3)
        return {};
    const auto channels = op.outputShapes.front()[1];
    for (std::size_t w = op.args.size(); w-- > 1;) {
        const auto *weight = tensorArg(op, w);
        const auto *input = tensorArg(op, w - 1);
        if (weight && input && weight->size() >= 3 && weight->front() == channels && input->size() == weight->size()) {
            OpRecord plain;
            plain.name = op.name;
            plain.args = {op.args[w - 1], op.args[w]};
            plain.outputShapes = op.outputShapes;
            return convolution(plain);
        }
    }
    return {};
}

// [.., n, k] x [.., k, m] with broadcasting; 1-D operands are vectors.
OpCost matmul(const Shape &a, const Shape &b)
{
    if (a.empty() || b.empty())
        return {};
    const double k = double(a.back());
    const double n = a.size() >= 2 ? double(a[a.size() - 2]) : 1;
    const double m = b.size() >= 2 ? double(b.back()) : 1;
    const Shape batchA(a.begin(), a.end() - std::min<std::ptrdiff_t>(2, std::ptrdiff_t(a.size())));
    const Shape batchB(b.begin(), b.end() - std::min<std::ptrdiff_t>(2, std::ptrdiff_t(b.size())));
    // Broadcast batch: the larger of each aligned dimension.
    double batch = 1;
    const auto rank = std::max(batchA.size(), batchB.size());
    for (std::size_t i = 0; i < rank; ++i) {
        const auto da = i < batchA.size() ? batchA[batchA.size() - 1 - i] : 1;
        const auto db = i < batchB.size() ? batchB[batchB.size() - 1 - i] : 1;
        batch *= double(std::max(da, db));
    }
    return macs(batch * n * k * m);
}

// A linear layer: input elements x out features MACs, plus adding the bias to each output.
OpCost linearLayer(double inputElements, double outFeatures, double biasElements)
{
    return macs(inputElements * outFeatures, biasElements);
}

OpCost linear(const OpRecord &op)
{
    const auto *input = tensorArg(op, 0);
    const auto *weight = tensorArg(op, 1);
    if (!input || !weight || weight->empty())
        return {};
    const double out = weight->size() == 2 ? double((*weight)[0]) : 1;
    return linearLayer(product(*input), out, tensorArg(op, 2) ? outputElements(op) : 0);
}

// addmm(bias, a, b), baddbmm(bias, a, b): the product plus adding the bias.
OpCost addProduct(const OpRecord &op)
{
    const auto *a = tensorArg(op, 1);
    const auto *b = tensorArg(op, 2);
    if (!a || !b)
        return {};
    auto cost = matmul(*a, *b);
    cost.flops += outputElements(op);
    return cost;
}

// LSTM/GRU: per step and direction, gates x hidden x (input + hidden) MACs.
// aten::lstm(input, hx[], params[], has_biases, num_layers, dropout, train, bidirectional, batch_first)
// aten::gru(input, hx, params[], has_biases, num_layers, dropout, train, bidirectional, batch_first)
OpCost recurrent(const OpRecord &op, int gates)
{
    const auto *input = tensorArg(op, 0);
    if (!input || input->size() != 3)
        return {};
    const OpArg *params = nullptr;
    for (const auto &arg : op.args)
        if (arg.kind == OpArg::Kind::TensorList && (!params || arg.tensors.size() > params->tensors.size()))
            params = &arg; // the weight list is the longest tensor list
    if (!params)
        return {};
    const auto flag = [&](std::size_t index) {
        return index < op.args.size() && !op.args[index].values.empty() && op.args[index].values[0] != 0;
    };
    const bool batchFirst = flag(8);
    const double steps = double(batchFirst ? (*input)[1] : (*input)[0]);
    const double batch = double(batchFirst ? (*input)[0] : (*input)[1]);
    // Each weight matrix w_ih [gates*H, I] and w_hh [gates*H, H] costs its elements per step.
    double perStep = 0;
    double hiddenElements = 0;
    for (const auto &weight : params->tensors) {
        if (weight.size() == 2) {
            perStep += product(weight);
            if (weight[0] == weight[1] * gates) // w_hh: [gates*H, H]
                hiddenElements += double(weight[1]);
        }
    }
    const double macsCount = steps * batch * perStep;
    // Elementwise gate math: about 4 FLOPs per gate element plus the cell update.
    const double elementwise = steps * batch * hiddenElements * (gates * 4.0 + 4.0);
    return macs(macsCount, elementwise);
}

// The int8 recurrent ops carry their weights packed in cell-parameter objects, so the weight
// sizes come from the shapes: hidden size from the output, input size from the input.
// aten::quantized_lstm(input, hx[], cells[], has_biases, num_layers, dropout, train, bidirectional, batch_first)
// aten::quantized_gru(input, hx, cells[], has_biases, num_layers, dropout, train, bidirectional, batch_first)
OpCost quantizedRecurrent(const OpRecord &op, int gates)
{
    const auto *input = tensorArg(op, 0);
    if (!input || input->size() != 3 || op.outputShapes.empty() || op.outputShapes.front().size() != 3 || op.args.size() < 9)
        return {};
    const auto value = [&](std::size_t index) { return op.args[index].values.empty() ? 0 : op.args[index].values[0]; };
    const double layers = double(value(4));
    const double directions = value(7) != 0 ? 2 : 1;
    const bool batchFirst = value(8) != 0;
    const double steps = double(batchFirst ? (*input)[1] : (*input)[0]);
    const double batch = double(batchFirst ? (*input)[0] : (*input)[1]);
    const double hidden = double(op.outputShapes.front().back()) / directions;
    const double in = double(input->back());
    if (layers < 1)
        return {};
    // Per cell and step: w_ih [gates*H, I] (I = H x directions past the first layer) and w_hh [gates*H, H].
    const double perStep = directions * gates * hidden * ((in + hidden) + (layers - 1) * (hidden * directions + hidden));
    const double elementwise = steps * batch * layers * directions * hidden * (gates * 4.0 + 4.0);
    return macs(steps * batch * perStep, elementwise);
}

// Attention over `scores` query-key pairs (batch x heads x queries x keys) of head size e:
// QK^T and AV, plus the softmax.
OpCost attentionScores(double scores, double e)
{
    return macs(2 * scores * e, kSoftmaxFlops * scores);
}

// scaled_dot_product_attention(q, k, v, ...): QK^T and AV, plus the softmax.
OpCost attention(const OpRecord &op)
{
    const auto *q = tensorArg(op, 0);
    const auto *k = tensorArg(op, 1);
    if (!q || !k || q->size() < 2 || k->size() < 2)
        return {};
    const double batch = product(*q, 0, q->size() - 2);
    const double l = double((*q)[q->size() - 2]);
    const double e = double(q->back());
    const double s = double((*k)[k->size() - 2]);
    return attentionScores(batch * l * s, e);
}

// The arguments of a call as its schema lists them: the last `count` recorded ones. The
// interpreter of a scripted model can hand RecordFunction a value of the caller before them (its
// fused transformer layers are recorded with a leading bool).
class SchemaArgs {
public:
    SchemaArgs(const OpRecord &op, std::size_t count)
        : m_op(op), m_offset(op.args.size() >= count ? op.args.size() - count : SIZE_MAX)
    {
    }
    const Shape *tensor(std::size_t index) const { return m_offset == SIZE_MAX ? nullptr : tensorArg(m_op, m_offset + index); }
    std::int64_t value(std::size_t index) const
    {
        if (m_offset == SIZE_MAX || m_offset + index >= m_op.args.size() || m_op.args[m_offset + index].values.empty())
            return 0;
        return m_op.args[m_offset + index].values.front();
    }

private:
    const OpRecord &m_op;
    std::size_t m_offset;
};

// Cached keys of incremental decoding, [B, heads, T, head size]: T.
double cachedKeys(const Shape *incrementalKey)
{
    return incrementalKey && incrementalKey->size() >= 2 ? double((*incrementalKey)[incrementalKey->size() - 2]) : 0;
}

// Multi-head attention as the fused kernels run it, on `queries` and `keys` tokens of `embed`
// features per batch: the query, key and value projections, scaling the queries, QK^T, the
// softmax and AV over heads of embed/heads features (against the cached keys too), the output
// projection; projections with their biases.
OpCost multiHeadAttention(double batch, double queries, double keys, double cached, double embed, double heads)
{
    if (batch <= 0 || queries <= 0 || embed <= 0 || heads <= 0)
        return {};
    const double queryElements = batch * queries * embed;
    const double keyElements = batch * keys * embed;
    auto cost = linearLayer(queryElements, embed, queryElements);
    cost += linearLayer(keyElements, 2 * embed, 2 * keyElements);
    cost += flopsOnly(queryElements);
    cost += attentionScores(batch * heads * queries * (keys + cached), embed / heads);
    cost += linearLayer(queryElements, embed, queryElements);
    return cost;
}

// _native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
//     proj_weight, proj_bias, mask, need_weights, average_attn_weights, mask_type) (13 arguments)
// _native_decoder_only_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight,
//     qkv_bias, proj_weight, proj_bias, mask, incr_key, incr_value, need_weights,
//     average_attn_weights) (14)
// _triton_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
//     proj_weight, proj_bias, mask) (10)
// query [B, L, E], key [B, S, E].
OpCost fusedAttention(const OpRecord &op, std::size_t count, std::size_t incrementalKey)
{
    const SchemaArgs args(op, count);
    const auto *query = args.tensor(0);
    const auto *key = args.tensor(1);
    if (!query || !key || query->size() != 3 || key->size() != 3)
        return {};
    const double cached = incrementalKey < count ? cachedKeys(args.tensor(incrementalKey)) : 0;
    return multiHeadAttention(double((*query)[0]), double((*query)[1]), double((*key)[1]), cached, double(query->back()),
                              double(args.value(4)));
}

// A whole encoder layer in one kernel, post- or pre-norm alike: self-attention, the residual add
// and layer norm after each block, the feed-forward linears with their activation.
// _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
//     proj_bias, use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
//     norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask, mask_type) (20)
// _transformer_decoder_only_layer_fwd(the same to ffn_bias_2, mask, incr_key, incr_value) (21)
// src [B, L, E], ffn_weight_1 [F, E].
OpCost fusedTransformerLayer(const OpRecord &op, std::size_t count, std::size_t incrementalKey)
{
    const SchemaArgs args(op, count);
    const auto *src = args.tensor(0);
    const auto *feedForward = args.tensor(14);
    if (!src || src->size() != 3 || !feedForward || feedForward->size() != 2)
        return {};
    const double batch = double((*src)[0]);
    const double tokens = double((*src)[1]);
    const double embed = double(src->back());
    const double cached = incrementalKey < count ? cachedKeys(args.tensor(incrementalKey)) : 0;
    auto cost = multiHeadAttention(batch, tokens, tokens, cached, embed, double(args.value(2)));
    if (!cost.counted)
        return {};
    const double elements = batch * tokens * embed;
    const double hidden = batch * tokens * double(feedForward->front());
    const bool gelu = args.value(7) != 0;
    cost += flopsOnly(2 * (1 + kNormFlops) * elements);
    cost += linearLayer(elements, double(feedForward->front()), hidden);
    cost += flopsOnly((gelu ? kTranscendentalFlops : 1) * hidden);
    cost += linearLayer(hidden, embed, elements);
    return cost;
}

OpCost pooling(const OpRecord &op)
{
    // Each output element reduces a window: kernel elements per output, or the input once.
    if (op.args.size() > 1 && op.args[1].kind == OpArg::Kind::IntList && op.name.find("adaptive") == std::string::npos)
        return flopsOnly(outputElements(op) * product(op.args[1].values));
    return flopsOnly(elements(op, 0));
}

using Formula = std::function<OpCost(const OpRecord &)>;

const std::unordered_map<std::string_view, Formula> &formulas()
{
    static const auto table = [] {
        std::unordered_map<std::string_view, Formula> t;
        const auto each = [&t](std::span<const std::string_view> names, const Formula &formula) {
            for (const auto name : names)
                t[name] = formula;
        };
        each(opnames::kConvolutions, convolution);
        for (const char *name : {"aten::mkldnn_convolution", "aten::thnn_conv2d"})
            t[name] = convolution;
        for (const char *name : {"quantized::conv1d", "quantized::conv2d", "quantized::conv3d", "quantized::conv1d_relu",
                                 "quantized::conv2d_relu", "quantized::conv3d_relu"})
            t[name] = quantizedConvolution;
        t["aten::linear"] = linear;
        each(opnames::kProducts, [](const OpRecord &op) {
            const auto *a = tensorArg(op, 0);
            const auto *b = tensorArg(op, 1);
            return a && b ? matmul(*a, *b) : OpCost{};
        });
        each(opnames::kAddedProducts, addProduct);
        t["aten::einsum"] = [](const OpRecord &op) {
            // Without the equation's semantics, count one MAC per output element x the largest
            // contracted extent: exact for the common bmm-like equations.
            if (op.args.size() < 2 || op.args[1].tensors.size() != 2)
                return OpCost{};
            const auto &a = op.args[1].tensors[0];
            return macs(outputElements(op) * (a.empty() ? 1 : double(a.back())));
        };
        // With what it dispatches to (the Python engine records ops below autograd, where
        // composite ops have been decomposed).
        each(opnames::kAttention, attention);
        t["aten::_native_multi_head_attention"] = [](const OpRecord &op) { return fusedAttention(op, 13, SIZE_MAX); };
        t["aten::_native_decoder_only_multi_head_attention"] = [](const OpRecord &op) { return fusedAttention(op, 14, 10); };
        t["aten::_triton_multi_head_attention"] = [](const OpRecord &op) { return fusedAttention(op, 10, SIZE_MAX); };
        t["aten::_transformer_encoder_layer_fwd"] = [](const OpRecord &op) { return fusedTransformerLayer(op, 20, SIZE_MAX); };
        t["aten::_transformer_decoder_only_layer_fwd"] = [](const OpRecord &op) { return fusedTransformerLayer(op, 21, 19); };
        // _transform_bias_rescale_qkv(qkv [B, L, 3E], qkv_bias, num_heads): the bias added to
        // q, k and v, q scaled.
        t["aten::_transform_bias_rescale_qkv"] = [](const OpRecord &op) { return flopsOnly(elements(op, 0) * 4 / 3); };
        t["aten::lstm"] = [](const OpRecord &op) { return recurrent(op, 4); };
        t["aten::gru"] = [](const OpRecord &op) { return recurrent(op, 3); };
        t["aten::quantized_lstm"] = [](const OpRecord &op) { return quantizedRecurrent(op, 4); };
        t["aten::quantized_gru"] = [](const OpRecord &op) { return quantizedRecurrent(op, 3); };
        // Packed int8 weights: input elements x output features, from the shapes (the recorder
        // gives the unpacked weight where the engine can unpack it; these need only the output).
        for (const char *name : {"quantized::linear_dynamic", "quantized::linear", "quantized::linear_relu", "quantized::linear_relu_dynamic"})
            t[name] = [](const OpRecord &op) {
                const auto *input = tensorArg(op, 0);
                if (!input || input->empty() || op.outputShapes.empty() || op.outputShapes.front().empty())
                    return OpCost{};
                return macs(product(*input) * double(op.outputShapes.front().back()));
            };
        t["aten::rnn_tanh"] = [](const OpRecord &op) { return recurrent(op, 1); };
        t["aten::rnn_relu"] = [](const OpRecord &op) { return recurrent(op, 1); };
        // Normalization: mean, variance, normalize, scale and shift: about 5 FLOPs per element in
        // training, 2 (scale and shift, folded statistics) in inference for batch norm.
        // native_batch_norm and _native_batch_norm_legit take training at the same place;
        // _native_batch_norm_legit_no_training has momentum (a double) there.
        each(opnames::kBatchNorms, [](const OpRecord &op) {
            const bool training = op.args.size() > 5 && op.args[5].kind == OpArg::Kind::Bool &&
                                  !op.args[5].values.empty() && op.args[5].values[0] != 0;
            return flopsOnly(elements(op, 0) * (training ? 5 : 2));
        });
        each(opnames::kNorms, [](const OpRecord &op) { return flopsOnly(elements(op, 0) * kNormFlops); });
        const Formula softmax = [](const OpRecord &op) { return flopsOnly(elements(op, 0) * kSoftmaxFlops); };
        each(opnames::kSoftmaxes, softmax);
        t["aten::_masked_softmax"] = softmax;
        for (const char *name : {"aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d", "aten::avg_pool1d",
                                 "aten::avg_pool2d", "aten::avg_pool3d", "aten::adaptive_avg_pool1d",
                                 "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d", "aten::adaptive_max_pool2d",
                                 "aten::max_pool2d_with_indices", "aten::max_pool3d_with_indices", "aten::_adaptive_avg_pool2d",
                                 "aten::_adaptive_avg_pool3d"})
            t[name] = pooling;
        // Elementwise: one FLOP per element of the broadcast result.
        each(opnames::kElementwise, [](const OpRecord &op) { return flopsOnly(broadcastElements(op)); });
        // Transcendental activations: a few FLOPs per element.
        each(opnames::kActivations,
             [](const OpRecord &op) { return flopsOnly(kTranscendentalFlops * elements(op, 0)); });
        for (const char *name : {"aten::sum", "aten::mean", "aten::addcmul", "aten::addcdiv", "aten::cumsum"})
            t[name] = [](const OpRecord &op) { return flopsOnly(elements(op, 0)); };
        return t;
    }();
    return table;
}

} // namespace

OpCost opCost(const OpRecord &op)
{
    const auto &table = formulas();
    const auto it = table.find(op.name);
    if (it == table.end())
        return {};
    return it->second(op);
}

} // namespace pyrometer::analysis
