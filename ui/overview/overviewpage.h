#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "ui/overview/overviewdata.h"

#include <memory>

class QGridLayout;
class QGroupBox;
class QLabel;
class QListWidget;
class QStackedLayout;
class QTreeWidget;
class QTreeWidgetItem;
class QVBoxLayout;

namespace pyrometer::ui {

class EmptyState;
class JobTracker;
class TraceChooser;
class Workspace;

namespace plots {
class KernelTypePlot;
class StepBreakdownPlot;
}

// The Overview page, for one open trace at a time: the headline figures, each step's time by
// category, GPU utilization, the advice (a click shows its evidence in the timeline), the top
// operators and kernels (a click selects them in the Operators page), memory peaks, and the
// details of every open trace and model. The analyses run as a job.
class OverviewPage final : public QWidget {
    Q_OBJECT
public:
    OverviewPage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    bool hasContent() const;
    EmptyState *emptyState() const { return m_empty; }
    // The details of every open trace and model as HTML, for tests and reports.
    QString summaryHtml() const;
    // Formats what is shown again, after the time-unit preference changed.
    void reformat();

    void showTrace(DocumentId id);
    DocumentId currentTrace() const { return m_traceId; }
    // The figures shown for the current trace; null until they are computed.
    const overview::OverviewData *data() const { return m_data.get(); }

    plots::StepBreakdownPlot *stepPlot() const { return m_stepPlot; }
    QListWidget *adviceList() const { return m_advice; }
    QTreeWidget *topOpsTable() const { return m_topOps; }
    QTreeWidget *topKernelsTable() const { return m_topKernels; }
    QLabel *gpuNote() const { return m_gpuNote; }
    QLabel *kernelsNote() const { return m_kernelsNote; }
    QLabel *opsNote() const { return m_opsNote; }
    QLabel *memoryNote() const { return m_memoryNote; }
    QWidget *utilizationBox() const { return m_utilization; }
    QLabel *headline() const { return m_headline; }
    // GPU traces: time per kernel type, and why each stream was idle.
    plots::KernelTypePlot *kernelTypePlot() const { return m_kernelTypes; }
    QTreeWidget *idleTable() const { return m_idle; }
    QLabel *idleNote() const { return m_idleNote; }
    QWidget *gpuAnalyses() const { return m_gpuAnalyses; }

Q_SIGNALS:
    // The user asked for a finding's evidence: highlight events and show a range in the
    // timeline of the trace traceId.
    void timelineJumpRequested(int traceId, const pyrometer::ui::overview::TimelineJump &jump);
    // The user asked for an operator (or, with kernel, a GPU kernel) in the Operators page.
    void operatorRequested(int traceId, const QString &name, bool kernel);
    // The current trace's figures were computed and are shown.
    void overviewShown();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *buildContent();
    void fitAdviceHeight();
    void refreshDetails();
    void populate(std::shared_ptr<const overview::OverviewData> result);
    void fillHeadline(const overview::OverviewData &data);
    void fillUtilization(const overview::OverviewData &data);
    void fillAdvice(const overview::OverviewData &data);
    void fillTopTables(const overview::OverviewData &data);
    void fillMemory(const overview::OverviewData &data);
    void fillGpuAnalyses(const overview::OverviewData &data);

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    TraceChooser *m_traceChooser = nullptr;
    QWidget *m_traceSections = nullptr;
    QLabel *m_headline = nullptr;
    QLabel *m_stepTitle = nullptr;
    plots::StepBreakdownPlot *m_stepPlot = nullptr;
    QWidget *m_utilization = nullptr;
    QGridLayout *m_utilizationGrid = nullptr;
    QLabel *m_gpuNote = nullptr;
    QListWidget *m_advice = nullptr;
    QTreeWidget *m_topOps = nullptr;
    QTreeWidget *m_topKernels = nullptr;
    QLabel *m_kernelsNote = nullptr;
    QLabel *m_opsNote = nullptr; // a trace without operators: what it holds instead
    QLabel *m_memoryNote = nullptr;
    QLabel *m_details = nullptr;
    QWidget *m_gpuAnalyses = nullptr;
    plots::KernelTypePlot *m_kernelTypes = nullptr;
    QTreeWidget *m_idle = nullptr;
    QLabel *m_idleNote = nullptr;
    DocumentId m_traceId = kNoDocument;
    std::shared_ptr<const overview::OverviewData> m_data;
};

} // namespace pyrometer::ui
