#include "ui/timeline/timelineview.h"

#include "core/util/format.h"
#include "ui/timeline/boxlayer.h"
#include "ui/timeline/kernelname.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>

#include <cmath>

namespace pyrometer::ui::timeline {

namespace {

constexpr double kMinNsPerPixel = 0.01; // 1 ns spans 100 pixels at the deepest zoom
constexpr double kViewMargin = 0.05;    // how far past the trace the view may go, as a share of it
constexpr double kFitMargin = 0.01;     // the whole trace's view: the trace and this share of it each side

QColor argb(std::uint32_t color)
{
    return QColor::fromRgba(color);
}

QColor textColorOn(std::uint32_t color)
{
    const QColor c = argb(color);
    return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue() > 150 ? Qt::black : Qt::white;
}

} // namespace

TimelineView::TimelineView(QWidget *parent) : QWidget(parent), m_scroll(new QScrollBar(Qt::Vertical, this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(400, 120);
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(m_scroll, &QScrollBar::valueChanged, this, [this] { rebuild(); });
}

QRegion TimelineView::frameRegion() const
{
    return QRegion(rect()).subtracted(m_scroll->geometry());
}

void TimelineView::updateFrame()
{
    update(frameRegion());
}

QRect TimelineView::rowsRect() const
{
    const int top = kRulerHeight + kStepBandHeight;
    return QRect(kGutterWidth, top, std::max(0, width() - kGutterWidth - m_scroll->sizeHint().width()),
                 std::max(0, height() - top));
}

void TimelineView::setIndex(std::shared_ptr<const TimelineIndex> index)
{
    m_index = std::move(index);
    m_labels.clear(); // keyed by the trace's string ids
    m_collapsed.clear();
    m_selected.reset();
    m_range.reset();
    m_highlights.clear();
    m_currentHighlight.reset();
    m_scroll->setValue(0);
    relayout();
    fitAll();
}

void TimelineView::selectRange(double startNs, double endNs)
{
    m_range = std::make_pair(std::min(startNs, endNs), std::max(startNs, endNs));
    updateFrame();
    Q_EMIT rangeSelected(m_range->first, m_range->second);
}

void TimelineView::relayout()
{
    if (!m_index)
        return;
    m_layout = buildLayout(*m_index, m_collapsed, {}, m_trackOrder);
    m_drawListStale = true;
    ++m_layoutGeneration;
    m_scroll->setRange(0, std::max(0, m_layout.height - rowsRect().height()));
    m_scroll->setPageStep(std::max(1, rowsRect().height()));
    m_scroll->setSingleStep(18);
    rebuild();
}

void TimelineView::rebuild()
{
    m_viewport.width = rowsRect().width();
    m_viewport.height = rowsRect().height();
    m_viewport.scrollY = m_scroll->value();
    // The same window over the same rows shows the same boxes: a fit-all after a fit-all,
    // or a resize that changes nothing horizontal, keeps the draw list.
    if (m_index && (m_drawListStale || !(m_drawList.viewport == m_viewport))) {
        if (m_drawListStale)
            m_wholeKept = false; // built over other rows or colours
        if (m_wholeKept && m_wholeList.viewport == m_viewport) {
            // Back to the whole trace: its list, kept, and the list shown until now becomes
            // the spare arrays.
            std::swap(m_drawList, m_wholeList);
            m_wholeKept = false;
        } else {
            // The whole trace's list is the one a zoomed-out frame builds over the most events,
            // and the view users come back to: kept while another is shown.
            if (!m_drawListStale && m_drawList.viewport == wholeViewport()) {
                std::swap(m_drawList, m_wholeList);
                m_wholeKept = true;
            }
            // Built into the arrays of the last list: a new list's memory would be fresh pages,
            // faulted in one by one on the frame's time.
            reserveFrameArrays();
            buildDrawList(*m_index, m_layout, m_viewport, m_colorMode, m_drawList, m_drawScratch);
        }
        m_drawListStale = false;
    }
    updateFrame();
}

namespace {

// Grows a vector's capacity to n, its contents kept, and writes the new memory once, so that
// its pages are faulted in now: a first write to fresh memory costs a page fault per 4 KiB, and
// the first zoomed-out frame after a close-up would otherwise pay for a megabyte of them.
template <typename T> void growWritten(std::vector<T> &vector, std::size_t n)
{
    if (vector.capacity() >= n)
        return;
    const auto size = vector.size();
    vector.resize(n);
    vector.resize(size);
}

} // namespace

void TimelineView::reserveFrameArrays()
{
    // A frame's worst case: every visible slice row a box per pixel column, and every visible
    // counter row two fills a column.
    int sliceRows = 0;
    int counterRows = 0;
    for (const auto &row : m_layout.rows) {
        sliceRows += row.kind == RowKind::Slices;
        counterRows += row.kind == RowKind::Counter;
    }
    const int visibleRows = m_viewport.height / LayoutMetrics{}.sliceHeight + 2;
    const auto columns = std::size_t(std::max(0, m_viewport.width) + 4);
    const auto boxes = std::size_t(std::min(sliceRows, visibleRows)) * columns;
    const auto counterFills = std::size_t(std::min(counterRows, visibleRows)) * columns * 2;
    growWritten(m_drawList.boxes, boxes);
    growWritten(m_drawScratch.boxes, boxes);
    growWritten(m_wholeList.boxes, boxes); // whose arrays the next list may be built into
    growWritten(m_fills, boxes + counterFills + 256);
}

Viewport TimelineView::wholeViewport() const
{
    auto whole = m_viewport;
    whole.width = rowsRect().width();
    if (!m_index || whole.width <= 0)
        return whole;
    const double span = double(m_index->spanEnd - m_index->spanStart);
    whole.startNs = double(m_index->spanStart) - span * kFitMargin;
    whole.nsPerPixel = std::max(span * (1 + 2 * kFitMargin) / whole.width, kMinNsPerPixel);
    return whole;
}

void TimelineView::clampViewport()
{
    if (!m_index || m_viewport.width <= 0)
        return;
    // Zoomed out, the view shows the whole trace at most, as fit-all does, and is then that
    // view to the bit (a draw list kept for it is found again, see rebuild). Panned, an edge of
    // the trace stays within a margin of the view's edge.
    const auto whole = wholeViewport();
    if (m_viewport.nsPerPixel >= whole.nsPerPixel) {
        m_viewport.nsPerPixel = whole.nsPerPixel;
        m_viewport.startNs = whole.startNs;
        return;
    }
    const double span = double(m_index->spanEnd - m_index->spanStart);
    const double margin = std::max(span * kViewMargin, 1'000.0);
    m_viewport.nsPerPixel = std::max(m_viewport.nsPerPixel, kMinNsPerPixel);
    const double visible = m_viewport.nsPerPixel * m_viewport.width;
    const double minStart = double(m_index->spanStart) - margin;
    const double maxStart = double(m_index->spanEnd) + margin - visible;
    m_viewport.startNs = std::clamp(m_viewport.startNs, std::min(minStart, maxStart), std::max(minStart, maxStart));
}

void TimelineView::setVisibleRange(double startNs, double endNs)
{
    m_viewport.width = rowsRect().width();
    if (m_viewport.width <= 0 || endNs <= startNs)
        return;
    m_viewport.startNs = startNs;
    m_viewport.nsPerPixel = (endNs - startNs) / m_viewport.width;
    clampViewport();
    rebuild();
    Q_EMIT viewportChanged();
}

void TimelineView::fitAll()
{
    if (!m_index)
        return;
    m_viewport = wholeViewport();
    if (m_viewport.width <= 0)
        return;
    rebuild();
    Q_EMIT viewportChanged();
}

void TimelineView::fitSelection()
{
    if (m_range && m_range->second > m_range->first) {
        setVisibleRange(m_range->first, m_range->second);
        return;
    }
    if (m_selected && m_index) {
        const auto &track = m_index->trace->track(m_selected->track);
        const double start = double(track.start[m_selected->event]);
        const double duration = std::max(double(track.duration[m_selected->event]), 100.0);
        setVisibleRange(start - duration * 0.1, start + duration * 1.1);
    }
}

void TimelineView::zoomBy(double factor, double anchorX)
{
    const double anchorNs = m_viewport.toNs(anchorX);
    m_viewport.nsPerPixel *= factor;
    clampViewport();
    m_viewport.startNs = anchorNs - anchorX * m_viewport.nsPerPixel;
    clampViewport();
    rebuild();
    Q_EMIT viewportChanged();
}

void TimelineView::panByPixels(double dx)
{
    m_viewport.startNs += dx * m_viewport.nsPerPixel;
    clampViewport();
    rebuild();
    Q_EMIT viewportChanged();
}

void TimelineView::setColorMode(ColorMode mode)
{
    m_colorMode = mode;
    m_drawListStale = true;
    rebuild();
}

void TimelineView::setShowAllFlows(bool show)
{
    m_showAllFlows = show;
    updateFrame();
}

void TimelineView::setProcessCollapsed(std::uint32_t process, bool collapsed)
{
    if (collapsed)
        m_collapsed.insert(process);
    else
        m_collapsed.erase(process);
    relayout();
}

void TimelineView::selectEvent(std::optional<EventRef> event, bool reveal)
{
    m_selected = event;
    if (event && reveal && m_index) {
        const auto &track = m_index->trace->track(event->track);
        const double start = double(track.start[event->event]);
        const double end = start + double(track.duration[event->event]);
        const double visible = m_viewport.nsPerPixel * m_viewport.width;
        if (end - start > visible * 0.8)
            setVisibleRange(start - (end - start) * 0.1, end + (end - start) * 0.1);
        else if (start < m_viewport.startNs || end > m_viewport.endNs())
            setVisibleRange((start + end) / 2 - visible / 2, (start + end) / 2 + visible / 2);
        const auto processOf = track.process.value;
        if (m_collapsed.count(processOf))
            setProcessCollapsed(processOf, false);
        const int layoutRow = m_layout.sliceRowToLayout[m_index->rowOf(event->track, trace::EventIndex(event->event))];
        if (layoutRow >= 0) {
            const auto &row = m_layout.rows[std::size_t(layoutRow)];
            if (row.y < m_scroll->value() || row.y + row.height > m_scroll->value() + m_viewport.height)
                m_scroll->setValue(row.y - m_viewport.height / 3);
        }
    }
    updateFrame();
    Q_EMIT eventSelected(m_selected);
}

void TimelineView::scrollToPartOf(std::uint32_t process)
{
    if (!m_index || process >= m_index->trace->processes.size())
        return;
    const auto part = processPart(m_index->trace->processes[process]);
    for (const auto &row : m_layout.rows) {
        if (row.kind == RowKind::Process && processPart(m_index->trace->processes[row.process]) == part) {
            m_scroll->setValue(row.y);
            break;
        }
    }
}

void TimelineView::setMarkers(std::vector<Marker> markers)
{
    if (markers == m_markers)
        return;
    m_markers = std::move(markers);
    updateFrame();
}

void TimelineView::setHighlights(std::vector<EventRef> events, std::optional<EventRef> current)
{
    m_highlights = std::move(events);
    m_currentHighlight = current;
    updateFrame();
}

std::optional<Hit> TimelineView::hitAt(const QPoint &widgetPos) const
{
    if (!m_index || !rowsRect().contains(widgetPos))
        return std::nullopt;
    return hitTest(*m_index, m_layout, m_viewport, widgetPos.x() - rowsRect().left(), widgetPos.y() - rowsRect().top());
}

QRectF TimelineView::eventRect(const EventRef &ref) const
{
    const auto row = m_index->rowOf(ref.track, trace::EventIndex(ref.event));
    const int layoutRow = m_layout.sliceRowToLayout[row];
    if (layoutRow < 0)
        return {};
    const auto &lr = m_layout.rows[std::size_t(layoutRow)];
    const auto &track = m_index->trace->track(ref.track);
    const double x0 = m_viewport.toX(double(track.start[ref.event]));
    const double x1 = m_viewport.toX(double(track.start[ref.event] + track.duration[ref.event]));
    const QRect rows = rowsRect();
    return QRectF(rows.left() + std::max(x0, -4.0), rows.top() + lr.y - m_viewport.scrollY,
                  std::max(std::min(x1, double(rows.width()) + 4) - std::max(x0, -4.0), 2.0), lr.height - 1);
}

void TimelineView::resizeEvent(QResizeEvent *)
{
    const int scrollWidth = m_scroll->sizeHint().width();
    m_scroll->setGeometry(width() - scrollWidth, kRulerHeight + kStepBandHeight, scrollWidth,
                          height() - kRulerHeight - kStepBandHeight);
    const double start = m_viewport.startNs;
    const double end = m_viewport.endNs();
    if (m_index) {
        m_scroll->setRange(0, std::max(0, m_layout.height - rowsRect().height()));
        m_scroll->setPageStep(std::max(1, rowsRect().height()));
        if (m_viewport.width > 0)
            setVisibleRange(start, end);
        else
            fitAll();
    }
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    if (!m_index) {
        painter.fillRect(rect(), palette().base());
        return;
    }
    // The rows area is covered by its own opaque layer: fill only around it.
    for (const QRect &around : QRegion(rect()).subtracted(rowsRect()))
        painter.fillRect(around, palette().base());
    paintRows(painter);
    paintMarkers(painter);
    paintOverlays(painter);
    paintFlows(painter);
    paintRuler(painter);
    paintGutter(painter);
    paintFocusMark(painter);
}

void TimelineView::paintRows(QPainter &painter) const
{
    const QRect rows = rowsRect();
    // The rows' background, grid and boxes go into one opaque image, written directly (see
    // rasterizeFills) and blitted in one call. Boxes are filled one pixel short of their row's
    // height, as a gap.
    const qreal ratio = painter.device() ? painter.device()->devicePixelRatio() : 1.0;
    const QSize deviceSize(int(std::lround(rows.width() * ratio)), int(std::lround(rows.height() * ratio)));
    if (m_rowsLayer.size() != deviceSize)
        m_rowsLayer = QImage(deviceSize, QImage::Format_RGB32);
    m_rowsLayer.setDevicePixelRatio(ratio);
    const QColor base = palette().base().color();
    m_rowsLayer.fill(base);

    auto &fills = m_fills;
    fills.clear();
    // Process bands, then ruler grid lines (the text colour at 10% over the base: darker in the
    // light theme, lighter in the dark one), then the boxes.
    const auto [first, last] = m_layout.rowsIn(m_viewport.scrollY, m_viewport.scrollY + m_viewport.height);
    for (int r = first; r < last; ++r) {
        const auto &row = m_layout.rows[std::size_t(r)];
        if (row.kind == RowKind::Process)
            fills.push_back(
                {0, rows.width(), row.y - m_viewport.scrollY, row.height, palette().alternateBase().color().rgba()});
    }
    const QColor text = palette().text().color();
    const auto shade = [](int under, int over) { return under + (over - under) / 10; };
    const QRgb grid =
        qRgb(shade(base.red(), text.red()), shade(base.green(), text.green()), shade(base.blue(), text.blue()));
    for (const auto &tick : rulerTicks(m_viewport, double(m_index->spanStart)))
        fills.push_back({int(tick.x), int(tick.x) + 1, 0, rows.height(), grid});
    // Counters: one column per pixel, filled with the series' colour at 35% over the base,
    // with its top edge in the full colour.
    const auto &trace = *m_index->trace;
    for (const auto &plot : m_drawList.counters) {
        const int baseline = plot.y + plot.height - 2;
        const double scale = plot.height - 6;
        const QRgb line = nameColor(m_index->counter(plot.counter).name);
        const auto mix = [&](int over, int under) { return (over * 90 + under * (255 - 90)) / 255; };
        const QRgb column =
            qRgb(mix(qRed(line), base.red()), mix(qGreen(line), base.green()), mix(qBlue(line), base.blue()));
        for (const auto &[x, v] : plot.points) {
            const int height = std::max(1, int(v * scale + 0.5)); // v >= 0: rounded, without a call into libm
            fills.push_back({int(x), int(x) + 1, baseline - height, height, column});
            fills.push_back({int(x), int(x) + 1, baseline - height, 1, line});
        }
    }
    const auto boxesFrom = fills.size();
    appendJoinedFills(m_drawList.boxes, fills);
    for (auto fill = fills.begin() + std::ptrdiff_t(boxesFrom); fill != fills.end(); ++fill)
        fill->height -= 1;
    rasterizeFills(m_rowsLayer, fills);
    painter.drawImage(rows.topLeft(), m_rowsLayer);

    painter.save();
    painter.setClipRect(rows);
    painter.translate(rows.topLeft());

    // Labels where they fit, elided to the box less 3 pixels each side, centred in its height.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter.setFont(small);
    if (!(small == m_labelFont)) {
        m_labels.clear();
        m_labelFont = small;
    }
    const QFontMetrics metrics(small);
    const auto laidOut = [](const QString &content) {
        QStaticText staticText(content);
        staticText.setTextFormat(Qt::PlainText);
        return staticText;
    };
    for (const auto &box : m_drawList.boxes) {
        const float width = box.x1 - box.x0;
        if (box.count != 1 || width < 24 || box.event == SliceRow::kNoEvent)
            continue;
        const float left = std::max(box.x0, 0.0f);
        const float right = std::min(box.x1, float(rows.width()));
        if (right - left < 24)
            continue;
        const auto &track = trace.track(m_index->rows[box.row].trackId);
        const auto nameId = track.eventName[box.event];
        const std::string_view category = trace.string(track.category[box.event]);
        const bool kernel = category == "kernel" || category == "Kernel";
        const quint64 key = quint64(kernel) << 32 | nameId.value;
        auto label = m_labels.find(key);
        if (label == m_labels.end()) {
            if (m_labels.size() >= 20'000)
                m_labels.clear(); // a bound for a long session over a trace of many names
            const std::string_view fullName = trace.string(nameId);
            const QString name = kernel ? QString::fromStdString(kernelLabel(fullName))
                                        : QString::fromUtf8(fullName.data(), qsizetype(fullName.size()));
            label = m_labels.insert(key, {laidOut(name), metrics.horizontalAdvance(name), -1, {}});
        }
        const int room = int(right - left - 6);
        const QStaticText *shown = &label->text;
        if (label->width > room) {
            if (label->elidedTo != room) {
                label->elided = laidOut(metrics.elidedText(label->text.text(), Qt::ElideRight, room));
                label->elidedTo = room;
            }
            shown = &label->elided;
        }
        painter.setPen(textColorOn(box.color));
        painter.drawStaticText(QPointF(left + 3, box.y + (box.height - 1 - metrics.height()) / 2.0), *shown);
    }

    painter.restore();
}

void TimelineView::paintOverlays(QPainter &painter) const
{
    const QRect rows = rowsRect();
    painter.save();
    painter.setClipRect(rows);
    painter.setBrush(Qt::NoBrush);
    if (!m_highlights.empty()) {
        // Only matches inside the visible time window are drawn.
        painter.setPen(QPen(QColor(255, 170, 0), 2));
        int drawn = 0;
        for (const auto &ref : m_highlights) {
            const QRectF r = eventRect(ref);
            if (r.isEmpty() || r.right() < rows.left() || r.left() > rows.right() || r.bottom() < rows.top() ||
                r.top() > rows.bottom())
                continue;
            painter.drawRect(r);
            if (++drawn > 5000)
                break;
        }
        if (m_currentHighlight) {
            painter.setPen(QPen(QColor(255, 100, 0), 3));
            painter.drawRect(eventRect(*m_currentHighlight));
        }
    }
    if (m_selected) {
        painter.setPen(QPen(palette().text().color(), 2));
        painter.drawRect(eventRect(*m_selected));
    }
    if (m_range) {
        const double x0 = rows.left() + m_viewport.toX(m_range->first);
        const double x1 = rows.left() + m_viewport.toX(m_range->second);
        painter.fillRect(QRectF(x0, rows.top(), x1 - x0, rows.height()), QColor(40, 110, 220, 45));
        painter.setPen(QColor(40, 110, 220));
        painter.drawLine(QPointF(x0, rows.top()), QPointF(x0, rows.bottom()));
        painter.drawLine(QPointF(x1, rows.top()), QPointF(x1, rows.bottom()));
        // The length on a tag of the range's colour, in white (5:1), over whatever is below;
        // none on an edge set alone.
        const QString length = QString::fromStdString(formatDuration(std::int64_t(m_range->second - m_range->first)));
        const QFontMetricsF metrics(painter.font());
        const double tagWidth = metrics.horizontalAdvance(length) + 8;
        const double middle = std::clamp((x0 + x1) / 2, rows.left() + tagWidth / 2, rows.right() - tagWidth / 2);
        const QRectF tag(middle - tagWidth / 2, rows.top() + 2, tagWidth, metrics.height() + 2);
        if (m_range->second > m_range->first) {
            painter.fillRect(tag, QColor(40, 110, 220));
            painter.setPen(Qt::white);
            painter.drawText(tag, Qt::AlignCenter, length);
        }
    }
    painter.restore();
}

int TimelineView::stickyHeaderRow() const
{
    const auto [first, last] = m_layout.rowsIn(m_viewport.scrollY, m_viewport.scrollY + m_viewport.height);
    if (first >= last)
        return -1;
    const int header = m_layout.processHeaderOf(first);
    // Shown in place already when its own row is the one at the top.
    return header >= 0 && m_layout.rows[std::size_t(header)].y < m_viewport.scrollY ? header : -1;
}

void TimelineView::setTrackOrder(TrackOrder order)
{
    if (order == m_trackOrder)
        return;
    m_trackOrder = order;
    relayout();
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const bool ctrl = event->modifiers() & Qt::ControlModifier;
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    const bool zoom = m_wheelZooms ? !shift : ctrl;
    const double steps = event->angleDelta().y() / 120.0;
    if (zoom) {
        const double x = event->position().x() - rowsRect().left();
        zoomBy(std::pow(0.85, steps), std::clamp(x, 0.0, double(m_viewport.width)));
    } else {
        m_scroll->setValue(m_scroll->value() - int(steps * 3 * m_scroll->singleStep()));
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    setFocus();
    if (event->button() != Qt::LeftButton || !m_index)
        return;
    m_pressPos = m_lastPos = event->position().toPoint();
    m_moved = false;
    const QRect rows = rowsRect();
    if (m_pressPos.x() < kGutterWidth && m_pressPos.y() >= rows.top()) {
        const int sticky = stickyHeaderRow();
        const bool onSticky = sticky >= 0 && m_pressPos.y() < rows.top() + m_layout.rows[std::size_t(sticky)].height;
        const int r = onSticky ? sticky : m_layout.rowAt(m_pressPos.y() - rows.top() + m_viewport.scrollY);
        if (r >= 0 && m_layout.rows[std::size_t(r)].kind == RowKind::Process) {
            const auto process = m_layout.rows[std::size_t(r)].process;
            setProcessCollapsed(process, !isProcessCollapsed(process));
        }
        return;
    }
    if (event->modifiers() & Qt::ShiftModifier) {
        m_drag = Drag::Range;
        m_rangeAnchorNs = m_viewport.toNs(m_pressPos.x() - rows.left());
        m_range = std::make_pair(m_rangeAnchorNs, m_rangeAnchorNs);
    } else {
        m_drag = Drag::Pan;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    m_cursorX = rowsRect().contains(pos) ? pos.x() - rowsRect().left() : -1;
    if (m_drag == Drag::None)
        return;
    if ((pos - m_pressPos).manhattanLength() > 3)
        m_moved = true;
    if (m_drag == Drag::Pan) {
        const QPoint delta = pos - m_lastPos;
        m_scroll->setValue(m_scroll->value() - delta.y());
        panByPixels(-delta.x());
    } else {
        const double t = m_viewport.toNs(pos.x() - rowsRect().left());
        m_range = std::make_pair(std::min(t, m_rangeAnchorNs), std::max(t, m_rangeAnchorNs));
        updateFrame();
    }
    m_lastPos = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const Drag drag = std::exchange(m_drag, Drag::None);
    if (drag == Drag::Range && m_range && m_moved) {
        Q_EMIT rangeSelected(m_range->first, m_range->second);
        return;
    }
    if (!m_moved) {
        m_range.reset();
        const auto hit = hitAt(event->position().toPoint());
        selectEvent(hit ? std::optional<EventRef>(EventRef{m_index->rows[hit->row].trackId, hit->event})
                        : std::nullopt);
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const auto hit = hitAt(event->position().toPoint());
    if (!hit)
        return;
    selectEvent(EventRef{m_index->rows[hit->row].trackId, hit->event});
    fitSelection();
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_index) {
        auto *help = static_cast<QHelpEvent *>(event);
        if (const QString name = gutterName(help->pos()); !name.isEmpty()) {
            QToolTip::showText(help->globalPos(), name.toHtmlEscaped(), this);
            return true;
        }
        const auto hit = hitAt(help->pos());
        if (!hit) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        const auto &trace = *m_index->trace;
        const auto &track = trace.track(m_index->rows[hit->row].trackId);
        QString text = QStringLiteral("<b>%1</b><br>%2")
                           .arg(QString::fromUtf8(trace.string(track.eventName[hit->event])).toHtmlEscaped(),
                                QString::fromStdString(formatDuration(track.duration[hit->event])));
        // Over a pixel column drawn by occupancy, what the column holds.
        const auto *box = boxAt(m_drawList, hit->row, help->pos().x() - rowsRect().left());
        if (box && box->column) {
            const QString where =
                box->x1 - box->x0 > 1 ? tr("These %1 pixels").arg(int(box->x1 - box->x0)) : tr("This pixel");
            const auto content = columnContent(*m_index, m_viewport, *box);
            const QString events = content.events == 1 ? tr("1 event") : tr("%1 events").arg(content.events);
            const QString busy = QString::number(100 * content.busyShare, 'f', 0);
            text += tr("<br>%1: %2, %3% busy").arg(where, events, busy);
        }
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace pyrometer::ui::timeline
