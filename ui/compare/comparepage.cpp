#include "ui/compare/comparepage.h"

#include "ui/flamegraph/flamegraphview.h"
#include "ui/shell/preferences.h"
#include "ui/shell/tabkeys.h"
#include "ui/tables/sortheader.h"
#include "ui/workspace/workspace.h"

#include <QColor>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace pyrometer::ui {
namespace {

// The variants compared until the user types others, per engine.
constexpr const char *kEmbeddedVariants = "baseline,frozen,channels_last,int8,int8_static,bf16,threads=1";
constexpr const char *kPythonVariants = "baseline,compile,channels_last,int8,bf16,fp16";

// Whether a variant's profile still has the baseline's modules beside the model itself
// (freezing and quantizing inline them, so their time is all on the model's row).
bool keepsModules(const VariantLayers &layers)
{
    return layers.error.empty() &&
           std::count_if(layers.deltas.begin(), layers.deltas.end(), [](const auto &d) { return d.inBase && d.inOther; }) > 1;
}

// A read-only table over model, sorted by value (SortRole) when a header is clicked.
QTableView *sortedTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(VariantsModel::SortRole);
    auto *view = new QTableView(parent);
    tables::useSortHeader(view);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder);
    view->verticalHeader()->hide();
    view->setAlternatingRowColors(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setWordWrap(false); // long notes elide; the tooltip holds them whole
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

// A sorted table whose name column is elided in the middle (long kernel names differ at both
// ends) and kept to a width that leaves the numbers on screen; the tooltip has the whole name.
QTableView *namedRowsTable(QAbstractItemModel *model, int nameColumn, QWidget *parent)
{
    auto *view = sortedTable(model, parent);
    view->setTextElideMode(Qt::ElideMiddle);
    view->horizontalHeader()->setSectionResizeMode(nameColumn, QHeaderView::Interactive);
    view->horizontalHeader()->resizeSection(nameColumn, 380);
    return view;
}

QLabel *wrappedLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

ComparePage::ComparePage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_tabs(new QTabWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    m_tabs->addTab(createVariantsTab(), tr("Model variants"));
    m_tabs->addTab(createTracesTab(), tr("Traces"));
    m_tabs->addTab(createFlameTab(), tr("Diff flame graph"));
    switchTabsWithCtrlTab(m_tabs, this);

    connect(workspace, &Workspace::modelOpened, this, &ComparePage::modelOpened);
    connect(workspace, &Workspace::modelClosed, this, &ComparePage::modelClosed);
    connect(workspace, &Workspace::traceOpened, this, &ComparePage::traceOpened);
    connect(workspace, &Workspace::traceClosed, this, [this] { refillTraces(false); });
    if (!workspace->traces().empty())
        traceOpened(); // what was open before this page was made
    connect(jobs, &JobTracker::finished, this, [this](JobTracker::JobId id, const QString &, JobOutcome outcome, const QString &message) {
        const QString text = outcome == JobOutcome::Cancelled ? tr("Cancelled.")
                             : outcome == JobOutcome::Failed  ? tr("Failed: %1").arg(message)
                                                              : QString();
        if (id == m_variantsJob) {
            m_variantsJob = 0;
            m_runVariants->setEnabled(!m_modelPath.isEmpty());
            if (outcome != JobOutcome::Succeeded) // success leaves the inputs showVariants named
                m_variantsStatus->setText(text);
        } else if (id == m_saveJob) {
            m_saveJob = 0;
            updateSaveButton();
            if (outcome != JobOutcome::Succeeded) // success leaves the note the job wrote
                m_variantsStatus->setText(text);
        } else if (id == m_traceJob) {
            m_traceJob = 0;
            tracesChosen();
            if (outcome != JobOutcome::Succeeded) // success leaves the totals showDiff wrote
                m_traceStatus->setText(text);
        }
    });
}

QWidget *ComparePage::createVariantsTab()
{
    auto *tab = new QWidget(this);
    m_modelLabel = wrappedLabel(tab);
    m_modelLabel->setText(tr("Open a model (Ctrl+M) to compare its variants."));
    m_inputs = new QLineEdit(tab);
    m_inputs->setPlaceholderText(tr("as on the Model page, else as the model records; or such as 1x3x224x224; or "
                                    "val.pt, val_labels.pt to score accuracy"));
    m_inputs->setToolTip(
        tr("Shapes, or samples saved from Python with torch.save (a tensor, or a tuple of one tensor per "
           "input; relative to the model's folder) and, after a comma, their int64 labels: every variant "
           "then shows its top-1 accuracy, its change and its agreement with the baseline"));
    m_variants = new QLineEdit(QLatin1String(kEmbeddedVariants), tab);
    m_variants->setToolTip(tr("Comma-separated: %1").arg(QString::fromStdString(model::knownVariantNames())));
    m_iterations = new QSpinBox(tab);
    m_iterations->setRange(1, 10000);
    m_iterations->setValue(20);
    m_iterations->setMaximumWidth(120);
    m_runVariants = new QPushButton(tr("Run compare"), tab);
    m_runVariants->setEnabled(false);
    m_saveVariant = new QPushButton(tr("Save variant…"), tab);
    m_saveVariant->setToolTip(tr("Save the variant selected in the table as a TorchScript file, to deploy or to open again"));
    m_saveVariant->setEnabled(false);
    m_variantsStatus = wrappedLabel(tab);

    auto *settings = new QGroupBox(tr("Variants of the open model"), tab);
    auto *form = new QFormLayout(settings);
    form->addRow(m_modelLabel);
    form->addRow(tr("Inputs"), m_inputs);
    form->addRow(tr("Variants"), m_variants);
    form->addRow(tr("Timed runs"), m_iterations);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_runVariants);
    buttons->addWidget(m_saveVariant);
    buttons->addWidget(m_variantsStatus, 1);
    form->addRow(buttons);

    m_variantsModel = makeVariantsModel(this);
    auto *variantsView = sortedTable(m_variantsModel, tab);
    showNotesBesideNames(variantsView);
    m_variantsView = variantsView;
    connect(variantsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ComparePage::updateSaveButton);
    connect(m_saveVariant, &QPushButton::clicked, this, [this] {
        const auto variant = selectedSavableVariant();
        if (!variant)
            return;
        const QString suggested =
            QFileInfo(m_modelPath)
                .dir()
                .filePath(
                    QFileInfo(m_modelPath).completeBaseName() + QLatin1Char('_') +
                    QString::fromStdString(model::variantName(*variant)).replace(QLatin1Char('@'), QLatin1Char('_')) +
                    QStringLiteral(".pt"));
        const QString path = QFileDialog::getSaveFileName(this, tr("Save variant"), suggested, tr("TorchScript (*.pt *.pth)"));
        if (!path.isEmpty())
            saveVariant(*variant, path);
    });

    auto *layersBox = new QGroupBox(tr("Per-layer forward time against the baseline (profiled runs)"), tab);
    m_layerVariant = new QComboBox(layersBox);
    m_layerVariant->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_layerNote = wrappedLabel(layersBox);
    m_layerModel = new LayerDeltaModel(layerDeltaColumns(), this);
    m_layerView = sortedTable(m_layerModel, layersBox);
    auto *layersLayout = new QVBoxLayout(layersBox);
    auto *choose = new QHBoxLayout;
    choose->addWidget(new QLabel(tr("Variant"), layersBox));
    choose->addWidget(m_layerVariant);
    choose->addWidget(m_layerNote, 1);
    layersLayout->addLayout(choose);
    layersLayout->addWidget(m_layerView, 1);

    auto *splitter = new QSplitter(Qt::Vertical, tab);
    splitter->addWidget(variantsView);
    splitter->addWidget(layersBox);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    // Room for the baseline and the default six variants before the per-layer table.
    variantsView->setMinimumHeight(variantsView->verticalHeader()->defaultSectionSize() * 8 +
                                   variantsView->horizontalHeader()->sizeHint().height());

    auto *layout = new QVBoxLayout(tab);
    layout->addWidget(settings);
    layout->addWidget(splitter, 1);

    connect(m_runVariants, &QPushButton::clicked, this, &ComparePage::runVariants);
    connect(m_layerVariant, &QComboBox::currentIndexChanged, this, &ComparePage::showLayers);
    return tab;
}

