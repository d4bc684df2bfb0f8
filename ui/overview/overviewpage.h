#pragma once

#include <QWidget>

class QStackedLayout;
class QTextBrowser;

namespace pyrometer::ui {

class EmptyState;
class Workspace;

// The Overview page: a summary of every open trace (events, phases, processes, tracks, span,
// load speed, warnings) and model (parameters, modules). The step breakdown, top ops and
// advice join it as the analyses are built.
class OverviewPage final : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPage(Workspace *workspace, QWidget *parent = nullptr);

    bool hasContent() const;
    EmptyState *emptyState() const { return m_empty; }
    // The summary as HTML, for tests and reports.
    QString summaryHtml() const;

private:
    void refresh();

    Workspace *m_workspace;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    QTextBrowser *m_summary;
};

} // namespace pyrometer::ui
