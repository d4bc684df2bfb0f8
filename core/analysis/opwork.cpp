#include "core/analysis/opwork.h"

#include "core/analysis/opnames.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using Shape = std::vector<std::int64_t>;

double elementsOf(const Shape &shape)
{
    double product = 1;
    for (const auto d : shape)
        product *= double(d);
    return product;
}

// One recorded argument: a tensor (its dtype known), or a value Concrete Inputs may give.
struct Arg {
    bool tensor = false;
    Shape shape;
    int dtypeSize = 0;
    std::string type;
    std::string concrete; // as written, "" when absent
};

// The parsed args of one call and the outputs its handler found.
struct Call {
    std::string_view name;
    std::vector<Arg> args;
    std::vector<Shape> outputs;

    const Arg *tensor(std::size_t i) const { return i < args.size() && args[i].tensor ? &args[i] : nullptr; }
    double elements(std::size_t i) const { return tensor(i) ? elementsOf(args[i].shape) : 0; }
    const Arg *firstTensor() const
    {
        for (const auto &arg : args)
            if (arg.tensor)
                return &arg;
        return nullptr;
    }
    std::optional<std::string_view> value(std::size_t i) const
    {
        if (i >= args.size() || args[i].concrete.empty())
            return std::nullopt;
        return std::string_view(args[i].concrete);
    }
    // "[2, 2]" or "2" -> ints; nothing when absent or not integers.
    std::optional<Shape> ints(std::size_t i) const
    {
        const auto text = value(i);
        if (!text)
            return std::nullopt;
        const auto json = nlohmann::json::parse(*text, nullptr, false);
        if (json.is_number_integer())
            return Shape{json.get<std::int64_t>()};
        if (!json.is_array())
            return std::nullopt;
        Shape values;
        for (const auto &item : json) {
            if (!item.is_number_integer())
                return std::nullopt;
            values.push_back(item.get<std::int64_t>());
        }
        return values;
    }
    std::optional<bool> flag(std::size_t i) const
    {
        const auto text = value(i);
        if (text == "True")
            return true;
        if (text == "False")
            return false;
        return std::nullopt;
    }
    std::optional<std::vector<bool>> flags(std::size_t i) const // "[True, True, False]"
    {
        const auto text = value(i);
        if (!text || text->size() < 2 || text->front() != '[')
            return std::nullopt;
        std::vector<bool> values;
        std::string_view rest = text->substr(1, text->size() - 2);
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            auto item = rest.substr(0, comma);
            while (!item.empty() && item.front() == ' ')
                item.remove_prefix(1);
            if (item != "True" && item != "False")
                return std::nullopt;
            values.push_back(item == "True");
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
        return values;
    }

    // What opcost.h reads: tensors with their sizes, flags and int lists with their values.
    OpRecord record() const
    {
        OpRecord op;
        op.name = std::string(name);
        for (std::size_t i = 0; i < args.size(); ++i) {
            OpArg arg;
            if (args[i].tensor) {
                arg.kind = OpArg::Kind::Tensor;
                arg.values = args[i].shape;
            } else if (const auto b = flag(i)) {
                arg.kind = OpArg::Kind::Bool;
                arg.values = {*b ? 1 : 0};
            } else if (const auto list = ints(i); list && args[i].concrete.front() == '[') {
                arg.kind = OpArg::Kind::IntList;
                arg.values = *list;
            } else if (list) {
                arg.kind = OpArg::Kind::Int;
                arg.values = *list;
            } else {
                arg.kind = args[i].type.empty() ? OpArg::Kind::None : OpArg::Kind::Other;
            }
            op.args.push_back(std::move(arg));
        }
        op.outputShapes = outputs;
        return op;
    }
};

// What a handler found: FLOPs (unknown while < 0) and whether every output shape is known.
struct Found {
    double flops = OpWork::kUnknown;
    bool outputsKnown = false;
};

Found shared(const Call &call)
{
    const auto cost = opCost(call.record());
    return {cost.counted ? cost.flops : OpWork::kUnknown, true};
}

