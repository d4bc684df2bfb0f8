// pyrometer-cli roofline TRACE|MODEL: each op's (or a model's layer's, across batch sizes) FLOPs,
// bytes, intensity, achieved rate and how far below its device's roof it runs, compute- or
// memory-bound.
#include "core/analysis/roofline.h"
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/variantoptions.h"
#include "core/analysis/kernelnames.h"
#include "core/engine/layerrooflines.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>

namespace pyrometer::cli {
namespace {

struct RooflineCliOptions {
    std::string trace;
    std::string device;
    double peakTflops = 0;
    double bandwidthGbs = 0;
    bool byShape = false;
    bool byKernel = false;
    bool devices = false;
    std::size_t top = 0;
    std::string range;
    Format format = Format::Table;
    // A MODEL: its inputs, the batch sizes to profile at, the engine.
    std::string input;
    std::vector<std::int64_t> batches;
    int threads = 0;
    int iterations = 5;
    std::string python;
    double timeout = 0;
};

// A figure to `decimals` places, small ones to three significant digits; or "unknown".
std::string figure(double value, double scale, int decimals)
{
    if (value < 0)
        return "unknown";
    const double scaled = value / scale;
    if (scaled == 0 || scaled >= std::pow(10.0, -decimals + 2))
        return fixed(scaled, decimals);
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", scaled);
    return text;
}

nlohmann::json jsonFigure(double value)
{
    return value < 0 ? nlohmann::json() : nlohmann::json(value);
}

int writeDevices(Format format)
{
    TextTable text;
    text.header = {"device", "memory GB/s", "FP32 TFLOPS", "TF32", "BF16", "FP16", "FP8", "INT8 TOPS", "source"};
    text.rightAligned = {false, true, true, true, true, true, true, true, false};
    text.dropFirst = {"source", "FP8", "TF32", "FP16"};
    nlohmann::json rows = nlohmann::json::array();
    for (const auto &d : analysis::deviceTable()) {
        const auto tera = [](double v) { return v > 0 ? fixed(v / 1e12, 1) : std::string("-"); };
        using P = analysis::Precision;
        text.rows.push_back({d.name, fixed(d.bandwidth / 1e9, 0), tera(d.vectorFlops), tera(d.matrix(P::TF32)),
                             tera(d.matrix(P::BF16)), tera(d.matrix(P::FP16)), tera(d.matrix(P::FP8)),
                             tera(d.matrix(P::INT8)), d.source});
        nlohmann::json matrix;
        for (std::size_t p = 0; p < analysis::kPrecisionCount; ++p)
            matrix[std::string(analysis::precisionName(static_cast<P>(p)))] = d.matrixFlops[p];
        rows.push_back({{"name", d.name}, {"bandwidth", d.bandwidth}, {"vector_flops", d.vectorFlops},
                        {"matrix_flops", matrix}, {"source", d.source}});
    }
    if (format == Format::Json)
        writeJson(cliOut(), {{"devices", rows}});
    else
        writeTable(cliOut(), text, format);
    return kSuccess;
}

// --device NAME from the table, or --peak and --bandwidth for a device it lacks.
std::optional<std::optional<analysis::DeviceRoof>> deviceOption(const RooflineCliOptions &options)
{
    if (options.peakTflops > 0 || options.bandwidthGbs > 0) {
        if (options.peakTflops <= 0 || options.bandwidthGbs <= 0) {
            badInput(options.trace + ": --peak and --bandwidth go together (TFLOP/s and GB/s of the device)");
            return std::nullopt;
        }
        return analysis::customDevice(options.device.empty() ? "custom" : options.device, options.peakTflops * 1e12,
                                      options.bandwidthGbs * 1e9);
    }
    if (options.device.empty())
        return std::optional<analysis::DeviceRoof>();
    auto device = analysis::findDevice(options.device);
    if (!device) {
        badInput(options.trace + ": --device " + options.device
                 + ": not in the device table (see pyrometer-cli roofline --devices); give --peak TFLOPS and "
                   "--bandwidth GBS for it");
        return std::nullopt;
    }
    return device;
}

std::string deviceLine(const analysis::Roofline &roofline)
{
    const std::string traced = roofline.traceDevice.empty() ? std::string("no device named in the trace")
                                                            : "the trace's device: " + roofline.traceDevice;
    if (!roofline.device)
        return traced + ". Its roof is unknown: give --device NAME (pyrometer-cli roofline --devices lists them) or "
                        "--peak TFLOPS --bandwidth GBS.";
    const auto &d = *roofline.device;
    return traced + ". Roof: " + d.name + ", " + fixed(d.bandwidth / 1e9, 0) + " GB/s, FP32 " + fixed(d.vectorFlops / 1e12, 1)
        + " TFLOP/s (" + d.source + ").";
}

nlohmann::json rowJson(const analysis::RooflineRow &row, double share)
{
    nlohmann::json r{{"calls", row.calls},
                     {"time_us", micros(row.timeNs)},
                     {"pct", share},
                     {"dtype", row.dtype},
                     {"unit", row.unit == analysis::WorkUnit::Matrix ? "matrix" : "vector"},
                     {"flops", jsonFigure(row.flops)},
                     {"bytes", jsonFigure(row.bytes)},
                     {"intensity", jsonFigure(row.intensity)},
                     {"achieved_flops", jsonFigure(row.achievedFlops)},
                     {"achieved_bandwidth", jsonFigure(row.achievedBandwidth)},
                     {"pct_of_roof", jsonFigure(row.percentOfRoof)},
                     {"bound", analysis::boundName(row.bound)},
                     {"cache_roof", row.cacheRoof}};
    if (!row.launcher.empty())
        r["work_of_launcher"] = row.workOfLauncher;
    if (row.roof)
        r["roof"] = {{"precision", analysis::precisionName(row.roof->precision)},
                     {"peak_flops", row.roof->peakFlops},
                     {"bandwidth", row.roof->bandwidth}};
    return r;
}

nlohmann::json deviceJson(const std::optional<analysis::DeviceRoof> &device)
{
    if (!device)
        return nullptr;
    return {{"name", device->name}, {"bandwidth", device->bandwidth}, {"vector_flops", device->vectorFlops},
            {"source", device->source}, {"measured", device->measured}};
}

// A model: a per-layer profile at each batch size, each layer under the roof of the device that
// ran it (this CPU's, measured, for the embedded engine).
int runModelRoofline(const RooflineCliOptions &options)
{
    EngineOptions engineOptions;
    engineOptions.python = options.python;
    const bool cuda = options.device.rfind("cuda", 0) == 0;
    if (cuda)
        engineOptions.device = options.device;
    const auto engine = engineFrom(options.trace, engineOptions);
    if (!engine)
        return kBadInput;
    const auto inputs = parseInputOption(options.trace, options.input, model::BatchDim::Swept);
    if (!inputs)
        return kBadInput;
    engine::LayerRooflineOptions rooflineOptions;
    rooflineOptions.run.inputs = *inputs;
    rooflineOptions.run.warmup = 2;
    rooflineOptions.run.iterations = options.iterations;
    rooflineOptions.run.threads = options.threads;
    rooflineOptions.batches = options.batches;
    rooflineOptions.cpuRoofCache = engine::defaultCpuRoofCache();
    if (options.peakTflops > 0 || options.bandwidthGbs > 0 || (!options.device.empty() && options.device != "cpu" && !cuda)) {
        const auto chosen = deviceOption(options);
        if (!chosen)
            return kBadInput;
        rooflineOptions.device = *chosen;
    }
    ProgressReporter progress;
    const RunStop stop(options.timeout);
    const auto ran = engine::runLayerRooflines(*engine, options.trace, rooflineOptions, progress, stop.token());
    if (!ran.ok())
        return badInput(stop.message(options.trace, ran.error().message));
    const auto &device = ran->device;
    const auto &results = ran->batches;
    if (options.format == Format::Json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &[batch, roofline] : results) {
            nlohmann::json rows = nlohmann::json::array();
            for (const auto &row : roofline.rows) {
                auto r = rowJson(row, roofline.totalNs > 0 ? 100.0 * double(row.timeNs) / double(roofline.totalNs) : 0.0);
                r["layer"] = row.name;
                r["type"] = row.shape;
                rows.push_back(std::move(r));
            }
            out.push_back({{"batch", batch}, {"total_us", micros(roofline.totalNs)}, {"layers", rows}});
        }
        writeJson(
            cliOut(),
            {{"model", options.trace}, {"engine", ran->engine}, {"device", deviceJson(device)}, {"batches", out}});
        return kSuccess;
    }
    TextTable text;
    text.header = {"batch", "layer", "type", "ms", "%", "GFLOP", "MB", "FLOP/B", "GFLOP/s", "GB/s", "% of roof", "bound"};
    text.rightAligned = {true, false, false, true, true, true, true, true, true, true, true, true};
    text.dropFirst = {"type", "GB/s", "MB", "GFLOP"};
    for (const auto &[batch, roofline] : results) {
        std::size_t shown = 0;
        for (const auto &row : roofline.rows) {
            if (options.top > 0 && shown++ >= options.top)
                break;
            const double share = roofline.totalNs > 0 ? 100.0 * double(row.timeNs) / double(roofline.totalNs) : 0.0;
            text.rows.push_back({std::to_string(batch), row.name, row.shape, fixed(double(row.timeNs) / 1e6, 3), fixed(share, 1),
                                 figure(row.flops, 1e9, 3), figure(row.bytes, 1e6, 3), figure(row.intensity, 1, 2),
                                 figure(row.achievedFlops, 1e9, 1), figure(row.achievedBandwidth, 1e9, 1),
                                 figure(row.percentOfRoof, 1, 1), std::string(analysis::boundName(row.bound))});
        }
    }
    writeTable(cliOut(), text, options.format);
    if (options.format == Format::Table) {
        cliOut() << '\n';
        writeText(cliOut(),
                  device ? "Roof: " + device->name + ", " + fixed(device->vectorFlops / 1e9, 1) + " GFLOP/s, " +
                               fixed(device->bandwidth / 1e9, 1) + " GB/s (" + device->source + ")."
                         : std::string("The roof is unknown: give --device NAME or --peak TFLOPS --bandwidth GBS."),
                  options.format);
    }
    return kSuccess;
}

int runRoofline(const RooflineCliOptions &options)
{
    if (options.devices)
        return writeDevices(options.format);
    if (options.trace.empty())
        return badInput("roofline: TRACE or MODEL is required (or --devices)");
    if (trace::classifyInput(options.trace) == trace::InputKind::Model)
        return runModelRoofline(options);
    const auto device = deviceOption(options);
    if (!device)
        return kBadInput;
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    analysis::RooflineOptions rooflineOptions;
    if (options.byShape && options.byKernel)
        return badInput(options.trace + ": --by-shape and --by-kernel are rows of different things: give one");
    rooflineOptions.byShape = options.byShape;
    rooflineOptions.byKernel = options.byKernel;
    rooflineOptions.top = options.top;
    rooflineOptions.range = *range;
    rooflineOptions.device = *device;
    const auto roofline = analysis::buildRoofline(*input->index, rooflineOptions);
    const auto findings = analysis::rooflineFindings(roofline);
    const auto share = [&](std::int64_t ns) { return roofline.totalNs > 0 ? 100.0 * double(ns) / double(roofline.totalNs) : 0.0; };

    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &row : roofline.rows) {
            auto r = rowJson(row, share(row.timeNs));
            if (options.byKernel) {
                r["kernel"] = row.name;
                r["launching_op"] = row.launcher;
                if (!row.source.empty())
                    r["kernel_source"] = row.source;
                r["device_index"] = row.device;
                r["stream"] = row.stream;
            } else {
                r["op"] = row.name;
            }
            if (options.byShape)
                r["shape"] = row.shape;
            rows.push_back(std::move(r));
        }
        nlohmann::json advice = nlohmann::json::array();
        for (const auto &f : findings)
            advice.push_back({{"op", f.op}, {"text", f.text}, {"share", f.share}});
        nlohmann::json chains = nlohmann::json::array();
        for (const auto &chain : roofline.chains)
            chains.push_back({{"ops", chain.ops}, {"occurrences", chain.occurrences}, {"time_us", micros(chain.timeNs)},
                              {"pct", share(chain.timeNs)}, {"bytes", chain.bytes}});
        writeJson(cliOut(), {{"trace_device", roofline.traceDevice},
                             {"device", deviceJson(roofline.device)},
                             {"gpu", roofline.gpu},
                             {"total_us", micros(roofline.totalNs)},
                             {"known_us", micros(roofline.knownNs)},
                             {"rows", rows},
                             {"chains", chains},
                             {"advice", advice}});
        return kSuccess;
    }
    TextTable text;
    text.header = {options.byKernel ? "kernel" : "op"};
    if (options.byShape)
        text.header.push_back("input dims");
    if (options.byKernel)
        text.header.push_back("launching op");
    text.header.insert(text.header.end(), {"calls", options.format == Format::Table ? "time us" : "time_us", "%", "GFLOP", "MB",
                                           "FLOP/B", "TFLOP/s", "GB/s", "roof", "% of roof", "bound"});
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned[0] = false;
    if (options.byShape || options.byKernel)
        text.rightAligned[1] = false;
    text.dropFirst = {"input dims", "launching op", "GB/s", "MB", "calls", "roof", "GFLOP"};
    for (const auto &row : roofline.rows) {
        std::vector<std::string> cells{options.byKernel && options.format != Format::Csv
                                           ? analysis::shortKernelName(row.name, 96) +
                                                 (row.workOfLauncher && options.format == Format::Table ? " *" : "")
                                           : row.name};
        if (options.byShape)
            cells.push_back(row.shape);
        if (options.byKernel)
            cells.push_back(row.launcher);
        cells.insert(
            cells.end(),
            {std::to_string(row.calls), microsText(row.timeNs, options.format), fixed(share(row.timeNs), 2),
             figure(row.flops, 1e9, 3), figure(row.bytes, 1e6, 3), figure(row.intensity, 1, 2),
             figure(row.achievedFlops, 1e12, 3), figure(row.achievedBandwidth, 1e9, 1),
             row.roof ? std::string(analysis::precisionName(row.roof->precision)) + (row.cacheRoof ? " (cache)" : "")
                      : "unknown",
             figure(row.percentOfRoof, 1, 1), std::string(analysis::boundName(row.bound))});
        text.rows.push_back(std::move(cells));
    }
    writeTable(cliOut(), text, options.format);
    if (options.format != Format::Table)
        return kSuccess;
    cliOut() << '\n';
    writeText(cliOut(), deviceLine(roofline), options.format);
    writeText(
        cliOut(),
        "Known work covers " + fixed(share(roofline.knownNs), 1) + "% of the " + (roofline.gpu ? "device" : "op") +
            " time (" + fixed(micros(roofline.knownNs), 1) + " of " + fixed(micros(roofline.totalNs), 1) + " us)." +
            (options.byKernel ? " A kernel's work is known when the call that launched it launched nothing else, or "
                                "when it took 80% of the call's device time (marked *: a GEMM beside its bias add or "
                                "split-K reduction)."
                              : ""),
        options.format);
    if (options.byKernel && !roofline.gpu)
        writeText(cliOut(), "This trace has no GPU kernels: leave out --by-kernel for its ops.", options.format);
    for (const auto &f : findings)
        writeText(cliOut(), "- " + f.text, options.format);
    return kSuccess;
}

} // namespace

