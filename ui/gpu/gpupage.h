#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/criticalpath.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kernelsequences.h"
#include "core/analysis/launches.h"
#include "ui/overview/overviewdata.h"
#include "ui/workspace/document.h"

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedLayout;
class QSpinBox;
class QTabWidget;

namespace pyrometer::ui {

class EmptyState;
class JobTracker;
class TraceChooser;
class Workspace;

namespace tables {
class TablePane;
}

namespace gpu {

// Everything the GPU page shows of one trace, computed off the GUI thread.
struct GpuData {
    std::shared_ptr<const analysis::TraceIndex> index;
    std::shared_ptr<const analysis::LaunchStats> launches; // the document's, shared with other pages
    std::shared_ptr<const analysis::IdleBreakdown> idle;
    std::vector<analysis::StepSpan> steps; // ProfilerSteps on the GPU's clock, in time order
    std::size_t pathStep = 0;              // which of them the path is of (the longest span)
    analysis::CriticalPath path;
    std::vector<analysis::KernelSequence> sequences;
    analysis::GraphReplays graphs; // CUDA graph replays and captures
};

// The GPU page, for one open trace: why the GPU waited and what to fuse or overlap. Launches
// (each kernel's launch delay per kernel name and stream, the outliers, the queue of launched
// kernels per stream), idle time per step and stream by cause, the critical path of a step with
// what-ifs, the kernel sequences that repeat, and CUDA graphs: each graph's replays. Rows and buttons show their events
// in the Timeline. Every figure is core/analysis's.
class GpuPage final : public QWidget {
    Q_OBJECT
public:
    GpuPage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    void showTrace(DocumentId id);
    DocumentId currentTrace() const { return m_traceId; }
    bool hasContent() const;
    // Shown when the current trace has no GPU events.
    bool showsNoGpu() const;
    const GpuData *data() const { return m_data.get(); }

    EmptyState *emptyState() const { return m_empty; }
    QTabWidget *tabs() const { return m_tabs; }
    QLabel *summary() const { return m_summary; }
    tables::TablePane *launchesPane() const { return m_launches; }
    tables::TablePane *streamsPane() const { return m_streams; }
    QLabel *launchVerdict() const { return m_launchVerdict; } // GPU- or CPU-bound, and what delays mean
    tables::TablePane *idlePane() const { return m_idle; }
    tables::TablePane *pathPane() const { return m_path; }
    tables::TablePane *sequencesPane() const { return m_sequences; }
    tables::TablePane *graphsPane() const { return m_graphs; }
    QLabel *graphsSummary() const { return m_graphsSummary; }
    QComboBox *stepChooser() const { return m_step; }
    QComboBox *pathKindChooser() const { return m_pathKind; } // item data: analysis::PathKindBits
    QSpinBox *pathMinimum() const { return m_pathMinimum; }   // µs
    QLabel *pathSummary() const { return m_pathSummary; }

    // The Timeline shows these: the critical path's events, the outlier launches' kernels.
    void showPathInTimeline();
    void showOutliersInTimeline();

Q_SIGNALS:
    // Highlight events and show a range of trace traceId in the Timeline.
    void timelineJumpRequested(int traceId, const pyrometer::ui::overview::TimelineJump &jump);
    // A row standing for events by name was activated: highlight them in the Timeline.
    void rowEventsActivated(int traceId, const QString &eventName);
    // The current trace's figures are shown.
    void gpuShown();

private:
    void computePath(std::size_t step);
    void populate(std::shared_ptr<const GpuData> data);
    void showPath();

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    EmptyState *m_noGpu;
    TraceChooser *m_traceChooser;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    tables::TablePane *m_launches;
    tables::TablePane *m_streams;
    QLabel *m_launchVerdict;
    tables::TablePane *m_idle;
    tables::TablePane *m_path;
    tables::TablePane *m_sequences;
    QComboBox *m_step;
    QComboBox *m_pathKind;
    QSpinBox *m_pathMinimum;
    QLabel *m_pathSummary;
    tables::TablePane *m_graphs;
    QLabel *m_graphsSummary;
    DocumentId m_traceId = kNoDocument;
    std::shared_ptr<const GpuData> m_data;
};

} // namespace gpu
} // namespace pyrometer::ui
