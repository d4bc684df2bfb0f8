// pyrometer-cli launches TRACE: each kernel with the call that launched it (matched by
// correlation id), the launch delay, the launches far above their kernel's median, and how many
// launched kernels waited on each stream.
#include "core/analysis/launches.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/kernelnames.h"
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

enum class LaunchRows { Launch, Kernel, Stream };

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

void writeJsonStats(const analysis::LaunchStats &stats, const trace::Trace &trace, std::size_t top)
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
    writeJson(std::cout, {{"rows", rows},
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
                            {"idle_share", stats.queue.emptyShare()}}}});
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
        const auto name = l.isReplay() ? analysis::graphName(l.graphId) + " (" + std::to_string(l.graphEvents) + " events)"
                                       : analysis::shortKernelName(input.trace->string(l.kernelName), 96);
        text.rows.push_back({std::to_string(l.correlation), name, std::to_string(l.stream),
                             instantText(l.kernelStartNs, input, format), microsText(l.callNs, format),
                             microsText(l.kernelNs, format), microsText(l.delayNs, format), l.outlier ? "yes" : ""});
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
        std::vector<std::string> row{streams ? g.name : analysis::shortKernelName(g.name, 96), std::to_string(g.count), microsText(g.delayMedianNs, format),
                                     microsText(g.delayP90Ns, format), microsText(g.delayMaxNs, format)};
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
    const auto stats = analysis::buildLaunchStats(*input->index, *range);
    if (options.format == Format::Json) {
        writeJsonStats(stats, *input->trace, options.top);
        return kSuccess;
    }
    if (options.by == LaunchRows::Launch) {
        writeTable(std::cout, launchTable(stats, *input, options.format, options.top), options.format);
        return kSuccess;
    }
    const bool streams = options.by == LaunchRows::Stream;
    writeTable(std::cout, groupTable(stats, options.format, options.top, streams), options.format);
    if (options.format != Format::Csv) {
        std::cout << '\n';
        for (const auto &q : stats.queues)
            writeText(std::cout,
                      "Queue of device " + std::to_string(q.device) + " stream " + std::to_string(q.stream) +
                          ": at most " + std::to_string(q.maxLength) + " launched kernels waiting, at " +
                          microsText(q.maxAtNs, options.format) + " us",
                      options.format);
        writeText(std::cout, analysis::describeQueues(stats.queue), options.format);
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
                    {{"launch", LaunchRows::Launch}, {"kernel", LaunchRows::Kernel}, {"stream", LaunchRows::Stream}},
                    "Tables: every launch, or their distributions per kernel name or per stream (json has all)");
    addCountOption(command, "--top", options->top, 1, "Only the first N rows", false);
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runLaunches(*options); });
}

} // namespace pyrometer::cli
