// pyrometer-cli flops MODEL --input SHAPE: parameters, MACs and FLOPs per module.
#include "core/model/flops.h"
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/variantoptions.h"

#include <cstdio>
#include <iostream>

namespace pyrometer::cli {
namespace {

struct FlopsOptions {
    std::string model;
    std::string input;
    Format format = Format::Table;
    EngineOptions engine;
};

std::string giga(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", value / 1e9);
    return buffer;
}

int runFlops(const FlopsOptions &options)
{
    const auto engine = engineFrom(options.model, options.engine);
    if (!engine)
        return kBadInput;
    const auto inputs = parseInputOption(options.model, options.input);
    if (!inputs)
        return kBadInput;
    const RunStop stop(options.engine.timeout);
    auto report = engine::countFlops(*engine, options.model, *inputs, stop.token());
    if (!report.ok())
        return badInput(stop.message(options.model, report.error().message));
    const auto &r = report.value();
    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &row : r.rows)
            rows.push_back({{"module", row.module}, {"type", row.type}, {"depth", row.depth}, {"leaf", row.leaf},
                            {"calls", row.calls}, {"params", row.params}, {"macs", row.macs}, {"flops", row.flops},
                            {"self_macs", row.selfMacs}, {"self_flops", row.selfFlops}, {"output_shapes", row.outputShapes}});
        writeJson(cliOut(), {{"model", options.model},
                             {"engine", r.engine},
                             {"input", model::formatInputSpecs(r.inputs)},
                             {"params", r.params},
                             {"total_macs", r.totalMacs},
                             {"total_flops", r.totalFlops},
                             {"convention", "flops = 2 x macs for multiply-accumulate ops, plus elementwise, "
                                            "normalization, pooling and softmax flops"},
                             {"uncounted_ops", r.uncountedOps},
                             {"rows", rows}});
        return kSuccess;
    }
    TextTable table{{"module", "type", "calls", "params", "GMACs", "GFLOPs", "output"}, {}, {false, false, true, true, true, true, false}};
    // Narrow terminals keep the module, its parameters and its work.
    table.dropFirst = {"output", "calls", "type"};
    for (const auto &row : r.rows)
        table.rows.push_back({std::string(std::size_t(row.depth) * 2, ' ') + (row.module.empty() ? "(model)" : row.module), row.type,
                              std::to_string(row.calls), std::to_string(row.params), giga(row.macs), giga(row.flops),
                              shapesText(row.outputShapes)});
    writeTable(cliOut(), table, options.format);
    if (options.format == Format::Table) {
        cliOut() << '\n';
        writeText(cliOut(),
                  options.model + " (" + model::formatInputSpecs(r.inputs) + "): " + std::to_string(r.params) +
                      " parameters, " + giga(r.totalMacs) + " GMACs, " + giga(r.totalFlops) +
                      " GFLOPs (1 MAC = 2 FLOPs); " + r.engine,
                  options.format);
    }
    return kSuccess;
}

} // namespace

void setupFlops(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<FlopsOptions>();
    command.add_option("MODEL", options->model, "A TorchScript model (.pt), a torch.export program (.pt2) or model.py:factory (a function returning an nn.Module; the last two run in the Python engine)")->required();
    command.add_option("--input", options->input, "Input shapes, 1x3x224x224 or 1x3x224x224,1x10:int64 (default: as the model records)");
    addFormatOption(command, &options->format);
    addEngineOptions(command, &options->engine);
    command.callback([options, exitCode] { *exitCode = runFlops(*options); });
}

} // namespace pyrometer::cli
