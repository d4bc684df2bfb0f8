// pyrometer-cli profile MODEL --input SHAPE: cold and warm latency, then a per-layer profile.
#include "app/cli/arguments.h"
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/variantoptions.h"
#include "core/engine/engine.h"
#include "core/model/latency.h"
#include "core/model/layerprofile.h"
#include "core/model/traceexport.h"

#include <cstdio>
#include <iostream>

namespace pyrometer::cli {
namespace {

struct ProfileOptions {
    std::string model;
    std::string input;
    int warmup = 10;
    int iterations = 50;
    int profileIterations = 10;
    int threads = 0;
    std::string mode = "infer";
    std::string trace;
    Format format = Format::Table;
    EngineOptions engine;
};

int runProfile(const ProfileOptions &options)
{
    model::RunOptions run;
    const auto engine = engineFrom(options.model, options.engine);
    if (!engine)
        return kBadInput;
    auto inputs = parseInputOption(options.model, options.input);
    if (!inputs)
        return kBadInput;
    run.inputs = std::move(*inputs);
    run.warmup = options.warmup;
    run.iterations = options.iterations;
    run.threads = options.threads;
    run.mode = options.mode == "train" ? model::RunMode::Train : model::RunMode::Inference;
    ProgressReporter progress;
    const RunStop stop(options.engine.timeout);
    auto profileRun = run;
    profileRun.warmup = 2;
    profileRun.iterations = options.profileIterations;
    const auto measured =
        engine::measureAndProfile(*engine, options.model, run, profileRun, progress, stop.token(), options.trace);
    if (!measured.ok())
        return badInput(stop.message(options.model, measured.error().message));
    const auto &l = measured->latency;
    const auto &p = measured->profile;
    if (!options.trace.empty() && p.trace.empty()) {
        auto written =
            model::writeChromeTrace(options.trace, p.events, std::filesystem::path(options.model).filename().string());
        if (!written.ok())
            return badInput(written.error().message);
    }
    if (options.format == Format::Json) {
        nlohmann::json layers = nlohmann::json::array();
        for (const auto &row : p.rows) {
            nlohmann::json layer{{"module", row.module},
                                 {"type", row.type},
                                 {"depth", row.depth},
                                 {"leaf", row.leaf},
                                 {"calls", row.calls},
                                 {"self_ms", row.selfMs},
                                 {"total_ms", row.totalMs},
                                 {"percent", row.percent},
                                 {"params", row.params},
                                 {"macs", row.macs},
                                 {"flops", row.flops},
                                 {"dtype", row.dtype},
                                 {"gflops_per_s", row.gflopsPerSecond},
                                 {"allocated_bytes", row.allocatedBytes},
                                 {"self_allocated_bytes", row.selfAllocatedBytes},
                                 {"output_shapes", row.outputShapes}};
            // Device times only where measured (CUDA): null elsewhere, never a 0 that reads as measured.
            layer["self_device_ms"] = p.deviceTimes ? nlohmann::json(row.selfDeviceMs) : nlohmann::json();
            layer["device_ms"] = p.deviceTimes ? nlohmann::json(row.deviceMs) : nlohmann::json();
            layers.push_back(std::move(layer));
        }
        writeJson(cliOut(),
                  {{"model", options.model},
                   {"engine", l.engine},
                   {"note", p.note.empty() ? nlohmann::json() : nlohmann::json(p.note)},
                   {"input", model::formatInputSpecs(l.inputs)},
                   {"mode", options.mode == "train" ? "train" : "infer"},
                   {"threads", l.threads},
                   {"warmup", l.warmup},
                   {"iterations", l.iterations},
                   {"batch_size", l.batchSize},
                   {"latency_ms",
                    {{"cold", l.coldMs},
                     {"mean", l.warm.mean},
                     {"std", l.warm.std},
                     {"min", l.warm.min},
                     {"p50", l.warm.p50},
                     {"p90", l.warm.p90},
                     {"p99", l.warm.p99},
                     {"max", l.warm.max}}},
                   {"throughput_per_s", l.throughputPerSecond},
                   {"profiled_iterations", p.iterations},
                   {"profiled_forward_ms", p.forwardMs},
                   {"profiled_device_ms", p.deviceTimes ? nlohmann::json(p.deviceForwardMs) : nlohmann::json()},
                   {"peak_memory_bytes", p.peakMemoryBytes},
                   {"total_macs", p.totalMacs},
                   {"total_flops", p.totalFlops},
                   {"layers", layers}});
        return kSuccess;
    }
    if (options.format == Format::Table) {
        writeText(cliOut(),
                  options.model + " (" + model::formatInputSpecs(l.inputs) + ", " + options.mode + ", " +
                      std::to_string(l.threads) + " threads; " + l.engine + ")",
                  options.format);
        writeText(cliOut(),
                  "cold " + fixed(l.coldMs) + " ms; warm over " + std::to_string(l.iterations) + " runs: mean " +
                      fixed(l.warm.mean) + " ms, std " + fixed(l.warm.std) + ", min " + fixed(l.warm.min) + ", p50 " +
                      fixed(l.warm.p50) + ", p90 " + fixed(l.warm.p90) + ", p99 " + fixed(l.warm.p99) + "; " +
                      fixed(l.throughputPerSecond, 1) + " items/s",
                  options.format);
        writeText(
            cliOut(),
            "profiled " + std::to_string(p.iterations) + " runs: forward " + fixed(p.forwardMs) + " ms" +
                (p.deviceTimes ? " synchronized, " + fixed(p.deviceForwardMs) + " ms of device work" : std::string()) +
                ", peak memory " +
                (p.peakMemoryBytes > 0 || !p.events.memory.empty() ? bytesText(p.peakMemoryBytes, options.format)
                                                                   : std::string("not recorded")),
            options.format);
        if (!p.note.empty())
            writeText(cliOut(), "note: " + p.note, options.format);
        cliOut() << '\n';
    }
    TextTable table{{"module", "type", "calls", "self ms", "total ms", "%", "params", "MACs", "GFLOP/s", "alloc bytes", "output"},
                    {},
                    {false, false, true, true, true, true, true, true, true, true, false}};
    if (p.deviceTimes) {
        table.header.insert(table.header.begin() + 5, "device ms");
        table.rightAligned.insert(table.rightAligned.begin() + 5, true);
    }
    // Narrow terminals keep the module and its times.
    table.dropFirst = {"output", "MACs", "params", "GFLOP/s", "alloc bytes", "calls", "type"};
    for (const auto &row : p.rows) {
        std::vector<std::string> cells{std::string(std::size_t(row.depth) * 2, ' ') +
                                           (row.module.empty() ? "(model)" : row.module),
                                       row.type,
                                       std::to_string(row.calls),
                                       fixed(row.selfMs),
                                       fixed(row.totalMs),
                                       fixed(row.percent, 1),
                                       std::to_string(row.params),
                                       fixed(row.macs, 0),
                                       fixed(row.gflopsPerSecond, 2),
                                       bytesText(row.allocatedBytes, options.format),
                                       shapesText(row.outputShapes)};
        if (p.deviceTimes)
            cells.insert(cells.begin() + 5, fixed(row.deviceMs));
        table.rows.push_back(std::move(cells));
    }
    writeTable(cliOut(), table, options.format);
    return kSuccess;
}

} // namespace

void setupProfile(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<ProfileOptions>();
    command.add_option("MODEL", options->model, "A TorchScript model (.pt), a torch.export program (.pt2) or model.py:factory (a function returning an nn.Module; the last two run in the Python engine)")->required();
    command.add_option("--input", options->input, "Input shapes, 1x3x224x224 or 1x3x224x224,1x10:int64 (default: as the model records)");
    addCountOption(command, "--warmup", options->warmup, 0, "Untimed runs after the cold one");
    addCountOption(command, "--iters", options->iterations, 1, "Timed runs");
    addCountOption(command, "--profile-iters", options->profileIterations, 1, "Runs recorded by the per-layer profiler");
    addCountOption(command, "--threads", options->threads, 0, "Intra-op threads (0: libtorch's default)", false);
    addChoiceOption<std::string>(command, "--mode", options->mode, {{"infer", "infer"}, {"train", "train"}},
                                 "infer (InferenceMode) or train (forward, sum as loss, backward)");
    command.add_option("--trace", options->trace, "Write the profile as Chrome trace JSON (Perfetto, chrome://tracing)");
    addEngineOptions(command, &options->engine);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runProfile(*options); });
}

} // namespace pyrometer::cli
