// TimelineView from the keyboard: zoom and pan, a range chosen without a mouse ([ and ] at the
// cursor, R for the selected event), the selection moved between events by the arrow keys, and
// the focus mark that says the keys go here.
#include "ui/timeline/timelineview.h"

#include <QKeyEvent>
#include <QPainter>

#include <algorithm>

namespace pyrometer::ui::timeline {

namespace {

// The position of an event in its row (events of a row never overlap, so starts are sorted).
std::optional<std::uint32_t> positionIn(const SliceRow &row, std::int64_t start, std::uint32_t event)
{
    auto at = std::uint32_t(std::lower_bound(row.starts.begin(), row.starts.end(), start) - row.starts.begin());
    for (; at < row.size() && row.starts[at] == start; ++at)
        if (row.events[at] == event)
            return at;
    return std::nullopt;
}

} // namespace

std::optional<EventRef> adjacentEvent(const TimelineIndex &index, EventRef from, EventStep step)
{
    const auto &track = index.trace->track(from.track);
    if (from.event >= track.size())
        return std::nullopt;
    const std::uint32_t rowIndex = index.rowOf(from.track, trace::EventIndex(from.event));
    const SliceRow &row = index.rows[rowIndex];
    const std::int64_t start = track.start[from.event];
    switch (step) {
    case EventStep::Previous:
    case EventStep::Next: {
        const auto at = positionIn(row, start, from.event);
        if (!at)
            return std::nullopt;
        if (step == EventStep::Previous)
            return *at > 0 ? std::optional<EventRef>(EventRef{from.track, row.events[*at - 1]}) : std::nullopt;
        return *at + 1 < row.size() ? std::optional<EventRef>(EventRef{from.track, row.events[*at + 1]})
                                    : std::nullopt;
    }
    case EventStep::Parent: {
        const auto parent = track.parent[from.event];
        return parent.isValid() ? std::optional<EventRef>(EventRef{from.track, parent.value}) : std::nullopt;
    }
    case EventStep::Child: {
        // The next row of the track holds the same lane one level deeper: its first event that
        // starts within this one.
        const std::uint32_t next = rowIndex + 1;
        if (next >= index.trackFirstRow[from.track.value] + index.trackRowCount[from.track.value])
            return std::nullopt;
        const SliceRow &below = index.rows[next];
        if (below.lane != row.lane || below.depth != row.depth + 1)
            return std::nullopt;
        const auto at = below.firstStartingFrom(start, 0);
        if (at >= below.size() || below.starts[at] >= start + track.duration[from.event])
            return std::nullopt;
        return EventRef{from.track, below.events[at]};
    }
    }
    return std::nullopt;
}

double TimelineView::cursorNs() const
{
    return m_viewport.toNs(m_cursorX >= 0 ? m_cursorX : m_viewport.width / 2.0);
}

void TimelineView::setRangeEdge(RangeEdge edge)
{
    const double at = cursorNs();
    // The other end: a range's, or an edge set alone by the other key.
    std::optional<double> other;
    const bool hadRange = m_range && m_range->second > m_range->first;
    if (hadRange)
        other = edge == RangeEdge::Start ? m_range->second : m_range->first;
    else if (m_range && m_loneEdge != edge)
        other = m_range->first;
    if (other && (edge == RangeEdge::Start ? at < *other : at > *other)) {
        selectRange(std::min(at, *other), std::max(at, *other));
        return;
    }
    // This edge alone (a start after the end starts anew), drawn as a line until the other is set.
    m_range = std::make_pair(at, at);
    m_loneEdge = edge;
    updateFrame();
    if (hadRange)
        Q_EMIT rangeCleared();
}

std::optional<EventRef> TimelineView::eventAtCentre() const
{
    const QRect rows = rowsRect();
    const double centre = m_viewport.width / 2.0;
    // The topmost event under the centre; else the topmost near it, nearer first.
    for (const double tolerance : {3.0, m_viewport.width / 8.0, m_viewport.width / 2.0})
        for (int y = 1; y < rows.height(); y += 2)
            if (const auto hit = hitTest(*m_index, m_layout, m_viewport, centre, y, tolerance))
                return EventRef{m_index->rows[hit->row].trackId, hit->event};
    return std::nullopt;
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    const double anchor = m_cursorX >= 0 ? m_cursorX : m_viewport.width / 2.0;
    const auto moveSelection = [this](EventStep step) {
        if (!m_index)
            return;
        if (!m_selected) { // the arrows start from the event under the view's centre
            if (const auto start = eventAtCentre())
                selectEvent(start, /*reveal=*/true);
            return;
        }
        if (const auto to = adjacentEvent(*m_index, *m_selected, step))
            selectEvent(to, /*reveal=*/true);
    };
    switch (event->key()) {
    case Qt::Key_W: zoomBy(0.8, anchor); break;
    case Qt::Key_S: zoomBy(1.25, anchor); break;
    case Qt::Key_A: panByPixels(-m_viewport.width * 0.1); break;
    case Qt::Key_D: panByPixels(m_viewport.width * 0.1); break;
    case Qt::Key_F: fitSelection(); break;
    case Qt::Key_0: fitAll(); break;
    case Qt::Key_BracketLeft: setRangeEdge(RangeEdge::Start); break;
    case Qt::Key_BracketRight: setRangeEdge(RangeEdge::End); break;
    case Qt::Key_R:
        if (m_selected && m_index) {
            const auto &track = m_index->trace->track(m_selected->track);
            const double start = double(track.start[m_selected->event]);
            selectRange(start, start + double(track.duration[m_selected->event]));
        }
        break;
    case Qt::Key_Left: moveSelection(EventStep::Previous); break;
    case Qt::Key_Right: moveSelection(EventStep::Next); break;
    case Qt::Key_Up: moveSelection(EventStep::Parent); break;
    case Qt::Key_Down: moveSelection(EventStep::Child); break;
    case Qt::Key_Escape:
        // The range first, then the selection.
        if (m_range) {
            m_range.reset();
            updateFrame();
            Q_EMIT rangeCleared();
        } else {
            selectEvent(std::nullopt);
        }
        break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void TimelineView::focusInEvent(QFocusEvent *event)
{
    QWidget::focusInEvent(event);
    update();
}

void TimelineView::focusOutEvent(QFocusEvent *event)
{
    QWidget::focusOutEvent(event);
    update();
}

void TimelineView::leaveEvent(QEvent *event)
{
    // Keys then act at the view's centre.
    m_cursorX = -1;
    QWidget::leaveEvent(event);
}

void TimelineView::paintFocusMark(QPainter &painter) const
{
    if (!hasFocus())
        return;
    // A frame of the highlight colour, which each theme sets against its own base.
    QPen pen(palette().color(QPalette::Active, QPalette::Highlight), kFocusFrame);
    pen.setJoinStyle(Qt::MiterJoin);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(rect()).adjusted(kFocusFrame / 2.0, kFocusFrame / 2.0, -kFocusFrame / 2.0,
                                             -kFocusFrame / 2.0));
}

} // namespace pyrometer::ui::timeline