void setupRoofline(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<RooflineCliOptions>();
    command.add_option("TRACE", options->trace,
                       "A .json or .json.gz trace, a TensorBoard log directory, or a MODEL (.pt, .pt2, model.py:factory) to "
                       "profile per layer");
    command.add_option("--device", options->device,
                       "The device whose roof to use, by name (\"H100 PCIe\", \"A100 80GB\", \"MI300X\"); by default the "
                       "trace's own. For a MODEL: cpu (this machine's roof, measured once and cached) or cuda[:N] (run by "
                       "the Python engine, --python)");
    command.add_option("--input", options->input, "MODEL: input shapes, B written for the batch: Bx3x224x224");
    command.add_option("--batches", options->batches, "MODEL: the batch sizes to profile at, 1,8,32 (default: --input's)")
        ->delimiter(',')
        ->check(wholeNumberFrom(1));
    addCountOption(command, "--threads", options->threads, 0, "MODEL: intra-op threads (0: libtorch's default)", false);
    addCountOption(command, "--iters", options->iterations, 1, "MODEL: profiled runs per batch size");
    command.add_option("--python", options->python, "MODEL: run it in this Python interpreter's torch (the Python engine)");
    addTimeoutOption(command, &options->timeout);
    command.add_option("--peak", options->peakTflops, "Peak TFLOP/s of a device the table lacks (with --bandwidth)");
    command.add_option("--bandwidth", options->bandwidthGbs, "Memory bandwidth in GB/s of a device the table lacks (with --peak)");
    command.add_flag("--by-shape", options->byShape, "One row per op and input dims");
    command.add_flag("--by-kernel", options->byKernel,
                     "One row per GPU kernel and stream, with the work of the op that launched it (when it launched only "
                     "that kernel)");
    command.add_flag("--devices", options->devices, "Only the device table, with each figure's source");
    addCountOption(command, "--top", options->top, 1, "Only the first N rows", false);
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runRoofline(*options); });
}

} // namespace pyrometer::cli
