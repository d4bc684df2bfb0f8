// pyrometer-cli ops TRACE: the per-operator table, as torch's key_averages().
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/analysis/optable.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct OpsOptions {
    std::string trace;
    Format format = Format::Table;
    analysis::OpGrouping by = analysis::OpGrouping::Name;
    analysis::OpSort sort = analysis::OpSort::Self;
    std::size_t top = 0;
    int stackFrames = 5;
    std::string range;
};

int runOps(const OpsOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    explainNoOps(*input);
    analysis::OpTableOptions tableOptions;
    tableOptions.grouping = options.by;
    tableOptions.sort = options.sort;
    tableOptions.top = options.top;
    tableOptions.stackFrames = options.stackFrames;
    tableOptions.range = *range;
    const auto table = analysis::buildOpTable(*input->index, tableOptions);
    const bool grouped = options.by != analysis::OpGrouping::Name;
    const bool device = input->index->hasDevice;
    const bool memory = input->trace->memory.size() > 0;

    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &row : table.rows) {
            nlohmann::json r{{"name", row.name}};
            if (grouped)
                r["group"] = row.group;
            r.update({{"calls", row.calls},
                      {"total_us", micros(row.totalNs)},
                      {"self_us", micros(row.selfNs)},
                      {"avg_us", micros(row.avgNs())},
                      {"min_us", micros(row.minNs)},
                      {"max_us", micros(row.maxNs)},
                      {"self_pct", row.selfPercent},
                      {"total_pct", row.totalPercent},
                      {"device_self_us", micros(row.deviceSelfNs)},
                      {"device_total_us", micros(row.deviceTotalNs)},
                      {"self_cpu_memory_bytes", row.cpuMemSelfBytes},
                      {"cpu_memory_bytes", row.cpuMemTotalBytes},
                      {"self_device_memory_bytes", row.deviceMemSelfBytes},
                      {"device_memory_bytes", row.deviceMemTotalBytes}});
            rows.push_back(std::move(r));
        }
        writeJson(
            cliOut(),
            {{"rows", rows}, {"self_sum_us", micros(table.selfSumNs)}, {"device_sum_us", micros(table.deviceSumNs)}});
        return kSuccess;
    }
    TextTable text;
    text.header = {"name"};
    if (grouped)
        text.header.push_back(options.by == analysis::OpGrouping::Shape    ? "input dims"
                              : options.by == analysis::OpGrouping::Module ? "module"
                                                                           : "stack");
    for (const auto *h : {"calls", "self us", "self %", "total us", "total %", "avg us", "min us", "max us"})
        text.header.emplace_back(h);
    if (device)
        for (const auto *h : {"device self us", "device total us"})
            text.header.emplace_back(h);
    if (memory)
        for (const auto *h : {"self cpu mem", "cpu mem", "self device mem", "device mem"})
            text.header.emplace_back(h);
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned[0] = false;
    // Narrow terminals keep the name, the calls, the self and total times and their shares
    // (the sorted-by time longest), then the device times.
    text.dropFirst = {"min us", "max us", "self cpu mem", "self device mem", "cpu mem", "device mem", "avg us", "device total us"};
    const bool byTotal = options.sort == analysis::OpSort::Total;
    text.dropFirst.insert(text.dropFirst.end(), {"device self us", byTotal ? "self %" : "total %", byTotal ? "self us" : "total us"});
    if (grouped)
        text.rightAligned[1] = false;
    for (const auto &row : table.rows) {
        std::vector<std::string> cells{row.name};
        if (grouped)
            cells.push_back(row.group);
        cells.insert(cells.end(), {std::to_string(row.calls), microsText(row.selfNs, options.format), fixed(row.selfPercent, 2),
                                   microsText(row.totalNs, options.format), fixed(row.totalPercent, 2), microsText(row.avgNs(), options.format),
                                   microsText(row.minNs, options.format), microsText(row.maxNs, options.format)});
        if (device)
            cells.insert(cells.end(), {microsText(row.deviceSelfNs, options.format), microsText(row.deviceTotalNs, options.format)});
        if (memory)
            cells.insert(cells.end(), {bytesText(row.cpuMemSelfBytes, options.format), bytesText(row.cpuMemTotalBytes, options.format),
                                       bytesText(row.deviceMemSelfBytes, options.format), bytesText(row.deviceMemTotalBytes, options.format)});
        text.rows.push_back(std::move(cells));
    }
    writeTable(cliOut(), text, options.format);
    return kSuccess;
}

} // namespace

void setupOps(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<OpsOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    addChoiceOption<analysis::OpGrouping>(command, "--by", options->by,
                                          {{"name", analysis::OpGrouping::Name},
                                           {"shape", analysis::OpGrouping::Shape},
                                           {"module", analysis::OpGrouping::Module},
                                           {"stack", analysis::OpGrouping::Stack}},
                                          "Group by name, shape (input dims), module or stack (python frames)");
    addChoiceOption<analysis::OpSort>(command, "--sort", options->sort,
                                      {{"self", analysis::OpSort::Self}, {"total", analysis::OpSort::Total}, {"calls", analysis::OpSort::Calls}},
                                      "Sort by self, total or calls (descending)");
    addCountOption(command, "--top", options->top, 1, "Only the first N rows", false);
    addCountOption(command, "--stack-frames", options->stackFrames, 1, "Python frames kept by --by stack");
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runOps(*options); });
}

} // namespace pyrometer::cli
