#pragma once

#include <QWidget>

#include "core/model/sweep.h"

#include <array>
#include <map>

class QCustomPlot;
class QCPGraph;
class QCPPainter;

namespace pyrometer::ui {

// A batch-size sweep as three QCustomPlot charts side by side: latency, throughput and peak
// memory against the batch size on a log2 axis, one curve per variant, each variant's knee
// marked on the throughput chart and the memory budget drawn as a line. Points can arrive one
// at a time while the sweep runs; hovering a point shows its values.
class SweepPlots final : public QWidget {
    Q_OBJECT
public:
    enum Chart { Latency, Throughput, Memory, ChartCount };

    explicit SweepPlots(QWidget *parent = nullptr);

    void clear();
    // A point without a measured peak (SweepPoint::memoryMeasured) is left off the memory chart,
    // which says it was not measured.
    void addPoint(const model::SweepPoint &point);
    bool memoryUnmeasured() const { return m_memoryUnmeasured; }
    void setBudget(std::int64_t bytes); // 0: none
    void setSummaries(const std::vector<model::SweepSummary> &summaries);

    QCustomPlot *plot(Chart chart) const { return m_plots[chart]; }
    // The curve of a variant on a chart; null when it has no points yet.
    QCPGraph *graph(Chart chart, const QString &variant) const;
    int variantCount() const { return int(m_variants.size()); }
    // The text a hover at pixel pos of chart shows; empty when no point is near.
    QString hoverText(Chart chart, const QPoint &pos) const;

    // The three charts as one picture.
    bool savePng(const QString &path, int width = 1500, int height = 450) const;
    bool saveSvg(const QString &path, int width = 1500, int height = 450) const;

private:
    // The three charts side by side, as a file shows them (see plots::printPalette).
    void paint(QCPPainter &painter, int width, int height) const;
    void rescale();
    QColor colorOf(int variantIndex) const;

    std::array<QCustomPlot *, ChartCount> m_plots{};
    std::map<QString, int> m_variants; // name -> index (color, graph order)
    std::int64_t m_budget = 0;
    bool m_memoryUnmeasured = false; // points without a peak: the memory chart says so
};

// The fill colour of the n-th variant: distinct hues, readable on white.
QColor sweepColor(int index);

} // namespace pyrometer::ui
