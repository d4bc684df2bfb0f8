#include "ui/flamegraph/flametooltip.h"

#include "core/util/format.h"

#include <QLocale>
#include <QObject>

namespace pyrometer::ui::flamegraph {

namespace {

double shareOf(std::int64_t part, std::int64_t whole)
{
    return whole > 0 ? double(part) / double(whole) : 0.0;
}

QString row(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td>%1</td><td align=right>%2</td></tr>").arg(label, value);
}

QString signedValue(std::int64_t v, FlameUnit unit)
{
    return (v > 0 ? QStringLiteral("+") : v < 0 ? QStringLiteral("−") : QString()) + valueText(v < 0 ? -v : v, unit);
}

QString heading(std::string_view name)
{
    return QStringLiteral("<b>%1</b><table>").arg(QString::fromUtf8(name.data(), qsizetype(name.size())).toHtmlEscaped());
}

} // namespace

QString percent(double share)
{
    if (share > 0 && share < 0.0005)
        return QStringLiteral("<0.1%");
    return QStringLiteral("%1%").arg(QLocale().toString(share * 100, 'f', 1));
}

QString duration(std::int64_t ns)
{
    return QString::fromStdString(formatDuration(ns));
}

QString valueText(std::int64_t value, FlameUnit unit)
{
    return unit == FlameUnit::Bytes
               ? QString::fromStdString(formatBytes(std::uint64_t(std::max<std::int64_t>(0, value))))
               : duration(value);
}

QString frameToolTip(const analysis::FlameGraph &graph, std::uint32_t node, FlameUnit unit)
{
    const auto &nodes = graph.tree.nodes;
    const auto &n = nodes[node];
    const auto rootTotal = nodes[0].totalNs;
    QString text = heading(graph.label(node));
    text += row(QObject::tr("Total"), valueText(n.totalNs, unit));
    text += row(QObject::tr("Self"), valueText(n.selfNs, unit));
    if (n.calls > 0)
        text += row(unit == FlameUnit::Bytes ? QObject::tr("Blocks") : QObject::tr("Calls"),
                    QLocale().toString(qulonglong(n.calls)));
    text += row(QObject::tr("Of total"), percent(shareOf(n.totalNs, rootTotal)));
    if (node != 0)
        text += row(QObject::tr("Of parent"), percent(shareOf(n.totalNs, nodes[n.parent].totalNs)));
    if (graph.isDiff()) {
        const auto &base = graph.base[node];
        if (graph.presence[node] == analysis::Presence::OtherOnly) {
            text += row(QObject::tr("Base"), QObject::tr("not in the base run"));
        } else {
            text += row(QObject::tr("Base total"), valueText(base.totalNs, unit));
            QString change = signedValue(n.totalNs - base.totalNs, unit);
            if (base.totalNs > 0)
                change += QStringLiteral(" (%1%2)")
                              .arg(n.totalNs >= base.totalNs ? QStringLiteral("+") : QString())
                              .arg(percent(shareOf(n.totalNs - base.totalNs, base.totalNs)));
            text += row(QObject::tr("Change"), change);
        }
    }
    return text + QStringLiteral("</table>");
}

QString mergedToolTip(const analysis::FlameGraph &graph, std::uint32_t first, std::uint32_t count, FlameUnit unit)
{
    const auto &nodes = graph.tree.nodes;
    const auto parent = nodes[first].parent;
    std::int64_t total = 0;
    const auto &siblings = nodes[parent].children;
    bool from = false;
    for (const auto child : siblings) {
        from = from || child == first;
        if (from)
            total += nodes[child].totalNs;
    }
    QString text = QObject::tr("<b>%1 frames</b>, each narrower than a pixel, under %2<table>")
                       .arg(count)
                       .arg(QString::fromUtf8(graph.label(parent).data(), qsizetype(graph.label(parent).size())).toHtmlEscaped());
    text += row(QObject::tr("Total"), valueText(total, unit));
    text += row(QObject::tr("Of total"), percent(shareOf(total, nodes[0].totalNs)));
    text += row(QObject::tr("Largest"), QString::fromStdString(nodes[first].name).toHtmlEscaped());
    return text + QObject::tr("</table>Zoom in to see them.");
}

QString chartToolTip(const analysis::FlameChart &chart, std::uint32_t lane, std::uint32_t position, std::uint32_t count)
{
    const auto &l = chart.lanes[lane];
    const auto &trace = *chart.index->trace;
    const auto &track = trace.track(l.track);
    const auto event = l.events[position];
    if (count > 1) {
        const auto last = position + count - 1;
        QString text = QObject::tr("<b>%1 slices</b>, each narrower than a pixel<table>").arg(count);
        text += row(QObject::tr("From"), duration(l.start[position] - trace.info.spanStart));
        text += row(QObject::tr("To"), duration(l.end[last] - trace.info.spanStart));
        return text + QObject::tr("</table>Zoom in to see them.");
    }
    const auto total = track.duration[event];
    QString text = heading(trace.string(track.eventName[event]));
    text += row(QObject::tr("Duration"), duration(total));
    text += row(QObject::tr("Self"), duration(l.selfNs[position]));
    text += row(QObject::tr("Starts at"), duration(track.start[event] - trace.info.spanStart));
    text += row(QObject::tr("Of total"), percent(shareOf(total, chart.totalNs)));
    const auto parent = chart.parentOf(l.track, event);
    if (parent.isValid())
        text += row(QObject::tr("Of parent"), percent(shareOf(total, track.duration[parent.value])));
    return text + QStringLiteral("</table>");
}

} // namespace pyrometer::ui::flamegraph