// numpy broadcasting of two shapes; nothing when they do not broadcast.
std::optional<Shape> broadcast(const Shape &a, const Shape &b)
{
    Shape out(std::max(a.size(), b.size()), 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto da = i < a.size() ? a[a.size() - 1 - i] : 1;
        const auto db = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (da != db && da != 1 && db != 1)
            return std::nullopt;
        out[out.size() - 1 - i] = da == 1 ? db : da;
    }
    return out;
}

// a [.., n, k] x b [.., k, m] -> [batch.., n, m]; a 1-D operand's dimension is dropped.
std::optional<Shape> productShape(const Shape &a, const Shape &b)
{
    if (a.empty() || b.empty())
        return std::nullopt;
    const Shape batchA(a.begin(), a.end() - std::min<std::ptrdiff_t>(2, std::ptrdiff_t(a.size())));
    const Shape batchB(b.begin(), b.end() - std::min<std::ptrdiff_t>(2, std::ptrdiff_t(b.size())));
    auto out = broadcast(batchA, batchB);
    if (!out)
        return std::nullopt;
    if (a.size() >= 2)
        out->push_back(a[a.size() - 2]);
    if (b.size() >= 2)
        out->push_back(b.back());
    return out;
}

Found product(Call &call, std::size_t a, std::size_t b)
{
    const auto *x = call.tensor(a);
    const auto *y = call.tensor(b);
    if (!x || !y)
        return {};
    auto out = productShape(x->shape, y->shape);
    if (!out)
        return {};
    if (call.name == "aten::addbmm" && out->size() == 3)
        out->erase(out->begin());
    call.outputs = {*out};
    return shared(call);
}

Found linear(Call &call)
{
    const auto *x = call.tensor(0);
    const auto *w = call.tensor(1);
    if (!x || !w || x->shape.empty())
        return {};
    Shape out(x->shape.begin(), x->shape.end() - 1);
    if (w->shape.size() == 2)
        out.push_back(w->shape[0]);
    call.outputs = {out};
    return shared(call);
}

// A per-dimension list, one value standing for every spatial dimension.
std::optional<Shape> spatial(const std::optional<Shape> &values, std::size_t rank)
{
    if (!values || (values->size() != 1 && values->size() != rank))
        return std::nullopt;
    return values->size() == rank ? *values : Shape(rank, values->front());
}

// Convolutions: the output's spatial size from stride, padding and dilation.
Found convolution(Call &call)
{
    const auto *input = call.tensor(0);
    const auto *weight = call.tensor(1);
    if (!input || !weight || weight->shape.size() < 3)
        return {};
    const std::size_t rank = weight->shape.size() - 2;
    const bool generic = call.name == "aten::convolution" || call.name == "aten::_convolution";
    const bool transposedName = call.name.find("transpose") != std::string_view::npos;
    std::optional<bool> transposed = transposedName;
    std::size_t outputPaddingAt = 5, groupsAt = 6, dilationAt = 7;
    if (generic) {
        transposed = call.flag(6);
        outputPaddingAt = 7, groupsAt = 8, dilationAt = 5;
    } else if (!transposedName) {
        dilationAt = 5, groupsAt = 6;
    }
    if (!transposed)
        return {};
    const auto stride = spatial(call.ints(3), rank);
    const auto dilation = spatial(call.ints(dilationAt), rank);
    auto padding = spatial(call.ints(4), rank);
    const auto paddingText = call.value(4);
    if (!padding && paddingText == "'valid'")
        padding = Shape(rank, 0);
    const bool same = paddingText == "'same'";
    if ((!same && (!stride || !dilation || !padding)) || input->shape.size() < rank + 1)
        return {};
    Shape out(input->shape.begin(), input->shape.end() - std::ptrdiff_t(rank));
    if (*transposed) {
        const auto outputPadding = spatial(call.ints(outputPaddingAt), rank);
        const auto groups = call.ints(groupsAt);
        if (!outputPadding || !groups || groups->size() != 1 || !padding || !stride || !dilation)
            return {};
        out.back() = weight->shape[1] * groups->front();
        for (std::size_t d = 0; d < rank; ++d) {
            const auto i = input->shape[input->shape.size() - rank + d];
            const auto k = weight->shape[2 + d];
            out.push_back((i - 1) * (*stride)[d] - 2 * (*padding)[d] + (*dilation)[d] * (k - 1) + (*outputPadding)[d] + 1);
        }
    } else {
        out.back() = weight->shape[0];
        for (std::size_t d = 0; d < rank; ++d) {
            const auto i = input->shape[input->shape.size() - rank + d];
            const auto k = weight->shape[2 + d];
            if (same) {
                out.push_back(i);
                continue;
            }
            const auto span = i + 2 * (*padding)[d] - (*dilation)[d] * (k - 1) - 1;
            out.push_back(span < 0 ? 0 : span / (*stride)[d] + 1);
        }
    }
    call.outputs = {out};
    return shared(call);
}

