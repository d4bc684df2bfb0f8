// pyrometer-cli critical-path TRACE [--step N]: the chain of dependencies whose length is a
// step's time (criticalpath.h's model), each op's and kernel's share, and what-ifs.
#include "core/analysis/criticalpath.h"
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct CriticalPathOptions {
    std::string trace;
    Format format = Format::Table;
    int step = -1; // index among the ProfilerSteps; -1: the longest
    std::size_t whatIfs = 10;
};

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
                        std::to_string(steps.size()) + " ProfilerSteps (0 to " +
                        std::to_string(int(steps.size()) - 1) + ")");
    // By default the longest step: where a fix pays most.
    const auto chosen = options.step >= 0 ? options.step : analysis::longestStep(steps);
    const auto path = chosen == analysis::kNoStep
                          ? analysis::buildCriticalPath(index, analysis::EventRef{}, options.whatIfs)
                          : analysis::buildCriticalPath(index, steps[std::size_t(chosen)], options.whatIfs);
    if (options.format == Format::Json) {
        nlohmann::json nodes = nlohmann::json::array(), whatIfs = nlohmann::json::array();
        for (const auto &n : path.nodes)
            nodes.push_back({{"kind", nodeKindName(n.kind)},
                             {"name", n.name},
                             {"start_us", micros(n.startNs)},
                             {"duration_us", micros(n.durationNs)},
                             {"wait_before_us", micros(n.waitBeforeNs)},
                             {"share_pct", n.sharePct}});
        for (const auto &w : path.whatIfs)
            whatIfs.push_back(
                {{"node", w.node}, {"name", w.name}, {"saved_us", micros(w.savedNs)}, {"saved_pct", w.savedPct}});
        writeJson(std::cout, {{"step", path.step},
                              {"start_us", micros(path.startNs)},
                              {"length_us", micros(path.lengthNs())},
                              {"cpu_us", micros(path.cpuNs)},
                              {"device_us", micros(path.deviceNs)},
                              {"wait_us", micros(path.waitNs)},
                              {"nodes", nodes},
                              {"what_if_twice_as_fast", whatIfs}});
        return kSuccess;
    }
    TextTable text;
    text.header = {"kind", "name", "start us", "wait before us", "duration us", "share %"};
    text.rightAligned = {false, false, true, true, true, true};
    text.dropFirst = {"start us", "wait before us"};
    for (const auto &n : path.nodes)
        text.rows.push_back({std::string(nodeKindName(n.kind)), n.name, instantText(n.startNs, *input, options.format),
                             microsText(n.waitBeforeNs, options.format), microsText(n.durationNs, options.format),
                             fixed(n.sharePct, 1)});
    writeTable(std::cout, text, options.format);
    if (options.format == Format::Csv)
        return kSuccess;
    std::cout << '\n';
    writeText(std::cout,
              (path.step.empty() ? std::string("The trace") : path.step) + ": " +
                  microsText(path.lengthNs(), options.format) + " us on the critical path: CPU " +
                  microsText(path.cpuNs, options.format) + " us, GPU " + microsText(path.deviceNs, options.format) +
                  " us, waiting between them " + microsText(path.waitNs, options.format) + " us.",
              options.format);
    if (!path.whatIfs.empty()) {
        std::cout << '\n';
        TextTable whatIf;
        whatIf.header = {"if twice as fast", "step shorter by us", "%"};
        whatIf.rightAligned = {false, true, true};
        for (const auto &w : path.whatIfs)
            whatIf.rows.push_back({w.name, microsText(w.savedNs, options.format), fixed(w.savedPct, 1)});
        writeTable(std::cout, whatIf, options.format);
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
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runCriticalPath(*options); });
}

} // namespace pyrometer::cli
