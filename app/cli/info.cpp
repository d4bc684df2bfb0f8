// pyrometer-cli info TRACE: what a trace holds and how fast it loaded.
#include "app/cli/analysisinput.h"
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/traceinput.h"
#include "core/trace/loader.h"
#include "core/util/format.h"

#include <iomanip>
#include <iostream>
#include <sstream>

namespace pyrometer::cli {
namespace {

struct InfoOptions {
    std::string trace;
    Format format = Format::Table;
    bool partial = false;
};

nlohmann::json infoJson(const trace::Trace &trace)
{
    const auto &info = trace.info;
    nlohmann::json phases = nlohmann::json::object();
    for (const auto &[phase, count] : info.phaseCounts)
        phases[phase] = count;
    nlohmann::json processes = nlohmann::json::array();
    for (const auto &process : trace.processes) {
        nlohmann::json tracks = nlohmann::json::array();
        for (const auto id : process.tracks)
            tracks.push_back(trace.track(id).name);
        processes.push_back({{"name", process.name}, {"tracks", tracks}});
    }
    return {{"file", info.file.string()},
            {"bytes", info.fileBytes},
            {"json_bytes", info.jsonBytes},
            {"events", info.eventCount},
            {"phases", phases},
            {"processes", processes},
            {"tracks", info.trackCount},
            {"span_us", info.spanMicroseconds()},
            {"load_seconds", info.loadSeconds},
            {"build_seconds", info.buildSeconds},
            {"megabytes_per_second", info.megabytesPerSecond()},
            {"warnings", info.warningCount},
            {"warning_messages", info.warnings},
            {"partial", info.partial}};
}

TextTable infoTable(const trace::Trace &trace)
{
    const auto &info = trace.info;
    TextTable table{{"field", "value"}, {}, {}};
    const auto add = [&](std::string key, std::string value) { table.rows.push_back({std::move(key), std::move(value)}); };
    add("file", info.file.string());
    std::string size = formatBytes(info.fileBytes);
    if (info.jsonBytes != info.fileBytes)
        size += " (" + formatBytes(info.jsonBytes) + " of JSON)";
    add("bytes", size);
    add("events", std::to_string(info.eventCount));
    std::string phases;
    for (const auto &[phase, count] : info.phaseCounts)
        phases += (phases.empty() ? "" : ", ") + (phase.empty() ? std::string("(none)") : phase) + " " + std::to_string(count);
    add("phases", phases);
    add("processes", std::to_string(info.processCount));
    for (const auto &process : trace.processes)
        add("  " + process.name, std::to_string(process.tracks.size()) + (process.tracks.size() == 1 ? " track" : " tracks"));
    add("tracks", std::to_string(info.trackCount));
    std::ostringstream span;
    span << formatDuration(info.spanNanoseconds()) << " (" << std::fixed << std::setprecision(3) << info.spanMicroseconds() << " us)";
    add("span", span.str());
    std::ostringstream load;
    load << std::fixed << std::setprecision(3) << info.loadSeconds << " s (" << std::setprecision(0)
         << info.megabytesPerSecond() << " MB/s of JSON; model built in " << std::setprecision(3)
         << info.buildSeconds << " s)";
    add("load", load.str());
    add("warnings", std::to_string(info.warningCount));
    for (const auto &warning : info.warnings)
        add("", warning);
    if (info.partial)
        add("partial", "truncated file: only its valid prefix was loaded");
    return table;
}

int runInfo(const InfoOptions &options)
{
    if (callContext()) { // a call of the MCP server: the trace it opened
        const auto input = loadAnalysisInput(options.trace);
        if (!input)
            return kBadInput;
        if (options.format == Format::Json)
            writeJson(cliOut(), infoJson(*input->trace));
        else
            writeTable(cliOut(), infoTable(*input->trace), options.format);
        return kSuccess;
    }
    const auto resolved = resolveTraceInput(options.trace);
    if (!resolved)
        return kBadInput;
    const auto &files = *resolved;

    nlohmann::json all = nlohmann::json::array();
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto loaded = trace::loadTrace(files[i], trace::LoadOptions{options.partial});
        if (!loaded.ok())
            return badInput(loaded.error().message);
        const auto &trace = *loaded.value();
        if (trace.info.partial)
            cliErr() << "pyrometer-cli: warning: " << files[i].string() << ": truncated; loaded its valid prefix\n";
        if (options.format == Format::Json) {
            all.push_back(infoJson(trace));
            continue;
        }
        if (i > 0)
            cliOut() << '\n';
        writeTable(cliOut(), infoTable(trace), options.format);
    }
    if (options.format == Format::Json)
        writeJson(cliOut(), files.size() == 1 ? all.front() : nlohmann::json{{"files", all}});
    return kSuccess;
}

} // namespace

void setupInfo(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<InfoOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")->required();
    command.add_flag("--partial", options->partial, "Load the valid prefix of a truncated file (with a warning)");
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runInfo(*options); });
}

} // namespace pyrometer::cli
