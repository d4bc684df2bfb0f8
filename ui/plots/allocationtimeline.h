#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QImage>
#include <QWidget>

#include "core/snapshot/allocations.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace pyrometer::ui::plots {

// A device's active memory with every allocation a band of its own, stacked in the order they
// were made (memory_viz's active memory timeline), with reserved memory dashed, the peak and each
// OOM marked and the instant shown as a vertical line. Drawn as a raster, column by column: each
// column shows the stack where its events reach their highest, so no peak is lost at any zoom,
// and is drawn from the column before it (only the bands above what changed between are walked),
// in runs of columns on several threads when many events are in view. The wheel zooms about the
// cursor, a drag pans, a double click shows everything, a click names the instant, and hovering a
// band names its allocation: its size, when it was made and freed, and its stack.
class AllocationTimeline final : public QWidget {
    Q_OBJECT
public:
    explicit AllocationTimeline(QWidget *parent = nullptr);

    void setData(std::shared_ptr<const snapshot::Snapshot> snapshot,
                 std::shared_ptr<const std::vector<snapshot::DeviceReplay>> devices, std::size_t device,
                 std::shared_ptr<const snapshot::Allocations> allocations);
    void clear();
    // Each stack's colour (indexed by StackId), as the other views of the page colour it; a
    // stack past the end gets one of its own.
    void setStackColors(std::vector<QRgb> colors);
    // The peak and the OOMs, in the x unit (ms after the device's first event, or an event's
    // number in a snapshot without times).
    void setMarkers(double peakX, std::vector<double> oomXs);
    void setInstant(double x);
    double instantX() const { return m_instantX; }

    std::pair<double, double> visibleRange() const { return {m_x0, m_x1}; }
    void setVisibleRange(double x0, double x1);
    void showAll();
    // Where the bands are drawn, in widget coordinates.
    QRect plotRect() const;
    double xAtPixel(double widgetX) const;
    // The allocation drawn at a widget point, if any, and what hovering it says (rich text).
    std::optional<std::uint32_t> allocationAt(QPoint point);
    QString toolTipAt(QPoint point);
    // The bands as last drawn (the plot area only).
    const QImage &bandsImage() const { return m_image; }
    double bytesAtTop() const { return m_yMax; }

Q_SIGNALS:
    void instantClicked(double x);

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;

private:
    const snapshot::DeviceReplay *device() const;
    double xOfPosition(std::int64_t position) const;
    // The last position at or before x (-1 before the first event).
    std::int64_t positionAtOrBefore(double x) const;
    void render();
    void makePalette();
    QRgb colorOf(std::uint32_t allocation) const;

    std::shared_ptr<const snapshot::Snapshot> m_snapshot;
    std::shared_ptr<const std::vector<snapshot::DeviceReplay>> m_devices;
    std::size_t m_device = 0;
    std::shared_ptr<const snapshot::Allocations> m_allocations;
    std::vector<std::unique_ptr<snapshot::AllocationStack>> m_stacks; // for drawing, one per thread
    std::unique_ptr<snapshot::AllocationStack> m_hoverStack; // for hovering
    double m_x0 = 0, m_x1 = 1;
    double m_xEnd = 1; // the last event's x
    double m_yMax = 1;
    double m_peakX = -1;
    std::vector<double> m_oomXs;
    std::vector<QRgb> m_stackColors;
    std::vector<QRgb> m_palette; // per stack a darker and a lighter shade, then those live before the trace
    double m_instantX = -1;
    QImage m_image;
    std::vector<std::int64_t> m_columnPosition; // per pixel column, the position drawn
    std::vector<std::int64_t> m_columnReserved;
    bool m_dirty = true;
    std::optional<QPoint> m_press;
    std::pair<double, double> m_pressRange;
};

} // namespace pyrometer::ui::plots
