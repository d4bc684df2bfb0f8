#include "ui/gpu/gputrees.h"
#include "ui/shell/displaytext.h"

#include "core/analysis/kernelnames.h"

#include <QCoreApplication>

#include <cmath>
#include <map>
#include <tuple>

namespace pyrometer::ui::gpu {

using tables::ColumnKind;
using tables::TableTree;

namespace {

QString streamLabel(const QString &word, std::int32_t device, std::int32_t stream)
{
    if (stream >= analysis::kFirstLogicalLane)
        return QCoreApplication::translate("GpuTables", "%1 %2 lane %3")
            .arg(word)
            .arg(device)
            .arg(stream - analysis::kFirstLogicalLane);
    return QCoreApplication::translate("GpuTables", "%1 %2 stream %3").arg(word).arg(device).arg(stream);
}

} // namespace

QString pathNodeKindLabel(analysis::PathNodeKind kind)
{
    switch (kind) {
    case analysis::PathNodeKind::Cpu: return QCoreApplication::translate("GpuTables", "CPU");
    case analysis::PathNodeKind::Launch: return QCoreApplication::translate("GpuTables", "Launch");
    case analysis::PathNodeKind::Sync: return QCoreApplication::translate("GpuTables", "Sync");
    case analysis::PathNodeKind::Device: return QCoreApplication::translate("GpuTables", "GPU");
    }
    return {};
}

TableTree buildLaunchTree(const analysis::LaunchStats &stats, bool streams, const QString &device)
{
    // No total delay: in a GPU-bound loop it sums the same queueing once per waiting launch.
    TableTree tree;
    tree.columns = {{streams ? column::kStreamName : column::kKernel, ColumnKind::Text, QStringLiteral("name")},
                    {column::kLaunches, ColumnKind::Count, QStringLiteral("count")},
                    {column::kMedianDelay, ColumnKind::Duration, QStringLiteral("launch_delay_median_us")},
                    {column::kP90Delay, ColumnKind::Duration, QStringLiteral("launch_delay_p90_us")},
                    {column::kMaxDelay, ColumnKind::Duration, QStringLiteral("launch_delay_max_us")}};
    if (streams)
        tree.columns.insert(tree.columns.end(), {{column::kMeanQueue, ColumnKind::Number, QStringLiteral("mean_queue")},
                             {column::kMaxQueue, ColumnKind::Count, QStringLiteral("max_queue")},
                             {column::kIdleEmpty, ColumnKind::Percent, QStringLiteral("idle_empty_pct")}});
    tree.columns.insert(tree.columns.end(), {{column::kCallMean, ColumnKind::Duration, QStringLiteral("cpu_duration_mean_us")},
                         {column::kKernelMean, ColumnKind::Duration, QStringLiteral("gpu_duration_mean_us")},
                         {column::kOutliers, ColumnKind::Count, QStringLiteral("outliers")}});
    tree.defaultSortColumn = streams ? -1 : 3; // kernels by p90 delay
    const auto &groups = streams ? stats.byStream : stats.byKernel;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const auto &g = groups[i];
        const QString name = streams ? streamLabel(device, g.device, g.stream) : qs(g.name);
        // A kernel reads by its short name; the row stands for the full one (tooltip, Timeline).
        const QString shown = streams ? name : qs(analysis::shortKernelName(g.name));
        // A kernel that started before its call returned waited for nothing: 0, not less.
        std::vector<QVariant> values{shown, quint64(g.count), qint64(std::max<std::int64_t>(0, g.delayMedianNs)),
                                     qint64(std::max<std::int64_t>(0, g.delayP90Ns)),
                                     qint64(std::max<std::int64_t>(0, g.delayMaxNs))};
        if (streams) {
            const auto &q = stats.queues[i]; // both by device, then stream
            values.insert(values.end(), {std::round(q.meanDepth() * 10.0) / 10.0, quint64(q.maxLength), 100.0 * q.emptyShare()});
        }
        values.insert(values.end(), {qint64(g.callMeanNs), qint64(g.kernelMeanNs), quint64(g.outliers)});
        tree.addNode(-1, std::move(values), streams ? QString() : name, name);
    }
    return tree;
}

