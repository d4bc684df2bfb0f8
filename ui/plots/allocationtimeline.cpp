#include "ui/plots/allocationtimeline.h"

#include "ui/shell/displaytext.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <thread>

namespace pyrometer::ui::plots {

namespace {

constexpr int kLeftMargin = 64;
constexpr int kBottomMargin = 22;
constexpr int kTopMargin = 8;
constexpr int kRightMargin = 8;
constexpr double kHeadroom = 1.08;
// Below this many events in view one thread draws (a thread's start costs more than it saves).
constexpr std::int64_t kEventsPerThread = 10'000;
constexpr unsigned kMaxThreads = 8;

QString xText(double x, bool times)
{
    return times ? QStringLiteral("%1 ms").arg(x, 0, 'f', x < 10 ? 2 : 1) : QStringLiteral("#%1").arg(std::llround(x));
}

} // namespace

AllocationTimeline::AllocationTimeline(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(false);
    setMinimumHeight(160);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
}

const snapshot::DeviceReplay *AllocationTimeline::device() const
{
    return m_devices && m_device < m_devices->size() ? &(*m_devices)[m_device] : nullptr;
}

void AllocationTimeline::setData(std::shared_ptr<const snapshot::Snapshot> snapshot,
                                 std::shared_ptr<const std::vector<snapshot::DeviceReplay>> devices, std::size_t device,
                                 std::shared_ptr<const snapshot::Allocations> allocations)
{
    m_snapshot = std::move(snapshot);
    m_devices = std::move(devices);
    m_device = device;
    m_allocations = std::move(allocations);
    m_stacks.clear();
    // A stack per thread that draws (a bit per allocation and a word per 64: small beside the
    // allocations themselves).
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1U, kMaxThreads);
    for (unsigned i = 0; m_allocations && i < threads; ++i)
        m_stacks.push_back(std::make_unique<snapshot::AllocationStack>(*m_allocations));
    m_hoverStack = m_allocations ? std::make_unique<snapshot::AllocationStack>(*m_allocations) : nullptr;
    const auto *d = this->device();
    m_xEnd = d && !d->events.empty() ? xOfPosition(std::int64_t(d->events.size()) - 1) : 1;
    makePalette();
    showAll();
}

void AllocationTimeline::clear()
{
    setData(nullptr, nullptr, 0, nullptr);
}

void AllocationTimeline::setStackColors(std::vector<QRgb> colors)
{
    m_stackColors = std::move(colors);
    makePalette();
    m_dirty = true;
    update();
}

void AllocationTimeline::setMarkers(double peakX, std::vector<double> oomXs)
{
    m_peakX = peakX;
    m_oomXs = std::move(oomXs);
    update();
}

void AllocationTimeline::setInstant(double x)
{
    m_instantX = x;
    update();
}

void AllocationTimeline::showAll()
{
    // A little room on either side, so that the first and last events are not on the edges.
    const double span = std::max(m_xEnd, 1e-3);
    setVisibleRange(0, m_xEnd + span * 0.01);
}

void AllocationTimeline::setVisibleRange(double x0, double x1)
{
    if (!(x1 > x0))
        return;
    const double span = std::max(m_xEnd, 1e-3);
    const double minimum = m_snapshot && m_snapshot->hasTimes ? 1e-3 : 2.0; // a microsecond, or two events
    if (x1 - x0 < minimum) {
        const double middle = (x0 + x1) / 2;
        x0 = middle - minimum / 2;
        x1 = middle + minimum / 2;
    }
    m_x0 = std::max(x0, -span * 0.05);
    m_x1 = std::min(x1, m_xEnd + span * 0.05);
    if (!(m_x1 > m_x0))
        m_x1 = m_x0 + minimum;
    m_dirty = true;
    update();
}

QRect AllocationTimeline::plotRect() const
{
    return QRect(kLeftMargin, kTopMargin, std::max(1, width() - kLeftMargin - kRightMargin),
                 std::max(1, height() - kTopMargin - kBottomMargin));
}

double AllocationTimeline::xAtPixel(double widgetX) const
{
    const QRect r = plotRect();
    return m_x0 + (m_x1 - m_x0) * (widgetX - r.left()) / double(r.width());
}

double AllocationTimeline::xOfPosition(std::int64_t position) const
{
    const auto *d = device();
    return d ? snapshot::axisX(*m_snapshot, *d, position) : 0.0;
}

