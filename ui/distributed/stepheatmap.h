#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/job.h"
#include "core/analysis/stepmeasures.h"

#include <cstddef>
#include <memory>

class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QMouseEvent;

namespace pyrometer::ui::distributed {

// Ranks × steps: each cell one rank's step, coloured by a measure chosen above the map (step
// time, compute, exposed communication or wait) on a scale in ms; a job opens on the measure
// that differs most across its ranks (analysis::mostVaryingMeasure), as step time is the same
// on every rank of a synchronous job. Steps are labelled by their ProfilerStep numbers; a rank
// with fewer steps leaves its cells blank. Hover names the cell; a click activates it.
class StepHeatMap final : public QWidget {
    Q_OBJECT
public:
    explicit StepHeatMap(QWidget *parent = nullptr);

    void setJob(std::shared_ptr<const analysis::JobFigures> job);
    void setMeasure(analysis::StepMeasure measure);
    analysis::StepMeasure measure() const { return m_measure; }

    QCustomPlot *plot() const { return m_plot; }
    QCPColorMap *map() const { return m_map; }
    QCPColorScale *scale() const { return m_scale; }
    QComboBox *measureChooser() const { return m_chooser; }
    int stepCount() const;
    int rankCount() const;
    // The value drawn for job.ranks[rankIndex]'s step, in ms (NaN when that rank has no such
    // step or the measure is unknown there).
    double cellMs(std::size_t rankIndex, std::size_t step) const;
    // The step axis' label of column `step`: its ProfilerStep number, as the tooltips name it.
    QString stepLabel(std::size_t step) const;
    // Where the cell is drawn, in the plot's widget coordinates.
    QPoint cellCenter(std::size_t rankIndex, std::size_t step) const;
    QString cellText(std::size_t rankIndex, std::size_t step) const;

Q_SIGNALS:
    void cellActivated(std::size_t rankIndex, std::size_t step);

private:
    bool cellAt(const QPointF &position, std::size_t *rankIndex, std::size_t *step) const;
    void showTip(QMouseEvent *event);
    void fillCells();

    QCustomPlot *m_plot;
    QCPColorMap *m_map;
    QCPColorScale *m_scale;
    QComboBox *m_chooser;
    analysis::StepMeasure m_measure = analysis::StepMeasure::StepTime;
    std::shared_ptr<const analysis::JobFigures> m_job;
    std::size_t m_steps = 0;
};

} // namespace pyrometer::ui::distributed
