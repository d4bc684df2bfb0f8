#include "core/engine/engine.h"

#include "core/engine/pythonworker.h"
#include "core/torch/datainputs.h"
#include "core/torch/flops.h"
#include "core/torch/layerprofile.h"
#include "core/torch/modelfile.h"
#include "core/torch/runner.h"
#include "core/torch/sweep.h"
#include "core/torch/variant.h"
#include "core/util/factoryname.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>

namespace pyrometer::engine {

model::RecordedProfile recordedProfile(const nlohmann::json &event)
{
    model::RecordedProfile profile;
    profile.iterations = event.value("iterations", 1);
    const std::hash<std::string> hash;
    const auto threadOf = [&](const nlohmann::json &item) {
        const auto &tid = item["tid"];
        return tid.is_number_unsigned() ? tid.get<std::uint64_t>()
                                        : std::uint64_t(hash(tid.is_string() ? tid.get<std::string>() : tid.dump()));
    };
    for (const auto &item : event.value("ops", nlohmann::json::array())) {
        model::ProfiledOp op;
        op.name = item.value("name", std::string());
        op.startNs = item.value("start", std::int64_t(0));
        op.durationNs = item.value("dur", std::int64_t(0));
        op.threadId = threadOf(item);
        op.scope = item.value("scope", 0);
        op.depth = item.value("depth", 0);
        op.sequenceNr = item.value("seq", std::int64_t(-1));
        op.inputShapes = item.value("shapes", std::vector<std::vector<std::int64_t>>{});
        op.inputTypes = item.value("types", std::vector<std::string>{});
        op.moduleFrames = item.value("frames", std::vector<std::string>{});
        op.deviceNs = item.value("device", std::int64_t(-1));
        profile.ops.push_back(std::move(op));
    }
    for (const auto &item : event.value("memory", nlohmann::json::array())) {
        model::MemoryEvent memory;
        memory.timeNs = item.value("t", std::int64_t(0));
        memory.threadId = threadOf(item);
        memory.bytes = item.value("bytes", std::int64_t(0));
        memory.totalAllocated = item.value("total", std::int64_t(0));
        memory.deviceType = item.value("device_type", 0);
        memory.deviceId = item.value("device", -1);
        if (memory.deviceType == 0)
            profile.memory.push_back(memory);
    }
    return profile;
}

namespace {

std::string modelText(const std::filesystem::path &model)
{
    // A factory "dir/model.py:build" keeps its ":build"; a file is made absolute so that the
    // worker, started in its own folder, finds it.
    const auto text = model.string();
    std::error_code error;
    if (const auto factory = parseFactoryName(text)) {
        const auto file = std::filesystem::absolute(factory->file, error);
        return (error ? factory->file : file).string() + ":" + factory->function;
    }
    const auto absolute = std::filesystem::absolute(model, error);
    return error ? text : absolute.string();
}

nlohmann::json inputsJson(const std::vector<model::InputSpec> &inputs)
{
    auto list = nlohmann::json::array();
    for (const auto &input : inputs)
        list.push_back({{"shape", input.shape}, {"dtype", model::dtypeName(input.dtype)}});
    return list;
}

std::vector<model::InputSpec> inputsFrom(const nlohmann::json &list)
{
    std::vector<model::InputSpec> inputs;
    if (!list.is_array())
        return inputs;
    for (const auto &item : list) {
        std::string text;
        for (const auto &d : item.value("shape", std::vector<std::int64_t>{}))
            text += (text.empty() ? "" : "x") + std::to_string(d);
        if (text.empty())
            text = "scalar";
        auto parsed = model::parseInputSpecs(text + ":" + item.value("dtype", std::string("float32")));
        if (parsed.ok() && !parsed.value().empty())
            inputs.push_back(parsed.value().front());
    }
    return inputs;
}

nlohmann::json request(const std::filesystem::path &model, const std::vector<model::InputSpec> &inputs, int threads)
{
    return {{"model", modelText(model)}, {"inputs", inputsJson(inputs)}, {"threads", threads}, {"tasks", nlohmann::json::array()}};
}

const nlohmann::json *eventOf(const WorkerRun &run, const std::string &kind)
{
    for (const auto &event : run.events)
        if (event.value("event", std::string()) == kind)
            return &event;
    return nullptr;
}

model::ModelInfo modelInfoOf(const WorkerRun &run, const std::filesystem::path &model)
{
    model::ModelInfo info;
    info.path = model;
    for (const auto &module : run.loaded.value("modules", nlohmann::json::array())) {
        model::ModuleInfo row;
        row.qualifiedName = module.value("name", std::string());
        row.typeName = module.value("type", std::string());
        row.depth = module.value("depth", 0);
        row.ownParameters = module.value("own", std::uint64_t(0));
        row.totalParameters = module.value("total", std::uint64_t(0));
        info.modules.push_back(std::move(row));
    }
    info.parameters = run.loaded.value("parameters", std::uint64_t(0));
    return info;
}

analysis::OpArg argFrom(const nlohmann::json &item)
{
    analysis::OpArg arg;
    const auto kind = item.value("k", std::string());
    if (kind == "t") {
        arg.kind = analysis::OpArg::Kind::Tensor;
        arg.values = item.value("s", std::vector<std::int64_t>{});
        arg.elementBytes = item.value("e", 0);
        arg.dtype = item.value("d", std::string());
    } else if (kind == "i") {
        arg.kind = analysis::OpArg::Kind::Int;
        arg.values = {item.value("v", std::int64_t(0))};
    } else if (kind == "b") {
        arg.kind = analysis::OpArg::Kind::Bool;
        arg.values = {item.value("v", std::int64_t(0))};
    } else if (kind == "d") {
        arg.kind = analysis::OpArg::Kind::Double;
        arg.number = item.value("v", 0.0);
    } else if (kind == "il") {
        arg.kind = analysis::OpArg::Kind::IntList;
        arg.values = item.value("v", std::vector<std::int64_t>{});
    } else if (kind == "tl") {
        arg.kind = analysis::OpArg::Kind::TensorList;
        arg.tensors = item.value("s", std::vector<std::vector<std::int64_t>>{});
    } else if (kind == "o") {
        arg.kind = analysis::OpArg::Kind::Other;
    }
    return arg;
}

std::vector<analysis::OpRecord> opsOf(const WorkerRun &run)
{
    std::vector<analysis::OpRecord> ops;
    const auto *event = eventOf(run, "ops");
    if (!event)
        return ops;
    for (const auto &item : event->value("ops", nlohmann::json::array())) {
        analysis::OpRecord op;
        op.name = item.value("name", std::string());
        op.moduleFrames = item.value("frames", std::vector<std::string>{});
        for (const auto &arg : item.value("args", nlohmann::json::array()))
            op.args.push_back(argFrom(arg));
        op.outputShapes = item.value("outputs", std::vector<std::vector<std::int64_t>>{});
        ops.push_back(std::move(op));
    }
    return ops;
}

model::LatencyStats statsOf(const nlohmann::json &event)
{
    return model::latencyStats(event.value("samples_ms", std::vector<double>{}));
}

std::string deviceOf(const Engine &engine)
{
    return engine.device.empty() ? "cpu" : engine.device;
}

// The variants the Python engine builds, by the names its worker knows.
bool pythonBuilds(const model::Variant &variant)
{
    using K = model::VariantKind;
    return variant.kind == K::Baseline || variant.kind == K::ChannelsLast || variant.kind == K::BFloat16 ||
        variant.kind == K::Float16 || variant.kind == K::Compile || variant.kind == K::CudaGraphs ||
        (variant.kind == K::Int8Dynamic && variant.engine.empty());
}

std::string notBuiltByPython(const model::Variant &variant)
{
    return model::variantName(variant) + ": the embedded engine's (TorchScript passes); the Python engine builds "
                                         "compile, bf16, fp16, channels_last, int8 and "
                                         "reduce_overhead";
}

nlohmann::json latencyTask(const model::RunOptions &options)
{
    return {{"task", "latency"}, {"warmup", options.warmup}, {"iterations", options.iterations}};
}

Result<model::LatencyReport> latencyFrom(const WorkerRun &run, const Engine &engine, const std::filesystem::path &model,
                                         const model::RunOptions &options)
{
    const auto *event = eventOf(run, "latency");
    if (!event)
        return Error{model.string() + ": the Python engine gave no latency"};
    model::LatencyReport report;
    report.path = model;
    report.inputs = inputsFrom(run.loaded.value("inputs", nlohmann::json::array()));
    report.mode = options.mode;
    report.threads = options.threads > 0 ? options.threads : run.loaded.value("threads", 0);
    report.warmup = options.warmup;
    report.samplesMs = event->value("samples_ms", std::vector<double>{});
    report.iterations = int(report.samplesMs.size());
    report.batchSize = model::batchSizeOf(report.inputs);
    report.coldMs = event->value("cold_ms", 0.0);
    report.warm = model::latencyStats(report.samplesMs);
    report.throughputPerSecond = report.warm.mean > 0 ? double(report.batchSize) * 1000.0 / report.warm.mean : 0;
    report.engine = pythonEngineName(run.info, deviceOf(engine));
    return report;
}

Result<model::LatencyReport> pythonLatency(const Engine &engine, const std::filesystem::path &model,
                                           const model::RunOptions &options, ProgressReporter &progress,
                                           const StopToken &stop)
{
    auto req = request(model, options.inputs, options.threads);
    req["tasks"].push_back(latencyTask(options));
    auto run = runWorker(engine, std::move(req), {}, progress, stop);
    if (!run)
        return run.error();
    return latencyFrom(run.value(), engine, model, options);
}

Result<model::FlopsReport> pythonFlops(const Engine &engine, const std::filesystem::path &model,
                                       const std::vector<model::InputSpec> &inputs, const StopToken &stop)
{
    auto req = request(model, inputs, 0);
    req["tasks"].push_back({{"task", "ops"}});
    ProgressReporter progress;
    auto run = runWorker(engine, std::move(req), {}, progress, stop);
    if (!run)
        return run.error();
    auto report = model::summarizeFlops(modelInfoOf(run.value(), model), opsOf(run.value()));
    report.path = model;
    report.inputs = inputsFrom(run.value().loaded.value("inputs", nlohmann::json::array()));
    report.engine = pythonEngineName(run.value().info, deviceOf(engine));
    return report;
}

// The FLOPs operators of one forward, then the profiled runs.
void addProfileTasks(nlohmann::json &req, const model::RunOptions &options, const std::filesystem::path &traceOut,
                     const model::Variant &variant)
{
    req["tasks"].push_back({{"task", "ops"}});
    req["tasks"].push_back(
        {{"task", "profile"},
         {"variant", model::variantName(variant)},
         {"warmup", std::max(1, options.warmup)},
         {"iterations", std::max(1, options.iterations)},
         {"trace", traceOut.empty() ? std::string() : std::filesystem::absolute(traceOut).string()}});
}

Result<model::ProfileReport> profileFrom(const WorkerRun &run, const Engine &engine, const std::filesystem::path &model,
                                         const model::RunOptions &options, const std::filesystem::path &traceOut)
{
    const auto *profiled = eventOf(run, "profile");
    if (!profiled)
        return Error{model.string() + ": the Python engine gave no profile"};
    auto ops = opsOf(run);
    auto flops = model::summarizeFlops(modelInfoOf(run, model), ops);
    flops.path = model;
    flops.inputs = inputsFrom(run.loaded.value("inputs", nlohmann::json::array()));
    auto report = model::summarizeProfile(flops, recordedProfile(*profiled));
    report.mode = options.mode;
    report.peakMemoryBytes = std::max<std::int64_t>(report.peakMemoryBytes, profiled->value("device_peak", std::int64_t(0)));
    report.trace = traceOut;
    report.engine = pythonEngineName(run.info, deviceOf(engine));
    const bool framed = std::any_of(ops.begin(), ops.end(), [](const analysis::OpRecord &op) { return op.moduleFrames.size() > 1; });
    if (!framed && run.loaded.value("kind", std::string()) == "torchscript" && report.rows.size() > 1)
        report.note = "torch " + run.info.torchVersion +
            " gives Python no module hierarchy for TorchScript (torch 2 with Kineto does): every layer's time and FLOPs are on "
            "the model's row; the embedded engine shows this file per layer";
    return report;
}

Result<model::ProfileReport> pythonProfile(const Engine &engine, const std::filesystem::path &model,
                                           const model::RunOptions &options, ProgressReporter &progress,
                                           const StopToken &stop, const std::filesystem::path &traceOut,
                                           const model::Variant &variant = {})
{
    auto req = request(model, options.inputs, options.threads);
    addProfileTasks(req, options, traceOut, variant);
    auto run = runWorker(engine, std::move(req), {}, progress, stop);
    if (!run)
        return run.error();
    return profileFrom(run.value(), engine, model, options, traceOut);
}

Result<model::SweepReport> pythonSweep(const Engine &engine, const std::filesystem::path &model,
                                       const model::SweepOptions &options, const model::SweepCallback &onPoint,
                                       ProgressReporter &progress, const StopToken &stop)
{
    model::SweepReport report;
    report.path = model;
    report.memoryBudgetBytes = options.memoryBudgetBytes;
    std::vector<std::int64_t> batches = options.batches;
    if (batches.empty())
        for (std::int64_t batch = 1; batch <= std::max<std::int64_t>(1, options.maxBatch); batch *= 2)
            batches.push_back(batch);
    auto req =
        request(model, options.inputs.empty() ? options.inputs : model::withBatch(options.inputs, batches.front()), 0);
    auto points = nlohmann::json::array();
    for (const auto batch : batches) {
        nlohmann::json point{{"batch", batch}};
        if (!options.inputs.empty())
            point["inputs"] = inputsJson(model::withBatch(options.inputs, batch));
        points.push_back(std::move(point));
    }
    auto names = nlohmann::json::array();
    for (const auto &variant : options.variants) {
        if (pythonBuilds(variant)) {
            names.push_back(model::variantName(variant));
        } else {
            model::SweepSummary summary;
            summary.variant = model::variantName(variant);
            summary.error = notBuiltByPython(variant);
            report.summaries.push_back(std::move(summary));
        }
    }
    req["tasks"].push_back({{"task", "sweep"}, {"points", points}, {"variants", names}, {"warmup", options.warmup},
                            {"iterations", options.iterations}});
    const bool cuda = deviceOf(engine).rfind("cuda", 0) == 0;
    std::map<std::string, model::SweepSummary> summaries;
    const auto onEvent = [&](const nlohmann::json &event) {
        const auto kind = event.value("event", std::string());
        const auto variant = event.value("variant", std::string());
        auto &summary = summaries[variant];
        summary.variant = variant;
        if (kind == "sweep_point") {
            model::SweepPoint point;
            point.variant = variant;
            point.batch = event.value("batch", std::int64_t(0));
            point.latency = statsOf(event);
            point.throughputPerSecond = point.latency.mean > 0 ? double(point.batch) * 1000.0 / point.latency.mean : 0;
            // torch.cuda's allocator is read on CUDA; nothing measures the CPU's from Python.
            point.peakMemoryBytes = cuda ? event.value("peak_bytes", std::int64_t(0)) : model::SweepPoint::kNotMeasured;
            point.fitsBudget = report.memoryBudgetBytes == 0 ||
                               (point.memoryMeasured() && point.peakMemoryBytes <= report.memoryBudgetBytes);
            if (point.fitsBudget)
                summary.largestFittingBatch = std::max(summary.largestFittingBatch, point.batch);
            if (onPoint)
                onPoint(point);
            report.points.push_back(std::move(point));
        } else if (kind == "sweep_stop") {
            summary.error = event.value("error", std::string());
            summary.note = event.value("note", std::string());
        } else if (kind == "sweep_skip" && summary.note.empty()) {
            summary.note = event.value("note", std::string());
        }
    };
    auto run = runWorker(engine, std::move(req), onEvent, progress, stop);
    if (!run)
        return run.error();
    report.inputs = options.inputs.empty() ? inputsFrom(run.value().loaded.value("inputs", nlohmann::json::array()))
                                           : options.inputs;
    report.memorySource = cuda ? "cuda-allocator" : "";
    report.energyUnavailable = "the Python engine does not read energy counters";
    for (const auto &name : names) {
        auto summary = summaries[name.get<std::string>()];
        summary.variant = name.get<std::string>();
        std::vector<model::ThroughputPoint> curve;
        for (const auto &point : report.points)
            if (point.variant == summary.variant)
                curve.push_back({point.batch, point.throughputPerSecond});
        summary.knee = model::findKnee(curve, options.kneeThreshold);
        report.summaries.push_back(std::move(summary));
    }
    report.engine = pythonEngineName(run.value().info, deviceOf(engine));
    return report;
}

Result<model::CompareReport> pythonCompare(const Engine &engine, const std::filesystem::path &model,
                                           const model::CompareOptions &options, const model::VariantCallback &onRow,
                                           ProgressReporter &progress, const StopToken &stop)
{
    if (!options.data.empty())
        return Error{model.string() + ": accuracy on data (--data) is measured by the embedded engine only for now"};
    auto req = request(model, options.inputs, 0);
    auto names = nlohmann::json::array();
    std::vector<model::VariantResult> refused;
    for (const auto &variant : options.variants) {
        if (variant.kind == model::VariantKind::Baseline)
            continue;
        if (pythonBuilds(variant)) {
            names.push_back(model::variantName(variant));
        } else {
            model::VariantResult row;
            row.variant = variant;
            row.name = model::variantName(variant);
            row.error = notBuiltByPython(variant);
            refused.push_back(std::move(row));
        }
    }
    // The baseline's operators: its MACs, which none of these variants changes (they change
    // dtypes, layouts, kernels and weight storage, never the layers).
    req["tasks"].push_back({{"task", "ops"}});
    req["tasks"].push_back({{"task", "compare"}, {"variants", names}, {"warmup", options.warmup}, {"iterations", options.iterations}});
    model::CompareReport report;
    report.path = model;
    model::LatencyStats baseline;
    const auto onEvent = [&](const nlohmann::json &event) {
        if (event.value("event", std::string()) != "variant")
            return;
        model::VariantResult row;
        row.name = event.value("name", std::string());
        auto parsed = model::parseVariants(row.name);
        if (parsed.ok())
            row.variant = parsed.value().front();
        row.error = event.value("error", std::string());
        row.note = event.value("note", std::string());
        if (row.ok()) {
            row.latency = statsOf(event);
            if (row.variant.kind == model::VariantKind::Baseline)
                baseline = row.latency;
            row.speedup = baseline.mean > 0 && row.latency.mean > 0 ? baseline.mean / row.latency.mean : 0;
            row.speedupInterval = ratioInterval(baseline.sample(), row.latency.sample());
            if (event.contains("max_abs_diff") && event["max_abs_diff"].is_number())
                row.maxAbsDiff = event["max_abs_diff"].get<double>();
            if (event.contains("relative_error") && event["relative_error"].is_number())
                row.relativeError = event["relative_error"].get<double>();
            if (event.contains("params") && event["params"].is_number())
                row.params = event["params"].get<std::int64_t>();
        }
        if (onRow)
            onRow(row);
        report.rows.push_back(std::move(row));
    };
    auto run = runWorker(engine, std::move(req), onEvent, progress, stop);
    if (!run)
        return run.error();
    const auto batch =
        double(model::batchSizeOf(inputsFrom(run.value().loaded.value("inputs", nlohmann::json::array()))));
    const auto flops = model::summarizeFlops(modelInfoOf(run.value(), model), opsOf(run.value()));
    for (auto &row : report.rows) {
        row.throughputPerSecond = row.ok() && row.latency.mean > 0 ? batch * 1000.0 / row.latency.mean : 0;
        if (row.ok())
            row.macs = flops.totalMacs;
    }
    for (auto &row : refused) {
        if (onRow)
            onRow(row);
        report.rows.push_back(std::move(row));
    }
    report.inputs = inputsFrom(run.value().loaded.value("inputs", nlohmann::json::array()));
    report.energyUnavailable = "the Python engine does not read energy counters";
    report.engine = pythonEngineName(run.value().info, deviceOf(engine));
    return report;
}

std::string specText(const nlohmann::json &list)
{
    return model::formatInputSpecs(inputsFrom(list));
}

Result<OpenedModel> pythonOpen(const Engine &engine, const std::filesystem::path &model, const StopToken &stop)
{
    ProgressReporter progress;
    auto run = runWorker(engine, request(model, {}, 0), {}, progress, stop);
    if (!run)
        return run.error();
    OpenedModel opened;
    opened.info = modelInfoOf(run.value(), model);
    opened.info.parameterBytes = run.value().loaded.value("parameter_bytes", std::uint64_t(0));
    std::error_code error;
    const auto factory = parseFactoryName(model.string());
    const std::filesystem::path file = factory ? factory->file : model;
    const auto size = std::filesystem::file_size(file, error);
    opened.info.fileBytes = error ? 0 : size;
    opened.engine = engine;
    opened.engineName = pythonEngineName(run.value().info, deviceOf(engine));
    opened.exampleInputs = specText(run.value().loaded.value("example_inputs", nlohmann::json::array()));
    opened.kind = run.value().loaded.value("kind", std::string());
    opened.batchNote = run.value().loaded.value("batch_note", std::string());
    opened.python = run.value().info;
    return opened;
}

// An embedded engine's result: named, or its error with the Python engine offered.
template <typename Report>
Result<Report> embeddedResult(Result<Report> report, const std::filesystem::path &model)
{
    if (!report)
        return Error{offerPythonEngine(report.error().message, model, defaultPython())};
    report.value().engine = embeddedEngineName();
    return report;
}

} // namespace

namespace {

std::vector<std::string> loadErrorSummary(const std::string &message)
{
    // Torch's own lines until its source excerpt (":" alone, "  File ...") or a traceback; a
    // lead-in line ending in ':' ("FILE: libtorch cannot load it:") is left out.
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < message.size() && lines.size() < 2) {
        const auto end = std::min(message.find('\n', start), message.size());
        auto line = message.substr(start, end - start);
        start = end + 1;
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
            line.pop_back();
        if (line == ":" || line.rfind("  File ", 0) == 0 || line.rfind("Traceback", 0) == 0)
            break;
        if (!line.empty() && line.back() != ':')
            lines.push_back(std::move(line));
    }
    return lines;
}

} // namespace