std::int64_t AllocationTimeline::positionAtOrBefore(double x) const
{
    const auto *d = device();
    if (!d || d->events.empty())
        return -1;
    std::int64_t lo = 0, hi = std::int64_t(d->events.size()); // first position with x beyond
    while (lo < hi) {
        const std::int64_t mid = (lo + hi) / 2;
        if (xOfPosition(mid) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

void AllocationTimeline::makePalette()
{
    // Per stack, a darker and a lighter shade (neighbours of one stack told apart), then the two
    // of what was live before the trace: a band's colour is one read, not a colour conversion.
    const std::size_t stacks = m_snapshot ? m_snapshot->stackCount() : 0;
    m_palette.assign(2 * stacks + 2, 0);
    const double golden = 0.618033988749895;
    for (std::size_t stack = 0; stack < stacks; ++stack) {
        for (const bool light : {false, true}) {
            QRgb rgb = 0;
            if (stack < m_stackColors.size()) {
                const QColor color = QColor::fromRgb(m_stackColors[stack]);
                rgb = (light ? color.lighter(118) : color).rgb();
            } else {
                rgb = QColor::fromHsvF(std::fmod(double(stack) * golden, 1.0), 0.55, light ? 0.92 : 0.80).rgb();
            }
            m_palette[2 * stack + (light ? 1 : 0)] = rgb;
        }
    }
    m_palette[2 * stacks] = QColor::fromHsvF(0.6, 0.08, 0.70).rgb();
    m_palette[2 * stacks + 1] = QColor::fromHsvF(0.6, 0.08, 0.78).rgb();
}

QRgb AllocationTimeline::colorOf(std::uint32_t allocation) const
{
    const auto &a = *m_allocations;
    const std::size_t light = allocation & 1U;
    const std::size_t stack = a.allocated[allocation] < 0 ? (m_palette.size() - 2) / 2 : a.stack[allocation].value;
    const std::size_t i = 2 * stack + light;
    return i < m_palette.size() ? m_palette[i] : m_palette[m_palette.size() - 2 + light];
}

void AllocationTimeline::render()
{
    m_dirty = false;
    const QRect r = plotRect();
    m_image = QImage(r.size(), QImage::Format_ARGB32_Premultiplied);
    m_image.fill(Qt::transparent);
    m_columnPosition.assign(std::size_t(r.width()), -1);
    m_columnReserved.assign(std::size_t(r.width()), 0);
    const auto *d = device();
    if (!d || m_stacks.empty() || d->events.empty())
        return;
    const auto activeAt = [&](std::int64_t p) { return p < 0 ? d->activeAtStart : d->active[std::size_t(p)]; };
    const auto reservedAt = [&](std::int64_t p) { return p < 0 ? d->reservedAtStart : d->reserved[std::size_t(p)]; };
    // Each column: where its events reach their highest, else the state carried into it.
    std::int64_t highest = 0;
    std::int64_t next = positionAtOrBefore(m_x0) + 1; // the first position not yet in a column
    for (int c = 0; c < r.width(); ++c) {
        const double end = m_x0 + (m_x1 - m_x0) * double(c + 1) / r.width();
        const std::int64_t last = positionAtOrBefore(end);
        const std::int64_t chosen = next <= last ? snapshot::highestIn(*d, *m_allocations, next, last) : next - 1;
        next = std::max(next, last + 1);
        m_columnPosition[std::size_t(c)] = chosen;
        m_columnReserved[std::size_t(c)] = reservedAt(chosen);
        highest = std::max({highest, activeAt(chosen), reservedAt(chosen)});
    }
    m_yMax = std::max<double>(1.0, double(highest) * kHeadroom);
    const double bytesPerPixel = m_yMax / r.height();
    const int rows = r.height();
    const int columns = r.width();
    // Column by column into a buffer of columns (row 0 the bottom), each column from the one
    // before: its rows below the lowest allocation added or removed in between are copied, and
    // only the bands above are walked. A view of many events is drawn in runs of columns on as
    // many threads, a stack each (the first column of a run drawn whole).
    std::vector<QRgb> pixels(std::size_t(rows) * std::size_t(columns), 0);
    const std::int64_t events = m_columnPosition.back() - m_columnPosition.front();
    const int runs = events < kEventsPerThread
                         ? 1
                         : int(std::clamp<std::int64_t>(events / kEventsPerThread, 1,
                                                        std::min<std::int64_t>(m_stacks.size(), columns / 64 + 1)));
    const auto drawRun = [&](int run) {
        auto &stack = *m_stacks[std::size_t(run)];
        const int first = columns * run / runs, past = columns * (run + 1) / runs;
        for (int c = first; c < past; ++c) {
            QRgb *column = pixels.data() + std::size_t(c) * std::size_t(rows);
            const auto p = m_columnPosition[std::size_t(c)];
            if (c > first && p == m_columnPosition[std::size_t(c - 1)]) { // the same stack: copy the column
                std::copy_n(column - rows, rows, column);
                continue;
            }
            stack.moveTo(p);
            const int from = c == first ? 0 : stack.unchangedRows(rows, bytesPerPixel);
            if (from > 0)
                std::copy_n(column - rows, from, column);
            stack.forEachBand(
                rows, bytesPerPixel,
                [&](int low, int high, std::uint32_t allocation) {
                    std::fill(column + low, column + high, colorOf(allocation));
                },
                from);
            stack.markDrawn();
        }
    };
    std::vector<std::thread> helpers;
    for (int run = 1; run < runs; ++run)
        helpers.emplace_back(drawRun, run);
    drawRun(0);
    for (auto &helper : helpers)
        helper.join();
    // Into the image's rows, top first, in tiles that stay in the cache.
    constexpr int kTile = 64;
    for (int c0 = 0; c0 < columns; c0 += kTile) {
        const int c1 = std::min(columns, c0 + kTile);
        for (int y = 0; y < rows; ++y) {
            auto *line = reinterpret_cast<QRgb *>(m_image.scanLine(rows - 1 - y));
            for (int c = c0; c < c1; ++c)
                line[c] = pixels[std::size_t(c) * std::size_t(rows) + std::size_t(y)];
        }
    }
}

void AllocationTimeline::paintEvent(QPaintEvent *)
{
    if (m_dirty)
        render();
    QPainter painter(this);
    const QRect r = plotRect();
    painter.fillRect(rect(), palette().window());
    painter.fillRect(r, palette().base());
    const QColor text = palette().color(QPalette::Text);
    QColor grid = palette().color(QPalette::Mid);
    grid.setAlpha(90);
    // Bytes: four steps up the axis.
    painter.setPen(grid);
    for (int i = 1; i <= 4; ++i) {
        const int y = r.bottom() - int(r.height() * i / 4.0 / kHeadroom);
        painter.drawLine(r.left(), y, r.right(), y);
    }
    painter.drawImage(r.topLeft(), m_image);
    painter.setPen(text);
    for (int i = 0; i <= 4; ++i) {
        const int y = r.bottom() - int(r.height() * i / 4.0 / kHeadroom);
        const auto bytes = std::int64_t(m_yMax / kHeadroom * i / 4.0);
        painter.drawText(QRect(0, y - 8, kLeftMargin - 6, 16), Qt::AlignRight | Qt::AlignVCenter, bytesText(bytes));
    }
    // Time: five labels along the bottom.
    const bool times = m_snapshot && m_snapshot->hasTimes;
    for (int i = 0; i <= 4; ++i) {
        const int x = r.left() + r.width() * i / 4;
        const Qt::Alignment align = i == 0 ? Qt::AlignLeft : i == 4 ? Qt::AlignRight : Qt::AlignHCenter;
        const QRect box = i == 0   ? QRect(x, r.bottom() + 4, 120, 16)
                          : i == 4 ? QRect(x - 120, r.bottom() + 4, 120, 16)
                                   : QRect(x - 60, r.bottom() + 4, 120, 16);
        painter.drawText(box, align | Qt::AlignTop, xText(xAtPixel(x), times));
    }
    painter.save();
    painter.setClipRect(r);
    // Reserved memory, dashed, as in the bands by stack.
    if (!m_columnReserved.empty()) {
        QPen dashed(text, 1, Qt::DashLine);
        painter.setPen(dashed);
        QPolygonF line;
        for (std::size_t c = 0; c < m_columnReserved.size(); ++c)
            line << QPointF(r.left() + double(c), r.bottom() - double(m_columnReserved[c]) / m_yMax * r.height());
        painter.drawPolyline(line);
    }
    const auto pixelOf = [&](double x) { return r.left() + (x - m_x0) / (m_x1 - m_x0) * r.width(); };
    if (m_peakX >= 0) {
        painter.setPen(QPen(palette().color(QPalette::Highlight), 1, Qt::DotLine));
        painter.drawLine(QPointF(pixelOf(m_peakX), r.top()), QPointF(pixelOf(m_peakX), r.bottom()));
        painter.drawText(QPointF(pixelOf(m_peakX) + 3, r.top() + 12), tr("peak"));
    }
    for (const double x : m_oomXs) {
        painter.setPen(QPen(QColor(0xc6, 0x28, 0x28), 2));
        painter.drawLine(QPointF(pixelOf(x), r.top()), QPointF(pixelOf(x), r.bottom()));
        const double at = pixelOf(x);
        const int textWidth = fontMetrics().horizontalAdvance(tr("OOM"));
        painter.drawText(QPointF(at + 3 + textWidth > r.right() ? at - 3 - textWidth : at + 3, r.top() + 26),
                         tr("OOM"));
    }
    if (m_instantX >= 0) {
        painter.setPen(QPen(text, 2));
        painter.drawLine(QPointF(pixelOf(m_instantX), r.top()), QPointF(pixelOf(m_instantX), r.bottom()));
    }
    painter.restore();
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(r.adjusted(0, 0, -1, -1));
}

void AllocationTimeline::resizeEvent(QResizeEvent *)
{
    m_dirty = true;
}

void AllocationTimeline::wheelEvent(QWheelEvent *event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0 || !device())
        return;
    const double factor = std::pow(0.8, steps);
    const double at = xAtPixel(event->position().x());
    setVisibleRange(at - (at - m_x0) * factor, at + (m_x1 - at) * factor);
    event->accept();
}

void AllocationTimeline::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && plotRect().contains(event->position().toPoint())) {
        m_press = event->position().toPoint();
        m_pressRange = {m_x0, m_x1};
    }
}