double kernelOf(const Shape &weight)
{
    return elementsOf(Shape(weight.begin() + std::min<std::ptrdiff_t>(2, std::ptrdiff_t(weight.size())), weight.end()));
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): each gradient asked for costs the forward's
// MACs; the bias gradient sums grad_output.
Found convolutionBackward(Call &call)
{
    const auto *gradOutput = call.tensor(0);
    const auto *input = call.tensor(1);
    const auto *weight = call.tensor(2);
    const auto transposed = call.flag(7);
    const auto mask = call.flags(10);
    if (!gradOutput || !input || !weight || weight->shape.size() < 3 || !mask || mask->size() != 3
        || gradOutput->shape.size() < 2)
        return {};
    call.outputs.clear();
    if ((*mask)[0])
        call.outputs.push_back(input->shape);
    if ((*mask)[1])
        call.outputs.push_back(weight->shape);
    if ((*mask)[2])
        call.outputs.push_back({gradOutput->shape[1]});
    if (!transposed)
        return {OpWork::kUnknown, true};
    const double macs = (*transposed ? elementsOf(input->shape) : elementsOf(gradOutput->shape)) * double(weight->shape[1])
        * kernelOf(weight->shape);
    const double gradients = double((*mask)[0]) + double((*mask)[1]);
    return {2 * macs * gradients + ((*mask)[2] ? elementsOf(gradOutput->shape) : 0), true};
}

// cudnn_convolution_backward_input(self_size, grad_output, weight, ...) and
// cudnn_convolution_backward_weight(weight_size, grad_output, self, ...) of torch 1.x.
Found cudnnBackward(Call &call, bool input)
{
    const auto *gradOutput = call.tensor(1);
    const auto size = call.ints(0);
    if (!gradOutput)
        return {};
    const Arg *weight = input ? call.tensor(2) : nullptr;
    const Shape *weightShape = weight ? &weight->shape : (size ? &*size : nullptr);
    Found found;
    if (weightShape && weightShape->size() >= 3)
        found.flops = 2 * elementsOf(gradOutput->shape) * double((*weightShape)[1]) * kernelOf(*weightShape);
    if (size) {
        call.outputs = {*size};
        found.outputsKnown = true;
    }
    return found;
}

Found attention(Call &call)
{
    const auto *q = call.tensor(0);
    const auto *v = call.tensor(2);
    if (!q || !v || q->shape.empty() || v->shape.empty())
        return {};
    auto out = q->shape;
    out.back() = v->shape.back();
    call.outputs = {out};
    return shared(call);
}

