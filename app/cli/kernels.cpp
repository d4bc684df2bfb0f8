// pyrometer-cli kernels TRACE: GPU kernels, memcpy and memset, and time per stream.
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/kerneltypes.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

enum class KernelGrouping { Name, Type };

struct KernelsOptions {
    std::string trace;
    KernelGrouping by = KernelGrouping::Name;
    Format format = Format::Table;
    bool byStream = false;
    bool streams = false;
    std::size_t top = 0;
    std::string range;
};

// --by type: time, share and count per kernel type (kerneltypes.h's rules).
int writeKernelTypes(const analysis::TraceIndex &index, const analysis::TimeRange &range, const KernelsOptions &options)
{
    auto breakdown = analysis::buildKernelTypeBreakdown(index, range);
    if (options.top > 0 && breakdown.rows.size() > options.top)
        breakdown.rows.resize(options.top);
    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &row : breakdown.rows)
            rows.push_back({{"type", analysis::kernelTypeName(row.type)},
                            {"calls", row.calls},
                            {"total_us", micros(row.totalNs)},
                            {"pct", row.percent}});
        writeJson(cliOut(), {{"rows", rows}, {"total_us", micros(breakdown.totalNs)}});
        return kSuccess;
    }
    TextTable text;
    text.header = {"type", "calls", "total us", "%"};
    text.rightAligned = {false, true, true, true};
    for (const auto &row : breakdown.rows)
        text.rows.push_back({std::string(analysis::kernelTypeName(row.type)), std::to_string(row.calls),
                             microsText(row.totalNs, options.format), fixed(row.percent, 2)});
    writeTable(cliOut(), text, options.format);
    return kSuccess;
}

int runKernels(const KernelsOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    explainNoDeviceWork(*input);
    if (options.by == KernelGrouping::Type)
        return writeKernelTypes(*input->index, *range, options);
    analysis::KernelTableOptions tableOptions;
    tableOptions.byStream = options.byStream;
    tableOptions.top = options.top;
    tableOptions.range = *range;
    const auto table = analysis::buildKernelTable(*input->index, tableOptions);

    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &row : table.rows) {
            nlohmann::json r{{"kind", analysis::kindName(row.kind)}, {"name", row.name}};
            if (options.byStream)
                r.update({{"device", row.device}, {"stream", row.stream}});
            r.update({{"count", row.count},
                      {"total_us", micros(row.totalNs)},
                      {"avg_us", micros(row.avgNs())},
                      {"min_us", micros(row.minNs)},
                      {"max_us", micros(row.maxNs)},
                      {"pct", row.percent},
                      {"op", row.launchOp},
                      {"display_name", analysis::shortKernelName(row.name)}});
            const auto demangled = analysis::demangledKernelName(row.name);
            if (demangled != row.name)
                r["demangled"] = demangled;
            if (row.graphCount > 0)
                r.update({{"graph_count", row.graphCount}, {"graph_ids", row.graphIds}});
            if (!row.hash.empty())
                r.update({{"backend", row.backend}, {"kernel_hash", row.hash}, {"kernel_file", row.file}});
            rows.push_back(std::move(r));
        }
        nlohmann::json streams = nlohmann::json::array();
        for (const auto &s : table.streams)
            streams.push_back({{"device", s.device},
                               {"stream", s.stream},
                               {"count", s.count},
                               {"total_us", micros(s.totalNs)},
                               {"pct", s.percent}});
        writeJson(cliOut(), {{"rows", rows}, {"streams", streams}, {"total_us", micros(table.totalNs)}});
        return kSuccess;
    }
    TextTable text;
    if (options.streams) {
        text.header = {"device", "stream", "count", "total us", "%"};
        text.rightAligned.assign(text.header.size(), true);
        for (const auto &s : table.streams)
            text.rows.push_back({std::to_string(s.device), std::to_string(s.stream), std::to_string(s.count),
                                 microsText(s.totalNs, options.format), fixed(s.percent, 2)});
        writeTable(cliOut(), text, options.format);
        return kSuccess;
    }
    text.header = {"kind", "name"};
    if (options.byStream)
        text.header.insert(text.header.end(), {"device", "stream"});
    text.header.insert(text.header.end(), {"count", "total us", "avg us", "min us", "max us", "%", "op"});
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned[0] = text.rightAligned[1] = text.rightAligned.back() = false;
    // Narrow terminals keep the kind, the name, the total and its share (and the stream).
    text.dropFirst = {"min us", "max us", "avg us", "op", "count", "device"};
    for (const auto &row : table.rows) {
        // CSV keeps the name as the trace wrote it, for scripts; the others show it readable.
        auto name = options.format == Format::Csv ? row.name : analysis::shortKernelName(row.name, 0);
        if (!row.hash.empty() && options.format != Format::Csv)
            name += " [" + row.backend + " " + row.hash.substr(0, 8) + "]";
        std::vector<std::string> cells{std::string(analysis::kindName(row.kind)), name};
        if (options.byStream)
            cells.insert(cells.end(), {std::to_string(row.device), std::to_string(row.stream)});
        cells.insert(cells.end(), {std::to_string(row.count), microsText(row.totalNs, options.format),
                                   microsText(row.avgNs(), options.format), microsText(row.minNs, options.format),
                                   microsText(row.maxNs, options.format), fixed(row.percent, 2), row.launchOp});
        text.rows.push_back(std::move(cells));
    }
    writeTable(cliOut(), text, options.format);
    return kSuccess;
}

} // namespace

void setupKernels(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<KernelsOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    addChoiceOption(command, "--by", options->by, {{"name", KernelGrouping::Name}, {"type", KernelGrouping::Type}},
                    "Rows per kernel name, or per kernel type (communication, memory, gemm, convolution, attention, "
                    "normalization, reduction, elementwise, triton, other)");
    command.add_flag("--by-stream", options->byStream, "One row per kernel and stream");
    command.add_flag("--streams", options->streams, "Only the time per stream (table, csv, md)");
    addCountOption(command, "--top", options->top, 1, "Only the first N rows", false);
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runKernels(*options); });
}

} // namespace pyrometer::cli