void AllocationTimeline::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_press)
        return;
    const double dx =
        (event->position().x() - m_press->x()) / plotRect().width() * (m_pressRange.second - m_pressRange.first);
    setVisibleRange(m_pressRange.first - dx, m_pressRange.second - dx);
}

void AllocationTimeline::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_press)
        return;
    const bool click = (event->position().toPoint() - *m_press).manhattanLength() < 4;
    m_press.reset();
    if (click && device())
        Q_EMIT instantClicked(xAtPixel(event->position().x()));
}

void AllocationTimeline::mouseDoubleClickEvent(QMouseEvent *)
{
    showAll();
}

std::optional<std::uint32_t> AllocationTimeline::allocationAt(QPoint point)
{
    const QRect r = plotRect();
    if (m_dirty)
        render();
    if (!r.contains(point) || !m_hoverStack || m_columnPosition.empty())
        return std::nullopt;
    const auto column = std::size_t(std::clamp(point.x() - r.left(), 0, int(m_columnPosition.size()) - 1));
    m_hoverStack->moveTo(m_columnPosition[column]);
    const double bytesPerPixel = m_yMax / r.height();
    const auto band = m_hoverStack->at(std::int64_t((r.bottom() - point.y() + 0.5) * bytesPerPixel));
    if (!band)
        return std::nullopt;
    return band->allocation;
}

