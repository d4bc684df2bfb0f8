#include "ui/overview/summarycards.h"

#include "ui/shell/preferences.h"

#include "core/trace/trace.h"
#include "core/util/format.h"
#include "ui/workspace/workspace.h"

#include <QFileInfo>
#include <QLocale>
#include <QObject>

namespace pyrometer::ui::overview {

namespace {

QString qs(const std::string &text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString row(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td class='k'>%1</td><td>%2</td></tr>").arg(label, value);
}

} // namespace

QString traceCard(const TraceDocument &document)
{
    const auto &info = document.trace->info;
    const QLocale locale;
    QStringList phases;
    for (const auto &[phase, count] : info.phaseCounts)
        phases.append(
            QStringLiteral("%1&nbsp;%2")
                .arg(phase.empty() ? QStringLiteral("(none)") : qs(phase), locale.toString(qulonglong(count))));
    QString html = QStringLiteral("<h2>%1</h2><table>").arg(QFileInfo(document.path).fileName().toHtmlEscaped());
    html += row(QObject::tr("File"), document.path.toHtmlEscaped());
    html += row(QObject::tr("Size"),
                QString::fromStdString(formatBytes(info.fileBytes)) +
                    (info.jsonBytes != info.fileBytes
                         ? QObject::tr(" (%1 of JSON)").arg(QString::fromStdString(formatBytes(info.jsonBytes)))
                         : QString()));
    html += row(QObject::tr("Events"), locale.toString(qulonglong(info.eventCount)));
    html += row(QObject::tr("Phases"), phases.join(QStringLiteral(", ")));
    html += row(QObject::tr("Processes / tracks"),
                QStringLiteral("%1 / %2").arg(locale.toString(qulonglong(info.processCount)),
                                              locale.toString(qulonglong(info.trackCount))));
    html += row(QObject::tr("Span"), displayDuration(info.spanNanoseconds()));
    QStringList processNames;
    for (const auto &process : document.trace->processes)
        processNames.append(qs(process.name));
    html += row(QObject::tr("Processes"), processNames.join(QStringLiteral(", ")));
    html +=
        row(QObject::tr("Loaded in"),
            QObject::tr("%1 s (%2 MB/s of JSON)").arg(info.loadSeconds, 0, 'f', 3).arg(info.megabytesPerSecond(), 0, 'f', 0));
    if (info.partial)
        html += row(QObject::tr("Partial"), QObject::tr("the file is truncated: only its valid prefix was loaded"));
    if (info.warningCount > 0) {
        QStringList warnings;
        for (const auto &warning : info.warnings)
            warnings.append(qs(warning));
        html += row(QObject::tr("Warnings"),
                    QObject::tr("%1: %2").arg(info.warningCount).arg(warnings.join(QStringLiteral("<br>"))));
    }
    return html + QStringLiteral("</table>");
}

QString modelCard(const ModelDocument &document)
{
    const auto &info = document.info;
    const QLocale locale;
    QString html = QStringLiteral("<h2>%1</h2><table>").arg(QFileInfo(document.path).fileName().toHtmlEscaped());
    html += row(QObject::tr("Model"), document.path.toHtmlEscaped());
    html += row(QObject::tr("Parameters"),
                QObject::tr("%1 (%2)").arg(locale.toString(qulonglong(info.parameters)),
                                           QString::fromStdString(formatBytes(info.parameterBytes))));
    html += row(QObject::tr("Modules"), locale.toString(qulonglong(info.modules.size())));
    html += row(QObject::tr("forward"), QStringLiteral("<code>%1</code>").arg(qs(info.forwardSchema)));
    html += row(QObject::tr("Next"), QObject::tr("the Model page lists its layers"));
    return html + QStringLiteral("</table>");
}

} // namespace pyrometer::ui::overview