QWidget *ComparePage::createTracesTab()
{
    auto *tab = new QWidget(this);
    m_baseTrace = new QComboBox(tab);
    m_otherTrace = new QComboBox(tab);
    m_baseTrace->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_otherTrace->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_diffTraces = new QPushButton(tr("Compare traces"), tab);
    m_diffTraces->setEnabled(false);
    m_traceStatus = wrappedLabel(tab);
    m_traceStatus->setText(tr("Open two traces (Ctrl+O) to compare them operator by operator and kernel by kernel."));
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Base"), tab));
    row->addWidget(m_baseTrace);
    row->addWidget(new QLabel(tr("Other"), tab));
    row->addWidget(m_otherTrace);
    row->addWidget(m_diffTraces);
    row->addWidget(m_traceStatus, 1);

    m_opModel = makeTraceDiffModel(false, this);
    m_kernelModel = makeTraceDiffModel(true, this);
    auto *opsBox = new QGroupBox(tr("Operators (self time)"), tab);
    (new QVBoxLayout(opsBox))->addWidget(namedRowsTable(m_opModel, 0, opsBox));
    auto *kernelsBox = new QGroupBox(tr("Kernels, memcpy and memset (device time)"), tab);
    (new QVBoxLayout(kernelsBox))->addWidget(namedRowsTable(m_kernelModel, 1, kernelsBox));
    auto *splitter = new QSplitter(Qt::Vertical, tab);
    splitter->addWidget(opsBox);
    splitter->addWidget(kernelsBox);

    auto *layout = new QVBoxLayout(tab);
    layout->addLayout(row);
    layout->addWidget(splitter, 1);
    connect(m_diffTraces, &QPushButton::clicked, this, &ComparePage::diffTraces);
    connect(m_baseTrace, &QComboBox::currentIndexChanged, this, &ComparePage::tracesChosen);
    connect(m_otherTrace, &QComboBox::currentIndexChanged, this, &ComparePage::tracesChosen);
    return tab;
}

