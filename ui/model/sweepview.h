#pragma once

#include "core/engine/engine.h"
#include <functional>

#include <QWidget>

#include "core/model/sweep.h"
#include "ui/compare/rowtablemodel.h"
#include "ui/jobs/jobtracker.h"

#include <nlohmann/json.hpp>

#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace pyrometer::ui {

class SweepPlots;

using SweepPointsModel = RowTableModel<model::SweepPoint>;

// The columns of the sweep's table: variant, batch, latency, p90, throughput, peak memory.
std::vector<SweepPointsModel::Column> sweepPointColumns();

// The Model page's Sweep tab: batch sizes, variants and a memory budget; "Run sweep" runs
// engine::runSweep as a JobTracker job, and each measured point reaches the plots and the
// table as soon as it is measured. Export writes the plots as PNG or SVG, the points as CSV.
class SweepView final : public QWidget {
    Q_OBJECT
public:
    // inputs: the Model page's input spec field, read when a sweep starts.
    SweepView(JobTracker *jobs, QLineEdit *inputs, QWidget *parent = nullptr);

    void setModel(const QString &path); // cancels a running sweep and clears the results
    // The engine the next sweep runs in (the Model page's, with its device).
    void setEngineSource(std::function<engine::Engine()> source) { m_engineSource = std::move(source); }
    void runSweep();

    QLineEdit *batchesEdit() const { return m_batches; }
    QLineEdit *variantsEdit() const { return m_variants; }
    QLineEdit *budgetEdit() const { return m_budget; }
    QSpinBox *iterationsSpin() const { return m_iterations; }
    QPushButton *runButton() const { return m_run; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *summaryLabel() const { return m_summary; }
    SweepPlots *plots() const { return m_plots; }
    SweepPointsModel *pointsModel() const { return m_model; }
    JobTracker::JobId runningJob() const { return m_runningJob; }

    // The settings, the points measured and the finished sweep's report, for a session file;
    // restoreState shows them again as they were (a sweep that did not finish says so).
    nlohmann::json saveState() const;
    void restoreState(const nlohmann::json &state);
    // The last finished sweep's report (nullptr when none finished since the model was shown).
    std::shared_ptr<const model::SweepReport> report() const { return m_report; }

    bool exportPng(const QString &path) const;
    bool exportSvg(const QString &path) const;
    bool exportCsv(const QString &path) const;

Q_SIGNALS:
    // One point arrived (after the plots and table took it).
    void pointAdded(const pyrometer::model::SweepPoint &point);

private:
    void addPoint(quint64 serial, const model::SweepPoint &point);
    void showReport(const model::SweepReport &report);
    void jobFinished(JobTracker::JobId id, JobOutcome outcome, const QString &message);
    void chooseExport();

    JobTracker *m_jobs;
    QLineEdit *m_inputs;
    QString m_path;
    std::function<engine::Engine()> m_engineSource;
    QLineEdit *m_batches;
    QLineEdit *m_variants;
    QLineEdit *m_budget;
    QSpinBox *m_iterations;
    QPushButton *m_run;
    QPushButton *m_export;
    QLabel *m_status;
    QLabel *m_summary;
    SweepPlots *m_plots;
    SweepPointsModel *m_model;
    QTableView *m_table;
    std::shared_ptr<const model::SweepReport> m_report;
    JobTracker::JobId m_runningJob = 0;
    quint64 m_serial = 0; // which run's points are shown; a newer run drops an older one's
    bool m_starting = false;
};

} // namespace pyrometer::ui
