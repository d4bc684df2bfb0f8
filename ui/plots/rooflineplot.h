#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/roofline.h"

#include <vector>

class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace pyrometer::ui::plots {

// One roof: a bandwidth slope up to the ridge, then the peak.
struct RoofLine {
    QString label; // "BF16 matrix"
    double peakFlops = 0;
    double bandwidth = 0;
};

// One op or layer under the roofs: where its work puts it and what it reached.
struct RooflinePoint {
    QString name;
    double intensity = 0; // FLOP/byte
    double flops = 0;     // achieved FLOP/s
    double share = 0;     // of the time: the marker's area
    analysis::Bound bound = analysis::Bound::Unknown;
    QString details; // the tooltip's lines after the name
    int series = -1; // points of one series (a layer across batch sizes) are joined in order
};

// The roofline chart: log-log, arithmetic intensity against achieved FLOP/s, roofs as lines
// labelled with their peak and the bandwidth, each point sized by its share of the time and
// coloured by what bounds it. Hovering a point names it; clicking one says which.
class RooflinePlot final : public QWidget {
    Q_OBJECT
public:
    explicit RooflinePlot(QWidget *parent = nullptr);

    void setData(std::vector<RoofLine> roofs, std::vector<RooflinePoint> points);
    void setSelected(int point); // -1: none

    QCustomPlot *plot() const { return m_plot; }
    // The key above the plot: what the points' colours and sizes mean.
    QLabel *key() const { return m_key; }
    const std::vector<RooflinePoint> &points() const { return m_points; }
    const std::vector<RoofLine> &roofs() const { return m_roofs; }
    // The point under a widget position of the plot (within its marker, or 6 px), else -1.
    int pointAt(const QPointF &position) const;
    QPointF pointPosition(int point) const; // in the plot's widget coordinates
    QString tooltip(int point) const;
    static QColor boundColor(analysis::Bound bound);
    static double markerSize(double share); // px

Q_SIGNALS:
    void pointClicked(int point);

private:
    void rebuild();
    void hover(QMouseEvent *event);

    QCustomPlot *m_plot;
    QLabel *m_key;
    std::vector<RoofLine> m_roofs;
    std::vector<RooflinePoint> m_points;
    int m_selected = -1;
};

} // namespace pyrometer::ui::plots