QWidget *ComparePage::createFlameTab()
{
    auto *tab = new QWidget(this);
    m_flameStatus = wrappedLabel(tab);
    m_flameStatus->setText(tr("Compare two traces on the Traces tab: their call trees merge here into one flame graph, "
                              "as wide as the other trace's times, each frame coloured by its change from the base: "
                              "red slower, blue faster, deeper for a larger change, grey unchanged or in one trace only."));
    auto *whole = new QPushButton(tr("Whole tree"), tab);
    m_flameSource = new QComboBox(tab);
    m_flameSource->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_flameSource->setToolTip(tr("Two compared traces, or the baseline against a variant of the model"));
    m_flameView = new flamegraph::FlameGraphView(tab);
    m_flameView->setColorMode(flamegraph::FlameColorMode::ByChange);
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Show"), tab));
    row->addWidget(m_flameSource);
    row->addWidget(m_flameStatus, 1);
    row->addWidget(whole);
    auto *layout = new QVBoxLayout(tab);
    layout->addLayout(row);
    layout->addWidget(m_flameView, 1);
    connect(whole, &QPushButton::clicked, this, [this] { m_flameView->zoomTo(0); });
    connect(m_flameSource, &QComboBox::currentIndexChanged, this, &ComparePage::showFlameSource);
    return tab;
}

