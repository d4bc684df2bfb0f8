#pragma once

// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QWidget>

#include "core/analysis/flamegraph.h"
#include "ui/flamegraph/flamecolors.h"

#include <memory>

class QLabel;
class QSplitter;
class QToolButton;

namespace pyrometer::ui::flamegraph {

class FlameGraphView;

// One function's sandwich: its callers above it (read upwards, merged over every stack) and
// its callees below it, both with the function as the full-width frame where they meet.
class SandwichView final : public QWidget {
    Q_OBJECT
public:
    explicit SandwichView(QWidget *parent = nullptr);

    // Graphs from analysis::buildSandwich, prepared (made in a job).
    void setSandwich(const QString &function, std::size_t stacks, std::shared_ptr<const analysis::FlameGraph> callers,
                     std::shared_ptr<const analysis::FlameGraph> callees);
    void setColorMode(FlameColorMode mode);
    QString function() const { return m_function; }
    FlameGraphView *callersView() const { return m_callers; }
    FlameGraphView *calleesView() const { return m_callees; }
    QLabel *title() const { return m_title; }

Q_SIGNALS:
    void closeRequested();
    void sandwichRequested(const QString &function);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void applySplit();

    QString m_function;
    QLabel *m_title;
    QToolButton *m_back;
    FlameGraphView *m_callers;
    FlameGraphView *m_callees;
    QSplitter *m_splitter;
    int m_callerRows = 1;
};

} // namespace pyrometer::ui::flamegraph