Result<OpenedModel> openModel(const Engine &engine, const std::filesystem::path &model, const std::string &fallbackPython,
                              const StopToken &stop)
{
    const auto chosen = resolveEngine(engine, model);
    if (isPython(chosen))
        return pythonOpen(chosen, model, stop);
    auto info = torch::inspectModel(model);
    if (info) {
        OpenedModel opened;
        opened.info = std::move(info).value();
        opened.engine = chosen;
        opened.engineName = embeddedEngineName();
        opened.exampleInputs = torch::recordedInputSpec(model);
        opened.kind = "torchscript";
        return opened;
    }
    const auto &message = info.error().message;
    const bool unknownOp = message.find("Unknown builtin op") != std::string::npos || message.find("Unknown type name") != std::string::npos;
    if (fallbackPython.empty() || !unknownOp)
        return Error{offerPythonEngine(message, model, fallbackPython.empty() ? defaultPython() : fallbackPython)};
    auto python = pythonOpen(Engine{fallbackPython, "cpu"}, model, stop);
    if (!python) {
        // Each engine's reason once, in its first lines: torch's source dump under them says the
        // same again.
        const auto embedded = loadErrorSummary(message);
        const auto other = loadErrorSummary(python.error().message);
        const auto joined = [](const std::vector<std::string> &lines) {
            std::string text;
            for (const auto &line : lines)
                text += (text.empty() ? "" : " ") + line;
            return text;
        };
        const bool same =
            !embedded.empty() && !other.empty() && other.front().find(embedded.front()) != std::string::npos;
        return Error{model.string() + ": neither engine loads it. The embedded libtorch " + torch::torchVersion() +
                     ": " + joined(embedded) + "\nThe Python engine (" + fallbackPython +
                     "): " + (same ? std::string("the same error") : joined(other))};
    }
    auto opened = std::move(python).value();
    const auto summary = loadErrorSummary(message);
    const auto first = summary.empty() ? message.substr(0, message.find('\n')) : summary.front();
    opened.note = "the embedded libtorch " + torch::torchVersion() + " cannot load it (" + first + "): it runs in your Python";
    return opened;
}