void ComparePage::refreshFlameSources(int select)
{
    const QSignalBlocker blocker(m_flameSource);
    m_flameSource->clear();
    if (m_tracesFlame)
        m_flameSource->addItem(tracesFlame().title, -1);
    for (std::size_t i = 0; i < m_layers.size(); ++i) {
        if (m_layers[i].flame)
            m_flameSource->addItem(variantFlame(QString::fromStdString(m_layers[i].variant)).title, int(i));
    }
    const int at = m_flameSource->findData(select);
    m_flameSource->setCurrentIndex(at >= 0 ? at : 0);
    showFlameSource(m_flameSource->currentIndex());
}

void ComparePage::showFlameSource(int comboIndex)
{
    if (comboIndex < 0) {
        m_flameView->setGraph(nullptr);
        return;
    }
    const int source = m_flameSource->itemData(comboIndex).toInt();
    const auto flame = source < 0 ? tracesFlame() : variantFlame(QString::fromStdString(m_layers[std::size_t(source)].variant));
    m_flameView->setGraph(flame.graph);
    m_flameStatus->setText(flame.caption + QLatin1Char(' ') + tr("Click a frame to zoom; hover for both times."));
    m_flameView->setColorMode(flamegraph::FlameColorMode::ByChange);
}

ComparePage::DiffFlame ComparePage::tracesFlame() const
{
    if (!m_tracesFlame)
        return {};
    const QString base = m_diffedNames.first.toHtmlEscaped();
    const QString other = m_diffedNames.second.toHtmlEscaped();
    return {tr("%1 → %2").arg(m_diffedNames.first, m_diffedNames.second),
            tr("<b>%1</b> against the base <b>%2</b>: the operators of both whole traces, every step merged, as the profiler "
               "recorded them. Widths are %1's times; <span style='color:%3'>red</span> is slower, "
               "<span style='color:%4'>blue</span> faster, grey unchanged or in one trace only.")
                .arg(other, base, QColor(kSlowerColour).name(), QColor(kFasterColour).name()),
            m_tracesFlame};
}

ComparePage::DiffFlame ComparePage::variantFlame(const QString &variant) const
{
    QString name = variant;
    const int shown = m_flameSource->currentData().isValid() ? m_flameSource->currentData().toInt() : -1;
    if (name.isEmpty() && shown >= 0 && shown < int(m_layers.size()))
        name = QString::fromStdString(m_layers[std::size_t(shown)].variant);
    if (name.isEmpty())
        name = m_layerVariant->currentText();
    const auto layers = std::find_if(m_layers.begin(), m_layers.end(), [&](const auto &l) { return l.variant == name.toStdString(); });
    if (layers == m_layers.end() || !layers->flame)
        return {};
    const auto &graph = *layers->flame;
    const auto ms = [](std::int64_t ns) { return QString::number(double(ns) / 1e6, 'f', 3); };
    return {tr("baseline → %1").arg(name),
            tr("<b>%1</b> against the <b>baseline</b>: their profiled operators per forward pass, the mean of %2 profiled runs, "
               "with the profiler's overhead: %3 → %4 ms, the (model) row of the per-layer table. Widths are %1's times; "
               "<span style='color:%5'>red</span> is slower, <span style='color:%6'>blue</span> faster, grey unchanged or in "
               "one only. Frozen variants run fused operators, int8 ones quantized operators: those show as in one only.")
                .arg(name.toHtmlEscaped())
                .arg(m_profiledRuns)
                .arg(ms(graph.base[0].totalNs), ms(graph.tree.nodes[0].totalNs), QColor(kSlowerColour).name(),
                     QColor(kFasterColour).name()),
            layers->flame};
}

