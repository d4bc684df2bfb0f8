#include "ui/timeline/gutterlabel.h"

#include "core/util/format.h"

#include <algorithm>
#include <cstdint>

namespace pyrometer::ui::timeline {

QString fitProcessLabel(const QString &head, const QString &body, const QString &tail, const QFontMetrics &metrics,
                        int width)
{
    const QString whole = head + body + tail;
    if (metrics.horizontalAdvance(whole) <= width)
        return whole;
    const QString ellipsis(QChar(0x2026));
    // The body keeps at least its first letter and the ellipsis: "▾ rank 0 · p… (GPU 0)".
    const int room = width - metrics.horizontalAdvance(head + tail);
    if (!body.isEmpty() && room >= metrics.horizontalAdvance(body.left(1) + ellipsis)) {
        const QString elided = metrics.elidedText(body, Qt::ElideRight, room);
        if (elided.contains(ellipsis))
            return head + elided + tail;
    }
    return metrics.elidedText(whole, Qt::ElideRight, width);
}

QString counterPeakText(const std::string &name, double maxValue)
{
    const bool bytes = name.find("emory") != std::string::npos || name.rfind("Snapshot ", 0) == 0;
    return QStringLiteral("max %1").arg(
        bytes ? QString::fromStdString(formatBytes(std::uint64_t(std::max(0.0, maxValue))))
              : QString::number(maxValue, 'g', 4));
}

} // namespace pyrometer::ui::timeline