TableTree buildIdleTree(const analysis::IdleBreakdown &idle, const QString &device)
{
    using analysis::IdleCause;
    TableTree tree;
    tree.columns = {{column::kStep, ColumnKind::Text, QStringLiteral("step_stream")},
                    {column::kSpan, ColumnKind::Duration, QStringLiteral("span_us")},
                    {column::kBusy, ColumnKind::Duration, QStringLiteral("busy_us")},
                    {column::kHostWait, ColumnKind::Duration, QStringLiteral("host_wait_us")},
                    {column::kKernelWait, ColumnKind::Duration, QStringLiteral("kernel_wait_us")},
                    {column::kOther, ColumnKind::Duration, QStringLiteral("other_us")}};
    tree.defaultSortColumn = -1; // steps in time order
    int group = -1;
    std::string groupStep;
    std::vector<std::int64_t> sums;
    for (const auto &s : idle.streams) {
        if (group < 0 || s.step != groupStep) {
            groupStep = s.step;
            const QString title = s.step.empty() ? QCoreApplication::translate("GpuTables", "Whole trace") : qs(s.step);
            group =
                tree.addNode(-1, {title, QVariant(), qint64(0), qint64(0), qint64(0), qint64(0)}, qs(s.step), title);
        }
        const QString label = streamLabel(device, s.device, s.stream);
        tree.addNode(group,
                     {label, qint64(s.spanNs), qint64(s.busyNs), qint64(s.ns(IdleCause::HostWait)),
                      qint64(s.ns(IdleCause::KernelWait)), qint64(s.ns(IdleCause::Other))},
                     QString(), tree.nodes[std::size_t(group)].path + QLatin1Char('/') + label);
        // A step's row sums its streams' busy and idle time; its span is each stream's.
        auto &values = tree.nodes[std::size_t(group)].values;
        values[1] = qint64(s.spanNs);
        for (std::size_t c = 2; c < 6; ++c)
            values[c] = values[c].toLongLong() + tree.nodes.back().values[c].toLongLong();
    }
    return tree;
}

TableTree buildCriticalPathTree(const analysis::CriticalPath &path, const std::vector<analysis::PathRow> &rows,
                                std::int64_t originNs)
{
    TableTree tree;
    tree.columns = {{column::kNode, ColumnKind::Text, QStringLiteral("name")},
                    {column::kKind, ColumnKind::Text, QStringLiteral("kind")},
                    {column::kNodes, ColumnKind::Count, QStringLiteral("nodes")},
                    {column::kStart, ColumnKind::Duration, QStringLiteral("start_us")},
                    {column::kWaitBefore, ColumnKind::Duration, QStringLiteral("wait_before_us")},
                    {column::kDuration, ColumnKind::Duration, QStringLiteral("duration_us")},
                    {column::kShare, ColumnKind::Percent, QStringLiteral("share_pct")},
                    {column::kSavedIfTwiceAsFast, ColumnKind::Duration, QStringLiteral("saved_if_twice_as_fast_us")}};
    tree.defaultSortColumn = 5; // the longest first; Start gives time order back
    std::vector<QVariant> saved(path.nodes.size());
    for (const auto &w : path.whatIfs)
        if (w.node < saved.size())
            saved[w.node] = qint64(w.savedNs);
    const auto nodeValues = [&](std::size_t i) {
        const auto &n = path.nodes[i];
        return std::vector<QVariant>{qs(n.name),           pathNodeKindLabel(n.kind), QVariant(),
                                     qint64(n.startNs - originNs), qint64(n.waitBeforeNs), qint64(n.durationNs),
                                     n.sharePct,           saved[i]};
    };
    for (const auto &r : rows) {
        const QString name = qs(r.name);
        if (!r.group) {
            tree.addNode(-1, nodeValues(r.nodes.front()), name, name);
            continue;
        }
        const int group = tree.addNode(-1,
                                       {name, QCoreApplication::translate("GpuTables", "Op"), quint64(r.nodeCount),
                                        qint64(r.startNs - originNs), qint64(r.waitBeforeNs), qint64(r.durationNs),
                                        r.sharePct, QVariant()},
                                       QString(), name);
        for (const auto i : r.nodes) {
            const QString node = qs(path.nodes[i].name);
            tree.addNode(group, nodeValues(i), node, name + QLatin1Char('/') + node);
        }
    }
    return tree;
}