void ComparePage::modelOpened(DocumentId id)
{
    // The traces tab was shown for lack of a model: with one and fewer than two traces, the
    // variants are what this page has to offer.
    if (m_modelPath.isEmpty() && m_tabs->currentIndex() == 1 && m_workspace->traces().size() < 2)
        m_tabs->setCurrentIndex(0);
    showModel(m_workspace->model(id)->path);
}

void ComparePage::modelClosed()
{
    // The model compared was closed: the newest one left takes its place.
    for (const auto &[id, model] : m_workspace->models())
        if (model->path == m_modelPath)
            return;
    const auto newest = m_workspace->model(m_workspace->newestModel());
    showModel(newest ? newest->path : QString());
}

void ComparePage::showModel(const QString &path)
{
    m_modelPath = path;
    const auto engine = path.isEmpty() || !m_engineSource ? engine::Engine{} : m_engineSource(path);
    const auto document = m_workspace->model(m_workspace->modelIdOf(path));
    const QString engineName = document ? QString::fromStdString(document->engineName) : QString();
    m_modelLabel->setText(path.isEmpty() ? QString()
                                         : engineName.isEmpty() ? tr("Model: %1").arg(QFileInfo(m_modelPath).fileName())
                                                                : tr("Model: %1 · runs in %2").arg(QFileInfo(m_modelPath).fileName(), engineName));
    // Each engine builds its own variants: swap the default list for the other engine's.
    const bool python = engine::isPython(engine);
    if (python && m_variants->text() == QLatin1String(kEmbeddedVariants))
        m_variants->setText(QLatin1String(kPythonVariants));
    else if (!python && !path.isEmpty() && m_variants->text() == QLatin1String(kPythonVariants))
        m_variants->setText(QLatin1String(kEmbeddedVariants));
    if (m_variantsJob)
        m_jobs->cancel(m_variantsJob);
    m_variantsModel->clear();
    updateSaveButton();
    m_layers.clear();
    refreshFlameSources(-1);
    m_layerVariant->clear();
    m_layerNote->clear();
    m_layerModel->clear();
    m_runVariants->setEnabled(!path.isEmpty());
}

void ComparePage::traceOpened()
{
    refillTraces(true);
    // Without a model the variants tab has nothing to offer: open on the traces.
    if (m_modelPath.isEmpty() && m_tabs->currentIndex() == 0)
        m_tabs->setCurrentIndex(1);
    choosePendingTraces();
}

void ComparePage::refillTraces(bool newestPair)
{
    const auto &traces = m_workspace->traces();
    const auto chosen = chosenPair();
    {
        const QSignalBlocker blockBase(m_baseTrace), blockOther(m_otherTrace);
        for (auto *combo : {m_baseTrace, m_otherTrace}) {
            combo->clear();
            for (const auto &[id, document] : traces)
                combo->addItem(document->fileName(), id);
        }
        const auto choose = [&](DocumentId base, DocumentId other) {
            m_baseTrace->setCurrentIndex(m_baseTrace->findData(base));
            m_otherTrace->setCurrentIndex(m_otherTrace->findData(other));
        };
        const bool kept = m_workspace->trace(chosen.first) && m_workspace->trace(chosen.second);
        if (traces.size() >= 2 && (newestPair || !kept)) {
            // The two opened last, before → after: the one recorded earlier is the base (by the
            // traces' own clocks when both are wall-clock times, else in the order they opened).
            auto last = traces.rbegin();
            auto other = last->second;
            auto base = (++last)->second;
            const auto startOf = [](const auto &document) { return document->trace->info.spanStart; };
            constexpr std::int64_t kWallClock = 100'000'000'000'000'000; // ns: after 1973
            if (startOf(base) > kWallClock && startOf(other) > kWallClock && startOf(other) < startOf(base))
                std::swap(base, other);
            choose(base->id, other->id);
        } else if (kept) {
            choose(chosen.first, chosen.second);
        }
    }
    tracesChosen();
}

