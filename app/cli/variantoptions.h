#pragma once
// What the model commands share: the model, its input shapes (all of them) and the variant
// list (`sweep`, `compare` and `export`).

#include "app/cli/arguments.h"
#include "app/cli/interrupt.h"
#include "app/cli/output.h"
#include "core/engine/engine.h"
#include "core/model/inputspec.h"
#include "core/model/variant.h"

#include <optional>
#include <string>
#include <vector>

namespace pyrometer::cli {

// --python PATH and --device: which engine runs the model.
struct EngineOptions {
    std::string python;
    std::string device = "cpu";
    double timeout = 0; // seconds; 0: none
};

// --timeout SECONDS: a model that runs longer is stopped as Ctrl+C stops it.
inline void addTimeoutOption(CLI::App &command, double *timeout)
{
    command
        .add_option("--timeout", *timeout,
                    "Stop the model's run after this many seconds (its worker ended, exit status 2)")
        ->check(CLI::NonNegativeNumber)
        ->option_text("SECONDS");
}

inline void addEngineOptions(CLI::App &command, EngineOptions *options)
{
    command.add_option("--python", options->python,
                       "Run the model in this Python interpreter's torch (the Python engine: .pt2, model.py:factory, TorchScript of "
                       "any version, CPU or CUDA); default: the embedded libtorch, or $PYROMETER_PYTHON / python3 for a .pt2 or "
                       "a factory");
    command.add_option("--device", options->device, "cpu, cuda or cuda:N (the Python engine only)")->capture_default_str();
    addTimeoutOption(command, &options->timeout);
}

// The engine the options choose, or nothing after badInput() told the user why.
inline std::optional<engine::Engine> engineFrom(const std::string &model, const EngineOptions &options)
{
    const auto &device = options.device;
    const bool cuda = device == "cuda" || (device.rfind("cuda:", 0) == 0 && device.size() > 5 &&
                                           device.find_first_not_of("0123456789", 5) == std::string::npos);
    if (device != "cpu" && !cuda) {
        badInput(model + ": --device \"" + device + "\": cpu, cuda or cuda:N");
        return std::nullopt;
    }
    auto chosen = engine::resolveEngine({options.python, device}, model);
    if (cuda && !engine::isPython(chosen)) {
        badInput(model + ": --device " + device + " needs the Python engine (--python PATH): the embedded libtorch runs on the CPU");
        return std::nullopt;
    }
    return chosen;
}

struct ModelRunOptions {
    std::string model;
    EngineOptions engine;
    std::string input;
    std::string variants;
    int warmup = 0;
    int iterations = 0;
    Format format = Format::Table;
    model::BatchDim batch = model::BatchDim::Fixed; // Swept: --input may write the batch as "B"
};

// Adds --input, --variants, --warmup and --iters (with these defaults) and --format.
inline void addModelRunOptions(CLI::App &command, ModelRunOptions *options, const std::string &variants, int warmup,
                               int iterations, model::BatchDim batch = model::BatchDim::Fixed)
{
    options->variants = variants;
    options->warmup = warmup;
    options->iterations = iterations;
    options->batch = batch;
    command.add_option(
        "--input", options->input,
        batch == model::BatchDim::Swept
            ? "Input shapes, B the swept batch: Bx3x224x224 or Bx3x224x224,Bx10:int64 (a number instead of B: inputs "
              "whose first dimension equals the first input's are swept; default: as the model records)"
            : "Input shapes, 1x3x224x224 or 1x3x224x224,1x10:int64 (default: as the model records)");
    command.add_option("--variants", options->variants, "Comma-separated: " + model::knownVariantNames())
        ->capture_default_str();
    addCountOption(command, "--warmup", options->warmup, 0, "Untimed runs per measurement");
    addCountOption(command, "--iters", options->iterations, 1, "Timed runs per measurement");
    addFormatOption(command, &options->format);
    addEngineOptions(command, &options->engine);
}

// The parsed --input (empty: none given, the model's recorded ones), or nothing after
// badInput() told the user why.
inline std::optional<std::vector<model::InputSpec>> parseInputOption(const std::string &model, const std::string &input,
                                                                     model::BatchDim batch = model::BatchDim::Fixed)
{
    if (input.empty())
        return std::vector<model::InputSpec>{};
    auto inputs = model::parseInputSpecs(input, batch);
    if (!inputs.ok()) {
        badInput(model + ": --input: " + inputs.error().message);
        return std::nullopt;
    }
    return std::move(inputs).value();
}

// The parsed --input and --variants, or nothing after badInput() told the user why.
struct ParsedModelRun {
    engine::Engine engine;
    std::vector<model::InputSpec> inputs;
    std::vector<model::Variant> variants;
};

inline std::optional<ParsedModelRun> parseModelRun(const ModelRunOptions &options)
{
    ParsedModelRun parsed;
    auto chosen = engineFrom(options.model, options.engine);
    if (!chosen)
        return std::nullopt;
    parsed.engine = *chosen;
    auto inputs = parseInputOption(options.model, options.input, options.batch);
    if (!inputs)
        return std::nullopt;
    parsed.inputs = std::move(*inputs);
    auto variants = model::parseVariants(options.variants);
    if (!variants.ok()) {
        badInput(options.model + ": --variants: " + variants.error().message);
        return std::nullopt;
    }
    parsed.variants = std::move(variants).value();
    return parsed;
}

} // namespace pyrometer::cli
