#include "ui/flamegraph/flamechartview.h"

#include "ui/flamegraph/flamecolors.h"
#include "ui/flamegraph/flametooltip.h"
#include "ui/flamegraph/framepainter.h"
#include "ui/timeline/colors.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace pyrometer::ui::flamegraph {

FlameChartView::FlameChartView(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(60);
}

int FlameChartView::rowHeight() const
{
    return fontMetrics().height() + 5;
}

void FlameChartView::setChart(std::shared_ptr<const ChartData> chart)
{
    m_chart = std::move(chart);
    m_viewport.scrollY = 0;
    m_nameMatched.clear();
    showAll();
}

void FlameChartView::setByName(bool byName)
{
    m_byName = byName;
    update();
}

void FlameChartView::setSearchText(const QString &text)
{
    m_nameMatched.clear();
    if (m_chart && !text.isEmpty()) {
        const auto &strings = m_chart->source->trace->strings;
        m_nameMatched.resize(strings.size());
        for (std::uint32_t id = 0; id < strings.size(); ++id) {
            const auto name = strings.view(trace::StringId(id));
            m_nameMatched[id] = QString::fromUtf8(name.data(), qsizetype(name.size())).contains(text, Qt::CaseInsensitive);
        }
    }
    update();
}

void FlameChartView::showRange(double startNs, double endNs, std::optional<analysis::EventRef> focus)
{
    m_focus = focus;
    m_viewport.width = std::max(1, width());
    m_viewport.height = height();
    m_viewport.rowHeight = rowHeight();
    m_viewport.startNs = startNs;
    m_viewport.nsPerPixel = std::max(1e-3, (endNs - startNs) / m_viewport.width);
    m_layoutValid = false;
    update();
    Q_EMIT zoomChanged();
}

void FlameChartView::showAll()
{
    if (!m_chart) {
        m_focus.reset();
        m_layoutValid = false;
        update();
        return;
    }
    const auto &chart = m_chart->chart;
    showRange(double(chart.startNs), double(std::max(chart.endNs, chart.startNs + 1)));
}

std::vector<analysis::EventRef> FlameChartView::focusPath() const
{
    std::vector<analysis::EventRef> path;
    if (!m_chart || !m_focus)
        return path;
    for (auto e = m_focus->event; e.isValid(); e = m_chart->chart.parentOf(m_focus->track, e.value))
        path.push_back({m_focus->track, e});
    std::reverse(path.begin(), path.end());
    return path;
}

void FlameChartView::clampScroll()
{
    const int content = m_layout.contentHeight;
    m_viewport.scrollY = std::clamp(m_viewport.scrollY, 0, std::max(0, content - height()));
}

const analysis::ChartLayout &FlameChartView::currentLayout()
{
    m_viewport.width = width();
    m_viewport.height = height();
    m_viewport.rowHeight = rowHeight();
    if (!m_layoutValid || !(m_layout.viewport == m_viewport)) {
        m_layout = m_chart ? analysis::layoutFlameChart(m_chart->chart, m_viewport) : analysis::ChartLayout{};
        m_layoutValid = true;
    }
    return m_layout;
}

void FlameChartView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (!m_chart)
        return;
    const auto &layout = currentLayout();
    const auto &trace = *m_chart->source->trace;
    const auto &lanes = m_chart->chart.lanes;
    const int rh = m_viewport.rowHeight;
    for (const auto &header : layout.headers) {
        const QRect band(0, header.y, width(), rh);
        painter.fillRect(band, palette().alternateBase());
        painter.setPen(palette().text().color());
        const QString name = QString::fromStdString(m_chart->chart.threads[header.thread].name);
        painter.drawText(band.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                         fontMetrics().elidedText(name, Qt::ElideMiddle, width() - 12));
    }
    std::vector<PaintFrame> frames;
    frames.reserve(layout.boxes.size());
    // Keys for labels: the box's index in the layout.
    for (std::uint32_t i = 0; i < layout.boxes.size(); ++i) {
        const auto &cb = layout.boxes[i];
        const auto &b = cb.box;
        const auto &track = trace.track(lanes[cb.lane].track);
        const auto event = lanes[cb.lane].events[cb.position];
        const auto name = track.eventName[event];
        std::uint32_t color = m_byName ? timeline::nameColor(trace.string(name))
                                       : timeline::categoryColor(trace.string(track.category[event]));
        if (b.merged)
            color = kMergedColor;
        if (!m_nameMatched.empty() && (b.merged || !m_nameMatched[name.value]))
            color = kDimmedColor;
        frames.push_back({QRect(b.x, b.y, b.width, b.height), color, i, b.merged == 0});
    }
    paintFrames(
        painter, frames,
        [&](std::uint32_t i) {
            const auto &cb = layout.boxes[i];
            const auto &track = trace.track(lanes[cb.lane].track);
            const auto name = trace.string(track.eventName[lanes[cb.lane].events[cb.position]]);
            return QString::fromUtf8(name.data(), qsizetype(name.size()));
        },
        [&](std::uint32_t i) {
            const auto &cb = layout.boxes[i];
            const auto &lane = lanes[cb.lane];
            return duration(lane.end[cb.position] - lane.start[cb.position]);
        });
}