std::pair<DocumentId, DocumentId> ComparePage::chosenPair() const
{
    const auto idOf = [](const QComboBox *combo) { return combo->currentIndex() >= 0 ? combo->currentData().toInt() : kNoDocument; };
    return {idOf(m_baseTrace), idOf(m_otherTrace)};
}

void ComparePage::tracesChosen()
{
    // What is on screen belongs to the pair it was computed for: a new pair clears it.
    const auto pair = chosenPair();
    if (pair != m_diffedPair) {
        m_opModel->clear();
        m_kernelModel->clear();
        m_diffedPair = {kNoDocument, kNoDocument};
        m_diffedNames = {};
        if (m_tracesFlame) {
            m_tracesFlame.reset();
            refreshFlameSources(-1);
        }
    }
    const bool two = m_workspace->traces().size() >= 2;
    const bool same = two && pair.first == pair.second;
    m_diffTraces->setEnabled(two && !same && !m_traceJob);
    if (same)
        m_traceStatus->setText(tr("Base and Other are the same trace: choose two different ones."));
    else if (two && pair != m_diffedPair && !m_traceJob)
        m_traceStatus->setText(tr("%1 → %2: press Compare traces.").arg(m_baseTrace->currentText(), m_otherTrace->currentText()));
}

void ComparePage::compareTraces(const QString &basePath, const QString &otherPath)
{
    m_pendingBase = basePath;
    m_pendingOther = otherPath;
    m_comparePending = true;
    m_tabs->setCurrentIndex(1);
    choosePendingTraces();
}

void ComparePage::choosePendingTraces()
{
    if (m_pendingBase.isEmpty())
        return;
    const auto find = [&](const QString &path) {
        for (const auto &[id, document] : m_workspace->traces()) {
            if (document->path == path)
                return id;
        }
        return kNoDocument;
    };
    const auto base = find(m_pendingBase);
    const auto other = find(m_pendingOther);
    if (base == kNoDocument || other == kNoDocument)
        return;
    {
        const QSignalBlocker blockBase(m_baseTrace), blockOther(m_otherTrace);
        m_baseTrace->setCurrentIndex(m_baseTrace->findData(base));
        m_otherTrace->setCurrentIndex(m_otherTrace->findData(other));
    }
    m_pendingBase.clear();
    m_pendingOther.clear();
    tracesChosen();
    if (std::exchange(m_comparePending, false))
        diffTraces();
}

nlohmann::json ComparePage::saveState() const
{
    nlohmann::json state{{"variants", m_variants->text().toStdString()},
                         {"inputs", m_inputs->text().toStdString()},
                         {"iterations", m_iterations->value()}};
    const auto base = m_workspace->trace(chosenPair().first);
    const auto other = m_workspace->trace(chosenPair().second);
    if (base && other) {
        state["base_trace"] = base->path.toStdString();
        state["other_trace"] = other->path.toStdString();
    }
    return state;
}

void ComparePage::restoreState(const nlohmann::json &state)
{
    if (!state.is_object())
        return;
    const auto text = [&](const char *key) { return QString::fromStdString(state.value(key, std::string())); };
    if (state.contains("variants"))
        m_variants->setText(text("variants"));
    m_inputs->setText(text("inputs"));
    if (const auto iterations = state.find("iterations"); iterations != state.end() && iterations->is_number_integer())
        m_iterations->setValue(iterations->get<int>());
    m_pendingBase = text("base_trace");
    m_pendingOther = text("other_trace");
    choosePendingTraces();
}

