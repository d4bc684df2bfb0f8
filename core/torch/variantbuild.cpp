// Building optimized variants of a TorchScript module with libtorch's JIT passes, and the
// pieces that time and check them. Includes libtorch.
#include "core/torch/variantmodel.h"

#include "core/torch/prune.h"
#include "core/torch/quantize.h"
#include "core/torch/sessionimpl.h"
#include "core/torch/torcherror.h"
#include "core/util/cpufeatures.h"
#include "core/util/format.h"

#include <ATen/Parallel.h>
#include <torch/csrc/jit/passes/freeze_module.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace pyrometer::torch {
namespace {

namespace jit = ::torch::jit;

// How many random batches static quantization observes to fit its activation ranges.
constexpr std::uint64_t kCalibrationBatches = 4;

Result<VariantModel> applyVariant(VariantModel model, const std::string &file,
                                  const std::vector<InputSpec> &calibration)
{
    const auto fail = [&](const std::string &why) {
        return Error{file + ": " + variantName(model.variant) + ": " + why};
    };
    auto &module = model.module;
    switch (model.variant.kind) {
    case VariantKind::Baseline: break;
    case VariantKind::Compile:
    case VariantKind::Float16:
    case VariantKind::CudaGraphs:
        return fail("a variant of torch 2.x that the Python engine builds: give --python PATH (or choose the Python engine on "
                    "the Model page)");
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
        model.note = countOf(converted, "4-D weight") + " in channels_last";
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
        model.note = countOf(floating, "parameter") + " in bfloat16";
        if (!cpuHasNativeBFloat16())
            model.note +=
                "; this CPU has no native bfloat16 (AVX512-BF16 or AMX), so each operation converts to float32 and "
                "back and runs slower than the baseline: a fact of this CPU, not of bf16";
        break;
    }
    case VariantKind::Int8Dynamic: {
        const auto engine = selectQEngine(model.variant.engine);
        if (!engine.ok())
            return fail(engine.error().message);
        module.eval();
        model.module = jit::freeze(module);
        auto note = quantizeDynamic(model.module, engine.value());
        if (!note.ok())
            return fail(note.error().message);
        model.note = std::move(note).value();
        break;
    }
    case VariantKind::Int8Static: {
        const auto engine = selectQEngine(model.variant.engine);
        if (!engine.ok())
            return fail(engine.error().message);
        if (calibration.empty())
            return fail("needs input shapes to calibrate on");
        module.eval();
        // Batches apart from the inputs the variants are checked on, so the accuracy check
        // does not see the very values the ranges were fitted to.
        std::vector<std::vector<c10::IValue>> batches;
        for (std::uint64_t salt = 1; salt <= kCalibrationBatches; ++salt)
            batches.push_back(makeInputs(calibration, salt));
        auto quantized = quantizeStatic(module, engine.value(), batches);
        model.module = std::move(quantized.module);
        model.note = std::move(quantized.note);
        break;
    }
    case VariantKind::PruneL1:
    case VariantKind::PruneChannels: {
        auto note = model.variant.kind == VariantKind::PruneL1
                        ? pruneL1(module, model.variant.amount, model.variant.global)
                        : pruneChannels(module, model.variant.amount);
        if (!note.ok())
            return fail(note.error().message);
        model.note = std::move(note).value();
        break;
    }
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

Result<VariantModel> buildVariant(const std::filesystem::path &path, const Variant &variant,
                                  const std::vector<InputSpec> &calibration)
{
    const std::string file = path.filename().string();
    VariantModel model;
    model.variant = variant;
    try {
        model.module = jit::load(path.string(), ::torch::kCPU);
        model.module.eval();
        return applyVariant(std::move(model), file, calibration);
    } catch (const c10::Error &error) {
        return Error{file + ": " + variantName(variant) + ": " + cleanTorchMessage(error.what_without_backtrace())};
    } catch (const std::exception &error) {
        return Error{file + ": " + variantName(variant) + ": " + cleanTorchMessage(error.what())};
    }
}

std::int64_t tensorBytes(const std::vector<c10::IValue> &values)
{
    std::int64_t bytes = 0;
    for (const auto &value : values)
        if (value.isTensor())
            bytes += std::int64_t(value.toTensor().nbytes());
    return bytes;
}

std::optional<TimedRuns> timeForwards(VariantModel &model, const std::vector<c10::IValue> &inputs, int warmup,
                                      int iterations, const StopToken &stop, const std::function<void()> &tick,
                                      const EnergyProbe *energy)
{
    ThreadCountScope threads(model.threads);
    const auto warmupStarted = std::chrono::steady_clock::now();
    for (int i = 0; i < warmup; ++i) {
        if (stop.stopRequested())
            return std::nullopt;
        model.forward(inputs);
        tick();
    }
    TimedRuns runs;
    runs.samplesMs.reserve(std::size_t(std::max(0, iterations)));
    const bool metered = energy && energy->available;
    std::optional<Result<EnergySample>> before;
    using Clock = std::chrono::steady_clock;
    auto runsStarted = Clock::now();
    if (metered) {
        // The idle draw, over as long as the runs should take by the warm-up's pace (1 s without).
        const std::chrono::duration<double> expected =
            warmup > 0 ? std::chrono::duration<double>(runsStarted - warmupStarted) * iterations / warmup
                       : std::chrono::duration<double>(1.0);
        const auto wait = idleWindow(expected);
        const auto idleBefore = readEnergy(*energy);
        const auto idleStarted = Clock::now();
        std::this_thread::sleep_for(wait);
        const auto idleAfter = readEnergy(*energy);
        runs.idleSeconds = std::chrono::duration<double>(Clock::now() - idleStarted).count();
        if (idleBefore.ok() && idleAfter.ok())
            runs.idleJoules = joulesBetween(*energy, idleBefore.value(), idleAfter.value());
        else
            runs.energyError = (idleBefore.ok() ? idleAfter : idleBefore).error().message;
        before = readEnergy(*energy);
        runsStarted = Clock::now();
    }
    for (int i = 0; i < iterations; ++i) {
        if (stop.stopRequested())
            return std::nullopt;
        const auto start = std::chrono::steady_clock::now();
        model.forward(inputs);
        runs.samplesMs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        tick();
    }
    if (metered) {
        const auto after = readEnergy(*energy);
        runs.runSeconds = std::chrono::duration<double>(Clock::now() - runsStarted).count();
        if (!runs.energyError.empty()) // the idle draw could not be read: said already
            return runs;
        if (!before->ok())
            runs.energyError = before->error().message;
        else if (!after.ok())
            runs.energyError = after.error().message;
        else
            runs.joules = joulesBetween(*energy, before->value(), after.value());
    }
    return runs;
}

std::optional<InferenceEnergy> energyPerInference(const TimedRuns &runs, int iterations, std::int64_t batch)
{
    if (!runs.joules || !runs.idleJoules || iterations < 1 || batch < 1)
        return std::nullopt;
    return inferenceEnergy(*runs.joules, runs.runSeconds, *runs.idleJoules, runs.idleSeconds,
                           double(iterations) * double(batch));
}

struct AllocationPeak::Reporter final : MemoryObserver {
    std::atomic<std::int64_t> current{0};
    std::atomic<std::int64_t> peak{0};

    void onMemory(void *, std::int64_t size, std::int64_t, c10::Device device) override
    {
        if (device.type() != c10::DeviceType::CPU)
            return;
        const auto now = current.fetch_add(size, std::memory_order_relaxed) + size;
        auto seen = peak.load(std::memory_order_relaxed);
        while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
        }
    }
};

AllocationPeak::AllocationPeak()
    : m_reporter(std::make_shared<Reporter>()),
      m_guard(std::make_unique<MemoryObserverGuard>(m_reporter))
{}

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
    return what.find("not enough memory") != std::string_view::npos ||
           what.find("out of memory") != std::string_view::npos ||
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
