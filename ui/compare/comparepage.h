#pragma once

#include <QWidget>

#include "ui/compare/comparerun.h"
#include "ui/compare/comparetables.h"
#include "ui/jobs/jobtracker.h"

#include <nlohmann/json.hpp>

#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace pyrometer::ui {

class Workspace;
namespace flamegraph {
class FlameGraphView;
}

// The Compare page. Model variants: the open model's variants (baseline, frozen, channels_last,
// int8, bf16, threads=N) timed on the same inputs, with speedup, size and output difference,
// and a per-layer delta table against the baseline. Traces: the op and kernel deltas of two
// open traces. Diff flame graph: two traces' call trees, or the baseline's and a variant's
// profiled operators, merged and coloured by change.
class ComparePage final : public QWidget {
    Q_OBJECT
public:
    ComparePage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    QTabWidget *tabs() const { return m_tabs; }
    QLineEdit *variantsEdit() const { return m_variants; }
    QLineEdit *inputsEdit() const { return m_inputs; }
    QSpinBox *iterationsSpin() const { return m_iterations; }
    QPushButton *runVariantsButton() const { return m_runVariants; }
    QLabel *variantsStatus() const { return m_variantsStatus; }
    VariantsModel *variantsModel() const { return m_variantsModel; }
    QComboBox *layerVariantCombo() const { return m_layerVariant; }
    QLabel *layerNote() const { return m_layerNote; }
    LayerDeltaModel *layerModel() const { return m_layerModel; }
    QTableView *layerView() const { return m_layerView; }
    QComboBox *baseTraceCombo() const { return m_baseTrace; }
    QComboBox *otherTraceCombo() const { return m_otherTrace; }
    QPushButton *diffTracesButton() const { return m_diffTraces; }
    TraceDiffModel *opDiffModel() const { return m_opModel; }
    TraceDiffModel *kernelDiffModel() const { return m_kernelModel; }
    QLabel *traceStatus() const { return m_traceStatus; }
    flamegraph::FlameGraphView *diffFlameGraph() const { return m_flameView; }
    // What the diff flame graph shows: the two traces, or the baseline against a variant.
    QComboBox *flameSourceCombo() const { return m_flameSource; }
    // What the diff flame graph shown is: its source, what its widths measure, its colours.
    QLabel *flameCaption() const { return m_flameStatus; }

    // A diff flame graph the page has, and what it is, for the page and the report.
    struct DiffFlame {
        QString title;   // "a.json → b.json", "baseline → int8"
        QString caption; // rich text: what the widths measure and the colours mean
        std::shared_ptr<const analysis::FlameGraph> graph;
    };
    // The two compared traces' graph; a null graph before they are compared.
    DiffFlame tracesFlame() const;
    // The baseline's against the variant named; when none is named, the variant the Diff flame
    // graph tab shows, else the per-layer table's. A null graph when that variant has none.
    DiffFlame variantFlame(const QString &variant = {}) const;
    // The file names of the base and the other trace that the delta tables show; empty before.
    std::pair<QString, QString> comparedTraces() const { return m_diffedNames; }
    // How many profiled runs each variant's per-layer deltas and diff flame graph average.
    int profiledRuns() const { return m_profiledRuns; }

    // Where the inputs come from when the Inputs field is empty: given the model's path, the
    // Model page's Inputs field (empty when that page shows another model). Else the inputs the
    // model records.
    void setFallbackInputs(std::function<QString(const QString &modelPath)> provider) { m_fallbackInputs = std::move(provider); }
    // The engine (and device) a model's variants run in: the Model page's choice for it.
    void setEngineSource(std::function<engine::Engine(const QString &modelPath)> source) { m_engineSource = std::move(source); }

