#include "core/analysis/graphadvice.h"

#include "core/analysis/kernelnames.h"
#include "core/util/format.h"

#include <cstdio>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

std::string shareText(std::int64_t part, std::int64_t whole)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", whole > 0 ? 100.0 * double(part) / double(whole) : 0.0);
    return text;
}

} // namespace

void graphReplayRule(const TraceIndex &index, const GraphReplays &graphs, std::vector<Finding> &out)
{
    if (graphs.replays.empty())
        return;
    const auto &trace = *index.trace;
    // The kernel with the most time over every replay, by name.
    std::unordered_map<std::string, std::int64_t> byName;
    for (const auto &g : graphs.graphs)
        if (!g.longestKernel.empty())
            byName[g.longestKernel] += g.longestKernelNs;
    std::string longest;
    std::int64_t longestNs = 0;
    for (const auto &[name, ns] : byName)
        if (ns > longestNs || (ns == longestNs && name < longest)) {
            longest = name;
            longestNs = ns;
        }
    const auto deviceNs = graphs.graphDeviceNs + graphs.eagerDeviceNs;
    std::string detail = std::to_string(graphs.replays.size()) + " replays of " + std::to_string(graphs.graphs.size()) +
                         " CUDA graphs run " + std::to_string(graphs.graphEvents) + " device events, " +
                         shareText(graphs.graphDeviceNs, deviceNs) + " of the device time; " +
                         std::to_string(graphs.eagerEvents) + " more were launched one by one (" +
                         formatDuration(graphs.eagerDeviceNs) + "). Inside the replays the GPU idles " +
                         formatDuration(graphs.gapInsideNs) + ".";
    if (!longest.empty())
        detail += " Their longest kernel, " + shortKernelName(longest, 80) + ", takes " +
                  shareText(longestNs, graphs.graphDeviceNs) + " of the replays' device time.";
    std::string fix = "The launches are already batched: no gain is left in launch overhead inside the graphs. ";
    if (!longest.empty() && 2 * longestNs > graphs.graphDeviceNs)
        fix += "Most of their time is one kernel: tune it (its tile sizes or algorithm, a faster precision, a fused "
               "epilogue) rather than the launches. ";
    if (graphs.eagerEvents > 0)
        fix += "Capture the eager launches between replays into the graph too where they repeat, or fuse them. ";
    fix += "Idle time inside replays is the graph's own (dependencies, host nodes, copies): a longer capture with "
           "fewer breaks shortens it.";
    std::vector<EventRef> examples;
    for (const auto &r : graphs.replays) {
        if (examples.size() >= 3)
            break;
        examples.push_back(r.first);
    }
    out.push_back(
        {"cuda_graphs",
         "CUDA graph replays run most of the GPU's work",
         detail,
         {{"replays", double(graphs.replays.size()), "count"},
          {"graphs", double(graphs.graphs.size()), "count"},
          {"graph_device_pct", deviceNs > 0 ? 100.0 * double(graphs.graphDeviceNs) / double(deviceNs) : 0.0, "%"},
          {"eager_events", double(graphs.eagerEvents), "count"},
          {"eager_us", static_cast<double>(graphs.eagerDeviceNs) / 1000.0, "us"},
          {"gap_inside_replays_us", static_cast<double>(graphs.gapInsideNs) / 1000.0, "us"},
          {"longest_kernel_pct",
           graphs.graphDeviceNs > 0 ? 100.0 * double(longestNs) / double(graphs.graphDeviceNs) : 0.0, "%"}},
         examples,
         trace.info.spanStart,
         trace.info.spanEnd,
         fix});
    if (graphs.graphDeviceNs * 2 < deviceNs)
        out.back().title = "CUDA graph replays run part of the GPU's work";
}

} // namespace pyrometer::analysis
