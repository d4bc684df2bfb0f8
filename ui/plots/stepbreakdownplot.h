#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/steps.h"

#include <vector>

class QCPBars;
class QCustomPlot;

namespace pyrometer::ui::plots {

// Each step's time as one stacked bar (QCustomPlot): kernel, memcpy, memset, runtime,
// DataLoader, CPU exec and other, in ms, with a legend of the categories that occur and the
// step's values on hover.
class StepBreakdownPlot final : public QWidget {
    Q_OBJECT
public:
    explicit StepBreakdownPlot(QWidget *parent = nullptr);

    void setSteps(const std::vector<analysis::StepRow> &steps);

    QCustomPlot *plot() const { return m_plot; }
    int stepCount() const { return int(m_steps.size()); }
    // The bar layers shown, bottom first, one per category with time in some step.
    const std::vector<QCPBars *> &layers() const { return m_layers; }
    // What hovering over step i shows: its name, duration and every category in ms and %.
    QString stepText(int step) const;

    static QColor categoryColor(analysis::StepCategory category);
    static QString categoryLabel(analysis::StepCategory category);

private:
    void showTip(QMouseEvent *event);

    QCustomPlot *m_plot;
    std::vector<analysis::StepRow> m_steps;
    std::vector<QCPBars *> m_layers;
};

} // namespace pyrometer::ui::plots
