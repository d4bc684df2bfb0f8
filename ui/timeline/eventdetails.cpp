#include "ui/timeline/eventdetails.h"

#include "core/analysis/kernelnames.h"
#include "core/util/format.h"
#include "ui/shell/preferences.h"

namespace pyrometer::ui::timeline {

namespace {

QString text(std::string_view view)
{
    return QString::fromUtf8(view.data(), qsizetype(view.size())).toHtmlEscaped();
}

QString duration(std::int64_t ns)
{
    return displayDuration(ns);
}

QString row(const QString &key, const QString &value)
{
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key, value);
}

QString describe(const trace::Trace &trace, const trace::FlowEnd &end)
{
    if (!end.track.isValid())
        return QObject::tr("(not in this trace)");
    const auto &track = trace.track(end.track);
    const QString where = QString::fromStdString(trace.process(track.process).name + " / " + track.name).toHtmlEscaped();
    if (!end.event.isValid())
        return where;
    return QStringLiteral("%1 (%2) on %3")
        .arg(text(trace.string(track.eventName[end.event.value])), duration(track.duration[end.event.value]), where);
}

} // namespace

std::int64_t selfTime(const trace::Track &track, std::uint32_t event)
{
    const auto end = track.start[event] + track.duration[event];
    std::int64_t children = 0;
    for (std::size_t i = event + 1; i < track.size() && track.start[i] <= end; ++i) {
        if (track.parent[i].isValid() && track.parent[i].value == event)
            children += track.duration[i];
    }
    return std::max<std::int64_t>(0, track.duration[event] - children);
}

QString eventDetailsHtml(const TimelineIndex &index, const EventRef &ref)
{
    const auto &trace = *index.trace;
    const auto &track = trace.track(ref.track);
    const auto e = ref.event;
    const auto name = trace.string(track.eventName[e]);
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(text(name));
    // A mangled kernel name (CUPTI writes some so) reads as its demangled signature too.
    if (const auto demangled = analysis::demangledKernelName(name); demangled != name)
        html += row(QObject::tr("Demangled"), text(demangled));
    html += row(QObject::tr("Category"), text(trace.string(track.category[e])));
    html += row(QObject::tr("Track"), QString::fromStdString(trace.process(track.process).name + " / " + track.name).toHtmlEscaped());
    html += row(QObject::tr("Start"), QObject::tr("%1 after the trace start (ts %2 \u00b5s)")
                                          .arg(duration(track.start[e] - index.spanStart))
                                          .arg(double(track.start[e]) / 1000.0, 0, 'f', 3));
    html += row(QObject::tr("Duration"), duration(track.duration[e]));
    html += row(QObject::tr("Self time"), duration(selfTime(track, e)));
    // A kernel, memcpy or memset: the operator whose launch made it, before the runtime call.
    if (index.analysis) {
        const auto &trackIndex = index.analysis->track(ref.track);
        if (e < trackIndex.launchOp.size() && trackIndex.launchOp[e].isValid()) {
            const auto op = trackIndex.launchOp[e];
            const auto &opTrack = trace.track(op.track);
            html += row(QObject::tr("Launched by"),
                        QStringLiteral("<b>%1</b> (%2) on %3")
                            .arg(text(trace.string(opTrack.eventName[op.event.value])), duration(opTrack.duration[op.event.value]),
                                 QString::fromStdString(trace.process(opTrack.process).name + " / " + opTrack.name).toHtmlEscaped()));
        }
    }
    if (const auto *args = trace.eventArgs(ref.track, trace::EventIndex(e))) {
        if (args->inputDims.isValid())
            html += row(QObject::tr("Input dims"), text(trace.string(args->inputDims)));
        if (args->inputTypes.isValid())
            html += row(QObject::tr("Input types"), text(trace.string(args->inputTypes)));
        if (args->correlation >= 0)
            html += row(QObject::tr("Correlation"), QString::number(args->correlation));
        if (args->externalId >= 0)
            html += row(QObject::tr("External id"), QString::number(args->externalId));
        if (args->device >= 0)
            html += row(QObject::tr("Device / stream"),
                        QString::fromStdString(analysis::streamName(args->device, args->stream)).toHtmlEscaped());
        if (args->graphId > 0)
            html += row(QObject::tr("CUDA graph"),
                        QObject::tr("graph %1: replayed by the cudaGraphLaunch of correlation %2")
                            .arg(args->graphId)
                            .arg(args->correlation));
    }
    if (const auto *extra = trace.extra(ref.track, trace::EventIndex(e))) {
        if (extra->kernelHash.isValid())
            html += row(QObject::tr("Generated kernel"),
                        QStringLiteral("%1 %2<br>%3 %4")
                            .arg(text(trace.string(extra->kernelBackend)), text(trace.string(extra->kernelHash)),
                                 text(trace.string(extra->kernelFile)), text(trace.string(extra->kernelKwargs))));
        if (extra->waitOnCorrelation >= 0)
            html += row(QObject::tr("Waits on"), QObject::tr("the event recorded by correlation %1 (stream %2)")
                                                     .arg(extra->waitOnCorrelation)
                                                     .arg(extra->waitOnStream));
    }
    QStringList stack;
    for (auto parent = track.parent[e]; parent.isValid(); parent = track.parent[parent.value])
        stack.append(text(trace.string(track.eventName[parent.value])));
    if (!stack.isEmpty())
        html += row(QObject::tr("Stack"), stack.join(QStringLiteral("<br>")));
    QStringList links;
    for (const auto &flow : trace.flows) {
        const bool isFrom = flow.from.track == ref.track && flow.from.event.isValid() && flow.from.event.value == e;
        const bool isTo = flow.to.track == ref.track && flow.to.event.isValid() && flow.to.event.value == e;
        if (isFrom)
            links.append(QObject::tr("\u2192 %1").arg(describe(trace, flow.to)));
        else if (isTo)
            links.append(QObject::tr("\u2190 %1").arg(describe(trace, flow.from)));
        if (links.size() >= 20)
            break;
    }
    if (!links.isEmpty())
        html += row(QObject::tr("Linked"), links.join(QStringLiteral("<br>")));
    return html + QStringLiteral("</table>");
}

} // namespace pyrometer::ui::timeline