// The backward of flash, efficient and cudnn attention: QK^T recomputed is not counted, as
// torch.utils.flop_counter; dV, dP, dQ and dK are four products.
Found attentionBackward(Call &call)
{
    const auto *q = call.tensor(1);
    const auto *k = call.tensor(2);
    const auto *v = call.tensor(3);
    if (!q || !k || !v || q->shape.size() < 2 || k->shape.size() < 2)
        return {};
    const double batch = elementsOf(Shape(q->shape.begin(), q->shape.end() - 2));
    const double scores = batch * double(q->shape[q->shape.size() - 2]) * double(k->shape[k->shape.size() - 2]);
    call.outputs = {q->shape, k->shape, v->shape};
    return {8 * scores * double(q->shape.back()), true};
}

Found likeInput(Call &call)
{
    if (!call.tensor(0))
        return {};
    call.outputs = {call.args[0].shape};
    return shared(call);
}

// Batch norm's FLOPs depend on its training flag (argument 5).
Found batchNorm(Call &call)
{
    auto found = likeInput(call);
    if (call.name != "aten::_native_batch_norm_legit_no_training" && !call.flag(5))
        found.flops = OpWork::kUnknown;
    return found;
}

Found elementwise(Call &call)
{
    std::optional<Shape> out;
    for (const auto &arg : call.args) {
        if (!arg.tensor)
            continue;
        out = out ? broadcast(*out, arg.shape) : std::optional<Shape>(arg.shape);
        if (!out)
            return {};
    }
    if (!out)
        return {};
    call.outputs = {*out};
    return shared(call);
}

Found backwardPerElement(Call &call, double flopsPerElement)
{
    if (!call.tensor(0))
        return {};
    call.outputs = {call.args[0].shape};
    return {flopsPerElement * call.elements(0), true};
}

// sum and mean: all dims, or the dims of argument 1 (keepdim at 2).
Found reduction(Call &call)
{
    const auto *input = call.tensor(0);
    if (!input)
        return {};
    Found found = shared(call);
    found.outputsKnown = false;
    const bool dimList = call.args.size() > 1 && !call.args[1].tensor
        && (call.args[1].type == "ScalarList" || call.args[1].type == "GenericList" || call.args[1].type == "IntList");
    if (!dimList) {
        call.outputs = {Shape{}};
        found.outputsKnown = true;
        return found;
    }
    const auto dims = call.ints(1);
    const bool keep = call.flag(2).value_or(false); // either way the output has as many elements
    if (!dims)
        return found;
    const auto rank = std::int64_t(input->shape.size());
    std::vector<bool> reduced(input->shape.size(), dims->empty());
    for (auto d : *dims) {
        if (d < 0)
            d += rank;
        if (d < 0 || d >= rank)
            return found;
        reduced[std::size_t(d)] = true;
    }
    Shape out;
    for (std::size_t d = 0; d < input->shape.size(); ++d)
        if (!reduced[d])
            out.push_back(input->shape[d]);
        else if (keep)
            out.push_back(1);
    call.outputs = {out};
    found.outputsKnown = true;
    return found;
}

struct Handler {
    std::function<Found(Call &)> work;
    WorkUnit unit = WorkUnit::Vector;
};