    void runVariants();
    void diffTraces();
    // Chooses the traces at basePath and otherPath (before → after) and compares them, now if
    // both are open, else as soon as they are.
    void compareTraces(const QString &basePath, const QString &otherPath);
    // Saves a variant of the open model as TorchScript at path (a background job), calibrated
    // on and recording the inputs of the last compare. Save variant… asks where, for the
    // variant selected in the table.
    void saveVariant(const model::Variant &variant, const QString &path);
    QPushButton *saveVariantButton() const { return m_saveVariant; }
    QTableView *variantsView() const { return m_variantsView; }

    // The setup, for sessions: variants, inputs, timed runs, and the two traces by path. The
    // traces are chosen when both are open (now, or when they arrive).
    nlohmann::json saveState() const;
    void restoreState(const nlohmann::json &state);

private:
    void modelOpened(DocumentId id);
    void modelClosed();
    void showModel(const QString &path);
    void traceOpened();
    // Lists the open traces; newestPair chooses the two opened last, else the pair chosen stays
    // while both are open.
    void refillTraces(bool newestPair);
    std::pair<DocumentId, DocumentId> chosenPair() const;
    void choosePendingTraces();
    // Base or Other changed: results of another pair are cleared; Base = Other is refused.
    void tracesChosen();
    void showVariants(const VariantsRun &run);
    // The selected variant when it can be saved (it ran, and it is more than a run setting).
    std::optional<model::Variant> selectedSavableVariant() const;
    void updateSaveButton();
    void showLayers(int index);
    void showDiff(const analysis::TraceDiff &diff);
    QWidget *createVariantsTab();
    QWidget *createTracesTab();
    QWidget *createFlameTab();
    // Lists what has a diff flame graph and shows the entry whose data is select (-1: the
    // traces, i: m_layers[i]), or the first.
    void refreshFlameSources(int select);
    void showFlameSource(int comboIndex);

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QTabWidget *m_tabs;
    // Model variants
    QLabel *m_modelLabel = nullptr;
    QLineEdit *m_inputs = nullptr;
    QLineEdit *m_variants = nullptr;
    QSpinBox *m_iterations = nullptr;
    QPushButton *m_runVariants = nullptr;
    QPushButton *m_saveVariant = nullptr;
    QTableView *m_variantsView = nullptr;
    std::vector<model::InputSpec> m_comparedInputs; // of the last compare
    JobTracker::JobId m_saveJob = 0;
    QLabel *m_variantsStatus = nullptr;
    VariantsModel *m_variantsModel = nullptr;
    QComboBox *m_layerVariant = nullptr;
    QLabel *m_layerNote = nullptr;
    LayerDeltaModel *m_layerModel = nullptr;
    QTableView *m_layerView = nullptr;
    std::vector<VariantLayers> m_layers;
    int m_profiledRuns = 0; // of each variant, for m_layers
    std::function<QString(const QString &)> m_fallbackInputs;
    std::function<engine::Engine(const QString &)> m_engineSource;
    QString m_modelPath;
    JobTracker::JobId m_variantsJob = 0;
    // Traces
    QComboBox *m_baseTrace = nullptr;
    QComboBox *m_otherTrace = nullptr;
    QPushButton *m_diffTraces = nullptr;
    QLabel *m_traceStatus = nullptr;
    TraceDiffModel *m_opModel = nullptr;
    TraceDiffModel *m_kernelModel = nullptr;
    JobTracker::JobId m_traceJob = 0;
    std::pair<DocumentId, DocumentId> m_diffedPair{kNoDocument, kNoDocument}; // the (base, other) the tables show
    std::pair<QString, QString> m_diffedNames;  // their file names
    QString m_pendingBase; // from a restored session, chosen once open
    QString m_pendingOther;
    bool m_comparePending = false; // compare the pending pair once it is chosen
    // Diff flame graph
    QLabel *m_flameStatus = nullptr;
    QComboBox *m_flameSource = nullptr;
    std::shared_ptr<const analysis::FlameGraph> m_tracesFlame;
    flamegraph::FlameGraphView *m_flameView = nullptr;
};

} // namespace pyrometer::ui
