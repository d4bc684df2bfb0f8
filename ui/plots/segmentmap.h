#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/snapshot/segmentsat.h"

#include <functional>
#include <vector>

namespace pyrometer::ui::plots {

// The allocator's segments at an instant, as a map: each segment a bar as wide as its share of
// the reserved bytes (rows wrap), its live blocks drawn where they lie in it, in the colour of
// their stack's band, the free pieces left light. Fragmentation reads at a glance: many thin
// gaps. A segment's tooltip gives its size, what was live and its largest free piece.
class SegmentMap final : public QWidget {
    Q_OBJECT
public:
    explicit SegmentMap(QWidget *parent = nullptr);

    // blocks: the live blocks, sorted by address; colorOf gives a block's fill.
    void setState(const snapshot::SegmentsAt &state, std::vector<snapshot::LiveBlock> blocks,
                  std::function<QColor(const snapshot::LiveBlock &)> colorOf);
    // The segment drawn under a point, or -1.
    int segmentAt(QPoint point) const;
    // What hovering a segment says: its address, stream and pool, bytes, live blocks, largest free piece.
    QString toolTipOf(int segment) const;
    const snapshot::SegmentsAt &state() const { return m_state; }

    QSize sizeHint() const override { return {600, 120}; }
    QSize minimumSizeHint() const override { return {200, 60}; }

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    void layoutSegments();

    snapshot::SegmentsAt m_state;
    std::vector<snapshot::LiveBlock> m_blocks;
    std::function<QColor(const snapshot::LiveBlock &)> m_colorOf;
    std::vector<QRectF> m_rects; // per segment
};

} // namespace pyrometer::ui::plots
