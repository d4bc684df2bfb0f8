// pyrometer-cli flame TRACE: the aggregated call tree; --format collapsed gives folded stacks.
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/analysis/flametree.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct FlameCliOptions {
    std::string trace;
    std::string format = "table";
    analysis::FlameEvents events = analysis::FlameEvents::Ops;
    bool noThreads = false;
    std::string range;
};

nlohmann::json nodeJson(const analysis::FlameTree &tree, std::uint32_t n)
{
    const auto &node = tree.nodes[n];
    nlohmann::json children = nlohmann::json::array();
    for (const auto c : node.children)
        children.push_back(nodeJson(tree, c));
    return {{"name", node.name},
            {"calls", node.calls},
            {"self_us", micros(node.selfNs)},
            {"total_us", micros(node.totalNs)},
            {"children", children}};
}

void addRows(const analysis::FlameTree &tree, std::uint32_t n, const std::string &path, Format format, TextTable &text)
{
    for (const auto c : tree.nodes[n].children) {
        const auto &node = tree.nodes[c];
        const auto stack = path.empty() ? node.name : path + ";" + node.name;
        text.rows.push_back({stack, std::to_string(node.calls), microsText(node.selfNs, format), microsText(node.totalNs, format)});
        addRows(tree, c, stack, format, text);
    }
}

int runFlame(const FlameCliOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    if (options.events == analysis::FlameEvents::Ops)
        explainNoOps(*input);
    analysis::FlameOptions flameOptions;
    flameOptions.events = options.events;
    flameOptions.threadRoots = !options.noThreads;
    flameOptions.range = *range;
    const auto tree = analysis::buildFlameTree(*input->index, flameOptions);
    if (options.format == "collapsed") {
        analysis::writeFolded(cliOut(), tree);
        return kSuccess;
    }
    if (options.format == "json") {
        writeJson(cliOut(), nodeJson(tree, 0));
        return kSuccess;
    }
    const auto format = options.format == "csv" ? Format::Csv : options.format == "md" ? Format::Markdown : Format::Table;
    TextTable text{{"stack", "calls", "self us", "total us"}, {}, {false, true, true, true}};
    text.dropFirst = {"calls", "self us"};
    addRows(tree, 0, "", format, text);
    writeTable(cliOut(), text, format);
    return kSuccess;
}

} // namespace

void setupFlame(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<FlameCliOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    addChoiceOption<std::string>(command, "--format", options->format,
                                 {{"collapsed", "collapsed"}, {"table", "table"}, {"csv", "csv"}, {"md", "md"}, {"json", "json"}},
                                 "Output format: collapsed (folded stacks), table, csv, md or json");
    addChoiceOption<analysis::FlameEvents>(
        command, "--events", options->events,
        {{"ops", analysis::FlameEvents::Ops}, {"python", analysis::FlameEvents::OpsPython}, {"all", analysis::FlameEvents::All}},
        "ops (operators), python (operators and python frames) or all (every slice)");
    command.add_flag("--no-threads", options->noThreads, "Leave out the first frame naming the thread");
    addRangeOption(command, &options->range);
    command.callback([options, exitCode] { *exitCode = runFlame(*options); });
}

} // namespace pyrometer::cli