TableTree buildSequenceTree(const std::vector<analysis::KernelSequence> &sequences, const QString &device)
{
    TableTree tree;
    tree.columns = {{column::kSequence, ColumnKind::Text, QStringLiteral("kernels")},
                    {column::kLength, ColumnKind::Count, QStringLiteral("length")},
                    {column::kOccurrences, ColumnKind::Count, QStringLiteral("occurrences")},
                    {column::kStreamName, ColumnKind::Text, QStringLiteral("stream")},
                    {column::kTime, ColumnKind::Duration, QStringLiteral("total_us")},
                    {column::kGaps, ColumnKind::Duration, QStringLiteral("gap_us")},
                    {column::kInGraphs, ColumnKind::Percent, QStringLiteral("replayed_pct")},
                    {column::kOp, ColumnKind::Text, QStringLiteral("op")}};
    tree.defaultSortColumn = 4;
    for (const auto &s : sequences) {
        const QString first = s.kernels.empty() ? QString() : qs(analysis::shortKernelName(s.kernels.front(), 64));
        const QString title =
            QCoreApplication::translate("GpuTables", "%1 kernels from %2").arg(s.kernels.size()).arg(first);
        const int group = tree.addNode(-1,
                                       {title, quint64(s.kernels.size()), quint64(s.occurrences),
                                        streamLabel(device, s.device, s.stream), qint64(s.totalNs), qint64(s.gapNs),
                                        s.replayedPct, QVariant()},
                                       QString(), title);
        for (std::size_t k = 0; k < s.kernels.size(); ++k) {
            const QString kernel = qs(s.kernels[k]);
            tree.addNode(group,
                         {qs(analysis::shortKernelName(s.kernels[k])), QVariant(), QVariant(), QVariant(), QVariant(),
                          QVariant(), QVariant(), k < s.ops.size() ? QVariant(qs(s.ops[k])) : QVariant()},
                         kernel, title + QLatin1Char('/') + kernel);
        }
    }
    return tree;
}

TableTree buildGraphTree(const analysis::GraphReplays &graphs, std::int64_t originNs, const QString &device)
{
    TableTree tree;
    tree.columns = {{column::kGraph, ColumnKind::Text, QStringLiteral("graph")},
                    {column::kStreamName, ColumnKind::Text, QStringLiteral("stream")},
                    {column::kReplays, ColumnKind::Count, QStringLiteral("replays")},
                    {column::kEvents, ColumnKind::Count, QStringLiteral("kernels")},
                    {column::kStart, ColumnKind::Duration, QStringLiteral("start_us")},
                    {column::kSpan, ColumnKind::Duration, QStringLiteral("span_us")},
                    {column::kBusy, ColumnKind::Duration, QStringLiteral("busy_us")},
                    {column::kGaps, ColumnKind::Duration, QStringLiteral("gap_us")},
                    {column::kFirstDelay, ColumnKind::Duration, QStringLiteral("first_kernel_delay_us")},
                    {column::kLongestKernel, ColumnKind::Text, QStringLiteral("longest_kernel")}};
    tree.defaultSortColumn = 6; // graphs by busy time
    std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, int> rowOf;
    for (const auto &g : graphs.graphs) {
        const QString name = qs(analysis::graphName(g.graphId));
        const QString stream = streamLabel(device, g.device, g.stream);
        rowOf[{g.graphId, g.device, g.stream}] =
            tree.addNode(-1,
                         {name, stream, quint64(g.replays), quint64(g.events), QVariant(), qint64(g.spanNs),
                          qint64(g.busyNs), qint64(g.gapNs()), qint64(std::max<std::int64_t>(0, g.delayMedianNs)),
                          qs(analysis::shortKernelName(g.longestKernel, 64))},
                         QString(), name + QLatin1Char(' ') + stream);
    }
    // Each replay under its graph, in time order (its first kernel is what it shows).
    std::map<int, int> numberOf;
    for (const auto &r : graphs.replays) {
        const auto parent = rowOf.find({r.graphId, r.device, r.stream});
        if (parent == rowOf.end())
            continue;
        const auto number = ++numberOf[parent->second];
        const QString name = QCoreApplication::translate("GpuTables", "replay %1").arg(number);
        tree.addNode(parent->second,
                     {name, streamLabel(device, r.device, r.stream), QVariant(), quint64(r.eventCount),
                      qint64(r.startNs - originNs), qint64(r.spanNs()), qint64(r.busyNs), qint64(r.gapNs()),
                      r.call.isValid() ? QVariant(qint64(std::max<std::int64_t>(0, r.delayNs()))) : QVariant(),
                      QVariant()},
                     QString(), tree.nodes[std::size_t(parent->second)].path + QLatin1Char('/') + name);
    }
    return tree;
}

} // namespace pyrometer::ui::gpu
