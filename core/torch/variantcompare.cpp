// Variants side by side: each timed on the same inputs, checked against the baseline's
// outputs, and measured serialized. Includes libtorch.
#include "core/torch/variantmodel.h"

#include "core/torch/dataset.h"
#include "core/torch/layerprofile.h"
#include "core/torch/modelfile.h"
#include "core/torch/quantize.h"
#include "core/torch/sessionimpl.h"
#include "core/torch/torcherror.h"
#include "core/util/format.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <sstream>

#include <unistd.h>

namespace pyrometer::torch {

namespace {

// A forward that multiplies float32 tensors of its own with bf16 weights. libtorch 1.13 says the
// dtypes differ; 2.6 runs a bf16 recurrent layer on oneDNN, which cannot make its primitive.
bool isMixedDtypeFailure(const std::string &error)
{
    return error.find("must have the same dtype") != std::string::npos ||
           (error.find("could not create a primitive descriptor") != std::string::npos &&
            (error.find("LSTM") != std::string::npos || error.find("GRU") != std::string::npos ||
             error.find("RNN") != std::string::npos));
}

std::string times(double factor)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f\u00d7", factor);
    return text;
}

std::string wholePercent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
    return text;
}

// A variant's top-1 predictions on the data, scored: accuracy against the labels, agreement
// with the baseline's predictions (base: null for the baseline itself, whose labels are
// checked against its classes). Returns the predictions, nothing when stopped, or an Error
// naming the file at fault.
Result<std::optional<std::vector<std::int64_t>>> scoreOnData(VariantModel &model, const Dataset &data,
                                                             const std::vector<std::int64_t> *base, VariantResult &row,
                                                             const StopToken &stop, const std::function<void()> &tick)
{
    std::int64_t classes = 0;
    std::optional<std::vector<std::int64_t>> predictions;
    const auto rejected = [&](const std::string &why) {
        return Error{data.dataName + ": the model rejected its samples (batches of " +
                     formatInputSpecs(data.specs(std::min(kEvaluationBatch, data.samples))) + "): " + why};
    };
    try {
        predictions = predictTop1(model, data, &classes, stop, tick);
    } catch (const c10::Error &error) {
        return rejected(cleanTorchMessage(error.what_without_backtrace()));
    } catch (const std::exception &error) {
        return rejected(cleanTorchMessage(error.what()));
    }
    if (!predictions)
        return std::optional<std::vector<std::int64_t>>();
    if (data.labels.defined()) {
        const auto *labels = data.labels.data_ptr<std::int64_t>();
        const std::vector<std::int64_t> expected(labels, labels + data.samples);
        if (!base) {
            const auto [low, high] = std::minmax_element(expected.begin(), expected.end());
            if (*low < 0 || *high >= classes)
                return Error{data.labelsName + ": label " + std::to_string(*low < 0 ? *low : *high) +
                             " is out of range: the model scores " + std::to_string(classes) + " classes (0 to " +
                             std::to_string(classes - 1) + ")"};
        }
        row.accuracy = top1Agreement(*predictions, expected);
    }
    row.agreement = base ? top1Agreement(*predictions, *base) : 1.0;
    return predictions;
}

// What a pruned variant's figures mean, in plain words, where speed is not what it bought.
std::string pruningVerdict(const VariantResult &row, const VariantResult &baseline, const VariantCost &cost,
                           const VariantCost &baseCost)
{
    if (row.variant.kind == VariantKind::PruneL1 && row.speedup < 1.05)
        return "no faster (" + times(row.speedup) +
               " the baseline's speed): dense kernels multiply a zero weight as fast as any other, so zeros alone buy "
               "no "
               "speed; what they buy is size once compressed (" +
               formatBytes(std::uint64_t(row.compressedBytes)) + " through zlib, against " +
               formatBytes(std::uint64_t(baseline.compressedBytes)) +
               " for the baseline) and a model ready for sparse kernels";
    if (row.variant.kind == VariantKind::PruneChannels && row.speedup < 1 &&
        cost.nativeConvolutions > baseCost.nativeConvolutions)
        return "slower than the baseline despite " + wholePercent(1 - cost.macs / std::max(1.0, baseCost.macs)) +
               " fewer MACs: libtorch runs a convolution of one sample on its native kernel instead of oneDNN when its "
               "input "
               "is small (20480 elements or fewer, kernel 3x3 or less), and " +
               countOf(cost.nativeConvolutions - baseCost.nativeConvolutions, "more convolution") +
               " fell under that size here; a batch of 2 or more runs them all on oneDNN";
    return {};
}