void ComparePage::runVariants()
{
    if (m_modelPath.isEmpty() || m_variantsJob)
        return;
    VariantsRequest request;
    request.model = m_modelPath.toStdString();
    if (m_engineSource)
        request.engine = m_engineSource(m_modelPath);
    QString inputs = m_inputs->text().trimmed();
    QString inputsFrom = tr("as typed");
    if (inputs.isEmpty() && m_fallbackInputs) {
        inputs = m_fallbackInputs(m_modelPath).trimmed();
        inputsFrom = tr("from the Model page's Inputs field");
    }
    if (inputs.isEmpty())
        inputsFrom = tr("as the model records them");
    request.inputSpec = inputs.toStdString();
    request.variants = m_variants->text().toStdString();
    request.iterations = m_iterations->value();
    m_variantsModel->clear();
    updateSaveButton();
    m_layers.clear();
    refreshFlameSources(-1);
    m_layerVariant->clear();
    m_layerModel->clear();
    m_runVariants->setEnabled(false);
    m_variantsStatus->setText(tr("Running… (cancel it in the status bar)"));
    const QString path = m_modelPath;
    m_variantsJob = m_jobs->run<std::shared_ptr<const VariantsRun>>(
        tr("Comparing variants of %1").arg(QFileInfo(path).fileName()), QStringLiteral("compare-variants"),
        [request](ProgressReporter &progress, const StopToken &stop) -> Result<std::shared_ptr<const VariantsRun>> {
            auto run = ui::runVariants(request, progress, stop);
            if (!run.ok())
                return run.error();
            return std::make_shared<const VariantsRun>(std::move(run).value());
        },
        this, [this, path, inputsFrom](std::shared_ptr<const VariantsRun> run) {
            if (path != m_modelPath)
                return;
            showVariants(*run);
            m_variantsStatus->setText(variantsSummary(run->report, inputsFrom));
        });
}

std::optional<model::Variant> ComparePage::selectedSavableVariant() const
{
    const auto current = m_variantsView->selectionModel()->currentIndex();
    const auto *proxy = qobject_cast<const QSortFilterProxyModel *>(m_variantsView->model());
    if (!current.isValid() || !proxy)
        return std::nullopt;
    const int row = proxy->mapToSource(current).row();
    if (row < 0 || row >= m_variantsModel->rowCount())
        return std::nullopt;
    const auto &result = m_variantsModel->rows()[std::size_t(row)];
    if (!result.ok() || result.variant.kind == model::VariantKind::Baseline ||
        result.variant.kind == model::VariantKind::Threads)
        return std::nullopt;
    return result.variant;
}

void ComparePage::updateSaveButton()
{
    m_saveVariant->setEnabled(m_saveJob == 0 && selectedSavableVariant().has_value());
}

void ComparePage::saveVariant(const model::Variant &variant, const QString &path)
{
    if (m_modelPath.isEmpty() || m_saveJob)
        return;
    const std::filesystem::path model = m_modelPath.toStdString();
    const auto inputs = m_comparedInputs;
    const auto out = std::filesystem::path(path.toStdString());
    const QString name = QString::fromStdString(model::variantName(variant));
    m_saveVariant->setEnabled(false);
    m_variantsStatus->setText(tr("Saving %1…").arg(name));
    m_saveJob = m_jobs->run<std::string>(
        tr("Saving %1 of %2").arg(name, QFileInfo(m_modelPath).fileName()), QStringLiteral("save-variant"),
        [model, variant, inputs, out](ProgressReporter &, const StopToken &) {
            return engine::exportVariant(model, variant, inputs, out);
        },
        this,
        [this, name, path](const std::string &note) {
            m_variantsStatus->setText(tr("Saved %1 as %2: %3").arg(name, QDir::toNativeSeparators(path), QString::fromStdString(note)));
        });
}

