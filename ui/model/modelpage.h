#pragma once

#include "core/analysis/deviceroof.h"
#include "core/engine/engine.h"

#include <QWidget>

#include "ui/jobs/jobtracker.h"
#include "ui/workspace/document.h"

#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedLayout;
class QTabWidget;
class QTreeWidget;

namespace pyrometer::ui {

class EmptyState;
class ProfileResultsView;
class LayerRooflineView;
class SweepView;
class Workspace;

// The Model page: the loaded model's module tree with parameters per module, the engine that runs
// it, the run settings (inputs, warm-up and timed runs, threads, inference or train step, the
// device where the Python engine runs it), and the
// results of "Run profile", which runs as a background job of the JobTracker.
class ModelPage final : public QWidget {
    Q_OBJECT
public:
    ModelPage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    QTreeWidget *moduleTree() const { return m_tree; }
    QLabel *summaryLabel() const { return m_summary; }
    EmptyState *emptyState() const { return m_empty; }
    bool hasContent() const;

    QLineEdit *inputsEdit() const { return m_inputs; }
    QSpinBox *warmupSpin() const { return m_warmup; }
    QSpinBox *iterationsSpin() const { return m_iterations; }
    QSpinBox *threadsSpin() const { return m_threads; }
    QComboBox *modeCombo() const { return m_mode; }
    QComboBox *deviceCombo() const { return m_device; }
    // The engine the shown model runs in, with the device chosen (the Python engine), for path;
    // the embedded engine for any other model.
    engine::Engine engineFor(const QString &path) const;
    QPushButton *runButton() const { return m_run; }
    ProfileResultsView *results() const { return m_results; }
    // The results side: the Profile tab (results()), the Sweep tab (sweepView()) and the Roofline tab.
    QTabWidget *resultTabs() const { return m_tabs; }
    SweepView *sweepView() const { return m_sweep; }
    LayerRooflineView *rooflineView() const { return m_roofline; } // the Roofline tab
    // The running profile job, 0 when none runs.
    JobTracker::JobId runningJob() const { return m_runningJob; }

    // What Run profile does; the button calls it.
    void runProfile();

    // The warm-up and timed runs the form offers (the Preferences' defaults).
    void setRunDefaults(int warmup, int iterations);
    // Preferences' roof for a GPU the device table lacks: the profile's layers go under it.
    void setFallbackRoof(std::optional<analysis::DeviceRoof> roof);
    // The path of the model shown, empty when none.
    QString currentModelPath() const;
    DocumentId currentModel() const { return m_current; }
    // The form, the profile shown and the Sweep tab, for a session file. restoreState applies
    // to the model the state names: now when it is shown, else as soon as it is opened.
    nlohmann::json saveState() const;
    void restoreState(const nlohmann::json &state);
    // Says what an earlier run measured (from a saved session) until a new run replaces it.
    void showPreviousRun(const QString &summary);

Q_SIGNALS:
    // A recorded trace was opened for the Timeline: the window shows that page.
    void timelineRequested();
    // The same for the Flame graph page.
    void flameGraphRequested();

private:
    std::optional<analysis::DeviceRoof> m_fallbackRoof;
    void showModel(DocumentId id);
    void applyState(const nlohmann::json &state);
    void prefillInputs(const QString &path);
    void fillDevices(const ModelDocument &document);
    void jobFinished(JobTracker::JobId id, JobOutcome outcome, const QString &message);

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    QLabel *m_summary;
    QTreeWidget *m_tree;
    QLineEdit *m_inputs;
    QSpinBox *m_warmup;
    QSpinBox *m_iterations;
    QSpinBox *m_threads;
    QComboBox *m_mode;
    QComboBox *m_device;
    QPushButton *m_run;
    QLabel *m_runStatus;
    ProfileResultsView *m_results;
    QTabWidget *m_tabs;
    SweepView *m_sweep;
    LayerRooflineView *m_roofline;
    DocumentId m_current = kNoDocument;
    nlohmann::json m_pendingState; // a restored session's state for a model not shown yet
    JobTracker::JobId m_runningJob = 0;
    // True while JobTracker::run is starting the profile job: a job whose work ends before
    // run() returns can finish inside that call.
    bool m_starting = false;
};

} // namespace pyrometer::ui
