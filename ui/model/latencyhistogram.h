#pragma once

#include <QWidget>

#include <vector>

class QCPBars;
class QCustomPlot;

namespace pyrometer::ui {

// Equal-width bins over [min, max] of the samples; the last bin includes max.
struct HistogramBins {
    double start = 0;
    double width = 0;
    std::vector<int> counts;
    double center(std::size_t bin) const { return start + (double(bin) + 0.5) * width; }
    bool operator==(const HistogramBins &) const = default;
};

// About sqrt(n) bins (Excel's rule), at least 1 and at most maxBins; one bin of width 1 % of
// the value (or 1 µs) when all samples are equal.
HistogramBins histogramBins(const std::vector<double> &samples, int maxBins = 40);

// The timed iterations' latencies as bars (QCustomPlot), with the mean and p99 marked.
class LatencyHistogram final : public QWidget {
    Q_OBJECT
public:
    explicit LatencyHistogram(QWidget *parent = nullptr);

    void setSamples(const std::vector<double> &samplesMs, double meanMs, double p99Ms);
    void clear();

    QCustomPlot *plot() const { return m_plot; }
    QCPBars *bars() const { return m_bars; }

private:
    QCustomPlot *m_plot;
    QCPBars *m_bars;
};

} // namespace pyrometer::ui
