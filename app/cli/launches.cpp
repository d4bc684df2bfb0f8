// pyrometer-cli launches TRACE: each kernel with the call that launched it (matched by
// correlation id), the launch delay, the launches far above their kernel's median, and how many
// launched kernels waited on each stream.
#include "core/analysis/launches.h"
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/workclass.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

// A kernel that starts before its launching call returns (the usual case on an idle GPU) waited
// for nothing: tables show 0, not the negative difference; JSON keeps the measured value.
std::int64_t shownDelay(std::int64_t ns)
{
    return std::max<std::int64_t>(0, ns);
}

enum class LaunchRows { Launch, Kernel, Stream, Graph };

struct LaunchesOptions {
    std::string trace;
    LaunchRows by = LaunchRows::Kernel;
    Format format = Format::Table;
    std::size_t top = 0;
    std::string range;
};

nlohmann::json groupJson(const analysis::LaunchGroup &g)
{
    nlohmann::json json{{"name", g.name}};
    if (g.stream >= 0)
        json.update({{"device", g.device}, {"stream", g.stream}});
    json.update({{"count", g.count},
                 {"launch_delay_median_us", micros(g.delayMedianNs)},
                 {"launch_delay_p90_us", micros(g.delayP90Ns)},
                 {"launch_delay_max_us", micros(g.delayMaxNs)},
                 {"launch_delay_sum_us", micros(g.delayTotalNs)},
                 {"cpu_duration_mean_us", micros(g.callMeanNs)},
                 {"gpu_duration_mean_us", micros(g.kernelMeanNs)},
                 {"outliers", g.outliers}});
    return json;
}

nlohmann::json graphsJson(const analysis::GraphReplays &graphs, const trace::Trace &trace)
{
    nlohmann::json rows = nlohmann::json::array(), captures = nlohmann::json::array();
    for (const auto &g : graphs.graphs)
        rows.push_back({{"graph_id", g.graphId},
                        {"device", g.device},
                        {"stream", g.stream},
                        {"replays", g.replays},
                        {"kernels", g.events},
                        {"span_us", micros(g.spanNs)},
                        {"busy_us", micros(g.busyNs)},
                        {"gap_us", micros(g.gapNs())},
                        {"first_kernel_delay_median_us", micros(g.delayMedianNs)},
                        {"longest_kernel", g.longestKernel},
                        {"longest_kernel_us", micros(g.longestKernelNs)}});
    for (const auto &c : graphs.captures)
        captures.push_back({{"start_us", micros(c.startNs)},
                            {"end_us", micros(c.endNs)},
                            {"calls", c.calls},
                            {"thread", trace.track(c.begin.track).name}});
    return {{"graphs", rows},
            {"captures", captures},
            {"replays", graphs.replays.size()},
            {"graph_events", graphs.graphEvents},
            {"eager_events", graphs.eagerEvents},
            {"graph_device_us", micros(graphs.graphDeviceNs)},
            {"eager_device_us", micros(graphs.eagerDeviceNs)},
            {"gap_inside_replays_us", micros(graphs.gapInsideNs)}};
}

TextTable graphTable(const analysis::GraphReplays &graphs, Format format, std::size_t top)
{
    TextTable text;
    text.header = {"graph",   "stream",  "replays",  "kernels",       "span us",
                   "busy us", "gaps us", "delay us", "longest kernel"};
    text.rightAligned = {false, true, true, true, true, true, true, true, false};
    text.dropFirst = {"longest kernel", "delay us", "kernels", "span us"};
    for (const auto &g : graphs.graphs) {
        if (top > 0 && text.rows.size() >= top)
            break;
        text.rows.push_back({analysis::graphName(g.graphId), std::to_string(g.stream), std::to_string(g.replays),
                             std::to_string(g.events), microsText(g.spanNs, format), microsText(g.busyNs, format),
                             microsText(g.gapNs(), format), microsText(shownDelay(g.delayMedianNs), format),
                             format == Format::Csv ? g.longestKernel : analysis::shortKernelName(g.longestKernel, 64)});
    }
    return text;
}

void writeJsonStats(const analysis::LaunchStats &stats, const analysis::GraphReplays &graphs, const trace::Trace &trace,
                    std::size_t top)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto &l : stats.launches) {
        if (top > 0 && rows.size() >= top)
            break;
        nlohmann::json row{{"correlation", l.correlation},
                           {"kernel", trace.string(l.kernelName)},
                           {"device", l.device},
                           {"stream", l.stream},
                           {"start_us", micros(l.kernelStartNs)},
                           {"cpu_duration_us", micros(l.callNs)},
                           {"gpu_duration_us", micros(l.kernelNs)},
                           {"launch_delay_us", micros(l.delayNs)},
                           {"outlier", l.outlier}};
        if (l.isReplay())
            row.update({{"graph_id", l.graphId}, {"graph_events", l.graphEvents}});
        rows.push_back(std::move(row));
    }
    nlohmann::json byKernel = nlohmann::json::array(), byStream = nlohmann::json::array(),
                   queues = nlohmann::json::array();
    for (const auto &g : stats.byKernel)
        byKernel.push_back(groupJson(g));
    for (const auto &g : stats.byStream)
        byStream.push_back(groupJson(g));
    for (const auto &q : stats.queues)
        queues.push_back({{"device", q.device},
                          {"stream", q.stream},
                          {"max_length", q.maxLength},
                          {"max_at_us", micros(q.maxAtNs)},
                          {"mean_depth", q.meanDepth()},
                          {"window_us", micros(q.windowNs)},
                          {"empty_us", micros(q.emptyNs)},
                          {"idle_share", q.emptyShare()}});
    writeJson(cliOut(), {{"rows", rows},
                         {"by_kernel", byKernel},
                         {"by_stream", byStream},
                         {"queues", queues},
                         {"max_queue_length", stats.maxQueueLength},
                         {"queue",
                          {{"bound", analysis::launchBoundName(stats.queue.bound)},
                           {"mean_depth", stats.queue.meanDepth()},
                           {"max_length", stats.queue.maxLength},
                           {"window_us", micros(stats.queue.windowNs)},
                           {"empty_us", micros(stats.queue.emptyNs)},
                           {"idle_share", stats.queue.emptyShare()}}},
                         {"cuda_graphs", graphsJson(graphs, trace)}});
}

