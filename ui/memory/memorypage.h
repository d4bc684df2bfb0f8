#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/memory.h"
#include "ui/workspace/document.h"

#include <memory>

class QLabel;
class QStackedLayout;

namespace pyrometer::ui {

class EmptyState;
class JobTracker;
class TraceChooser;
class Workspace;

namespace plots {
class MemoryCategoryPlot;
class MemoryCurvePlot;
} // namespace plots
namespace tables {
class TablePane;
}

// The Memory page, for one open trace: allocated and reserved memory of every device over
// time with each peak marked, and below it the operators that allocated, with what they still
// held at the peak. A trace without [memory] events says how to record them.
class MemoryPage final : public QWidget {
    Q_OBJECT
public:
    MemoryPage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    void showTrace(DocumentId id);
    DocumentId currentTrace() const { return m_traceId; }

    bool hasContent() const;
    // Shown when the current trace has no memory events.
    bool showsNoMemory() const;
    EmptyState *emptyState() const { return m_empty; }
    EmptyState *noMemoryState() const { return m_noMemory; }
    plots::MemoryCurvePlot *curves() const { return m_curves; }
    // A recorded program's memory by category, shown above the curves (or alone, for a trace
    // without [memory] events), with its source, resolution and the peak's composition.
    bool showsCategories() const;
    plots::MemoryCategoryPlot *categoryPlot() const { return m_categoryPlot; }
    QLabel *categoryCaption() const { return m_categoryCaption; }
    tables::TablePane *opsPane() const { return m_ops; }
    const analysis::MemoryReport &report() const { return m_report; }

Q_SIGNALS:
    // A row standing for an op was selected: the timeline highlights its events.
    void rowEventsSelected(int traceId, const QString &eventName);
    // The current trace's curves and table were computed and are shown.
    void memoryShown();

private:
    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    EmptyState *m_noMemory;
    TraceChooser *m_traceChooser;
    QLabel *m_summary;
    plots::MemoryCurvePlot *m_curves;
    tables::TablePane *m_ops;
    QWidget *m_categoryBox;
    QWidget *m_opsBox;
    plots::MemoryCategoryPlot *m_categoryPlot;
    QLabel *m_categoryCaption;
    analysis::MemoryReport m_report;
    DocumentId m_traceId = kNoDocument;
};

} // namespace pyrometer::ui
