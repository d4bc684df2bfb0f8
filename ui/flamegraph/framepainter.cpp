#include "ui/flamegraph/framepainter.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QVector>

#include <unordered_map>

namespace pyrometer::ui::flamegraph {

void showFrameToolTip(QWidget *widget, const QHelpEvent *event, const QString &text)
{
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPos(), text, widget);
}

QColor textColorOn(std::uint32_t fill)
{
    const int r = int((fill >> 16) & 0xff);
    const int g = int((fill >> 8) & 0xff);
    const int b = int(fill & 0xff);
    return (r * 299 + g * 587 + b * 114) / 1000 > 140 ? QColor(20, 20, 20) : QColor(Qt::white);
}

void paintFrames(QPainter &painter, const std::vector<PaintFrame> &frames,
                 const std::function<QString(std::uint32_t)> &label, const std::function<QString(std::uint32_t)> &suffix)
{
    std::unordered_map<std::uint32_t, QVector<QRect>> byColor;
    for (const auto &frame : frames) {
        QRect r = frame.rect;
        if (r.width() > 2)
            r.setWidth(r.width() - 1);
        r.setHeight(r.height() - 1);
        byColor[frame.color].append(r);
    }
    for (const auto &[color, rects] : byColor) {
        const QColor fill = QColor::fromRgba(color);
        for (const auto &rect : rects)
            painter.fillRect(rect, fill);
    }

    const QFontMetrics metrics(painter.font());
    const int padding = 3;
    const int minimum = metrics.horizontalAdvance(QStringLiteral("ab…")) + 2 * padding;
    for (const auto &frame : frames) {
        const QRect r = frame.rect.intersected(painter.window());
        if (!frame.labelled || r.width() < minimum)
            continue;
        const int room = r.width() - 2 * padding - 1;
        QString text = label(frame.key);
        const QString extra = suffix(frame.key);
        const QString full = extra.isEmpty() ? text : text + QStringLiteral("  ") + extra;
        if (metrics.horizontalAdvance(full) <= room)
            text = full;
        else if (metrics.horizontalAdvance(text) > room)
            text = metrics.elidedText(text, Qt::ElideRight, room);
        if (text.isEmpty() || text == QStringLiteral("…"))
            continue;
        painter.setPen(textColorOn(frame.color));
        painter.drawText(QRect(r.left() + padding, r.top(), room, r.height() - 1), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
}

} // namespace pyrometer::ui::flamegraph
