#pragma once

// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QWidget>

#include "core/analysis/flametree.h"
#include "ui/flamegraph/flamechartview.h"
#include "ui/flamegraph/flamecolors.h"
#include "ui/shell/tracechooser.h"
#include "ui/workspace/document.h"

#include <memory>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QStackedLayout;
class QStackedWidget;
class QToolButton;

namespace pyrometer::ui {


class EmptyState;
class JobTracker;
class Workspace;

namespace flamegraph {

class BreadcrumbBar;
class FlameGraphView;
class SandwichView;

// The Flame graph page: one open trace's operators as an icicle of the aggregated call tree or
// as a time-ordered flame chart, with Python frames or not, per thread or merged; click to
// zoom with a breadcrumb back, search with the share of time matched, a sandwich view of one
// function, and a diff against another open trace coloured by change. Trees, charts and
// sandwiches are built by jobs; the GUI thread only lays out and paints. Export ▾ (and the
// views' context menus) writes the tree as folded stacks, or the view as SVG or PNG.
class FlameGraphPage final : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Icicle, Chart };

    FlameGraphPage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    void showTrace(DocumentId id);
    DocumentId currentTrace() const { return m_traceId; }
    // Compares the shown trace with another open one (-1: no comparison).
    void compareWith(DocumentId id);
    void setMode(Mode mode);
    void showSandwich(const QString &function);
    void closeSandwich();
    bool hasContent() const;

    QComboBox *traceChooser() const { return m_traceChooser; }
    QComboBox *modeChooser() const { return m_mode; }
    QCheckBox *pythonToggle() const { return m_python; }
    QCheckBox *perThreadToggle() const { return m_perThread; }
    QCheckBox *mergeStepsToggle() const { return m_mergeSteps; }
    QComboBox *colorChooser() const { return m_color; }
    QComboBox *compareChooser() const { return m_compare; }
    QLineEdit *searchBox() const { return m_search; }
    QLabel *shareLabel() const { return m_share; }
    QLabel *summaryLabel() const { return m_summary; }
    QToolButton *sandwichButton() const { return m_sandwichButton; }
    BreadcrumbBar *breadcrumb() const { return m_breadcrumb; }
    FlameGraphView *graphView() const { return m_graphView; }
    FlameChartView *chartView() const { return m_chartView; }
    SandwichView *sandwichView() const { return m_sandwich; }
    EmptyState *emptyState() const { return m_empty; }
    QWidget *currentView() const;

    // Exports, each asking for a file (named defaultExportName(extension)) when triggered.
    QToolButton *exportButton() const { return m_exportButton; }
    QAction *exportFoldedAction() const { return m_exportFolded; }
    QAction *exportSvgAction() const { return m_exportSvg; }
    QAction *exportPngAction() const { return m_exportPng; }
    // The shown trace's name without .json/.json.gz, "-flame" and extension ("run-flame.svg").
    QString defaultExportName(const QString &extension) const;
    // The shown tree (thread, Python and step options as set) as `pyrometer-cli flame
    // --format collapsed` writes it; the current view as drawn, as SVG or as a PNG of its
    // size. Written whole or not at all; false with a message naming the file on failure.
    bool exportFolded(const QString &path, QString *error = nullptr) const;
    bool exportSvg(const QString &path, QString *error = nullptr) const;
    bool exportPng(const QString &path, QString *error = nullptr) const;

Q_SIGNALS:
    // A job's graph (and chart) is shown.
    void graphShown();
    void sandwichShown();

private:
    void fillCompareChoices();
    void traceClosed(DocumentId id);
    analysis::FlameOptions options() const;
    void rebuild();
    void updateBreadcrumb();
    void updateShare();
    void updateSummary();
    void updateColorChoices();
    void updateEnabled();
    FlameColorMode colorMode() const;
    void createExportActions();
    // Asks for a file and writes it with `write` (one of the exports above).
    void chooseExport(const QString &title, const QString &extension, const QString &filter,
                      bool (FlameGraphPage::*write)(const QString &, QString *) const);

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    TraceChooser *m_traceChooser;
    QComboBox *m_mode;
    QCheckBox *m_python;
    QCheckBox *m_perThread;
    QCheckBox *m_mergeSteps;
    QComboBox *m_color;
    QComboBox *m_compare;
    BreadcrumbBar *m_breadcrumb;
    QLineEdit *m_search;
    QLabel *m_share;
    QLabel *m_summary;
    QToolButton *m_sandwichButton;
    QToolButton *m_exportButton;
    QAction *m_exportFolded = nullptr;
    QAction *m_exportSvg = nullptr;
    QAction *m_exportPng = nullptr;
    QStackedWidget *m_views;
    FlameGraphView *m_graphView;
    FlameChartView *m_chartView;
    SandwichView *m_sandwich;
    DocumentId m_traceId = kNoDocument;
    DocumentId m_compareId = kNoDocument;
};

} // namespace flamegraph
} // namespace pyrometer::ui
