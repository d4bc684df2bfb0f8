#include "ui/timeline/overviewstrip.h"

#include "ui/timeline/timelineview.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace pyrometer::ui::timeline {

OverviewStrip::OverviewStrip(TimelineView *view, QWidget *parent) : QWidget(parent), m_view(view)
{
    setFixedHeight(36);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("The whole trace: click or drag to move the visible window"));
    connect(view, &TimelineView::viewportChanged, this, qOverload<>(&QWidget::update));
}

void OverviewStrip::setIndex(std::shared_ptr<const TimelineIndex> index)
{
    m_index = std::move(index);
    m_profile = m_index ? busyProfile(*m_index, std::max(1, width() - TimelineView::kGutterWidth)) : std::vector<double>();
    update();
}

std::vector<double> OverviewStrip::busyProfile(const TimelineIndex &index, int bins)
{
    std::vector<double> busy(std::size_t(std::max(bins, 1)), 0.0);
    const double start = double(index.spanStart);
    const double binNs = double(index.spanEnd - index.spanStart) / double(busy.size());
    std::size_t tracks = 0;
    for (const auto &track : index.trace->tracks) {
        if (track.size() == 0)
            continue;
        ++tracks;
        for (std::size_t e = 0; e < track.size(); ++e) {
            if (track.depth[e] != 0)
                continue;
            // Spread the event's duration over the bins it covers.
            double from = (double(track.start[e]) - start) / binNs;
            const double to = (double(track.start[e] + track.duration[e]) - start) / binNs;
            while (from < to) {
                const double binEnd = std::floor(from) + 1;
                const auto bin = std::size_t(std::clamp(std::floor(from), 0.0, double(busy.size() - 1)));
                busy[bin] += std::min(binEnd, to) - from;
                from = binEnd;
            }
        }
    }
    for (auto &value : busy)
        value = tracks ? std::min(1.0, value / double(tracks)) : 0.0;
    return busy;
}

void OverviewStrip::resizeEvent(QResizeEvent *)
{
    if (m_index)
        m_profile = busyProfile(*m_index, std::max(1, width() - TimelineView::kGutterWidth));
}

void OverviewStrip::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    const QRect area(TimelineView::kGutterWidth, 2, width() - TimelineView::kGutterWidth - 16, height() - 4);
    painter.fillRect(area, palette().base());
    painter.setPen(palette().text().color());
    painter.drawText(QRect(6, 0, TimelineView::kGutterWidth - 10, height()), Qt::AlignVCenter, tr("Whole trace"));
    if (!m_index || m_profile.empty())
        return;
    const double binWidth = double(area.width()) / double(m_profile.size());
    for (std::size_t i = 0; i < m_profile.size(); ++i) {
        const double h = m_profile[i] * area.height();
        painter.fillRect(QRectF(area.left() + i * binWidth, area.bottom() - h, std::max(binWidth, 1.0), h), QColor(78, 121, 167));
    }
    const double span = double(m_index->spanEnd - m_index->spanStart);
    const auto &viewport = m_view->viewport();
    const double x0 = area.left() + (viewport.startNs - double(m_index->spanStart)) / span * area.width();
    const double x1 = area.left() + (viewport.endNs() - double(m_index->spanStart)) / span * area.width();
    const QRectF window(std::max(x0, double(area.left())), area.top(), std::max(std::min(x1, double(area.right())) - std::max(x0, double(area.left())), 2.0),
                        area.height());
    painter.fillRect(window, QColor(255, 170, 0, 60));
    painter.setPen(QPen(QColor(230, 120, 0), 1.5));
    painter.drawRect(window);
}

void OverviewStrip::centerOn(double x)
{
    if (!m_index)
        return;
    const double areaLeft = TimelineView::kGutterWidth;
    const double areaWidth = std::max(1, width() - TimelineView::kGutterWidth - 16);
    const double span = double(m_index->spanEnd - m_index->spanStart);
    const double center = double(m_index->spanStart) + (x - areaLeft) / areaWidth * span;
    const auto &viewport = m_view->viewport();
    const double half = viewport.nsPerPixel * viewport.width / 2;
    m_view->setVisibleRange(center - half, center + half);
}

void OverviewStrip::mousePressEvent(QMouseEvent *event)
{
    centerOn(event->position().x());
}

void OverviewStrip::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        centerOn(event->position().x());
}

} // namespace pyrometer::ui::timeline
