#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/timerange.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/document.h"

#include <map>
#include <memory>
#include <utility>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QStackedLayout;
class QTextBrowser;
class QToolButton;

namespace pyrometer::ui {

class TraceChooser;

class EmptyState;
class JobTracker;
class Workspace;

namespace timeline {

class OverviewStrip;

// The Timeline page: a trace chooser, search with next/previous, colour mode and legend, the
// flows toggle, the overview strip, the timeline, and a details pane for the selected event or
// range.
class TimelinePage final : public QWidget {
    Q_OBJECT
public:
    TimelinePage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    TimelineView *view() const { return m_view; }
    QLineEdit *searchBox() const { return m_search; }
    QLabel *matchLabel() const { return m_matchLabel; }
    QCheckBox *gpuFirstToggle() const { return m_gpuFirst; }
    QTextBrowser *details() const { return m_details; }
    QToolButton *openRangeButton() const { return m_openRange; }
    // Whose figures the range's tables are: one rank's processes of a job's combined trace and
    // its name, or every process and an empty name.
    std::pair<analysis::ProcessSet, QString> rangeScope() const;
    EmptyState *emptyState() const { return m_empty; }
    bool hasContent() const;

    void showTrace(DocumentId id);
    // The trace chosen in the trace chooser, kNoDocument when none; choosing another indexes
    // it and emits traceShown.
    DocumentId currentTrace() const;
    void chooseTrace(DocumentId id);
    // The colour mode the page starts in (a preference); the combo box stays the user's to change.
    void setColorMode(ColorMode mode);
    // Highlights every event named exactly `name` (through the search box, so the user sees
    // and can change it), switching to that trace first, and shows the longest of them.
    void highlightEvents(DocumentId id, const QString &name);
    // Outlines events and shows [startNs, endNs) (trace time; the events' extent when empty),
    // switching to that trace first.
    void showEvents(DocumentId id, std::vector<EventRef> events, double startNs, double endNs);
    void nextMatch();
    void previousMatch();
    // Counter rows a joined allocator snapshot adds to a trace's timeline, beside the trace's own
    // (none: they go); the trace, if shown, is shown again with them.
    void setJoinedCounters(DocumentId id, std::vector<trace::CounterSeries> counters);

Q_SIGNALS:
    // The timeline finished indexing a trace and shows it.
    void traceShown();
    // The user asked for the selected range's tables in the Operators page.
    void openRangeInOperators(double startNs, double endNs);

private:
    void runSearch();
    void showMatch();
    bool anyMatchInView() const;
    void showSelection(std::optional<EventRef> event);
    void showRange(double startNs, double endNs);
    // A range's tables, of one part of a job's combined trace (a rank) or of all of them.
    void aggregateRange(double startNs, double endNs, std::optional<std::uint32_t> part);

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    TraceChooser *m_traceChooser;
    QLineEdit *m_search;
    QCheckBox *m_regex;
    QLabel *m_matchLabel;
    QComboBox *m_colorMode;
    QCheckBox *m_allFlows;
    QCheckBox *m_gpuFirst;
    QLabel *m_legend;
    OverviewStrip *m_overview;
    TimelineView *m_view;
    QTextBrowser *m_details;
    QToolButton *m_openRange;
    DocumentId m_shownTrace = kNoDocument;     // whose index the view shows
    DocumentId m_requestedTrace = kNoDocument; // the one chosen last (its index may still be building)
    DocumentId m_searchTrace = kNoDocument; // the trace the search box's text was typed for
    std::pair<double, double> m_lastRange{0, 0};
    std::optional<std::uint32_t> m_rangePart; // the rank the range's tables count; none: all
    struct PendingEvents {
        std::vector<EventRef> events;
        double startNs = 0;
        double endNs = 0;
    };
    std::optional<PendingEvents> m_pendingEvents; // until the trace's index is shown
    // Per trace, the counters joined with it and its index with them (made from `base` once).
    struct Joined {
        std::vector<trace::CounterSeries> counters;
        std::shared_ptr<const TimelineIndex> base;
        std::shared_ptr<const TimelineIndex> index;
    };
    std::map<DocumentId, Joined> m_joined;
    void applyPendingEvents();
    std::vector<EventRef> m_matches;
    int m_currentMatch = -1;
    QString m_exactName;         // a table row's name: searched exactly while the box holds it
    bool m_revealLongest = false; // the next search result shows its longest match
};

} // namespace timeline
} // namespace pyrometer::ui