const std::unordered_map<std::string_view, Handler> &handlers()
{
    static const auto table = [] {
        std::unordered_map<std::string_view, Handler> t;
        const auto matrix = [&](std::span<const std::string_view> names, std::function<Found(Call &)> work) {
            for (const auto name : names)
                t[name] = {work, WorkUnit::Matrix};
        };
        const auto vector = [&](std::span<const std::string_view> names, std::function<Found(Call &)> work) {
            for (const auto name : names)
                t[name] = {work, WorkUnit::Vector};
        };
        const auto one = [](const std::string_view &name) { return std::span<const std::string_view>(&name, 1); };
        matrix(opnames::kProducts, [](Call &c) { return product(c, 0, 1); });
        matrix(opnames::kAddedProducts, [](Call &c) { return product(c, 1, 2); });
        matrix(one("aten::linear"), linear);
        matrix(opnames::kConvolutions, convolution);
        matrix(one("aten::convolution_backward"), convolutionBackward);
        matrix(one("aten::cudnn_convolution_backward_input"), [](Call &c) { return cudnnBackward(c, true); });
        matrix(one("aten::cudnn_convolution_backward_weight"), [](Call &c) { return cudnnBackward(c, false); });
        matrix(opnames::kAttention, attention);
        static constexpr std::string_view attentionBackwards[] = {
            "aten::_scaled_dot_product_flash_attention_backward",
            "aten::_scaled_dot_product_efficient_attention_backward",
            "aten::_scaled_dot_product_cudnn_attention_backward"};
        matrix(attentionBackwards, attentionBackward);
        for (const auto family : {std::span<const std::string_view>(opnames::kNorms),
                                  std::span<const std::string_view>(opnames::kSoftmaxes),
                                  std::span<const std::string_view>(opnames::kActivations)})
            vector(family, likeInput);
        vector(opnames::kBatchNorms, batchNorm);
        vector(opnames::kElementwise, elementwise);
        const std::pair<const char *, double> backward[] = {
            {"aten::threshold_backward", 1},        {"aten::gelu_backward", 4},
            {"aten::sigmoid_backward", 4},          {"aten::tanh_backward", 4},
            {"aten::silu_backward", 4},             {"aten::_softmax_backward_data", 5},
            {"aten::_log_softmax_backward_data", 5}, {"aten::native_layer_norm_backward", 5},
            {"aten::native_batch_norm_backward", 5}, {"aten::cudnn_batch_norm_backward", 5}};
        for (const auto &[name, perElement] : backward)
            t[name] = {[perElement = perElement](Call &c) { return backwardPerElement(c, perElement); },
                       WorkUnit::Vector};
        static constexpr std::string_view reductions[] = {"aten::sum", "aten::mean"};
        vector(reductions, reduction);
        return t;
    }();
    return table;
}

// The parsed arguments, or nothing when the texts are not the lists torch writes.
std::optional<std::vector<Arg>> parseArgs(std::string_view dims, std::string_view types, std::string_view concrete)
{
    const auto dimsJson = nlohmann::json::parse(dims, nullptr, false);
    const auto typesJson = nlohmann::json::parse(types, nullptr, false);
    const auto concreteJson = concrete.empty() ? nlohmann::json::array() : nlohmann::json::parse(concrete, nullptr, false);
    if (!dimsJson.is_array() || !typesJson.is_array() || !concreteJson.is_array())
        return std::nullopt;
    std::vector<Arg> args(dimsJson.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
        auto &arg = args[i];
        if (i < typesJson.size() && typesJson[i].is_string())
            arg.type = typesJson[i].get<std::string>();
        if (i < concreteJson.size() && concreteJson[i].is_string())
            arg.concrete = concreteJson[i].get<std::string>();
        arg.dtypeSize = tensorDtypeBytes(arg.type);
        if (arg.dtypeSize == 0 || !dimsJson[i].is_array())
            continue;
        bool ints = true;
        for (const auto &d : dimsJson[i])
            ints = ints && d.is_number_integer();
        if (!ints)
            continue;
        arg.tensor = true;
        for (const auto &d : dimsJson[i])
            arg.shape.push_back(d.get<std::int64_t>());
    }
    return args;
}

} // namespace

int tensorDtypeBytes(std::string_view dtype)
{
    static const std::unordered_map<std::string_view, int> sizes = {
        {"float", 4},         {"double", 8},
        {"c10::Half", 2},     {"c10::BFloat16", 2},
        {"long int", 8},      {"int", 4},
        {"short int", 2},     {"signed char", 1},
        {"unsigned char", 1}, {"bool", 1},
        {"c10::complex<float>", 8}, {"c10::complex<double>", 16},
        {"c10::Float8_e4m3fn", 1},  {"c10::Float8_e5m2", 1},
        {"c10::Float8_e4m3fnuz", 1}, {"c10::Float8_e5m2fnuz", 1},
        {"c10::qint8", 1},    {"c10::quint8", 1},
        {"c10::qint32", 4}};
    const auto it = sizes.find(dtype);
    return it == sizes.end() ? 0 : it->second;
}

