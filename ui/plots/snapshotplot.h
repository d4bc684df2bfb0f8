#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/snapshot/bands.h"

#include <vector>

class QCustomPlot;
class QCPItemStraightLine;

namespace pyrometer::ui::plots {

// A snapshot's active memory over time as stacked bands, one per stack that held most at the
// peak and one for the rest, with reserved memory as a dashed line, the peak and each OOM
// marked and the instant shown as a vertical line. A click names the instant under it.
class SnapshotPlot final : public QWidget {
    Q_OBJECT
public:
    explicit SnapshotPlot(QWidget *parent = nullptr);

    // reserved: per sample of bands (same positions). peakX and oomXs in the bands' x unit.
    void setBands(const snapshot::StackBands &bands, const std::vector<std::int64_t> &reserved, double peakX,
                  const std::vector<double> &oomXs);
    void setInstant(double x);

    QCustomPlot *plot() const { return m_plot; }
    const snapshot::StackBands &bands() const { return m_bands; }
    double instantX() const { return m_instantX; }
    // What the mouse at (x, y) in plot coordinates is over: a band's label, its bytes then and
    // its stack (rich text), or empty.
    QString toolTipAt(double x, double y) const;
    // The fill colour of band i, as the legend shows it.
    static QColor bandColor(std::size_t i, std::size_t count);

Q_SIGNALS:
    // The user clicked at x (ms after the first event, or an event's number).
    void instantClicked(double x);

private:
    QCustomPlot *m_plot;
    QCPItemStraightLine *m_instant = nullptr;
    snapshot::StackBands m_bands;
    double m_instantX = 0;
    double m_bytesPerUnit = 1;
};

} // namespace pyrometer::ui::plots
