// pyrometer-cli critical-path TRACE [--step N] [--kind K,...] [--min-us US] [--sort S] [--top N]:
// the chain of dependencies whose length is a step's time (criticalpath.h's model), as rows
// (criticalpathrows.h: CPU nodes grouped under their top-level op), each one's share, and what-ifs.
#include "core/analysis/criticalpath.h"
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/analysis/criticalpathrows.h"
#include "core/analysis/workclass.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct CriticalPathOptions {
    std::string trace;
    Format format = Format::Table;
    int step = -1; // index among the ProfilerSteps; -1: the longest
    std::size_t whatIfs = 10;
    std::vector<std::string> kinds; // cpu, launch, sync, device (gpu), wait; empty: all
    double minUs = 0;
    analysis::PathOrder order = analysis::PathOrder::Time;
    std::size_t top = 0;
};

unsigned kindBits(const std::vector<std::string> &kinds)
{
    if (kinds.empty())
        return analysis::kPathAllKinds;
    unsigned bits = 0;
    for (const auto &k : kinds)
        bits |= k == "cpu"      ? analysis::kPathCpu
                : k == "launch" ? analysis::kPathLaunch
                : k == "sync"   ? analysis::kPathSync
                : k == "wait"   ? analysis::kPathWait
                                : analysis::kPathDevice; // device or gpu: the only others the check lets by
    return bits;
}

std::string_view nodeKindName(analysis::PathNodeKind kind)
{
    switch (kind) {
    case analysis::PathNodeKind::Cpu: return "cpu";
    case analysis::PathNodeKind::Launch: return "launch";
    case analysis::PathNodeKind::Sync: return "sync";
    case analysis::PathNodeKind::Device: return "device";
    }
    return "cpu";
}

