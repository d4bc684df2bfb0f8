#include "ui/model/latencyhistogram.h"

#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace pyrometer::ui {

HistogramBins histogramBins(const std::vector<double> &samples, int maxBins)
{
    HistogramBins bins;
    if (samples.empty())
        return bins;
    const auto [minIt, maxIt] = std::minmax_element(samples.begin(), samples.end());
    const double low = *minIt;
    const double high = *maxIt;
    if (high <= low) {
        bins.width = std::max(std::abs(low) * 0.01, 1e-3);
        bins.start = low - bins.width / 2;
        bins.counts = {int(samples.size())};
        return bins;
    }
    const int count = std::clamp(int(std::ceil(std::sqrt(double(samples.size())))), 1, std::max(1, maxBins));
    bins.start = low;
    bins.width = (high - low) / count;
    bins.counts.assign(std::size_t(count), 0);
    for (const double sample : samples) {
        const auto bin = std::clamp(int((sample - low) / bins.width), 0, count - 1);
        ++bins.counts[std::size_t(bin)];
    }
    return bins;
}

LatencyHistogram::LatencyHistogram(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumHeight(160);
    m_plot->xAxis->setLabel(tr("latency of a timed run (ms)"));
    m_plot->yAxis->setLabel(tr("runs"));
    m_plot->legend->setVisible(false);
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars->setName(tr("runs"));
    m_bars->setPen(QPen(QColor(0x2f, 0x6f, 0xb0)));
    m_bars->setBrush(QColor(0x4a, 0x90, 0xd9, 170));
    m_bars->setWidthType(QCPBars::wtPlotCoords);
    plots::followPalette(m_plot);
}

void LatencyHistogram::clear()
{
    m_bars->data()->clear();
    m_plot->clearItems();
    m_plot->replot();
}

void LatencyHistogram::setSamples(const std::vector<double> &samplesMs, double meanMs, double p99Ms)
{
    clear();
    const HistogramBins bins = histogramBins(samplesMs);
    if (bins.counts.empty())
        return;
    QVector<double> keys;
    QVector<double> values;
    for (std::size_t i = 0; i < bins.counts.size(); ++i) {
        keys << bins.center(i);
        values << bins.counts[i];
    }
    m_bars->setWidth(bins.width * 0.9);
    m_bars->setData(keys, values, true);
    const int highest = *std::max_element(bins.counts.begin(), bins.counts.end());
    const double end = bins.start + bins.width * double(bins.counts.size());
    const double margin = bins.width;
    m_plot->xAxis->setRange(std::min(bins.start, meanMs) - margin, std::max(end, p99Ms) + margin);
    m_plot->yAxis->setRange(0, highest * 1.15 + 0.5);

    const auto mark = [this, highest](double x, const QString &label, const QColor &color) {
        auto *line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setPen(QPen(color, 1.5, Qt::DashLine));
        auto *text = new QCPItemText(m_plot);
        text->position->setCoords(x, highest * 1.1 + 0.4);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->setPadding(QMargins(4, 0, 0, 0));
        text->setText(label);
        text->setColor(color);
    };
    mark(meanMs, tr("mean %1").arg(meanMs, 0, 'f', 3), QColor(0xc0, 0x39, 0x2b));
    mark(p99Ms, tr("p99 %1").arg(p99Ms, 0, 'f', 3), QColor(0x8e, 0x44, 0xad));
    m_plot->replot();
}

} // namespace pyrometer::ui