// A variant that ran, for the timed runs: its row, model and inputs as it takes them.
struct Contender {
    std::size_t row = 0;
    VariantModel *model = nullptr;
    std::vector<c10::IValue> inputs;
};

// The timed runs of every contender, taking turns run by run (round r starts at contender r mod
// n), so that whatever drifts on the machine meanwhile (clocks, a neighbour's load, the caches)
// falls on every variant alike, as a fair A/B does. Per contender, its samples in ms; nothing
// when stopped. Throws what libtorch throws.
std::optional<std::vector<std::vector<double>>> timeInTurns(std::vector<Contender> &contenders, int iterations,
                                                            const StopToken &stop, const std::function<void()> &tick)
{
    const auto n = contenders.size();
    std::vector<std::vector<double>> samples(n);
    for (int r = 0; r < iterations; ++r) {
        for (std::size_t j = 0; j < n; ++j) {
            if (stop.stopRequested())
                return std::nullopt;
            const auto k = (std::size_t(r) + j) % n;
            auto &contender = contenders[k];
            ThreadCountScope threads(contender.model->threads);
            const auto start = std::chrono::steady_clock::now();
            contender.model->forward(contender.inputs);
            samples[k].push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            tick();
        }
    }
    return samples;
}

// How each variant runs before the timed runs.
struct RunPlan {
    int warmup = 0;
    int iterations = 0;
    const EnergyProbe &energy;
    const StopToken &stop;
    const std::function<void()> &tick;
};

// A built variant's cold run (the one checked against the baseline's output, which the baseline
// sets), its warm-up (and, with energy counters, timed runs of its own for them) and its cost,
// into row; it joins the contenders of the runs in turns. False when stopped; throws what
// libtorch throws.
bool runBuilt(VariantModel &model, const std::vector<c10::IValue> &inputs, const RunPlan &plan, bool baseline,
              c10::IValue &reference, CompareReport &report, VariantResult &row, VariantCost &cost,
              std::vector<Contender> &contenders)
{
    const auto &[warmup, iterations, energy, stop, tick] = plan;
    const auto adapted = model.adapt(inputs);
    const auto output = model.forward(adapted); // the cold run, also the one checked
    tick();
    // The warm-up; with energy counters, a run of its own timed forwards for them (the
    // latency comes from the runs in turns below).
    auto runs = timeForwards(model, adapted, warmup, energy.available ? iterations : 0, stop, tick, &energy);
    if (!runs)
        return false;
    if (const auto perInference = energyPerInference(*runs, iterations, batchSizeOf(report.inputs))) {
        row.energyMjPerInference = perInference->aboveIdleMj;
        row.machineEnergyMjPerInference = perInference->machineMj;
        row.idlePowerW = perInference->idleWatts;
    }
    if (!runs->energyError.empty() && report.energyUnavailable.empty())
        report.energyUnavailable = runs->energyError;
    cost = measureCost(model, adapted);
    contenders.push_back({report.rows.size(), &model, adapted});
    row.modelBytes = cost.modelBytes;
    row.compressedBytes = cost.compressedBytes;
    row.params = cost.params;
    row.macs = cost.macs;
    row.sparsity = cost.sparsity;
    row.layerSparsity = cost.layers;
    if (baseline) {
        reference = output;
        row.maxAbsDiff = 0;
        row.relativeError = 0;
    } else if (const auto diff = compareOutputs(output, reference); diff.comparable) {
        row.maxAbsDiff = diff.maxAbsDiff;
        row.relativeError = diff.relativeError;
    }
    return true;
}

