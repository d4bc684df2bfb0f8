#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/memory.h"

#include <vector>

class QCustomPlot;

namespace pyrometer::ui::plots {

// Allocated (solid) and reserved (dashed) memory of every device over time (QCustomPlot), in
// ms since the trace start, each device's peak marked and labelled with its size and time.
class MemoryCurvePlot final : public QWidget {
    Q_OBJECT
public:
    struct PeakMark {
        QString device;
        double timeMs = 0; // since the trace start
        double bytes = 0;
        QString label;
    };

    explicit MemoryCurvePlot(QWidget *parent = nullptr);

    // originNs: the trace's start, the time axis' zero.
    void setReport(const analysis::MemoryReport &report, std::int64_t originNs);

    QCustomPlot *plot() const { return m_plot; }
    const std::vector<PeakMark> &peaks() const { return m_peaks; }
    // Bytes per unit of the value axis (1 MiB or 1 GiB) and its name.
    double bytesPerUnit() const { return m_bytesPerUnit; }

private:
    QCustomPlot *m_plot;
    std::vector<PeakMark> m_peaks;
    double m_bytesPerUnit = 1;
};

} // namespace pyrometer::ui::plots