bool movesNoData(std::string_view name)
{
    static const std::set<std::string_view> views = {
        "aten::view",         "aten::reshape",       "aten::_reshape_alias", "aten::_unsafe_view", "aten::as_strided",
        "aten::transpose",    "aten::t",             "aten::permute",        "aten::expand",       "aten::slice",
        "aten::select",       "aten::unsqueeze",     "aten::squeeze",        "aten::detach",       "aten::alias",
        "aten::empty",        "aten::empty_strided", "aten::empty_like",     "aten::resolve_conj", "aten::resolve_neg",
        "aten::split",        "aten::chunk",         "aten::unbind",         "aten::narrow",       "aten::flatten",
        "aten::lift_fresh",   "aten::view_as",       "aten::unflatten",      "aten::movedim"};
    return views.contains(name);
}

double opBytes(const OpRecord &op)
{
    if (movesNoData(op.name))
        return 0;
    double bytes = 0;
    int firstSize = 0;
    for (const auto &arg : op.args) {
        if (arg.kind != OpArg::Kind::Tensor)
            continue;
        if (arg.elementBytes <= 0)
            return OpWork::kUnknown;
        firstSize = firstSize ? firstSize : arg.elementBytes;
        bytes += elementsOf(arg.values) * arg.elementBytes;
    }
    if (!firstSize)
        return OpWork::kUnknown;
    for (const auto &output : op.outputShapes)
        bytes += elementsOf(output) * firstSize;
    return bytes;
}

WorkUnit opUnit(std::string_view name)
{
    const auto &table = handlers();
    const auto handler = table.find(name);
    if (handler != table.end())
        return handler->second.unit;
    // What the engines run that a trace's formulas do not list: quantized products, fused
    // attention and recurrent layers.
    for (const auto *matrix : {"conv", "linear", "mm", "attention", "lstm", "gru", "rnn_"})
        if (name.find(matrix) != std::string_view::npos)
            return WorkUnit::Matrix;
    return WorkUnit::Vector;
}

namespace {

// torch.compile's generated pointwise and reduction kernels (Inductor's triton_poi_, triton_red_,
// triton_per_ ops): their tensor arguments are every buffer they read or write, outputs
// included, so each is moved once; one operation per element of the largest is a lower bound
// on their FLOPs. Templates (triton_tem_: GEMMs and the like) have no formula.
const Handler *generatedKernelHandler(std::string_view name)
{
    static const Handler generated{[](Call &call) {
                                       double largest = 0;
                                       for (const auto &arg : call.args)
                                           if (arg.tensor)
                                               largest = std::max(largest, elementsOf(arg.shape));
                                       return Found{largest, true};
                                   },
                                   WorkUnit::Vector};
    for (const std::string_view prefix : {"triton_poi_", "triton_red_", "triton_per_"})
        if (name.starts_with(prefix))
            return &generated;
    return nullptr;
}

} // namespace

OpWork opWork(std::string_view name, std::string_view inputDims, std::string_view inputTypes, std::string_view concrete)
{
    OpWork work;
    const auto &table = handlers();
    const auto found = table.find(name);
    const Handler *handler = found != table.end() ? &found->second : generatedKernelHandler(name);
    if (!handler)
        return work;
    work.hasFormula = true;
    work.unit = handler->unit;
    auto args = parseArgs(inputDims, inputTypes, concrete);
    if (!args)
        return work;
    Call call{name, std::move(*args), {}};
    const auto *first = call.firstTensor();
    if (!first)
        return work;
    work.dtype = first->type;
    const auto result = handler->work(call);
    work.flops = result.flops;
    if (!result.outputsKnown)
        return work;
    double bytes = 0;
    for (const auto &arg : call.args)
        if (arg.tensor)
            bytes += elementsOf(arg.shape) * arg.dtypeSize;
    for (const auto &output : call.outputs)
        bytes += elementsOf(output) * first->dtypeSize;
    work.bytes = bytes;
    return work;
}

} // namespace pyrometer::analysis
