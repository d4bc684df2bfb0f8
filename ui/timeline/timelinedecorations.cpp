// TimelineView's decorations around the event rows: markers, flow arrows, the time ruler and
// the gutter of process and track names.
#include "ui/timeline/timelineview.h"

#include "core/util/format.h"
#include "ui/timeline/gutterlabel.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace pyrometer::ui::timeline {

namespace {

constexpr int kMaxFlowsDrawn = 2000;

} // namespace

void TimelineView::paintMarkers(QPainter &painter) const
{
    if (m_markers.empty())
        return;
    const QRect rows = rowsRect();
    painter.save();
    painter.setClipRect(rows);
    const QColor colour(230, 150, 20);
    QColor band = colour;
    band.setAlpha(28);
    QPen edge(colour, 1, Qt::DashLine);
    const QFontMetrics metrics(painter.font());
    for (const auto &marker : m_markers) {
        const double x0 = rows.left() + m_viewport.toX(marker.startNs);
        const double x1 = rows.left() + m_viewport.toX(marker.endNs);
        if (x1 < rows.left() - 1 || x0 > rows.right() + 1)
            continue;
        if (marker.endNs > marker.startNs)
            painter.fillRect(QRectF(x0, rows.top(), std::max(1.0, x1 - x0), rows.height()), band);
        painter.setPen(edge);
        painter.drawLine(QPointF(x0, rows.top()), QPointF(x0, rows.bottom()));
        if (marker.endNs > marker.startNs)
            painter.drawLine(QPointF(x1, rows.top()), QPointF(x1, rows.bottom()));
        // The name on a flag at the top of the rows, left-aligned on the start line.
        const QString label = metrics.elidedText(marker.name, Qt::ElideRight, 240);
        const QRectF flag(x0, rows.top(), metrics.horizontalAdvance(label) + 8, metrics.height() + 2);
        painter.fillRect(flag, colour);
        painter.setPen(Qt::black);
        painter.drawText(flag.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
    }
    painter.restore();
}

void TimelineView::paintFlows(QPainter &painter) const
{
    if (!m_selected && !m_showAllFlows)
        return;
    const auto &trace = *m_index->trace;
    const QRect rows = rowsRect();
    painter.save();
    painter.setClipRect(rows);
    painter.setRenderHint(QPainter::Antialiasing);
    const auto pointOf = [&](const trace::FlowEnd &end) -> std::optional<QPointF> {
        if (!end.track.isValid())
            return std::nullopt;
        std::uint32_t row = m_index->trackFirstRow[end.track.value];
        if (end.event.isValid())
            row = m_index->rowOf(end.track, end.event);
        if (m_index->trackRowCount[end.track.value] == 0)
            return std::nullopt;
        const int layoutRow = m_layout.sliceRowToLayout[row];
        if (layoutRow < 0)
            return std::nullopt;
        const auto &lr = m_layout.rows[std::size_t(layoutRow)];
        return QPointF(rows.left() + m_viewport.toX(double(end.time)),
                       rows.top() + lr.y - m_viewport.scrollY + lr.height / 2.0);
    };
    const auto involves = [&](const trace::FlowEnd &end) {
        return m_selected && end.track == m_selected->track && end.event.isValid() &&
               end.event.value == m_selected->event;
    };
    int drawn = 0;
    painter.setPen(QPen(QColor(220, 40, 60), 1.5));
    for (const auto &flow : trace.flows) {
        if (!(involves(flow.from) || involves(flow.to))) {
            if (!m_showAllFlows)
                continue;
            const double a = double(flow.from.time), b = double(flow.to.time);
            if (std::max(a, b) < m_viewport.startNs || std::min(a, b) > m_viewport.endNs())
                continue;
        }
        const auto from = pointOf(flow.from);
        const auto to = pointOf(flow.to);
        if (!from || !to)
            continue;
        QPainterPath path(*from);
        const double bend = std::max(20.0, std::abs(to->x() - from->x()) / 3);
        path.cubicTo(from->x() + bend, from->y(), to->x() - bend, to->y(), to->x(), to->y());
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
        // The curve ends horizontally, so the head points right.
        const QPointF tip = *to;
        const QPolygonF head{tip, tip + QPointF(-7, -3.5), tip + QPointF(-7, 3.5)};
        painter.setBrush(QColor(220, 40, 60));
        painter.drawPolygon(head);
        if (++drawn >= kMaxFlowsDrawn)
            break;
    }
    painter.restore();
}

void TimelineView::paintRuler(QPainter &painter) const
{
    const QRect rows = rowsRect();
    painter.fillRect(QRect(0, 0, width(), kRulerHeight + kStepBandHeight), palette().window());
    painter.setPen(palette().text().color());
    const auto ticks = rulerTicks(m_viewport, double(m_index->spanStart));
    const QFontMetricsF rulerMetrics(painter.font());
    std::vector<float> widths;
    for (const auto &tick : ticks) {
        const double x = rows.left() + tick.x;
        widths.push_back(float(rulerMetrics.horizontalAdvance(QString::fromStdString(tick.label))));
        if (x >= rows.left() && x <= rows.right())
            painter.drawLine(QPointF(x, kRulerHeight - 6), QPointF(x, kRulerHeight));
    }
    // Labels stay inside the rows' width: the last one moves left of its tick, or is left out.
    for (const auto &label : placeTickLabels(ticks, widths, float(rows.width())))
        painter.drawText(QPointF(rows.left() + label.left, kRulerHeight - 8),
                         QString::fromStdString(ticks[label.tick].label));
    painter.save();
    painter.setClipRect(QRect(rows.left(), kRulerHeight, rows.width(), kStepBandHeight));
    bool odd = false;
    for (const auto &step : m_drawList.steps) {
        const QRectF band(rows.left() + step.x0, kRulerHeight + 1, std::max(step.x1 - step.x0, 1.0f),
                          kStepBandHeight - 2);
        painter.fillRect(band, odd ? QColor(120, 144, 156) : QColor(84, 110, 122));
        odd = !odd;
        painter.setPen(Qt::white);
        const QFontMetrics metrics(painter.font());
        painter.drawText(band.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                         metrics.elidedText(QString::fromStdString(step.name), Qt::ElideRight, int(band.width()) - 6));
    }
    painter.restore();
    painter.setPen(palette().mid().color());
    painter.drawLine(0, kRulerHeight + kStepBandHeight - 1, width(), kRulerHeight + kStepBandHeight - 1);
}

void TimelineView::paintGutter(QPainter &painter) const
{
    // The names change only with the rows, the scroll position, the size or the look: zooming
    // and panning, which repaint all the rest, draw them from an image of them kept meanwhile.
    const QRect rows = rowsRect();
    const qreal ratio = painter.device() ? painter.device()->devicePixelRatio() : 1.0;
    const GutterKey key{m_layoutGeneration, m_viewport.scrollY, size(), ratio, palette().cacheKey(), font().key()};
    if (!(key == m_gutterKey) || m_gutter.isNull()) {
        m_gutter = QImage(QSize(int(std::lround(kGutterWidth * ratio)), int(std::lround(rows.height() * ratio))),
                          QImage::Format_RGB32);
        m_gutter.setDevicePixelRatio(ratio);
        QPainter gutter(&m_gutter);
        gutter.translate(0, -rows.top());
        gutter.setFont(font());
        paintGutterNames(gutter);
        m_gutterKey = key;
    }
    painter.drawImage(QPoint(0, rows.top()), m_gutter);
}

void TimelineView::paintGutterNames(QPainter &painter) const
{
    const QRect rows = rowsRect();
    painter.fillRect(QRect(0, rows.top(), kGutterWidth, rows.height()), palette().window());
    painter.save();
    painter.setClipRect(QRect(0, rows.top(), kGutterWidth, rows.height()));
    const auto &trace = *m_index->trace;
    const QFontMetrics metrics(font());
    QFont bold = font();
    bold.setBold(true);
    const auto [first, last] = m_layout.rowsIn(m_viewport.scrollY, m_viewport.scrollY + m_viewport.height);
    for (int r = first; r < last; ++r) {
        const auto &row = m_layout.rows[std::size_t(r)];
        const QRect band(4, rows.top() + row.y - m_viewport.scrollY, kGutterWidth - 8, row.height);
        QString text;
        if (row.kind == RowKind::Process) {
            painter.setFont(bold);
            painter.setPen(palette().text().color());
            painter.drawText(band, Qt::AlignVCenter | Qt::AlignLeft, gutterLabel(r));
        } else if (row.kind == RowKind::Slices && row.firstOfTrack) {
            painter.setFont(font());
            text = QStringLiteral("   ") + QString::fromStdString(trace.track(m_index->rows[row.ref].trackId).name);
        } else if (row.kind == RowKind::Counter) {
            painter.setFont(font());
            const auto &counter = m_index->counter(row.ref);
            const double maxValue = m_index->counterMax[row.ref];
            const QString name = QStringLiteral("   ") + QString::fromStdString(counter.name);
            const QString peak = counterPeakText(counter.name, maxValue);
            if (band.height() >= 2 * metrics.height()) {
                // Tall enough for two lines: the name, and under it the scale's top.
                const int middle = band.top() + band.height() / 2;
                painter.setPen(palette().text().color());
                painter.drawText(QRect(band.left(), middle - metrics.height(), band.width(), metrics.height()),
                                 Qt::AlignLeft | Qt::AlignBottom,
                                 metrics.elidedText(name, Qt::ElideMiddle, band.width()));
                painter.setPen(palette().placeholderText().color());
                painter.drawText(QRect(band.left(), middle, band.width(), metrics.height()),
                                 Qt::AlignLeft | Qt::AlignTop, QStringLiteral("   ") + peak);
            } else {
                text = QStringLiteral("%1 (%2)").arg(name, peak);
            }
        }
        if (!text.isEmpty()) {
            painter.setPen(palette().text().color());
            // Elided in the middle, as names differ at their ends (ids, devices); the tooltip
            // gives them whole.
            painter.drawText(band, Qt::AlignVCenter | Qt::AlignLeft,
                             metrics.elidedText(text, Qt::ElideMiddle, band.width()));
        }
    }
    // The header of the process whose rows fill the top stays in sight while they scroll.
    if (const int header = stickyHeaderRow(); header >= 0) {
        const auto &row = m_layout.rows[std::size_t(header)];
        const QRect band(0, rows.top(), kGutterWidth, row.height);
        painter.fillRect(band, palette().alternateBase());
        painter.setPen(palette().mid().color());
        painter.drawLine(band.bottomLeft(), band.bottomRight());
        painter.setFont(bold);
        painter.setPen(palette().text().color());
        painter.drawText(band.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, gutterLabel(header));
    }
    painter.restore();
    painter.setPen(palette().mid().color());
    painter.drawLine(kGutterWidth - 1, rows.top(), kGutterWidth - 1, rows.bottom());
}

QString TimelineView::gutterName(QPoint widgetPos) const
{
    const QRect rows = rowsRect();
    if (!m_index || widgetPos.x() >= kGutterWidth || widgetPos.y() < rows.top())
        return {};
    int r = m_layout.rowAt(widgetPos.y() - rows.top() + m_viewport.scrollY);
    if (const int header = stickyHeaderRow();
        header >= 0 && widgetPos.y() < rows.top() + m_layout.rows[std::size_t(header)].height)
        r = header;
    if (r < 0)
        return {};
    const auto &row = m_layout.rows[std::size_t(r)];
    const auto &trace = *m_index->trace;
    switch (row.kind) {
    case RowKind::Process: return QString::fromStdString(trace.processes[row.process].name);
    case RowKind::Slices: return QString::fromStdString(trace.track(m_index->rows[row.ref].trackId).name);
    case RowKind::Counter: return QString::fromStdString(m_index->counter(row.ref).name);
    }
    return {};
}

QString TimelineView::gutterLabel(int layoutRow) const
{
    if (!m_index || layoutRow < 0 || std::size_t(layoutRow) >= m_layout.rows.size())
        return {};
    const auto &row = m_layout.rows[std::size_t(layoutRow)];
    if (row.kind != RowKind::Process)
        return {};
    QFont bold = font();
    bold.setBold(true);
    // The head: the collapse mark and a combined trace's rank ("rank 0 · "); the tail: the
    // process's labels (" (GPU 0)").
    const auto &process = m_index->trace->processes[row.process];
    QString body = QString::fromStdString(process.name);
    QString tail;
    if (const QString label = QStringLiteral(" (%1)").arg(QString::fromStdString(process.label));
        !process.label.empty() && body.endsWith(label)) {
        tail = label;
        body.chop(label.size());
    }
    QString head = processLabel(row.process).left(2);
    if (const auto separator = body.indexOf(QStringLiteral(" \u00b7 ")); separator > 0) {
        head += body.left(separator + 3);
        body.remove(0, separator + 3);
    }
    return fitProcessLabel(head, body, tail, QFontMetrics(bold), kGutterWidth - 8);
}

QString TimelineView::processLabel(std::uint32_t process) const
{
    return (m_collapsed.count(process) ? QStringLiteral("\u25b8 ") : QStringLiteral("\u25be ")) +
           QString::fromStdString(m_index->trace->processes[process].name);
}

} // namespace pyrometer::ui::timeline
