// pyrometer-cli ops TRACE: the per-operator table, as torch's key_averages().
#include "app/cli/analysisinput.h"
#include "app/cli/commands.h"
#include "core/analysis/optable.h"

#include <iostream>
#include <map>

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
    const auto range = parseRangeOption(options.range, options.trace);
    if (!range)
        return kBadInput;
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
            std::cout,
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
            cells.insert(cells.end(),
                         {std::to_string(row.cpuMemSelfBytes), std::to_string(row.cpuMemTotalBytes),
                          std::to_string(row.deviceMemSelfBytes), std::to_string(row.deviceMemTotalBytes)});
        text.rows.push_back(std::move(cells));
    }
    writeTable(std::cout, text, options.format);
    return kSuccess;
}

} // namespace

void setupOps(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<OpsOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    static const std::map<std::string, analysis::OpGrouping> groupings{{"name", analysis::OpGrouping::Name},
                                                                       {"shape", analysis::OpGrouping::Shape},
                                                                       {"module", analysis::OpGrouping::Module},
                                                                       {"stack", analysis::OpGrouping::Stack}};
    command.add_option("--by", options->by, "Group by name, shape (input dims), module or stack (python frames)")
        ->transform(CLI::CheckedTransformer(groupings, CLI::ignore_case))
        ->default_str("name");
    static const std::map<std::string, analysis::OpSort> sorts{
        {"self", analysis::OpSort::Self}, {"total", analysis::OpSort::Total}, {"calls", analysis::OpSort::Calls}};
    command.add_option("--sort", options->sort, "Sort by self, total or calls (descending)")
        ->transform(CLI::CheckedTransformer(sorts, CLI::ignore_case))
        ->default_str("self");
    command.add_option("--top", options->top, "Only the first N rows");
    command.add_option("--stack-frames", options->stackFrames, "Python frames kept by --by stack")->default_val(5);
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runOps(*options); });
}

} // namespace pyrometer::cli
