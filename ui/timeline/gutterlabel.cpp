#include "ui/timeline/gutterlabel.h"

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

} // namespace pyrometer::ui::timeline
