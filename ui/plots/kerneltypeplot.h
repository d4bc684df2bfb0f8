#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/kerneltypes.h"

class QCustomPlot;

namespace pyrometer::ui::plots {

// GPU time by kernel type (communication, memory, GEMM, attention, ...) as horizontal bars,
// longest at the top, each labelled with its time, share and count.
class KernelTypePlot final : public QWidget {
    Q_OBJECT
public:
    explicit KernelTypePlot(QWidget *parent = nullptr);

    void setBreakdown(const analysis::KernelTypeBreakdown &breakdown);

    QCustomPlot *plot() const { return m_plot; }
    int barCount() const { return int(m_breakdown.rows.size()); }
    // The label drawn beside bar i (top first): "GEMM  12.3 ms  41%  (1,204)".
    QString barLabel(int bar) const;

    static QColor typeColor(analysis::KernelType type);

private:
    QCustomPlot *m_plot;
    analysis::KernelTypeBreakdown m_breakdown;
};

} // namespace pyrometer::ui::plots
