#include "core/report/gpureport.h"

#include "core/analysis/workclass.h"

#include "core/analysis/criticalpath.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kernelsequences.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/launches.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace pyrometer::report {

namespace {

std::string percentText(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

std::string streamName(std::int32_t device, std::int32_t stream)
{
    return "GPU " + std::to_string(device) + " stream " + std::to_string(stream);
}

Section typesSection(const analysis::TraceIndex &index, const std::string &prefix, const ReportOptions &options,
                     const StopToken *stop)
{
    Section section{prefix + "kernel-types", "GPU time by kernel type", 3, {}, {}, {}, {}};
    section.paragraphs.push_back("Every GPU event is communication (NCCL/RCCL kernels), memory (memcpy, memset) or "
                                 "computation, split by name: GEMM, convolution, attention, normalization, reduction, "
                                 "elementwise, Triton (torch.compile), other.");
    Table table{"", {"Type", "Calls", "Time", "%"}, {false, true, true, true}, {}, {}};
    for (const auto &row : analysis::buildKernelTypeBreakdown(index, {}, stop).rows)
        table.rows.push_back({std::string(analysis::kernelTypeLabel(row.type)), std::to_string(row.calls),
                              formatDuration(row.totalNs, options.timeUnit), percentText(row.percent)});
    section.tables.push_back(std::move(table));
    return section;
}

Section launchesSection(const analysis::TraceIndex &index, const std::string &prefix, const ReportOptions &options,
                        const StopToken *stop)
{
    const auto stats = analysis::buildLaunchStats(index, {}, stop);
    Section section{prefix + "launches", "Kernel launches", 3, {}, {}, {}, {}};
    std::uint64_t outliers = 0;
    for (const auto &l : stats.launches)
        outliers += l.outlier ? 1 : 0;
    section.paragraphs.push_back(std::to_string(stats.launches.size()) + " launches matched to their calls; " +
                                 std::to_string(outliers) + " waited far above their kernel's median (over " +
                                 percentText(analysis::kOutlierFactor) +
                                 "x it and 50 us more). Launch delay = kernel "
                                 "start - end of the launching call.");
    const auto duration = [&](std::int64_t ns) { return formatDuration(ns, options.timeUnit); };
    if (const auto verdict = analysis::describeQueues(stats.queue, analysis::acceleratorName(index)); !verdict.empty())
        section.paragraphs.push_back(verdict);
    Table kernels{"Launch delay per kernel",
                  {"Kernel", "Launches", "Median delay", "p90", "Max", "Outliers"},
                  {false, true, true, true, true, true},
                  {},
                  {true}};
    for (std::size_t i = 0; i < stats.byKernel.size() && i < options.topRows; ++i) {
        const auto &g = stats.byKernel[i];
        kernels.rows.push_back({g.name, std::to_string(g.count), duration(g.delayMedianNs), duration(g.delayP90Ns),
                                duration(g.delayMaxNs), std::to_string(g.outliers)});
    }
    section.tables.push_back(std::move(kernels));
    Table queues{"Launched kernels waiting per stream",
                 {"Stream", "Mean waiting", "Most waiting", "At", "Idle, nothing queued"},
                 {false, true, true, true, true},
                 {},
                 {}};
    for (const auto &q : stats.queues)
        queues.rows.push_back({streamName(q.device, q.stream), percentText(q.meanDepth()), std::to_string(q.maxLength),
                               duration(q.maxAtNs - index.trace->info.spanStart), percentText(100.0 * q.emptyShare()) + "%"});
    section.tables.push_back(std::move(queues));
    return section;
}

Section idleSection(const analysis::TraceIndex &index, const std::string &prefix, const ReportOptions &options,
                    const StopToken *stop)
{
    using analysis::IdleCause;
    const auto idle = analysis::buildIdleBreakdown(index, {}, stop);
    Section section{prefix + "idle", "Why the GPU waited", 3, {}, {}, {}, {}};
    const auto duration = [&](std::int64_t ns) { return formatDuration(ns, options.timeUnit); };
    section.paragraphs.push_back(
        "Idle time of each stream inside the steps, by cause: host wait (the next kernel was "
        "launched after the stream went idle: the CPU was late), kernel wait (launched before, "
        "waiting on another stream or an event), other. In all: host wait " +
        duration(idle.totalNs[0]) + ", kernel wait " + duration(idle.totalNs[1]) + ", other " +
        duration(idle.totalNs[2]) + ".");
    // Per stream over every step; the GPU page and `pyrometer-cli idle` have each step.
    std::map<std::pair<std::int32_t, std::int32_t>, analysis::StreamIdle> streams;
    for (const auto &s : idle.streams) {
        auto &sum = streams[{s.device, s.stream}];
        sum.spanNs += s.spanNs;
        sum.busyNs += s.busyNs;
        for (std::size_t c = 0; c < analysis::kIdleCauseCount; ++c)
            sum.idleNs[c] += s.idleNs[c];
    }
    Table table{"Per stream, summed over the steps",
                {"Stream", "Busy", "Host wait", "Kernel wait", "Other"},
                {false, true, true, true, true},
                {},
                {}};
    for (const auto &[key, s] : streams)
        table.rows.push_back({streamName(key.first, key.second), duration(s.busyNs),
                              duration(s.ns(IdleCause::HostWait)), duration(s.ns(IdleCause::KernelWait)),
                              duration(s.ns(IdleCause::Other))});
    section.tables.push_back(std::move(table));
    return section;
}

Section pathSection(const analysis::TraceIndex &index, const std::string &prefix, const ReportOptions &options,
                    const StopToken *stop)
{
    // The longest step by its span on the GPU's clock, whose time the path's length is.
    const auto spans = analysis::buildStepSpans(index, stop);
    const auto longest = analysis::longestStep(spans.steps);
    const auto path = longest == analysis::kNoStep
                          ? analysis::buildCriticalPath(index, analysis::EventRef{}, 5, stop)
                          : analysis::buildCriticalPath(index, spans.steps[std::size_t(longest)], 5, stop);
    const auto duration = [&](std::int64_t ns) { return formatDuration(ns, options.timeUnit); };
    Section section{prefix + "critical-path",
                    "Critical path" + (path.step.empty() ? std::string() : " of " + path.step),
                    3,
                    {},
                    {},
                    {},
                    {}};
    section.paragraphs.push_back("The chain of dependencies (CPU work, launches, kernels, synchronisations, stream "
                                 "order, flows) whose length is the step's time: " +
                                 duration(path.lengthNs()) + ", of which CPU " + duration(path.cpuNs) + ", GPU " +
                                 duration(path.deviceNs) + " and waiting between them " + duration(path.waitNs) + ".");
    Table whatIf{
        "If one of them were twice as fast", {"Node", "Step shorter by", "%"}, {false, true, true}, {}, {true}};
    for (const auto &w : path.whatIfs)
        whatIf.rows.push_back({w.name, duration(w.savedNs), percentText(w.savedPct)});
    if (!whatIf.rows.empty())
        section.tables.push_back(std::move(whatIf));
    // The path's longest nodes, in time order.
    std::vector<std::size_t> order(path.nodes.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return path.nodes[a].durationNs > path.nodes[b].durationNs; });
    if (order.size() > options.topRows)
        order.resize(options.topRows);
    std::sort(order.begin(), order.end());
    Table nodes{"Its " + std::to_string(order.size()) + " longest nodes, in time order",
                {"Node", "Wait before", "Duration", "Share %"},
                {false, true, true, true},
                {},
                {true}};
    for (const auto i : order) {
        const auto &n = path.nodes[i];
        nodes.rows.push_back({n.name, duration(n.waitBeforeNs), duration(n.durationNs), percentText(n.sharePct)});
    }
    section.tables.push_back(std::move(nodes));
    return section;
}

Section sequencesSection(const analysis::TraceIndex &index, const std::string &prefix, const ReportOptions &options,
                         const StopToken *stop)
{
    analysis::SequenceOptions sequenceOptions;
    sequenceOptions.top = std::min<std::size_t>(options.topRows, 10);
    const auto sequences = analysis::findKernelSequences(index, sequenceOptions, stop);
    Section section{prefix + "sequences", "Kernel sequences that repeat", 3, {}, {}, {}, {}};
    if (sequences.empty()) {
        section.paragraphs.push_back("No run of kernels repeats three times or more on a stream.");
        return section;
    }
    const bool replayed = std::any_of(sequences.begin(), sequences.end(),
                                      [](const analysis::KernelSequence &s) { return s.replayedPct >= 50.0; });
    section.paragraphs.push_back(
        replayed ? "Runs of consecutive kernels that repeat on a stream. Those a CUDA graph replays (Graph %) are "
                   "launched at once already: what is left to gain there is fusing them (torch.compile) and the "
                   "gaps inside the replay; the others are candidates for fusion or for capture into the graph."
                 : "Runs of consecutive kernels that repeat on a stream: candidates for fusion (torch.compile) or "
                   "CUDA graphs, which launch a whole run at once.");
    Table table{"",
                {"Kernels", "Length", "Repeats", "Time", "Gaps inside", "Graph %"},
                {false, true, true, true, true, true},
                {},
                {true}};
    for (const auto &s : sequences) {
        std::string names;
        for (const auto &k : s.kernels)
            names += (names.empty() ? "" : " > ") + analysis::shortKernelName(k, 64);
        table.rows.push_back({names, std::to_string(s.kernels.size()), std::to_string(s.occurrences),
                              formatDuration(s.totalNs, options.timeUnit), formatDuration(s.gapNs, options.timeUnit),
                              std::to_string(std::lround(s.replayedPct))});
    }
    section.tables.push_back(std::move(table));
    return section;
}

} // namespace

std::vector<Section> gpuSections(const analysis::TraceIndex &index, const std::string &idPrefix,
                                 const ReportOptions &options, const StopToken *stop)
{
    if (!index.hasDevice)
        return {};
    std::vector<Section> sections;
    sections.push_back(typesSection(index, idPrefix, options, stop));
    sections.push_back(launchesSection(index, idPrefix, options, stop));
    sections.push_back(idleSection(index, idPrefix, options, stop));
    sections.push_back(pathSection(index, idPrefix, options, stop));
    sections.push_back(sequencesSection(index, idPrefix, options, stop));
    if (stop && stop->stopRequested())
        return {};
    return sections;
}

} // namespace pyrometer::report