Result<model::ProfileReport> profileVariant(const Engine &engine, const std::filesystem::path &model,
                                            const model::Variant &variant, const model::RunOptions &options,
                                            ProgressReporter &progress, const StopToken &stop)
{
    const auto chosen = resolveEngine(engine, model);
    if (!isPython(chosen)) {
        auto report = torch::profileVariant(model, variant, options, progress, stop);
        if (report)
            report.value().engine = embeddedEngineName();
        return report;
    }
    if (!pythonBuilds(variant))
        return Error{notBuiltByPython(variant)};
    return pythonProfile(chosen, model, options, progress, stop, {}, variant);
}

bool needsPython(const std::filesystem::path &model)
{
    return model.extension() == ".pt2" || model.extension() == ".py" || parseFactoryName(model.string()).has_value();
}

std::string defaultPython()
{
    if (const char *set = std::getenv("PYROMETER_PYTHON"); set && *set)
        return set;
    return "python3";
}

Engine resolveEngine(Engine engine, const std::filesystem::path &model)
{
    if (engine.python.empty() && needsPython(model))
        engine.python = defaultPython();
    return engine;
}

bool isPython(const Engine &engine)
{
    return !engine.python.empty();
}

std::string embeddedTorchVersion()
{
    return torch::torchVersion();
}