void ComparePage::showVariants(const VariantsRun &run)
{
    m_variantsModel->setRows(run.report.rows);
    showDataColumns(m_variantsView, run.report);
    fitNoteColumn(m_variantsView);
    m_comparedInputs = run.report.inputs;
    updateSaveButton();
    m_layers = run.layers;
    m_profiledRuns = run.profiledRuns;
    m_layerVariant->clear();
    {
        // Listing the variants selects the first; the first that keeps its modules is shown
        // instead, since a frozen or quantized one has all its time on the model's row.
        const QSignalBlocker blocker(m_layerVariant);
        for (const auto &layers : m_layers)
            m_layerVariant->addItem(QString::fromStdString(layers.variant));
    }
    const auto kept = std::find_if(m_layers.begin(), m_layers.end(), keepsModules);
    if (m_layers.empty())
        m_layerNote->setText(tr("No variant ran besides the baseline."));
    else
        m_layerVariant->setCurrentIndex(kept == m_layers.end() ? 0 : int(kept - m_layers.begin()));
    showLayers(m_layerVariant->currentIndex());
    refreshFlameSources(m_tracesFlame ? -1 : 0);
}

void ComparePage::showLayers(int index)
{
    if (index < 0 || index >= int(m_layers.size())) {
        m_layerModel->clear();
        return;
    }
    const auto &layers = m_layers[std::size_t(index)];
    m_layerModel->setRows(layers.deltas);
    if (!layers.error.empty())
        m_layerNote->setText(tr("No per-layer profile: %1").arg(QString::fromStdString(layers.error)));
    else if (!keepsModules(layers))
        m_layerNote->setText(tr("Forward time per pass, the mean of %1 profiled runs with the profiler's overhead. This variant "
                                "inlines its submodules (freezing and int8 quantization do): its time is all on the model's row.")
                                 .arg(m_profiledRuns));
    else
        m_layerNote->setText(tr("Forward time per layer and pass, the mean of %1 profiled runs with the profiler's overhead (the "
                                "latency above is of the timed runs, without it); sort by Delta to find what changed most.")
                                 .arg(m_profiledRuns));
}

void ComparePage::diffTraces()
{
    const auto pair = chosenPair();
    const auto baseTrace = m_workspace->trace(pair.first);
    const auto otherTrace = m_workspace->trace(pair.second);
    if (m_traceJob || !baseTrace || !otherTrace || pair.first == pair.second)
        return;
    m_diffTraces->setEnabled(false);
    m_traceStatus->setText(tr("Comparing…"));
    m_traceJob = m_jobs->run<TracesComparison>(
        tr("Comparing %1 with %2").arg(m_baseTrace->currentText(), m_otherTrace->currentText()), QStringLiteral("compare-traces"),
        [baseTrace, otherTrace](ProgressReporter &progress, const StopToken &stop) {
            return diffLoadedTraces(*baseTrace, *otherTrace, progress, stop);
        },
        this, [this, pair, names = std::make_pair(m_baseTrace->currentText(), m_otherTrace->currentText())](TracesComparison comparison) {
            if (pair != chosenPair())
                return; // the user chose another pair meanwhile
            m_diffedPair = pair;
            m_diffedNames = names;
            showDiff(comparison.diff);
            m_tracesFlame = comparison.flame;
            refreshFlameSources(-1);
        });
    for (const auto &document : {baseTrace, otherTrace})
        m_jobs->addOwner(m_traceJob, document->jobOwner());
}

void ComparePage::showDiff(const analysis::TraceDiff &diff)
{
    std::vector<analysis::DiffRow> ops;
    std::vector<analysis::DiffRow> kernels;
    for (const auto &row : diff.rows)
        (row.kind == "op" ? ops : kernels).push_back(row);
    m_opModel->setRows(std::move(ops));
    m_kernelModel->setRows(std::move(kernels));
    const auto percent = diff.total.deltaPercent();
    m_traceStatus->setText(tr("%1 → %2: operators' self time plus device time, %3 → %4 (%5, %6%7 %)")
                               .arg(m_baseTrace->currentText(), m_otherTrace->currentText(), displayDuration(diff.total.baseNs),
                                    displayDuration(diff.total.otherNs), signedDuration(diff.total.deltaNs()))
                               .arg(percent > 0 ? QStringLiteral("+") : QString())
                               .arg(percent, 0, 'f', 1));
}

} // namespace pyrometer::ui