int FlameChartView::boxAt(QPoint pos)
{
    if (!m_chart)
        return -1;
    const auto &boxes = currentLayout().boxes;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const auto &b = boxes[i].box;
        if (pos.x() >= b.x && pos.x() < b.x + b.width && pos.y() >= b.y && pos.y() < b.y + b.height)
            return int(i);
    }
    return -1;
}

QString FlameChartView::toolTipAt(QPoint pos)
{
    const int box = boxAt(pos);
    if (box < 0)
        return {};
    const auto &cb = m_layout.boxes[std::size_t(box)];
    return chartToolTip(m_chart->chart, cb.lane, cb.position, cb.box.merged);
}

bool FlameChartView::zoomAt(QPoint pos)
{
    const int box = boxAt(pos);
    if (box < 0)
        return false;
    const auto &cb = m_layout.boxes[std::size_t(box)];
    const auto &lane = m_chart->chart.lanes[cb.lane];
    const auto last = cb.position + std::max<std::uint32_t>(1, cb.box.merged) - 1;
    const double start = double(lane.start[cb.position]);
    const double end = double(std::max(lane.end[last], lane.start[cb.position] + 1));
    std::optional<analysis::EventRef> focus;
    if (cb.box.merged == 0)
        focus = analysis::EventRef{lane.track, trace::EventIndex(lane.events[cb.position])};
    showRange(start, end, focus);
    return true;
}

bool FlameChartView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        showFrameToolTip(this, help, toolTipAt(help->pos()));
        return true;
    }
    return QWidget::event(event);
}

void FlameChartView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_pressAt = event->position().toPoint();
    m_pressStartNs = m_viewport.startNs;
    m_dragged = false;
}

void FlameChartView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_pressAt && (event->buttons() & Qt::LeftButton)) {
        const int dx = pos.x() - m_pressAt->x();
        m_dragged = m_dragged || std::abs(dx) > 3;
        if (m_dragged) {
            m_viewport.startNs = m_pressStartNs - dx * m_viewport.nsPerPixel;
            m_layoutValid = false;
            update();
        }
        return;
    }
    setCursor(boxAt(pos) >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void FlameChartView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && m_pressAt && !m_dragged)
        zoomAt(event->position().toPoint());
    m_pressAt.reset();
}

void FlameChartView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ShiftModifier) {
        m_viewport.scrollY -= event->angleDelta().y() / 2;
        clampScroll();
    } else {
        const double factor = std::pow(0.85, event->angleDelta().y() / 120.0);
        const double anchor = m_viewport.startNs + event->position().x() * m_viewport.nsPerPixel;
        m_viewport.nsPerPixel = std::max(1e-3, m_viewport.nsPerPixel * factor);
        m_viewport.startNs = anchor - event->position().x() * m_viewport.nsPerPixel;
    }
    m_layoutValid = false;
    update();
}

void FlameChartView::resizeEvent(QResizeEvent *event)
{
    const double start = m_viewport.startNs;
    const double end = m_viewport.endNs();
    QWidget::resizeEvent(event);
    if (m_chart && m_viewport.width > 0)
        showRange(start, end, m_focus);
}

} // namespace pyrometer::ui::flamegraph