std::string embeddedEngineName()
{
    return "embedded libtorch " + torch::torchVersion() + " · cpu";
}

std::string recordedInputSpec(const std::filesystem::path &model)
{
    return torch::recordedInputSpec(model);
}

Result<std::vector<model::InputSpec>> inputsOfData(const std::filesystem::path &data, model::BatchDim batch)
{
    return torch::inputsOfData(data, batch);
}

Result<std::string> exportVariant(const std::filesystem::path &model, const model::Variant &variant,
                                  const std::vector<model::InputSpec> &inputs, const std::filesystem::path &out)
{
    return torch::exportVariant(model, variant, inputs, out);
}

std::string pythonEngineName(const PythonInfo &info, const std::string &device)
{
    return "Python " + info.pythonVersion + " · torch " + info.torchVersion + " · " + device;
}

Result<PythonInfo> probePython(const std::string &python, const StopToken &stop)
{
    ProgressReporter progress;
    nlohmann::json req{{"model", ""}, {"tasks", nlohmann::json::array()}, {"probe", true}};
    auto run = runWorker(Engine{python, "cpu"}, std::move(req), {}, progress, stop);
    if (!run)
        return run.error();
    return run.value().info;
}

std::string offerPythonEngine(const std::string &message, const std::filesystem::path &model, const std::string &python)
{
    const bool unknownOp = message.find("Unknown builtin op") != std::string::npos || message.find("Unknown type name") != std::string::npos;
    if (!needsPython(model) && !unknownOp)
        return message;
    return message + "\nThe Python engine opens it in your own interpreter (" + python +
        "): choose it on the Model page, or give --python " + python + " on the command line.";
}

