// Int8 quantization of TorchScript modules: dynamic (linear, LSTM and GRU rewritten onto
// prepacked int8 weights) and static (libtorch's graph-mode passes with observers written in
// TorchScript). Includes libtorch.
#include "core/torch/quantize.h"

#include "core/util/format.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/fold_conv_bn.h>
#include <torch/csrc/jit/passes/quantization/finalize.h>
#include <torch/csrc/jit/passes/quantization/insert_observers.h>
#include <torch/csrc/jit/passes/quantization/insert_quant_dequant.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>

#include <algorithm>
#include <cctype>
#include <functional>

namespace pyrometer::torch {
namespace {

namespace jit = ::torch::jit;

std::string qengineName(at::QEngine engine)
{
    return c10::toString(engine);
}

// "qnnpack", "onednn": as variant names spell engines.
std::string lowerName(at::QEngine engine)
{
    auto name = qengineName(engine);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return name;
}

} // namespace

Result<at::QEngine> selectQEngine(std::string_view name)
{
    // Variants set the process's engine as they build; an unnamed one keeps to the first.
    static const auto initial = at::globalContext().qEngine();
    const auto &supported = at::globalContext().supportedQEngines();
    const auto has = [&](at::QEngine engine) { return std::find(supported.begin(), supported.end(), engine) != supported.end(); };
    if (!name.empty()) {
        for (const auto engine : supported)
            if (engine != at::QEngine::NoQEngine && lowerName(engine) == name) {
                at::globalContext().setQEngine(engine);
                return engine;
            }
        return Error{"this libtorch has no quantized engine " + std::string(name) + " (it has: " + quantizedEngineNames() + ")"};
    }
    for (const auto engine : {initial, at::QEngine::X86, at::QEngine::FBGEMM, at::QEngine::ONEDNN, at::QEngine::QNNPACK}) {
        if (engine != at::QEngine::NoQEngine && has(engine)) {
            at::globalContext().setQEngine(engine);
            return engine;
        }
    }
    return Error{"this libtorch supports no quantized engine"};
}

std::string quantizedEngineNames()
{
    std::string names;
    for (const auto engine : at::globalContext().supportedQEngines())
        if (engine != at::QEngine::NoQEngine)
            names += (names.empty() ? "" : ", ") + lowerName(engine);
    return names;
}

namespace {

// Calls visit on every node of block, those in nested blocks (loops, ifs) included.
void forEachNode(jit::Block *block, const std::function<void(jit::Node *)> &visit)
{
    for (auto *node : block->nodes()) {
        visit(node);
        for (auto *inner : node->blocks())
            forEachNode(inner, visit);
    }
}

std::vector<jit::Node *> nodesOfKind(jit::Block *block, c10::Symbol kind)
{
    std::vector<jit::Node *> nodes;
    forEachNode(block, [&](jit::Node *node) {
        if (node->kind() == kind)
            nodes.push_back(node);
    });
    return nodes;
}

// The int8 weight of a float [out, in] matrix, symmetric around zero: per output channel where
// the engine takes it, per tensor on qnnpack.
at::Tensor quantizeWeight(const at::Tensor &weight, at::QEngine engine)
{
    const auto w = weight.to(at::kFloat).contiguous();
    if (engine != at::QEngine::QNNPACK) {
        const auto scales = (std::get<0>(w.abs().max(1)) / 127.0).clamp_min(1e-8).to(at::kDouble);
        return at::quantize_per_channel(w, scales, at::zeros({w.size(0)}, at::kLong), 0, at::kQInt8);
    }
    return at::quantize_per_tensor(w, std::max(w.abs().max().item<double>() / 127.0, 1e-8), 0, at::kQInt8);
}

// quantized::linear_prepack(int8 weight, float bias or None): the engine's packed weight.
c10::IValue prepackLinear(const at::Tensor &weight, const std::optional<at::Tensor> &bias, at::QEngine engine)
{
    static const auto prepack = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_prepack", "");
    jit::Stack stack{quantizeWeight(weight, engine), bias ? c10::IValue(bias->to(at::kFloat)) : c10::IValue()};
    prepack.callBoxed(&stack);
    return stack.back();
}

// x86 int8 kernels (fbgemm, x86, onednn) multiply u8 activations by s8 weights into 16-bit
// pairs, which saturate on a CPU without VNNI unless activations keep to 7 bits; PyTorch
// quantizes with reduce_range there (nn.quantized.dynamic.Linear, its LSTM and GRU cells,
// the fbgemm and x86 qconfigs), on every x86 CPU so that results do not depend on the CPU.
// qnnpack (ARM-style kernels) has no such limit and PyTorch keeps the full range for it.
bool reduceRange(at::QEngine engine)
{
    return engine != at::QEngine::QNNPACK;
}

// What a note says of the activation range.
std::string rangeNote(at::QEngine engine)
{
    return reduceRange(engine) ? ", 7-bit activations (reduce_range, as PyTorch on x86)" : std::string();
}

// Rewrites every aten::linear whose weight is a constant (a frozen module's) as
// quantized::linear_dynamic on int8 weights prepacked once into a module attribute.
// Returns how many it rewrote and how many it left float.
std::pair<int, int> quantizeLinears(jit::Module &module, at::QEngine engine)
{
    auto graph = module.get_method("forward").graph();
    const auto linears = nodesOfKind(graph->block(), c10::Symbol::fromQualString("aten::linear"));
    const auto dynamic = c10::Symbol::fromQualString("quantized::linear_dynamic");
    auto *self = graph->inputs().at(0);
    int rewritten = 0;
    int left = 0;
    for (auto *node : linears) {
        const auto weight = jit::toIValue(node->input(1));
        const auto bias = jit::toIValue(node->input(2));
        if (!weight || !weight->isTensor() || weight->toTensor().dim() != 2 || !bias || !(bias->isTensor() || bias->isNone())) {
            ++left;
            continue;
        }
        const auto packed = prepackLinear(weight->toTensor(), bias->isTensor() ? std::optional(bias->toTensor()) : std::nullopt, engine);
        const std::string attribute = "_int8_linear_" + std::to_string(rewritten);
        module.register_attribute(attribute, packed.type(), packed);
        jit::WithInsertPoint insertion(node);
        auto *packedValue = graph->insertGetAttr(self, attribute);
        auto *output = graph->insert(dynamic, {node->input(0), packedValue, c10::IValue(reduceRange(engine))});
        node->output()->replaceAllUsesWith(output);
        node->destroy();
        ++rewritten;
    }
    jit::EliminateDeadCode(graph);
    return {rewritten, left};
}

// How many recurrent layers of each kind were rewritten, and why any was left float.
struct RecurrentCount {
    int lstm = 0;
    int gru = 0;
    int left = 0;
    std::string whyLeft;
};

// Rewrites every aten::lstm and aten::gru whose weights are constants as aten::quantized_lstm
// and aten::quantized_gru on dynamic int8 cell parameters, as
// torch.ao.quantization.quantize_dynamic does in Python: per layer and direction, w_ih and
// w_hh are prepacked int8 with their biases, and joined by
// quantized::make_quantized_cell_params_dynamic into a module attribute.
RecurrentCount quantizeRecurrent(jit::Module &module, at::QEngine engine)
{
    auto graph = module.get_method("forward").graph();
    static const auto makeCell =
        c10::Dispatcher::singleton().findSchemaOrThrow("quantized::make_quantized_cell_params_dynamic", "");
    auto *self = graph->inputs().at(0);
    RecurrentCount count;
    const auto leave = [&](const std::string &why) {
        ++count.left;
        count.whyLeft = why;
    };
    int cells = 0;
    for (const bool lstm : {true, false}) {
        const auto nodes = nodesOfKind(graph->block(), c10::Symbol::fromQualString(lstm ? "aten::lstm" : "aten::gru"));
        for (auto *node : nodes) {
            const auto *schema = node->maybeSchema();
            if (!schema) {
                leave("a recurrent op of an unknown overload");
                continue;
            }
            // input overload: (input, hx, params, has_biases, num_layers, dropout, train,
            // bidirectional, batch_first); data overload: (data, batch_sizes, hx, params,
            // has_biases, num_layers, dropout, train, bidirectional).
            const bool packedSequence = schema->overload_name() == "data";
            const std::size_t paramsAt = packedSequence ? 3 : 2;
            const auto params = jit::toIValue(node->input(paramsAt));
            const auto hasBiases = jit::toIValue(node->input(paramsAt + 1));
            const auto layers = jit::toIValue(node->input(paramsAt + 2));
            const auto bidirectional = jit::toIValue(node->input(paramsAt + 5));
            if (!params || !params->isTensorList() || !hasBiases || !layers || !bidirectional) {
                leave("a recurrent layer whose weights are not constants");
                continue;
            }
            const auto weights = params->toTensorVector();
            const bool biases = hasBiases->toBool();
            const std::size_t perCell = biases ? 4 : 2;
            const auto cellCount = std::size_t(layers->toInt()) * (bidirectional->toBool() ? 2 : 1);
            if (weights.size() != cellCount * perCell) {
                leave("an LSTM with projections (proj_size), which quantized_lstm does not take");
                continue;
            }
            jit::WithInsertPoint insertion(node);
            std::vector<jit::Value *> cellValues;
            c10::TypePtr cellType;
            for (std::size_t c = 0; c < cellCount; ++c) {
                const auto *w = &weights[c * perCell];
                const auto biasIh = biases ? w[2] : at::zeros({w[0].size(0)}, at::kFloat);
                const auto biasHh = biases ? w[3] : at::zeros({w[1].size(0)}, at::kFloat);
                jit::Stack stack{prepackLinear(w[0], biasIh, engine), prepackLinear(w[1], biasHh, engine),
                                 biasIh.to(at::kFloat), biasHh.to(at::kFloat), reduceRange(engine)};
                makeCell.callBoxed(&stack);
                const auto cell = stack.back();
                cellType = cell.type();
                const std::string attribute = "_int8_cell_" + std::to_string(cells++);
                module.register_attribute(attribute, cellType, cell);
                cellValues.push_back(graph->insertGetAttr(self, attribute));
            }
            auto *list = graph->insertNode(graph->createList(cellType, cellValues))->output();
            std::vector<jit::NamedValue> args;
            for (std::size_t i = 0; i < node->inputs().size(); ++i)
                args.emplace_back(i == paramsAt ? list : node->input(i));
            std::vector<jit::NamedValue> kwargs;
            if (lstm) {
                kwargs.emplace_back("dtype", c10::IValue(int64_t(at::kQInt8)));
                kwargs.emplace_back("use_dynamic", c10::IValue(true));
            }
            auto *replacement = graph->insert(c10::Symbol::fromQualString(lstm ? "aten::quantized_lstm" : "aten::quantized_gru"),
                                              args, kwargs);
            // A builtin of several outputs is inserted with a TupleConstruct of them after it.
            auto *packed = replacement->node();
            if (packed->kind() != c10::prim::TupleConstruct || packed->inputs().size() != node->outputs().size())
                throw std::runtime_error("quantized recurrent op: unexpected outputs");
            for (std::size_t i = 0; i < node->outputs().size(); ++i)
                node->output(i)->replaceAllUsesWith(packed->input(i));
            node->destroy();
            ++(lstm ? count.lstm : count.gru);
        }
    }
    jit::EliminateDeadCode(graph);
    return count;
}

// "a", "a and b", "a, b and c".
std::string joinWithAnd(const std::vector<std::string> &parts)
{
    std::string text;
    for (std::size_t i = 0; i < parts.size(); ++i)
        text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return text;
}

// An observer written in TorchScript, standing in for torch.ao.quantization's MinMaxObserver
// (activations: per-tensor affine quint8) and its per-channel or per-tensor symmetric qint8
// weight observers. The graph-mode passes read what those carry: forward(x) records the
// range, calculate_qparams() gives (scale, zero_point), and the attributes dtype, qscheme and
// ch_axis say how to quantize. (Dtypes are written as their numbers, 4 being int64: a
// module defined from C++ resolves no torch.int64.) A reduced range keeps activations to
// 0..127, as the observers of PyTorch's x86 qconfigs do.
jit::Module makeObserver(bool weight, bool perChannel, bool reducedRange)
{
    jit::Module observer(weight ? "__torch__.pyrometer.WeightObserver" : "__torch__.pyrometer.ActivationObserver");
    observer.register_buffer("min_val", at::full({}, std::numeric_limits<float>::infinity()));
    observer.register_buffer("max_val", at::full({}, -std::numeric_limits<float>::infinity()));
    const auto dtype = weight ? at::kQInt8 : at::kQUInt8;
    const auto scheme = !weight ? at::kPerTensorAffine : perChannel ? at::kPerChannelSymmetric : at::kPerTensorSymmetric;
    observer.register_attribute("dtype", c10::IntType::get(), std::int64_t(dtype));
    observer.register_attribute("qscheme", c10::IntType::get(), std::int64_t(scheme));
    observer.register_attribute("ch_axis", c10::IntType::get(), std::int64_t(0));
    observer.register_attribute("quant_min", c10::IntType::get(), std::int64_t(weight ? -128 : 0));
    observer.register_attribute("quant_max", c10::IntType::get(), std::int64_t(weight ? 127 : reducedRange ? 127 : 255));
    if (!weight) {
        observer.define(R"(
def forward(self, x: Tensor) -> Tensor:
    if x.numel() > 0:
        values = x.detach().float()
        self.min_val = torch.minimum(self.min_val, torch.min(values))
        self.max_val = torch.maximum(self.max_val, torch.max(values))
    return x

def calculate_qparams(self) -> Tuple[Tensor, Tensor]:
    low = torch.clamp(self.min_val, max=0.0)
    high = torch.clamp(self.max_val, min=0.0)
    scale = torch.clamp((high - low) / float(self.quant_max - self.quant_min), min=1e-8)
    zero_point = torch.clamp(self.quant_min - torch.round(low / scale), float(self.quant_min), float(self.quant_max))
    return scale.reshape([1]), zero_point.to(4).reshape([1])
)");
    } else {
        // Weights are constants: their range is that of the last (the only) call.
        observer.define(perChannel ? R"(
def forward(self, x: Tensor) -> Tensor:
    values = x.detach().float().flatten(1)
    self.min_val = torch.amin(values, 1)
    self.max_val = torch.amax(values, 1)
    return x
)"
                                   : R"(
def forward(self, x: Tensor) -> Tensor:
    values = x.detach().float()
    self.min_val = torch.min(values)
    self.max_val = torch.max(values)
    return x
)");
        observer.define(R"(
def calculate_qparams(self) -> Tuple[Tensor, Tensor]:
    bound = torch.maximum(-torch.clamp(self.min_val, max=0.0), torch.clamp(self.max_val, min=0.0))
    scale = torch.clamp(bound / ((self.quant_max - self.quant_min) / 2), min=1e-8)
    return scale.reshape([-1]), torch.zeros_like(scale, dtype=4).reshape([-1])
)");
    }
    return observer;
}

// Keeps libtorch's TensorExpr (NNC) fuser off while it lives, then sets it back as it was.
// libtorch 2.x fuses TorchScript on the CPU (Debian 13's build does; 1.13's did not), and the
// fused aten::round gives 0: the profiling executor fuses calculate_qparams from its second
// call on, so every activation zero point but the first came out 0, torch.ao's MinMaxObserver
// no less than ours, and the int8 model's output was garbage.
class TensorExprFuserOff
{
public:
    TensorExprFuserOff() : m_was(jit::tensorExprFuserEnabled()) { jit::setTensorExprFuserEnabled(false); }
    ~TensorExprFuserOff() { jit::setTensorExprFuserEnabled(m_was); }
    TensorExprFuserOff(const TensorExprFuserOff &) = delete;
    TensorExprFuserOff &operator=(const TensorExprFuserOff &) = delete;

private:
    bool m_was;
};

bool kindStartsWith(const jit::Node *node, std::string_view prefix)
{
    return std::string_view(node->kind().toQualString()).starts_with(prefix);
}

} // namespace

