// pyrometer-cli memory TRACE: peak and curve of allocated memory per device.
#include "core/analysis/memory.h"
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/util/format.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct MemoryCliOptions {
    std::string trace;
    Format format = Format::Table;
    std::string range;
    std::size_t top = 10;
    bool curve = false;
};

int runMemory(const MemoryCliOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    analysis::MemoryOptions memoryOptions;
    memoryOptions.range = *range;
    memoryOptions.topOps = options.top;
    memoryOptions.curves = options.curve || options.format == Format::Json;
    const auto report = analysis::buildMemoryReport(*input->index, memoryOptions);

    if (options.format == Format::Json) {
        nlohmann::json devices = nlohmann::json::array();
        for (const auto &d : report.devices) {
            nlohmann::json top = nlohmann::json::array();
            for (const auto &op : d.topOps)
                top.push_back(
                    {{"name", op.name}, {"allocations", op.allocations}, {"allocated_bytes", op.allocatedBytes}});
            nlohmann::json j{{"device", d.device},
                             {"peak_bytes", d.peakBytes},
                             {"peak_us", micros(d.peakTimeNs)},
                             {"peak_source", d.peakFromTotals ? "total_allocated" : "running_sum"},
                             {"allocations", d.allocations},
                             {"frees", d.frees},
                             {"top_ops", top}};
            if (options.curve) {
                nlohmann::json allocated = nlohmann::json::array();
                for (const auto &p : d.allocated)
                    allocated.push_back({micros(p.timeNs), p.bytes});
                nlohmann::json reserved = nlohmann::json::array();
                for (const auto &p : d.reserved)
                    reserved.push_back({micros(p.timeNs), p.bytes});
                j["allocated"] = allocated;
                j["reserved"] = reserved;
            }
            devices.push_back(std::move(j));
        }
        writeJson(cliOut(), {{"devices", devices}});
        return kSuccess;
    }
    TextTable text;
    if (options.curve) {
        text.header = {"device", "time us", "allocated bytes"};
        text.rightAligned = {false, true, true};
        for (const auto &d : report.devices)
            for (const auto &p : d.allocated)
                text.rows.push_back({d.device, instantText(p.timeNs, *input, options.format), bytesText(p.bytes, options.format)});
        writeTable(cliOut(), text, options.format);
        return kSuccess;
    }
    text.header = {"device", "peak bytes", "peak", "at us", "allocations", "frees", "top allocating op", "op bytes"};
    text.rightAligned = {false, true, true, true, true, true, false, true};
    // Narrow terminals keep the device, its peak and the op that allocated most.
    text.dropFirst = {"frees", "allocations", "at us", "op bytes"};
    for (const auto &d : report.devices) {
        const auto *top = d.topOps.empty() ? nullptr : &d.topOps.front();
        text.rows.push_back({d.device, bytesText(d.peakBytes, options.format),
                             formatBytes(static_cast<std::uint64_t>(std::max<std::int64_t>(0, d.peakBytes))),
                             instantText(d.peakTimeNs, *input, options.format), std::to_string(d.allocations), std::to_string(d.frees),
                             top ? top->name : "", top ? bytesText(top->allocatedBytes, options.format) : ""});
    }
    if (options.format == Format::Table) { // its peak bytes are in words already: no second peak column
        text.header.erase(text.header.begin() + 2);
        text.rightAligned.erase(text.rightAligned.begin() + 2);
        for (auto &row : text.rows)
            row.erase(row.begin() + 2);
    }
    writeTable(cliOut(), text, options.format);
    return kSuccess;
}

} // namespace

void setupMemory(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<MemoryCliOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    command.add_flag("--curve", options->curve,
                     "The allocated curve (table: one row per event; json: [us, bytes] pairs)");
    addCountOption(command, "--top", options->top, 0, "Allocating ops listed per device (json)");
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runMemory(*options); });
}

} // namespace pyrometer::cli
