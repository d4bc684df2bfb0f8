// Building optimized variants of a TorchScript module with libtorch's JIT passes, and the
// pieces that time and check them. Includes libtorch.
#include "core/torch/variantmodel.h"

#include "core/torch/torcherror.h"

#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/Allocator.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/freeze_module.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <sstream>

namespace pyrometer::torch {
namespace {

namespace jit = ::torch::jit;

std::string qengineName(at::QEngine engine)
{
    return c10::toString(engine);
}

// The engine quantized ops run on: the current one where it is set, else the first
// libtorch supports in order of preference on this CPU.
std::optional<at::QEngine> chooseQEngine()
{
    const auto &supported = at::globalContext().supportedQEngines();
    const auto has = [&](at::QEngine engine) { return std::find(supported.begin(), supported.end(), engine) != supported.end(); };
    const auto current = at::globalContext().qEngine();
    if (current != at::QEngine::NoQEngine && has(current))
        return current;
    for (const auto engine : {at::QEngine::X86, at::QEngine::FBGEMM, at::QEngine::ONEDNN, at::QEngine::QNNPACK})
        if (has(engine))
            return engine;
    return std::nullopt;
}

void collectNodes(jit::Block *block, c10::Symbol kind, std::vector<jit::Node *> &out)
{
    for (auto *node : block->nodes()) {
        if (node->kind() == kind)
            out.push_back(node);
        for (auto *inner : node->blocks())
            collectNodes(inner, kind, out);
    }
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

// fbgemm's int8 kernels can saturate at full range; qnnpack and onednn have no such limit.
bool reduceRange(at::QEngine engine)
{
    return engine == at::QEngine::FBGEMM || engine == at::QEngine::X86;
}

// Rewrites every aten::linear whose weight is a constant (a frozen module's) as
// quantized::linear_dynamic on int8 weights prepacked once into a module attribute.
// Returns how many it rewrote and how many it left float.
std::pair<int, int> quantizeLinears(jit::Module &module, at::QEngine engine)
{
    auto graph = module.get_method("forward").graph();
    std::vector<jit::Node *> linears;
    collectNodes(graph->block(), c10::Symbol::fromQualString("aten::linear"), linears);
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
        std::vector<jit::Node *> nodes;
        collectNodes(graph->block(), c10::Symbol::fromQualString(lstm ? "aten::lstm" : "aten::gru"), nodes);
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

std::string plural(int count, const std::string &word)
{
    return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

Result<VariantModel> applyVariant(VariantModel model, const std::string &file)
{
    const auto fail = [&](const std::string &why) { return Error{file + ": " + variantName(model.variant) + ": " + why}; };
    auto &module = model.module;
    switch (model.variant.kind) {
    case VariantKind::Baseline: break;
    case VariantKind::Threads:
        model.threads = model.variant.threads;
        model.note = "intra-op threads " + std::to_string(model.threads);
        break;
    case VariantKind::Frozen: {
        module.eval();
        auto frozen = jit::freeze(module);
        model.saveable = frozen.clone();
        model.module = jit::optimize_for_inference(frozen);
        model.note = "frozen; optimize_for_inference";
        break;
    }
    case VariantKind::ChannelsLast: {
        ::torch::NoGradGuard noGrad;
        int converted = 0;
        for (auto parameter : module.parameters()) {
            if (parameter.dim() == 4) {
                parameter.set_data(parameter.contiguous(at::MemoryFormat::ChannelsLast));
                ++converted;
            }
        }
        model.channelsLast = true;
        model.note = plural(converted, "4-D weight") + " in channels_last";
        break;
    }
    case VariantKind::BFloat16: {
        int floating = 0;
        for (const auto &parameter : module.parameters())
            floating += parameter.is_floating_point() ? 1 : 0;
        if (floating == 0)
            return fail("the model has no floating-point parameters to convert");
        module.to(at::kBFloat16);
        model.bfloat16 = true;
        model.note = plural(floating, "parameter") + " in bfloat16";
        break;
    }
    case VariantKind::Int8Dynamic: {
        const auto engine = chooseQEngine();
        if (!engine)
            return fail("this libtorch supports no quantized engine");
        at::globalContext().setQEngine(*engine);
        module.eval();
        model.module = jit::freeze(module);
        const auto [rewritten, left] = quantizeLinears(model.module, *engine);
        const auto recurrent = quantizeRecurrent(model.module, *engine);
        if (rewritten == 0 && recurrent.lstm == 0 && recurrent.gru == 0)
            return fail("no linear, LSTM or GRU layer with constant weights to quantize (convolutions stay float)" +
                        (recurrent.whyLeft.empty() ? std::string() : "; left float: " + recurrent.whyLeft));
        std::vector<std::string> parts;
        if (rewritten > 0)
            parts.push_back(plural(rewritten, "linear layer"));
        if (recurrent.lstm > 0)
            parts.push_back(std::to_string(recurrent.lstm) + " LSTM");
        if (recurrent.gru > 0)
            parts.push_back(std::to_string(recurrent.gru) + " GRU");
        for (std::size_t i = 0; i < parts.size(); ++i)
            model.note += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
        model.note += " int8 (" + qengineName(*engine) + ")";
        if (left + recurrent.left > 0)
            model.note += ", " + std::to_string(left + recurrent.left) + " left float" +
                          (recurrent.whyLeft.empty() ? std::string() : " (" + recurrent.whyLeft + ")");
        break;
    }
    case VariantKind::Int8Static:
        return fail("not supported: static quantization calibrates activation ranges with the observer modules of "
                    "Python's torch.ao.quantization, which a TorchScript archive does not carry; quantize in Python "
                    "(torch.ao.quantization.quantize_fx) and open the saved result");
    }
    return model;
}

} // namespace

ThreadCountScope::ThreadCountScope(int threads) : m_previous(at::get_num_threads())
{
    if (threads > 0 && threads != m_previous)
        at::set_num_threads(threads);
}

ThreadCountScope::~ThreadCountScope()
{
    if (at::get_num_threads() != m_previous)
        at::set_num_threads(m_previous);
}

std::vector<c10::IValue> VariantModel::adapt(const std::vector<c10::IValue> &inputs) const
{
    std::vector<c10::IValue> adapted;
    adapted.reserve(inputs.size());
    for (const auto &input : inputs) {
        if (!input.isTensor()) {
            adapted.push_back(input);
            continue;
        }
        auto tensor = input.toTensor();
        if (channelsLast && tensor.dim() == 4)
            tensor = tensor.contiguous(at::MemoryFormat::ChannelsLast);
        if (bfloat16 && tensor.is_floating_point())
            tensor = tensor.to(at::kBFloat16);
        adapted.emplace_back(std::move(tensor));
    }
    return adapted;
}

c10::IValue VariantModel::forward(const std::vector<c10::IValue> &inputs)
{
    c10::InferenceMode guard;
    return module.forward(inputs);
}

Result<VariantModel> buildVariant(const std::filesystem::path &path, const Variant &variant)
{
    const std::string file = path.filename().string();
    VariantModel model;
    model.variant = variant;
    try {
        model.module = jit::load(path.string(), ::torch::kCPU);
        model.module.eval();
        return applyVariant(std::move(model), file);
    } catch (const c10::Error &error) {
        return Error{file + ": " + variantName(variant) + ": " + cleanTorchMessage(error.what_without_backtrace())};
    } catch (const std::exception &error) {
        return Error{file + ": " + variantName(variant) + ": " + cleanTorchMessage(error.what())};
    }
}

std::int64_t serializedBytes(const VariantModel &model)
{
    std::ostringstream stream;
    (model.saveable ? *model.saveable : model.module).save(stream);
    return std::int64_t(stream.tellp());
}

std::int64_t tensorBytes(const std::vector<c10::IValue> &values)
{
    std::int64_t bytes = 0;
    for (const auto &value : values)
        if (value.isTensor())
            bytes += std::int64_t(value.toTensor().nbytes());
    return bytes;
}

std::optional<std::vector<double>> timeForwards(VariantModel &model, const std::vector<c10::IValue> &inputs, int warmup, int iterations,
                                                const StopToken &stop, const std::function<void()> &tick)
{
    ThreadCountScope threads(model.threads);
    for (int i = 0; i < warmup; ++i) {
        if (stop.stopRequested())
            return std::nullopt;
        model.forward(inputs);
        tick();
    }
    std::vector<double> samples;
    samples.reserve(std::size_t(std::max(0, iterations)));
    for (int i = 0; i < iterations; ++i) {
        if (stop.stopRequested())
            return std::nullopt;
        const auto start = std::chrono::steady_clock::now();
        model.forward(inputs);
        samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        tick();
    }
    return samples;
}

struct AllocationPeak::Reporter final : c10::MemoryReportingInfoBase {
    std::atomic<std::int64_t> current{0};
    std::atomic<std::int64_t> peak{0};

    void reportMemoryUsage(void *, int64_t size, int64_t, int64_t, c10::Device device) override
    {
        if (device.type() != c10::DeviceType::CPU)
            return;
        const auto now = current.fetch_add(size, std::memory_order_relaxed) + size;
        auto seen = peak.load(std::memory_order_relaxed);
        while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
        }
    }
    bool memoryProfilingEnabled() const override { return true; }
};

AllocationPeak::AllocationPeak()
    : m_reporter(std::make_shared<Reporter>()),
      m_guard(std::make_unique<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE, m_reporter))
{
}

AllocationPeak::~AllocationPeak() = default;

std::int64_t AllocationPeak::peak() const
{
    return m_reporter->peak.load(std::memory_order_relaxed);
}

bool isOutOfMemory(const std::exception &error)
{
    if (dynamic_cast<const std::bad_alloc *>(&error))
        return true;
    const std::string_view what = error.what();
    return what.find("not enough memory") != std::string_view::npos || what.find("out of memory") != std::string_view::npos ||
           what.find("can't allocate memory") != std::string_view::npos;
}

namespace {

void flatten(const c10::IValue &value, std::vector<at::Tensor> &out)
{
    if (value.isTensor()) {
        out.push_back(value.toTensor());
    } else if (value.isTuple()) {
        for (const auto &element : value.toTupleRef().elements())
            flatten(element, out);
    } else if (value.isList()) {
        for (const auto &element : value.toListRef())
            flatten(element, out);
    } else if (value.isGenericDict()) {
        for (const auto &entry : value.toGenericDict())
            flatten(entry.value(), out);
    }
}

} // namespace

OutputDiff compareOutputs(const c10::IValue &value, const c10::IValue &reference)
{
    std::vector<at::Tensor> outputs;
    std::vector<at::Tensor> references;
    flatten(value, outputs);
    flatten(reference, references);
    OutputDiff diff;
    if (outputs.size() != references.size() || outputs.empty())
        return diff;
    c10::InferenceMode guard;
    double errorSquares = 0;
    double referenceSquares = 0;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        auto a = outputs[i].is_quantized() ? outputs[i].dequantize() : outputs[i];
        auto b = references[i];
        if (a.sizes() != b.sizes())
            return diff;
        a = a.to(at::kDouble);
        b = b.to(at::kDouble);
        const auto delta = (a - b).abs();
        if (delta.numel() > 0)
            diff.maxAbsDiff = std::max(diff.maxAbsDiff, delta.max().item<double>());
        errorSquares += delta.pow(2).sum().item<double>();
        referenceSquares += b.pow(2).sum().item<double>();
    }
    diff.comparable = true;
    diff.relativeError = referenceSquares > 0 ? std::sqrt(errorSquares / referenceSquares) : std::sqrt(errorSquares);
    return diff;
}

} // namespace pyrometer::torch
