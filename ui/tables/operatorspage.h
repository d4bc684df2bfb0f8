#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/deviceroof.h"
#include "core/analysis/optable.h"
#include "ui/shell/tracechooser.h"
#include "ui/workspace/document.h"

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedLayout;
class QTabWidget;

namespace pyrometer::ui {


class EmptyState;
class JobTracker;
class Workspace;

namespace tables {

class TablePane;

// The Operators page: the operator table (key_averages columns, grouped by name, input shape,
// module or stack), the GPU kernel table, the nn.Module tree and per-op memory of one open
// trace, optionally over a time range.
// The tables are computed by a job; the GUI thread only swaps in the finished models.
class OperatorsPage final : public QWidget {
    Q_OBJECT
public:
    OperatorsPage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    TablePane *operatorsPane() const { return m_operators; }
    TablePane *kernelsPane() const { return m_kernels; }
    TablePane *modulesPane() const { return m_modules; }
    TablePane *memoryPane() const { return m_memory; }
    TablePane *currentPane() const;
    QTabWidget *tabs() const { return m_tabs; }
    QComboBox *groupingChooser() const { return m_grouping; }
    QComboBox *traceChooser() const { return m_traceChooser; }
    QLineEdit *filterBox() const { return m_filter; }
    QLabel *rangeLabel() const { return m_rangeLabel; }
    EmptyState *emptyState() const { return m_empty; }
    bool hasContent() const;
    std::optional<analysis::TimeRange> range() const { return m_range; }

    void showTrace(DocumentId id);
    DocumentId currentTrace() const { return m_traceId; }
    void setGrouping(analysis::OpGrouping grouping);
    // Shows the operator (or, with kernel, the kernel) named `name` of a trace: its tab, its
    // row selected, once the tables are there.
    void selectName(DocumentId id, const QString &name, bool kernel);
    // The current tab's table: every row that passes the filter, as CSV. Returns false and
    // sets error when the file cannot be written.
    bool exportCsv(const QString &path, QString *error = nullptr) const;

    // The roof for traces whose device the table lacks (Preferences), for the roofline columns.
    void setFallbackDevice(std::optional<analysis::DeviceRoof> device);

public Q_SLOTS:
    // Recomputes both tables over the events that start in [startNs, endNs) (trace time); with
    // processes, the operators and kernels of those alone (a job's rank, named by scope).
    void showRange(double startNs, double endNs, const analysis::ProcessSet &processes = {},
                   const QString &scope = {});
    void clearRange();
    void copySelection();

Q_SIGNALS:
    // A row standing for events was selected: the timeline highlights the events named so
    // in that trace.
    void rowEventsSelected(int traceId, const QString &eventName);
    // A row was double-clicked (or Enter pressed on it): show its events in the Timeline.
    void rowEventsActivated(int traceId, const QString &eventName);
    // Both tables were recomputed and are shown.
    void tablesShown();

private:
    void recompute();
    void chooseExportFile();
    void updateRangeBar();
    void applyPendingSelection();

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    TraceChooser *m_traceChooser;
    QComboBox *m_grouping;
    QLineEdit *m_filter;
    QLabel *m_rangeLabel;
    QPushButton *m_clearRange;
    QWidget *m_rangeBar;
    QTabWidget *m_tabs;
    TablePane *m_operators;
    TablePane *m_kernels;
    TablePane *m_modules;
    TablePane *m_memory;
    DocumentId m_traceId = kNoDocument;
    DocumentId m_shownTrace = kNoDocument; // whose tables are shown
    struct PendingSelection {
        QString name;
        bool kernel = false;
    };
    std::optional<PendingSelection> m_pendingSelection;
    std::optional<analysis::TimeRange> m_range;
    analysis::ProcessSet m_rangeProcesses; // with the range: whose operators and kernels
    QString m_rangeScope;                  // ... and whom they are ("rank 17"); empty: all
    std::optional<analysis::DeviceRoof> m_fallback;
};

} // namespace tables
} // namespace pyrometer::ui