QString AllocationTimeline::toolTipAt(QPoint point)
{
    const auto allocation = allocationAt(point);
    if (!allocation)
        return {};
    const auto &a = *m_allocations;
    const auto &s = *m_snapshot;
    const auto i = *allocation;
    const bool times = s.hasTimes;
    const QString made =
        a.allocated[i] < 0 ? tr("before the trace")
                           : tr("at %1 (event %2)").arg(xText(xOfPosition(a.allocated[i]), times)).arg(a.allocated[i]);
    const QString freed = a.freed[i] >= a.positions()
                              ? tr("never freed in the trace")
                              : tr("freed at %1 (event %2)").arg(xText(xOfPosition(a.freed[i]), times)).arg(a.freed[i]);
    const QString stack = QString::fromStdString(snapshot::foldedStack(s, a.stack[i]))
                              .toHtmlEscaped()
                              .replace(QLatin1Char(';'), QStringLiteral("<br>"));
    return tr("<b>%1</b> · %2<br>Allocated %3, %4; at 0x%5<br><br>%6")
        .arg(bytesText(a.size[i]), QString::fromStdString(snapshot::stackLabel(s, a.stack[i])).toHtmlEscaped(), made,
             freed, QString::number(a.address[i], 16), stack);
}

bool AllocationTimeline::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace pyrometer::ui::plots