// The evaluation data of --data (and --labels), said in report.dataNote; nothing without it.
Result<std::optional<Dataset>> evaluationData(const CompareOptions &options, CompareReport &report)
{
    if (options.data.empty()) {
        if (!options.labels.empty())
            return Error{options.labels.string() + ": labels without the inputs they label; give those too"};
        return std::optional<Dataset>();
    }
    auto loaded = loadDataset({options.data, options.labels});
    if (!loaded.ok())
        return loaded.error();
    auto dataset = std::move(loaded).value();
    report.dataNote = std::to_string(dataset.samples) + " samples of " + options.data.filename().string() +
                      " in batches of " + std::to_string(std::min(kEvaluationBatch, dataset.samples)) +
                      (dataset.labelsName.empty() ? ", without labels: agreement with the baseline only"
                                                  : ", labels " + options.labels.filename().string());
    return std::optional<Dataset>(std::move(dataset));
}

// What a bf16 variant's mixed-dtype failure means, and what to do.
std::string mixedDtypeExplanation(const std::string &error)
{
    return "bf16 cannot run this model: its forward makes float32 tensors of its own (the initial state "
           "of a traced LSTM, GRU or RNN, or a torch.zeros/ones with dtype float32) and multiplies them "
           "with bfloat16 weights; script the model (torch.jit.script), or give it the state as an input, "
           "and bf16 converts that too (libtorch: " +
           error + ")";
}

// The rows' latencies from the runs in turns, their speedups over the baseline (with their
// interval) and what pruning did to them; each row to onRow.
void settleRows(CompareReport &report, const std::vector<Contender> &contenders,
                const std::vector<std::vector<double>> &samples, const std::vector<VariantCost> &costs,
                const VariantCallback &onRow)
{
    const auto batch = double(batchSizeOf(report.inputs));
    for (std::size_t k = 0; k < contenders.size(); ++k) {
        auto &row = report.rows[contenders[k].row];
        row.latency = latencyStats(samples[k]);
        row.throughputPerSecond = row.latency.mean > 0 ? batch * 1000.0 / row.latency.mean : 0;
    }
    const auto &base = report.rows.front();
    for (std::size_t r = 0; r < report.rows.size(); ++r) {
        auto &row = report.rows[r];
        if (row.ok() && base.latency.mean > 0 && row.latency.mean > 0) {
            row.speedup = base.latency.mean / row.latency.mean;
            row.speedupInterval =
                r == 0 ? std::optional(Interval{1, 1}) : ratioInterval(base.latency.sample(), row.latency.sample());
        }
        if (r > 0 && row.ok())
            if (const auto verdict = pruningVerdict(row, base, costs[r], costs.front()); !verdict.empty())
                row.note += "; " + verdict;
        if (onRow)
            onRow(row);
    }
}

} // namespace

