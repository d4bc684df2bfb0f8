// pyrometer-cli idle TRACE: why each GPU stream was idle in each step (host wait, kernel wait,
// other: idlecauses.h's rule), and with --gaps every gap with its cause.
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/analysis/idlecauses.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

using analysis::IdleCause;

struct IdleOptions {
    std::string trace;
    Format format = Format::Table;
    bool gaps = false;
    std::string range;
};

constexpr IdleCause kCauses[] = {IdleCause::HostWait, IdleCause::KernelWait, IdleCause::Other};

nlohmann::json causesJson(const std::array<std::int64_t, analysis::kIdleCauseCount> &ns)
{
    nlohmann::json json = nlohmann::json::object();
    for (const auto cause : kCauses)
        json[std::string(analysis::idleCauseName(cause)) + "_us"] = micros(ns[static_cast<std::size_t>(cause)]);
    return json;
}

int runIdle(const IdleOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    explainNoDeviceWork(*input);
    const auto idle = analysis::buildIdleBreakdown(*input->index, *range);
    if (options.format == Format::Json) {
        nlohmann::json streams = nlohmann::json::array(), gaps = nlohmann::json::array();
        for (const auto &s : idle.streams) {
            nlohmann::json row{{"step", s.step},
                               {"device", s.device},
                               {"stream", s.stream},
                               {"span_us", micros(s.spanNs)},
                               {"busy_us", micros(s.busyNs)}};
            row.update(causesJson(s.idleNs));
            streams.push_back(std::move(row));
        }
        for (const auto &g : idle.gaps)
            gaps.push_back({{"step", g.step},
                            {"device", g.device},
                            {"stream", g.stream},
                            {"start_us", micros(g.startNs)},
                            {"duration_us", micros(g.durationNs)},
                            {"cause", analysis::idleCauseName(g.cause)}});
        writeJson(cliOut(), {{"streams", streams}, {"gaps", gaps}, {"total", causesJson(idle.totalNs)}});
        return kSuccess;
    }
    TextTable text;
    if (options.gaps) {
        text.header = {"step", "device", "stream", "start us", "duration us", "cause"};
        text.rightAligned = {false, true, true, true, true, false};
        for (const auto &g : idle.gaps)
            text.rows.push_back({g.step, std::to_string(g.device), std::to_string(g.stream),
                                 instantText(g.startNs, *input, options.format), microsText(g.durationNs, options.format),
                                 std::string(analysis::idleCauseName(g.cause))});
        writeTable(cliOut(), text, options.format);
        return kSuccess;
    }
    text.header = {"step", "device", "stream", "span us", "busy us", "host wait us", "kernel wait us", "other us"};
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned[0] = false;
    text.dropFirst = {"device", "span us"};
    for (const auto &s : idle.streams)
        text.rows.push_back({s.step, std::to_string(s.device), std::to_string(s.stream),
                             microsText(s.spanNs, options.format), microsText(s.busyNs, options.format),
                             microsText(s.ns(IdleCause::HostWait), options.format),
                             microsText(s.ns(IdleCause::KernelWait), options.format),
                             microsText(s.ns(IdleCause::Other), options.format)});
    writeTable(cliOut(), text, options.format);
    if (options.format != Format::Csv && !idle.streams.empty()) {
        cliOut() << '\n';
        writeText(cliOut(),
                  "In all: host wait " + microsText(idle.totalNs[0], options.format) +
                      " us (the CPU launched late), kernel wait " + microsText(idle.totalNs[1], options.format) +
                      " us (launched, waiting on another stream or event), other " +
                      microsText(idle.totalNs[2], options.format) + " us.",
                  options.format);
    }
    return kSuccess;
}

} // namespace

void setupIdle(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<IdleOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    command.add_flag("--gaps", options->gaps,
                     "Every idle gap with its cause, instead of the totals per step and stream");
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runIdle(*options); });
}

} // namespace pyrometer::cli
