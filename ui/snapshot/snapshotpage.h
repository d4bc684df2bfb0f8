#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/flamegraph.h"
#include "core/report/report.h"
#include "core/snapshot/allocations.h"
#include "core/snapshot/bands.h"
#include "core/snapshot/replay.h"
#include "core/snapshot/tracejoin.h"
#include "ui/workspace/document.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedLayout;
class QTabWidget;
class QTreeWidget;

namespace pyrometer::ui {

class EmptyState;
class JobTracker;
class TraceJoinBar;
class Workspace;

namespace flamegraph {
class FlameGraphView;
}
namespace plots {
class AllocationTimeline;
class SegmentMap;
class SnapshotPlot;
} // namespace plots

// The Snapshots page: CUDA allocator snapshots (torch.cuda.memory._dump_snapshot), opened from
// File > Open, drag and drop or the command line. For the one chosen: its figures, active memory
// over time as bands by stack with reserved memory, the peak and each OOM (and why it failed);
// what was live at an instant (the peak, an OOM, the end, or where the plot is clicked) as a
// table grouped by stack, compile context or annotation and as a flame graph by bytes. Compared
// with another open snapshot, the table and the flame graph show what grew, at the same instant.
// Joined with an open trace of the same run, the trace's timeline shows the snapshot's memory as
// counter rows, and a group's row names the ops that made it (one of them shown in the Timeline on
// request). Reading, joining and every instant's grouping run as background jobs; a file that
// fails to read says why and leaves what was open as it was.
class SnapshotPage final : public QWidget {
    Q_OBJECT
public:
    // workspace: the open traces a snapshot can be joined with (none without it).
    explicit SnapshotPage(JobTracker *jobs, Workspace *workspace = nullptr, QWidget *parent = nullptr);

    // Reads the snapshot at path in the background and shows it (snapshotOpened); one already
    // open is shown again rather than read twice.
    void open(const QString &path);
    // Closes the snapshot shown (File > Close).
    void closeCurrent();
    void closeAll();

    int count() const { return int(m_open.size()); }
    bool hasContent() const { return !m_open.empty(); }
    QString currentPath() const;
    std::shared_ptr<const snapshot::Snapshot> currentSnapshot() const;
    const snapshot::DeviceReplay *currentDevice() const;

    // The instant whose live memory is shown: peak, oom, oom:N, start, end, #EVENT or a time
    // ("250ms"), as pyrometer-cli snapshot --at takes it. False (and nothing changes) when it
    // names nothing in this snapshot.
    bool showInstant(const QString &at);
    QString instant() const { return m_at; }
    std::int64_t instantPosition() const { return m_position; }
    void setGroupBy(snapshot::GroupBy by);
    // Compares with the open snapshot at index (in open order), or -1 for none: the table and
    // the flame graph then show what grew from it to the one shown.
    void compareWith(int index);
    bool comparing() const { return m_compareWith >= 0; }

    const std::vector<snapshot::LiveGroup> &groups() const { return m_groups; }
    const std::vector<snapshot::GroupDelta> &deltas() const { return m_deltas; }
    QTreeWidget *groupsTable() const { return m_table; }
    flamegraph::FlameGraphView *flame() const { return m_flame; }
    plots::SnapshotPlot *plot() const { return m_plot; }
    // Every allocation as a band (the first tab; the bands by stack are the second).
    plots::AllocationTimeline *allocationPlot() const { return m_allocationPlot; }
    QTabWidget *plotTabs() const { return m_plotTabs; }
    // The allocator's segments at the instant, with the live blocks in them.
    plots::SegmentMap *segmentMap() const { return m_map; }
    QLabel *headline() const { return m_headline; }
    QLabel *oomLabel() const { return m_oom; }
    QLabel *instantLabel() const { return m_instantText; }
    QComboBox *chooser() const { return m_chooser; }
    QComboBox *compareChooser() const { return m_compare; }
    EmptyState *emptyState() const { return m_empty; }