Result<std::string> quantizeDynamic(jit::Module &frozen, at::QEngine engine)
{
    const auto [rewritten, left] = quantizeLinears(frozen, engine);
    const auto recurrent = quantizeRecurrent(frozen, engine);
    if (rewritten == 0 && recurrent.lstm == 0 && recurrent.gru == 0)
        return Error{"no linear, LSTM or GRU layer with constant weights to quantize (convolutions stay float)" +
                     (recurrent.whyLeft.empty() ? std::string() : "; left float: " + recurrent.whyLeft)};
    std::vector<std::string> parts;
    if (rewritten > 0)
        parts.push_back(countOf(rewritten, "linear layer"));
    if (recurrent.lstm > 0)
        parts.push_back(std::to_string(recurrent.lstm) + " LSTM");
    if (recurrent.gru > 0)
        parts.push_back(std::to_string(recurrent.gru) + " GRU");
    auto note = joinWithAnd(parts) + " int8 (" + qengineName(engine) + ")" + rangeNote(engine);
    if (left + recurrent.left > 0)
        note += ", " + std::to_string(left + recurrent.left) + " left float" +
                (recurrent.whyLeft.empty() ? std::string() : " (" + recurrent.whyLeft + ")");
    return note;
}

StaticQuantized quantizeStatic(const jit::Module &module, at::QEngine engine, const std::vector<std::vector<c10::IValue>> &calibration)
{
    // The observers' methods are compiled as the passes call them: unfused (see TensorExprFuserOff).
    const TensorExprFuserOff unfused;
    // qnnpack quantizes weights per tensor; the others per output channel.
    const bool perChannel = engine != at::QEngine::QNNPACK;
    auto folded = jit::FoldConvBatchNorm(module);
    const jit::QConfigDict qconfig{{"", jit::QConfig{makeObserver(false, perChannel, reduceRange(engine)),
                                                          makeObserver(true, perChannel, false)}}};
    auto observed = jit::InsertObservers(folded, "forward", qconfig, /*inplace=*/false, jit::QuantType::STATIC);
    {
        ::torch::NoGradGuard noGrad;
        for (const auto &batch : calibration)
            observed.forward(batch);
    }
    auto converted = jit::InsertQuantDeQuant(observed, "forward", /*inplace=*/false, /*debug=*/false, jit::QuantType::STATIC);
    StaticQuantized result{jit::Finalize(converted, jit::QuantType::STATIC), {}};
    auto graph = result.module.get_method("forward").graph();
    jit::ConstantPropagation(graph);
    jit::EliminateDeadCode(graph);

    int convolutions = 0;
    int linears = 0;
    int floatLeft = 0;
    forEachNode(graph->block(), [&](jit::Node *node) {
        if (kindStartsWith(node, "quantized::conv"))
            ++convolutions;
        else if (kindStartsWith(node, "quantized::linear"))
            ++linears;
        else if (node->kind() == c10::aten::linear || node->kind() == c10::aten::_convolution || kindStartsWith(node, "aten::conv"))
            ++floatLeft;
    });
    if (convolutions + linears == 0)
        throw std::runtime_error("no convolution or linear layer could be quantized statically (LSTM and GRU layers take int8 dynamic: the int8 variant)");
    std::vector<std::string> parts;
    if (convolutions > 0)
        parts.push_back(countOf(convolutions, "convolution"));
    if (linears > 0)
        parts.push_back(countOf(linears, "linear layer"));
    result.note = joinWithAnd(parts) + " int8 static (" + qengineName(engine) + "), calibrated on " +
                  std::to_string(calibration.size()) + " random batches" + rangeNote(engine);
    if (floatLeft > 0)
        result.note += ", " + std::to_string(floatLeft) + " left float";
    return result;
}

} // namespace pyrometer::torch