TextTable launchTable(const analysis::LaunchStats &stats, const AnalysisInput &input, Format format, std::size_t top)
{
    TextTable text;
    text.header = {"correlation", "kernel", "stream", "start us", "call us", "kernel us", "delay us", "outlier"};
    text.rightAligned = {true, false, true, true, true, true, true, false};
    text.dropFirst = {"correlation", "start us", "outlier", "call us"};
    for (const auto &l : stats.launches) {
        if (top > 0 && text.rows.size() >= top)
            break;
        const auto name = l.isReplay()
                              ? analysis::graphName(l.graphId) + " (" + std::to_string(l.graphEvents) + " events)"
                              : analysis::shortKernelName(input.trace->string(l.kernelName), 0);
        text.rows.push_back({std::to_string(l.correlation), name, std::to_string(l.stream),
                             instantText(l.kernelStartNs, input, format), microsText(l.callNs, format),
                             microsText(l.kernelNs, format), microsText(shownDelay(l.delayNs), format),
                             l.outlier ? "yes" : ""});
    }
    return text;
}

TextTable groupTable(const analysis::LaunchStats &stats, Format format, std::size_t top, bool streams)
{
    // No total delay: in a GPU-bound loop it sums the same queueing once per waiting launch.
    TextTable text;
    text.header = {streams ? "stream" : "kernel", "count", "median delay us", "p90 delay us", "max delay us"};
    if (streams)
        text.header.insert(text.header.end(), {"mean queue", "max queue", "idle empty %"});
    text.header.insert(text.header.end(), {"call us", "kernel us", "outliers"});
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned[0] = false;
    text.dropFirst = {"p90 delay us", "call us", "kernel us"};
    const auto &groups = streams ? stats.byStream : stats.byKernel;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (top > 0 && text.rows.size() >= top)
            break;
        const auto &g = groups[i];
        std::vector<std::string> row{streams ? g.name : analysis::shortKernelName(g.name, 0), std::to_string(g.count),
                                     microsText(shownDelay(g.delayMedianNs), format),
                                     microsText(shownDelay(g.delayP90Ns), format),
                                     microsText(shownDelay(g.delayMaxNs), format)};
        if (streams) {
            const auto &q = stats.queues[i]; // both by device, then stream
            row.insert(row.end(), {fixed(q.meanDepth(), 1), std::to_string(q.maxLength), fixed(100.0 * q.emptyShare(), 1)});
        }
        row.insert(row.end(), {microsText(g.callMeanNs, format), microsText(g.kernelMeanNs, format), std::to_string(g.outliers)});
        text.rows.push_back(std::move(row));
    }
    return text;
}

int runLaunches(const LaunchesOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    explainNoDeviceWork(*input);
    const auto stats = analysis::buildLaunchStats(*input->index, *range);
    const auto graphs = analysis::buildGraphReplays(*input->index, *range);
    if (options.format == Format::Json) {
        writeJsonStats(stats, graphs, *input->trace, options.top);
        return kSuccess;
    }
    if (options.by == LaunchRows::Graph) {
        writeTable(cliOut(), graphTable(graphs, options.format, options.top), options.format);
        if (options.format != Format::Csv) {
            cliOut() << '\n';
            writeText(cliOut(),
                      std::to_string(graphs.replays.size()) + " replays ran " + std::to_string(graphs.graphEvents) +
                          " device events; " + std::to_string(graphs.eagerEvents) + " were launched one by one; " +
                          std::to_string(graphs.captures.size()) + " captures.",
                      options.format);
        }
        return kSuccess;
    }
    if (options.by == LaunchRows::Launch) {
        writeTable(cliOut(), launchTable(stats, *input, options.format, options.top), options.format);
        return kSuccess;
    }
    const bool streams = options.by == LaunchRows::Stream;
    writeTable(cliOut(), groupTable(stats, options.format, options.top, streams), options.format);
    if (options.format != Format::Csv) {
        cliOut() << '\n';
        for (const auto &q : stats.queues)
            writeText(cliOut(),
                      "Queue of device " + std::to_string(q.device) + " stream " + std::to_string(q.stream) +
                          ": at most " + std::to_string(q.maxLength) + " launches waiting, " +
                          instantText(q.maxAtNs, *input, options.format) + " us after the trace start",
                      options.format);
        writeText(cliOut(), analysis::describeQueues(stats.queue, analysis::acceleratorName(*input->index)),
                  options.format);
    }
    return kSuccess;
}

} // namespace

void setupLaunches(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<LaunchesOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    addChoiceOption(command, "--by", options->by,
                    {{"launch", LaunchRows::Launch},
                     {"kernel", LaunchRows::Kernel},
                     {"stream", LaunchRows::Stream},
                     {"graph", LaunchRows::Graph}},
                    "Tables: every launch, their distributions per kernel name or per stream, or the CUDA graphs "
                    "and their replays (json has all)");
    addCountOption(command, "--top", options->top, 1, "Only the first N rows", false);
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runLaunches(*options); });
}

} // namespace pyrometer::cli
