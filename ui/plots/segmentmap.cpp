#include "ui/plots/segmentmap.h"

#include "core/util/format.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace pyrometer::ui::plots {

namespace {
constexpr double kRowHeight = 16;
constexpr double kGap = 2;
constexpr int kMaxRows = 6;
} // namespace

SegmentMap::SegmentMap(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFixedHeight(int(kRowHeight + kGap) + 4);
}

void SegmentMap::setState(const snapshot::SegmentsAt &state, std::vector<snapshot::LiveBlock> blocks,
                          std::function<QColor(const snapshot::LiveBlock &)> colorOf)
{
    m_state = state;
    m_blocks = std::move(blocks);
    m_colorOf = std::move(colorOf);
    layoutSegments();
    update();
}

// Segments in address order, left to right, rows wrapping; widths in proportion to size, at the
// largest scale that fits the rows it takes (at most kMaxRows), a segment at least 3 px wide so
// that none disappears.
void SegmentMap::layoutSegments()
{
    const double width = std::max(10, this->width() - 4);
    const double total = double(std::max<std::int64_t>(1, m_state.reservedBytes));
    int used = 1;
    for (int rows = kMaxRows; rows >= 1; --rows) {
        m_rects.clear();
        // Room left for the wrapping's waste, so that a scale for `rows` rows takes about that many.
        const double perByte = width * rows / total * 0.75;
        double x = 2, y = 2;
        used = 1;
        for (const auto &seg : m_state.segments) {
            double w = std::min(width, std::max(3.0, double(seg.size) * perByte));
            if (x + w > width + 2 && x > 2) {
                x = 2;
                y += kRowHeight + kGap;
                ++used;
            }
            m_rects.emplace_back(x, y, w, kRowHeight);
            x += w + kGap;
        }
        if (used <= kMaxRows)
            break; // the largest scale whose rows fit
    }
    const int height = int(used * (kRowHeight + kGap)) + 4;
    if (height != this->height())
        setFixedHeight(height);
}

int SegmentMap::segmentAt(QPoint point) const
{
    for (std::size_t i = 0; i < m_rects.size(); ++i)
        if (m_rects[i].contains(point))
            return int(i);
    return -1;
}

void SegmentMap::paintEvent(QPaintEvent *)
{
    if (m_rects.size() != m_state.segments.size())
        return; // laid out on setState and on every resize, never while painting
    QPainter painter(this);
    const QColor free = palette().color(QPalette::Base);
    const QColor edge = palette().color(QPalette::Mid);
    std::size_t b = 0;
    for (std::size_t i = 0; i < m_state.segments.size(); ++i) {
        const auto &seg = m_state.segments[i];
        const QRectF &r = m_rects[i];
        painter.fillRect(r, free);
        const double scale = r.width() / double(std::max<std::int64_t>(1, seg.size));
        while (b < m_blocks.size() && m_blocks[b].address < seg.address)
            ++b;
        for (; b < m_blocks.size() && m_blocks[b].address < seg.address + std::uint64_t(seg.size); ++b) {
            const auto &block = m_blocks[b];
            const double x0 = r.left() + double(block.address - seg.address) * scale;
            const double w = std::max(1.0, double(block.size) * scale);
            painter.fillRect(QRectF(x0, r.top(), std::min(w, r.right() - x0), r.height()),
                             m_colorOf ? m_colorOf(block) : palette().color(QPalette::Highlight));
        }
        painter.setPen(edge);
        painter.drawRect(r);
    }
}

QString SegmentMap::toolTipOf(int segment) const
{
    const auto &seg = m_state.segments[std::size_t(segment)];
    const auto bytes = [](std::int64_t v) {
        return QString::fromStdString(formatBytes(std::uint64_t(std::max<std::int64_t>(0, v))));
    };
    return tr("<b>Segment at 0x%1</b> · stream %2 · %3 pool<br>%4, %5 live in %6 blocks<br>largest free piece %7")
        .arg(QString::number(seg.address, 16))
        .arg(seg.stream)
        .arg(seg.small ? tr("small-block") : tr("large-block"))
        .arg(bytes(seg.size), bytes(seg.allocated))
        .arg(seg.blocks)
        .arg(bytes(seg.largestFree));
}

bool SegmentMap::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int i = segmentAt(help->pos());
        if (i < 0) {
            QToolTip::hideText();
            return true;
        }
        QToolTip::showText(help->globalPos(), toolTipOf(i), this);
        return true;
    }
    if (event->type() == QEvent::Resize)
        layoutSegments();
    return QWidget::event(event);
}

} // namespace pyrometer::ui::plots