    // Joins the snapshot's device shown with the open trace id, at offsetNs or at the offset the
    // trace's [memory] events give (joined when done, whether it joined or not).
    void joinTrace(DocumentId trace, std::optional<std::int64_t> offsetNs = std::nullopt);
    // The join of the snapshot and device shown, or null.
    const snapshot::TraceJoin *currentJoin() const;
    TraceJoinBar *joinBar() const { return m_joinBar; }
    // The ops that made the selected group's live memory, from the joined trace.
    QLabel *madeByLabel() const { return m_madeBy; }
    QPushButton *showOpButton() const { return m_showOp; }
    // The open snapshots in a session: their files, the one shown, its instant and grouping; a
    // restored one reopens them (a file gone says so, as a failed open does).
    nlohmann::json saveState() const;
    void restoreState(const nlohmann::json &state);
    // Every open snapshot's report sections: its figures, each device's peak, each OOM.
    std::vector<report::Section> reportSections() const;
    // A table row's group key (its stack folded, its context or its annotation), in column 0.
    static constexpr int kGroupKeyRole = Qt::UserRole + 1;
    // The headline's allocated bytes, with what the tensors requested (known from the segments)
    // and, where it takes 1% or more, what the allocator's rounding took.
    static QString allocatedText(std::int64_t allocated, std::int64_t requested);

Q_SIGNALS:
    void snapshotOpened(const QString &path);
    // The live memory of the instant asked for is in the table and the flame graph.
    void instantShown();
    // A join finished (currentJoin() says how).
    void joined();
    // The counter rows the joined snapshot adds to trace's timeline (empty: the rows go).
    void countersJoined(pyrometer::ui::DocumentId trace, std::vector<pyrometer::trace::CounterSeries> counters);
    // Show this op of the trace in the Timeline.
    void opRequested(pyrometer::ui::DocumentId trace, pyrometer::trace::TrackId track, std::uint32_t event);

private:
    struct Open {
        QString path;
        std::shared_ptr<const snapshot::Snapshot> snapshot;
        std::shared_ptr<const std::vector<snapshot::DeviceReplay>> devices;
        std::vector<snapshot::StackBands> bands; // per device
        std::vector<std::shared_ptr<const snapshot::Allocations>> allocations; // per device
        std::vector<std::vector<std::uint8_t>> bandOfStack; // per device, per stack: its band in `bands`
        std::vector<snapshot::OomReport> ooms;
        struct Join {
            DocumentId traceId = kNoDocument;
            std::shared_ptr<const trace::Trace> trace;
            std::shared_ptr<const snapshot::TraceJoin> join;
        };
        std::optional<Join> join; // of one device (join->device)
    };
    struct InstantResult;

    // Reads a snapshot in the background (open, without forgetting a restore in progress).
    void read(const QString &path);
    void showCurrent();
    void refreshChoosers();
    void computeInstant();
    void showInstantResult(const InstantResult &result);
    double xOfPosition(std::int64_t position) const;
    void showJoinStatus();
    void updateMadeBy();
    void refreshLiveOps();
    void dropJoin(Open &open);

    JobTracker *m_jobs;
    std::vector<Open> m_open;
    int m_current = -1;
    int m_device = 0;
    int m_compareWith = -1;
    QString m_at = QStringLiteral("peak");
    std::int64_t m_position = -1;
    snapshot::GroupBy m_by = snapshot::GroupBy::Stack;
    std::vector<snapshot::LiveGroup> m_groups;
    std::vector<snapshot::GroupDelta> m_deltas;
    std::vector<snapshot::LiveBlock> m_live; // at the instant shown
    // Per group of the instant shown, the ops the joined trace shows making its blocks.
    std::unordered_map<std::string, std::vector<snapshot::GroupOp>> m_liveOps;
    struct OpTarget {
        DocumentId trace = kNoDocument;
        trace::TrackId track;
        std::uint32_t event = 0;
    };
    std::optional<OpTarget> m_opTarget; // what Show in Timeline shows
    QString m_restoreCurrent;           // a restored session's snapshot to show, once open
    QString m_restoreAt;                // and its instant
    QStringList m_restorePending;       // its files not read yet: shown only if nothing is

    Workspace *m_workspace;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    QComboBox *m_chooser;
    QComboBox *m_deviceChooser;
    QComboBox *m_groupBy;
    QComboBox *m_compare;
    QPushButton *m_peakButton;
    QPushButton *m_oomButton;
    QPushButton *m_endButton;
    QLabel *m_headline;
    QLabel *m_oom;
    QLabel *m_instantText;
    plots::SnapshotPlot *m_plot;
    plots::AllocationTimeline *m_allocationPlot;
    QTabWidget *m_plotTabs;
    plots::SegmentMap *m_map;
    QTreeWidget *m_table;
    flamegraph::FlameGraphView *m_flame;
    TraceJoinBar *m_joinBar;
    QLabel *m_madeBy;
    QPushButton *m_showOp;
};

} // namespace pyrometer::ui