Result<model::LatencyReport> measureLatency(const Engine &engine, const std::filesystem::path &model,
                                            const model::RunOptions &options, ProgressReporter &progress,
                                            const StopToken &stop)
{
    const auto chosen = resolveEngine(engine, model);
    if (isPython(chosen))
        return pythonLatency(chosen, model, options, progress, stop);
    return embeddedResult(torch::measureLatency(model, options, progress, stop), model);
}

Result<model::ProfileReport> profileLayers(const Engine &engine, const std::filesystem::path &model,
                                           const model::RunOptions &options, ProgressReporter &progress,
                                           const StopToken &stop, const std::filesystem::path &traceOut)
{
    const auto chosen = resolveEngine(engine, model);
    if (isPython(chosen))
        return pythonProfile(chosen, model, options, progress, stop, traceOut);
    return embeddedResult(torch::profileLayers(model, options, progress, stop), model);
}

Result<ProfiledModel> measureAndProfile(const Engine &engine, const std::filesystem::path &model,
                                        const model::RunOptions &latencyOptions,
                                        const model::RunOptions &profileOptions, ProgressReporter &progress,
                                        const StopToken &stop, const std::filesystem::path &traceOut)
{
    const auto chosen = resolveEngine(engine, model);
    if (isPython(chosen)) {
        // One worker: the model is loaded once for the timed runs and the profiled ones.
        auto req = request(model, latencyOptions.inputs, latencyOptions.threads);
        req["tasks"].push_back(latencyTask(latencyOptions));
        addProfileTasks(req, profileOptions, traceOut, {});
        auto run = runWorker(chosen, std::move(req), {}, progress, stop);
        if (!run)
            return run.error();
        auto latency = latencyFrom(run.value(), chosen, model, latencyOptions);
        if (!latency)
            return latency.error();
        auto profile = profileFrom(run.value(), chosen, model, profileOptions, traceOut);
        if (!profile)
            return profile.error();
        return ProfiledModel{std::move(latency).value(), std::move(profile).value()};
    }
    // The embedded engine: timed runs over the first 60% of the progress, profiled runs after.
    ProgressReporter timed([&](int permille) { progress.reportPermille(permille * 6 / 10); }, std::chrono::milliseconds(0));
    auto latency = measureLatency(chosen, model, latencyOptions, timed, stop);
    if (!latency)
        return latency.error();
    ProgressReporter profiled([&](int permille) { progress.reportPermille(600 + permille * 4 / 10); }, std::chrono::milliseconds(0));
    auto profile = profileLayers(chosen, model, profileOptions, profiled, stop);
    if (!profile)
        return profile.error();
    return ProfiledModel{std::move(latency).value(), std::move(profile).value()};
}