Result<CompareReport> compareVariants(const std::filesystem::path &path, const CompareOptions &options,
                                      const VariantCallback &onRow, ProgressReporter &progress, const StopToken &stop)
{
    const std::string file = path.filename().string();
    const auto cancelled = [&] { return Error{path.string() + ": cancelled"}; };
    if (auto info = inspectModel(path); !info.ok())
        return info.error();
    CompareReport report;
    report.path = path;
    report.quantizationEngines = quantizedEngineNames();
    auto evaluation = evaluationData(options, report);
    if (!evaluation.ok())
        return evaluation.error();
    auto &dataset = evaluation.value();
    auto specs = options.inputs.empty() && dataset && recordedInputSpec(path).empty()
                     ? Result<std::vector<InputSpec>>(dataset->specs(std::min(kEvaluationBatch, dataset->samples)))
                     : givenOrRecordedInputs(path, options.inputs);
    if (!specs.ok())
        return specs.error();
    report.inputs = std::move(specs).value();
    std::vector<Variant> variants{Variant{}};
    for (const auto &variant : options.variants)
        if (variant != Variant{})
            variants.push_back(variant);

    const int warmup = std::max(0, options.warmup);
    const int iterations = std::max(1, options.iterations);
    const auto perVariant =
        std::uint64_t(warmup + iterations + 2) + std::uint64_t(dataset ? evaluationBatches(*dataset) : 0);
    const auto total = std::uint64_t(variants.size()) * perVariant;
    std::uint64_t done = 0;
    const auto tick = [&] { progress.report(++done, total); };
    const auto energy = probeRapl(options.powercapRoot);
    if (!energy.available)
        report.energyUnavailable = energy.reason;

    std::vector<c10::IValue> inputs;
    try {
        inputs = makeInputs(report.inputs);
    } catch (const std::exception &error) {
        return Error{path.string() + ": cannot make inputs " + formatInputSpecs(report.inputs) + ": " + cleanTorchMessage(error.what())};
    }
    c10::IValue reference;
    std::vector<std::int64_t> basePredictions;
    // Each variant that runs, kept for the timed runs, which take turns (see timeInTurns).
    std::deque<VariantModel> models; // built variants (a deque: references stay valid)
    std::vector<Contender> contenders;
    std::vector<VariantCost> costs;
    for (const auto &variant : variants) {
        if (stop.stopRequested())
            return cancelled();
        VariantResult row;
        row.variant = variant;
        row.name = variantName(variant);
        const bool baseline = variant == Variant{};
        VariantCost cost;
        auto built = buildVariant(path, variant, report.inputs);
        if (!built.ok()) {
            if (baseline)
                return built.error();
            const std::string prefix = file + ": " + row.name + ": ";
            const auto &message = built.error().message;
            row.error = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
        } else {
            auto &model = models.emplace_back(std::move(built).value());
            row.note = model.note;
            try {
                if (!runBuilt(model, inputs, RunPlan{warmup, iterations, energy, stop, tick}, baseline, reference,
                              report, row, cost, contenders))
                    return cancelled();
            } catch (const c10::Error &error) {
                row.error = cleanTorchMessage(error.what_without_backtrace());
            } catch (const std::exception &error) {
                row.error = cleanTorchMessage(error.what());
            }
            if (baseline && !row.error.empty())
                return Error{path.string() + ": the model rejected its inputs " + formatInputSpecs(report.inputs) + ": " + row.error};
            if (model.bfloat16 && isMixedDtypeFailure(row.error))
                row.error = mixedDtypeExplanation(row.error);
            if (dataset && row.ok()) {
                auto scored = scoreOnData(model, *dataset, baseline ? nullptr : &basePredictions, row, stop, tick);
                if (!scored.ok()) {
                    if (baseline)
                        return scored.error();
                    row.error = scored.error().message;
                } else if (!scored.value()) {
                    return cancelled();
                } else if (baseline) {
                    basePredictions = std::move(*scored.value());
                }
            }
        }
        if (row.accuracy && (baseline || report.rows.front().accuracy))
            row.accuracyChange = (*row.accuracy - *(baseline ? row.accuracy : report.rows.front().accuracy)) * 100.0;
        if (!row.ok() && !contenders.empty() && contenders.back().row == report.rows.size())
            contenders.pop_back(); // failed after its build: no timed runs
        report.rows.push_back(std::move(row));
        costs.push_back(cost);
        done = std::uint64_t(report.rows.size()) * perVariant - std::uint64_t(iterations);
        progress.report(done, total);
    }
    std::optional<std::vector<std::vector<double>>> samples;
    try {
        samples = timeInTurns(contenders, iterations, stop, tick);
    } catch (const c10::Error &error) {
        return Error{path.string() + ": a timed run failed: " + cleanTorchMessage(error.what_without_backtrace())};
    } catch (const std::exception &error) {
        return Error{path.string() + ": a timed run failed: " + cleanTorchMessage(error.what())};
    }
    if (!samples)
        return cancelled();
    settleRows(report, contenders, *samples, costs, onRow);
    progress.finish();
    return report;
}

} // namespace pyrometer::torch

