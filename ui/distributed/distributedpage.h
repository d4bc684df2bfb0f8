#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "ui/distributed/jobtables.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/document.h"

#include <memory>

class QComboBox;
class QLabel;
class QMenu;
class QStackedLayout;
class QTableView;
class QTabWidget;

namespace pyrometer::ui {

class EmptyState;
class Workspace;

namespace distributed {

class RankBars;
class StepHeatMap;

// The Distributed page, for one open job: a summary, the straggler finding with its evidence,
// the files' problems and how the clocks were aligned; each rank's window as a stacked bar; a
// ranks × steps heat map of step time whose cells open that rank's step in the Timeline; the
// ranks and the collectives as sortable tables. Every figure is the job's (JobFigures): the
// page formats them.
class DistributedPage final : public QWidget {
    Q_OBJECT
public:
    explicit DistributedPage(Workspace *workspace, QWidget *parent = nullptr);

    void showJob(DocumentId id);
    DocumentId currentJob() const { return m_jobId; }
    bool hasContent() const;

    EmptyState *emptyState() const { return m_empty; }
    QComboBox *jobChooser() const { return m_chooser; }
    QLabel *summary() const { return m_summary; }
    QLabel *finding() const { return m_finding; }
    RankBars *bars() const { return m_bars; }
    StepHeatMap *heatMap() const { return m_heatMap; }
    QTableView *ranksTable() const { return m_ranksView; }
    QTableView *collectivesTable() const { return m_collectivesView; }
    // All ranks, or one of them, for the collectives table.
    QComboBox *collectivesRankChooser() const { return m_collectivesRank; }
    QTabWidget *tables() const { return m_tables; }
    RanksModel *ranksModel() const { return m_ranksModel; }
    CollectivesModel *collectivesModel() const { return m_collectivesModel; }

    // Asks for step `step` of job.ranks[rankIndex] in the Timeline, as a click on its cell does.
    void requestStep(std::size_t rankIndex, std::size_t step);
    // The ranks table's context menu for job.ranks[rankIndex]: its first step in the Timeline, and
    // its whole trace opened as a trace of its own, where the file can be read from here (a job
    // opened from summaries made elsewhere may name files this machine does not have).
    QMenu *rankMenu(std::size_t rankIndex, QWidget *parent);

Q_SIGNALS:
    // Show [startNs, endNs) of the combined trace in the Timeline (the step, on the job's clock),
    // and the rows of step, the rank's step annotation, when it was found.
    void stepRequested(pyrometer::ui::DocumentId trace, double startNs, double endNs,
                       std::optional<pyrometer::ui::timeline::EventRef> step);
    // Something for the status bar (a rank that is not in the Timeline).
    void statusMessage(const QString &message);

private:
    void rebuildChooser();
    void showCollectives();
    void updateTimelineNote();

    Workspace *m_workspace;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    QComboBox *m_chooser;
    QLabel *m_summary;
    QLabel *m_finding;
    QLabel *m_timelineNote;
    RankBars *m_bars;
    StepHeatMap *m_heatMap;
    QTabWidget *m_tables;
    QTableView *m_ranksView;
    QTableView *m_collectivesView;
    QComboBox *m_collectivesRank;
    RanksModel *m_ranksModel;
    CollectivesModel *m_collectivesModel;
    HighlightingProxy *m_ranksProxy;
    HighlightingProxy *m_collectivesProxy;
    std::shared_ptr<const JobDocument> m_job;
    DocumentId m_jobId = kNoDocument;
};

} // namespace distributed
} // namespace pyrometer::ui
