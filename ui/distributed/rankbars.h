#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/job.h"

#include <array>
#include <memory>
#include <vector>

class QCPBars;
class QCustomPlot;
class QMouseEvent;

namespace pyrometer::ui::distributed {

// Each rank's window as one stacked bar (QCustomPlot): computation only, communication hidden
// behind computation, exposed communication, memory and idle, in ms, in rank order; the
// stragglers marked above their bars. Hundreds of ranks stay readable: bars as thin as the
// plot's width needs, a labelled tick every k ranks.
class RankBars final : public QWidget {
    Q_OBJECT
public:
    static constexpr std::size_t kParts = 5;

    explicit RankBars(QWidget *parent = nullptr);

    void setJob(std::shared_ptr<const analysis::JobFigures> job);

    QCustomPlot *plot() const { return m_plot; }
    int barCount() const;
    // The bar layers, bottom first, one per part.
    const std::array<QCPBars *, kParts> &layers() const { return m_layers; }
    // What hovering over the bar of job.ranks[i] shows: the rank, its file, each part in ms
    // and % of the window.
    QString rankText(int i) const;
    // The ranks between two labelled ticks.
    int tickStep() const { return m_tickStep; }

private:
    void showTip(QMouseEvent *event);

    QCustomPlot *m_plot;
    std::shared_ptr<const analysis::JobFigures> m_job;
    std::array<QCPBars *, kParts> m_layers{};
    int m_tickStep = 1;
};

// Items (ranks, steps) between two labelled ticks of an axis: 1, 2, 5, 10, 20, 50, ..., so that
// `count` items get at most maxLabels labels.
int niceTickStep(std::size_t count, int maxLabels);

// The five parts of a rank's window (RankFigures' partition), in ns, bottom first.
std::array<std::int64_t, RankBars::kParts> rankParts(const analysis::RankFigures &rank);

} // namespace pyrometer::ui::distributed
