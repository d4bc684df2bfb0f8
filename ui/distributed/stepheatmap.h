#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/job.h"

#include <cstddef>
#include <memory>

class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QMouseEvent;

namespace pyrometer::ui::distributed {

// Ranks × steps: each cell one rank's step time, coloured on a scale in ms (a rank with fewer
// steps leaves its cells blank). Hover names the cell; a click activates it.
class StepHeatMap final : public QWidget {
    Q_OBJECT
public:
    explicit StepHeatMap(QWidget *parent = nullptr);

    void setJob(std::shared_ptr<const analysis::JobFigures> job);

    QCustomPlot *plot() const { return m_plot; }
    QCPColorMap *map() const { return m_map; }
    QCPColorScale *scale() const { return m_scale; }
    int stepCount() const;
    int rankCount() const;
    // The value drawn for job.ranks[rankIndex]'s step, in ms (NaN when that rank has no such step).
    double cellMs(std::size_t rankIndex, std::size_t step) const;
    // Where the cell is drawn, in the plot's widget coordinates.
    QPoint cellCenter(std::size_t rankIndex, std::size_t step) const;
    QString cellText(std::size_t rankIndex, std::size_t step) const;

Q_SIGNALS:
    void cellActivated(std::size_t rankIndex, std::size_t step);

private:
    bool cellAt(const QPointF &position, std::size_t *rankIndex, std::size_t *step) const;
    void showTip(QMouseEvent *event);

    QCustomPlot *m_plot;
    QCPColorMap *m_map;
    QCPColorScale *m_scale;
    std::shared_ptr<const analysis::JobFigures> m_job;
    std::size_t m_steps = 0;
};

} // namespace pyrometer::ui::distributed