namespace pyrometer::torch {

namespace {

std::string uniqueName(const std::string &prefix, const std::string &suffix)
{
    static std::atomic<int> counter{0};
    return prefix + std::to_string(::getpid()) + "-" + std::to_string(counter++) + suffix;
}

// Saves what a user would keep of the variant (its saveable module where it has one) with
// inputs as its recorded example inputs.
Result<std::filesystem::path> saveModule(const VariantModel &model, const std::vector<InputSpec> &inputs, const std::filesystem::path &out)
{
    try {
        (model.saveable ? *model.saveable : model.module).save(out.string(), {{"example_inputs.txt", formatInputSpecs(inputs)}});
    } catch (const std::exception &error) {
        return Error{cleanTorchMessage(error.what())};
    }
    return out;
}

// The inputs as a variant takes them: floating ones in bfloat16 for bf16.
std::vector<InputSpec> variantInputs(std::vector<InputSpec> inputs, const VariantModel &model)
{
    if (model.bfloat16)
        for (auto &input : inputs)
            if (input.dtype == DType::Float32 || input.dtype == DType::Float64 || input.dtype == DType::Float16)
                input.dtype = DType::BFloat16;
    return inputs;
}

} // namespace

Result<std::string> exportVariant(const std::filesystem::path &path, const Variant &variant, const std::vector<InputSpec> &inputs,
                                  const std::filesystem::path &out)
{
    const std::string prefix = path.filename().string() + ": " + variantName(variant) + ": ";
    if (variant.kind == VariantKind::Baseline || variant.kind == VariantKind::Threads)
        return Error{prefix + "nothing to save: it runs the model as it is" +
                     (variant.kind == VariantKind::Threads ? " (the thread count is a setting of the run)" : "")};
    if (auto info = inspectModel(path); !info.ok())
        return info.error();
    auto given = givenOrRecordedInputs(path, inputs);
    if (!given.ok())
        return given.error();
    const auto &specs = given.value();
    auto built = buildVariant(path, variant, specs);
    if (!built.ok())
        return built.error();
    // Written beside the target and renamed over it: a reader never sees half a model.
    auto temporary = out;
    temporary += uniqueName(".", ".part");
    if (auto saved = saveModule(built.value(), variantInputs(specs, built.value()), temporary); !saved.ok())
        return Error{out.string() + ": cannot save " + variantName(variant) + ": " + saved.error().message};
    std::error_code error;
    std::filesystem::rename(temporary, out, error);
    if (error) {
        const auto why = error.message();
        std::filesystem::remove(temporary, error);
        return Error{out.string() + ": cannot write it: " + why};
    }
    if (built->saveable)
        return built->note + " (saved before optimize_for_inference, whose MKLDNN weights a TorchScript file cannot hold)";
    return built->note;
}

Result<ProfileReport> profileVariant(const std::filesystem::path &path, const Variant &variant, const RunOptions &options,
                                     ProgressReporter &progress, const StopToken &stop)
{
    if (variant == Variant{})
        return profileLayers(path, options, progress, stop);
    if (auto info = inspectModel(path); !info.ok())
        return info.error();
    auto run = options;
    auto inputs = givenOrRecordedInputs(path, run.inputs);
    if (!inputs.ok())
        return inputs.error();
    run.inputs = std::move(inputs).value();
    auto built = buildVariant(path, variant, run.inputs);
    if (!built.ok())
        return built.error();
    run.inputs = variantInputs(std::move(run.inputs), built.value());
    if (built->threads > 0)
        run.threads = built->threads;
    const auto temporary = std::filesystem::temp_directory_path() / uniqueName("pyrometer-variant-", ".pt");
    if (auto saved = saveModule(built.value(), run.inputs, temporary); !saved.ok())
        return Error{path.filename().string() + ": " + variantName(variant) + ": cannot be saved for profiling: " + saved.error().message};
    auto report = profileLayers(temporary, run, progress, stop);
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    if (!report.ok())
        return Error{path.filename().string() + ": " + variantName(variant) + ": " + report.error().message};
    report->path = path;
    return report;
}

} // namespace pyrometer::torch