Result<model::FlopsReport> countFlops(const Engine &engine, const std::filesystem::path &model,
                                      const std::vector<model::InputSpec> &inputs, const StopToken &stop)
{
    const auto chosen = resolveEngine(engine, model);
    if (isPython(chosen))
        return pythonFlops(chosen, model, inputs, stop);
    return embeddedResult(torch::countFlops(model, inputs), model);
}

Result<model::SweepReport> runSweep(const Engine &engine, const std::filesystem::path &model,
                                    const model::SweepOptions &options, const model::SweepCallback &onPoint,
                                    ProgressReporter &progress, const StopToken &stop)
{
    const auto chosen = resolveEngine(engine, model);
    if (isPython(chosen))
        return pythonSweep(chosen, model, options, onPoint, progress, stop);
    return embeddedResult(torch::runSweep(model, options, onPoint, progress, stop), model);
}

Result<model::CompareReport> compareVariants(const Engine &engine, const std::filesystem::path &model,
                                             const model::CompareOptions &options, const model::VariantCallback &onRow,
                                             ProgressReporter &progress, const StopToken &stop)
{
    const auto chosen = resolveEngine(engine, model);
    if (isPython(chosen))
        return pythonCompare(chosen, model, options, onRow, progress, stop);
    return embeddedResult(torch::compareVariants(model, options, onRow, progress, stop), model);
}

} // namespace pyrometer::engine