int runCriticalPath(const CriticalPathOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto &index = *input->index;
    // Steps on the GPU's clock: the path covers the step's span, from the previous step's end.
    const auto spans = analysis::buildStepSpans(index);
    const auto &steps = spans.steps;
    if (options.step >= 0 && std::size_t(options.step) >= steps.size())
        return badInput(options.trace + ": --step " + std::to_string(options.step) + ": the trace has " +
                        std::to_string(steps.size()) + " steps (0 to " + std::to_string(int(steps.size()) - 1) + ")");
    // By default the longest step: where a fix pays most.
    const auto chosen = options.step >= 0 ? options.step : analysis::longestStep(steps);
    const auto path = chosen == analysis::kNoStep
                          ? analysis::buildCriticalPath(index, analysis::EventRef{}, options.whatIfs)
                          : analysis::buildCriticalPath(index, steps[std::size_t(chosen)], options.whatIfs);
    analysis::PathRowOptions rowOptions;
    rowOptions.kinds = kindBits(options.kinds);
    rowOptions.minNs = static_cast<std::int64_t>(options.minUs * 1000.0 + 0.5);
    rowOptions.order = options.order;
    rowOptions.top = options.top;
    const auto rows = analysis::buildPathRows(index, path, rowOptions);
    const auto rowKind = [](const analysis::PathRow &r) {
        return r.group ? std::string_view("op") : nodeKindName(r.kind);
    };
    if (options.format == Format::Json) {
        const auto nodeJson = [&](const analysis::PathNode &n) {
            return nlohmann::json{{"kind", nodeKindName(n.kind)},
                                  {"name", n.name},
                                  {"start_us", micros(n.startNs)},
                                  {"duration_us", micros(n.durationNs)},
                                  {"wait_before_us", micros(n.waitBeforeNs)},
                                  {"share_pct", n.sharePct}};
        };
        nlohmann::json nodes = nlohmann::json::array(), rowsJson = nlohmann::json::array(),
                       whatIfs = nlohmann::json::array();
        for (const auto &n : path.nodes)
            nodes.push_back(nodeJson(n));
        for (const auto &r : rows) {
            nlohmann::json row{{"kind", rowKind(r)},
                               {"name", r.name},
                               {"nodes", r.nodeCount},
                               {"start_us", micros(r.startNs)},
                               {"duration_us", micros(r.durationNs)},
                               {"wait_before_us", micros(r.waitBeforeNs)},
                               {"share_pct", r.sharePct}};
            if (r.group) {
                nlohmann::json children = nlohmann::json::array();
                for (const auto i : r.nodes)
                    children.push_back(nodeJson(path.nodes[i]));
                row["children"] = children;
            }
            rowsJson.push_back(row);
        }
        for (const auto &w : path.whatIfs)
            whatIfs.push_back(
                {{"node", w.node}, {"name", w.name}, {"saved_us", micros(w.savedNs)}, {"saved_pct", w.savedPct}});
        // Times as every subcommand's json gives them: the trace's own ts (tables: from its start).
        writeJson(cliOut(), {{"step", path.step},
                             {"start_us", micros(path.startNs)},
                             {"end_us", micros(path.endNs)},
                             {"length_us", micros(path.lengthNs())},
                             {"cpu_us", micros(path.cpuNs)},
                             {"device_us", micros(path.deviceNs)},
                             {"wait_us", micros(path.waitNs)},
                             {"nodes", nodes},
                             {"rows", rowsJson},
                             {"what_if_twice_as_fast", whatIfs}});
        return kSuccess;
    }
    TextTable text;
    text.header = {"kind", "name", "nodes", "start us", "wait before us", "duration us", "share %"};
    text.rightAligned = {false, false, true, true, true, true, true};
    text.dropFirst = {"start us", "nodes", "wait before us"};
    for (const auto &r : rows)
        text.rows.push_back({std::string(rowKind(r)), r.name, std::to_string(r.nodeCount),
                             instantText(r.startNs, *input, options.format), microsText(r.waitBeforeNs, options.format),
                             microsText(r.durationNs, options.format), fixed(r.sharePct, 1)});
    writeTable(cliOut(), text, options.format);
    if (options.format == Format::Csv)
        return kSuccess;
    cliOut() << '\n';
    writeText(cliOut(),
              (path.step.empty() ? std::string("The trace") : path.step) + ": " +
                  microsText(path.lengthNs(), options.format) + " us on the critical path: CPU " +
                  microsText(path.cpuNs, options.format) + " us, " + analysis::acceleratorName(index) + " " +
                  microsText(path.deviceNs, options.format) + " us, waiting between them " +
                  microsText(path.waitNs, options.format) + " us.",
              options.format);
    if (!path.whatIfs.empty()) {
        cliOut() << '\n';
        TextTable whatIf;
        whatIf.header = {"if twice as fast", "step shorter by us", "%"};
        whatIf.rightAligned = {false, true, true};
        for (const auto &w : path.whatIfs)
            whatIf.rows.push_back({w.name, microsText(w.savedNs, options.format), fixed(w.savedPct, 1)});
        writeTable(cliOut(), whatIf, options.format);
    }
    return kSuccess;
}

} // namespace

void setupCriticalPath(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<CriticalPathOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    command.add_option("--step", options->step, "Which ProfilerStep, counted from 0 (default: the longest)")
        ->check(wholeNumberFrom(0))
        ->option_text("N");
    addCountOption(command, "--what-ifs", options->whatIfs, 0, "What-ifs for the N longest nodes of the path");
    command
        .add_option("--kind", options->kinds,
                    "Rows of these kinds only, comma-separated: cpu, launch, sync, device (or gpu), wait (a row "
                    "that waited --min-us or more before it); an op's group stays while one of its nodes does")
        ->delimiter(',')
        ->check(CLI::IsMember({"cpu", "launch", "sync", "device", "gpu", "wait"}, CLI::ignore_case))
        ->option_text("K,...");
    command.add_option("--min-us", options->minUs, "Rows of at least this many microseconds (default: 0)")
        ->check(CLI::NonNegativeNumber)
        ->option_text("US");
    addChoiceOption(command, "--sort", options->order,
                    {{"time", analysis::PathOrder::Time},
                     {"duration", analysis::PathOrder::Duration},
                     {"wait", analysis::PathOrder::Wait}},
                    "Row order: time, or the longest duration or wait first");
    addCountOption(command, "--top", options->top, 0, "The first N rows only, 0 for all", false);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runCriticalPath(*options); });
}

} // namespace pyrometer::cli
