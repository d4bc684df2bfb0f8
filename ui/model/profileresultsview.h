#pragma once

#include <QWidget>

#include "ui/model/profilerun.h"

#include <array>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

namespace pyrometer::ui {

class LatencyHistogram;
class LayerTreeModel;

// The results of one "Run profile": a latency summary, the histogram of the timed runs, the
// per-layer table (a tree by module, sortable, filtered by name or type) and buttons that
// open the recorded trace in other pages.
class ProfileResultsView final : public QWidget {
    Q_OBJECT
public:
    enum class Stat { Cold, Mean, Std, Min, P50, P90, P99, Throughput, Count };

    explicit ProfileResultsView(QWidget *parent = nullptr);

    void setRun(std::shared_ptr<const ProfileRun> run, const QString &modelName);
    void clear();
    const ProfileRun *run() const { return m_run.get(); }
    std::shared_ptr<const ProfileRun> sharedRun() const { return m_run; }

    QLabel *statLabel(Stat stat) const { return m_stats.at(std::size_t(stat)); }
    QLabel *headline() const { return m_headline; }
    LatencyHistogram *histogram() const { return m_histogram; }
    LayerTreeModel *layerModel() const { return m_model; }
    QSortFilterProxyModel *layerProxy() const { return m_proxy; }
    QTreeView *layerView() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    QPushButton *timelineButton() const { return m_timelineButton; }
    QPushButton *flameGraphButton() const { return m_flameButton; }

Q_SIGNALS:
    // The user asked to see the recorded trace (a Chrome trace JSON file) in the Timeline.
    void openTraceRequested(const QString &tracePath);
    // The same, for the Flame graph page.
    void openFlameGraphRequested(const QString &tracePath);

private:
    std::shared_ptr<const ProfileRun> m_run;
    QLabel *m_headline;
    std::array<QLabel *, std::size_t(Stat::Count)> m_stats{};
    LatencyHistogram *m_histogram;
    LayerTreeModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTreeView *m_view;
    QPushButton *m_timelineButton;
    QPushButton *m_flameButton;
};

} // namespace pyrometer::ui
