#include "ui/model/modelpage.h"

#include "core/engine/engine.h"
#include "core/util/format.h"
#include "ui/model/layerrooflineview.h"
#include "ui/model/modelstate.h"
#include "ui/model/profileresultsview.h"
#include "ui/model/profilerun.h"
#include "ui/model/sweepview.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tabkeys.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QSplitter>
#include <QStackedLayout>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <thread>
#include <utility>

namespace pyrometer::ui {

ModelPage::ModelPage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout(this)),
      m_empty(new EmptyState(tr("Model"),
                             tr("Load a model to time it warm and cold, and to find its slowest layers, with parameters "
                                "and FLOPs next to each layer's time: TorchScript (.pt) runs in the embedded libtorch; a "
                                "torch.export program (.pt2) or model.py:build (a function returning an nn.Module) runs in "
                                "your own Python, as Record does, on the CPU or CUDA."),
                             tr("Open a model: Ctrl+M"), this)),
      m_summary(new QLabel(this)), m_tree(new QTreeWidget(this)), m_inputs(new QLineEdit(this)), m_warmup(new QSpinBox(this)),
      m_iterations(new QSpinBox(this)), m_threads(new QSpinBox(this)), m_mode(new QComboBox(this)), m_device(new QComboBox(this)),
      m_run(new QPushButton(tr("Run profile"), this)), m_runStatus(new QLabel(this)), m_results(new ProfileResultsView(this)),
      m_tabs(new QTabWidget(this)), m_sweep(new SweepView(jobs, m_inputs, this)),
      m_roofline(new LayerRooflineView(jobs, m_inputs, this))
{
    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    // Left: how to run it, and what the model is made of.
    auto *settings = new QGroupBox(tr("Run settings"), content);
    auto *form = new QFormLayout(settings);
    m_inputs->setPlaceholderText(tr("1x3x224x224, or data saved by torch.save: val.pt, val_labels.pt"));
    m_inputs->setToolTip(
        tr("One shape per model input, separated by commas; a dtype after a colon (float32 by default: "
           "float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool). For a batch sweep the "
           "first dimension may be B, the swept batch: Bx3x224x224.\n"
           "Or samples saved from Python with torch.save (a tensor, or a tuple of one tensor per input; "
           "relative to the model's folder) and, after a comma, their int64 labels: runs use their shapes, "
           "and Compare scores every variant's top-1 accuracy and agreement on them"));
    form->addRow(tr("Inputs"), m_inputs);
    m_warmup->setRange(0, 10000);
    m_warmup->setValue(10);
    m_warmup->setToolTip(tr("Untimed runs after the cold one"));
    form->addRow(tr("Warm-up runs"), m_warmup);
    m_iterations->setRange(1, 100000);
    m_iterations->setValue(50);
    m_iterations->setToolTip(tr("Timed runs; up to 10 of them are also profiled layer by layer"));
    form->addRow(tr("Timed runs"), m_iterations);
    m_threads->setRange(0, int(std::max(1u, std::thread::hardware_concurrency())) * 4);
    m_threads->setSpecialValueText(tr("default"));
    m_threads->setToolTip(tr("libtorch's intra-op threads (process-wide)"));
    form->addRow(tr("Threads"), m_threads);
    m_mode->addItem(tr("Inference"), int(model::RunMode::Inference));
    m_mode->addItem(tr("Train step"), int(model::RunMode::Train));
    m_mode->setToolTip(tr("Train step: forward in training mode, the sum of the outputs as the loss, backward"));
    form->addRow(tr("Mode"), m_mode);
    m_device->setToolTip(tr("Where the model runs: the embedded libtorch runs on the CPU; the Python engine on whatever "
                            "the interpreter's torch offers"));
    form->addRow(tr("Device"), m_device);
    m_run->setDefault(true);
    form->addRow(m_run);
    m_runStatus->setWordWrap(true);
    m_runStatus->setTextFormat(Qt::PlainText);
    m_runStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(m_runStatus);
    connect(m_run, &QPushButton::clicked, this, &ModelPage::runProfile);
    connect(m_inputs, &QLineEdit::returnPressed, this, &ModelPage::runProfile);

    m_tree->setHeaderLabels({tr("Module"), tr("Type"), tr("Parameters")});
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    // Type and parameters keep their width; the module's name takes the rest, elided at the
    // right where even its own part of the path does not fit (its tooltip has the whole path),
    // so the parameters stay on screen.
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::Interactive);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_tree->header()->resizeSection(1, m_tree->fontMetrics().horizontalAdvance(QStringLiteral("BatchNorm2d__")));
    m_tree->setTextElideMode(Qt::ElideRight);

    auto *left = new QWidget(content);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(settings);
    leftLayout->addWidget(m_tree, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, content);
    splitter->addWidget(left);
    m_tabs->addTab(m_results, tr("Profile"));
    m_tabs->addTab(m_sweep, tr("Sweep"));
    m_tabs->addTab(m_roofline, tr("Roofline"));
    switchTabsWithCtrlTab(m_tabs, this);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({380, 1000});
    layout->addWidget(splitter, 1);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);
    connect(workspace, &Workspace::modelOpened, this, &ModelPage::showModel);
    connect(workspace, &Workspace::modelOpenedAgain, this, [this](DocumentId id) {
        if (id != m_current) // the one shown keeps its results
            showModel(id);
    });
    connect(workspace, &Workspace::modelClosed, this, [this](DocumentId id) {
        if (id == m_current)
            showModel(m_workspace->newestModel());
    });
    connect(jobs, &JobTracker::finished, this,
            [this](JobTracker::JobId id, const QString &, JobOutcome outcome, const QString &message) { jobFinished(id, outcome, message); });
    connect(m_results, &ProfileResultsView::openTraceRequested, this, [this](const QString &path) {
        m_workspace->openTrace(path);
        Q_EMIT timelineRequested();
    });
    connect(m_results, &ProfileResultsView::openFlameGraphRequested, this, [this](const QString &path) {
        m_workspace->openTrace(path);
        Q_EMIT flameGraphRequested();
    });
}

bool ModelPage::hasContent() const
{
    return m_stack->currentIndex() == 1;
}

void ModelPage::showModel(DocumentId id)
{
    // Results belong to the model they were measured on.
    if (m_runningJob)
        m_jobs->cancel(m_runningJob);
    const auto shown = m_workspace->model(id);
    m_current = shown ? id : kNoDocument;
    if (!shown) { // the last model was closed
        m_results->clear();
        m_sweep->setModel(QString());
        m_roofline->setModel(QString());
        m_tree->clear();
        m_runStatus->clear();
        m_stack->setCurrentIndex(0);
        return;
    }
    const auto &document = *shown;
    const auto &info = document.info;
    const QLocale locale;
    QString engineLine = tr("Runs in <b>%1</b>").arg(QString::fromStdString(document.engineName).toHtmlEscaped());
    if (!document.engineNote.empty())
        engineLine += tr(" &mdash; %1").arg(QString::fromStdString(document.engineNote).toHtmlEscaped());
    if (!document.batchNote.empty())
        engineLine += QStringLiteral("<br>") + QString::fromStdString(document.batchNote).toHtmlEscaped();
    m_summary->setText(tr("<b>%1</b> &mdash; %2 parameters (%3), %4 modules, file %5<br>%6%7")
                           .arg(QFileInfo(document.path).fileName().toHtmlEscaped(),
                                locale.toString(qulonglong(info.parameters)),
                                QString::fromStdString(formatBytes(info.parameterBytes)),
                                locale.toString(qulonglong(info.modules.size())),
                                QString::fromStdString(formatBytes(info.fileBytes)), engineLine,
                                info.forwardSchema.empty()
                                    ? QString()
                                    : QStringLiteral("<br><code>%1</code>").arg(QString::fromStdString(info.forwardSchema).toHtmlEscaped())));
    fillDevices(document);

    m_tree->clear();
    // Modules come depth-first with their depth: keep a stack of the open ancestors.
    std::vector<QTreeWidgetItem *> ancestors;
    for (const auto &module : info.modules) {
        ancestors.resize(std::size_t(module.depth));
        // The tree shows the path: each row names its own part ("conv1" under "0" under
        // "layer1"), the tooltip the whole path.
        const QString path = module.qualifiedName.empty() ? QFileInfo(document.path).fileName()
                                                          : QString::fromStdString(module.qualifiedName);
        const QString name = module.qualifiedName.empty() ? path : path.section(QLatin1Char('.'), -1);
        const QStringList columns{name, QString::fromStdString(module.typeName),
                                  module.totalParameters ? locale.toString(qulonglong(module.totalParameters)) : QString()};
        auto *item = ancestors.empty() ? new QTreeWidgetItem(m_tree, columns) : new QTreeWidgetItem(ancestors.back(), columns);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(0, path);
        item->setToolTip(1, columns.at(1));
        ancestors.push_back(item);
    }
    m_tree->expandAll();
    m_tree->resizeColumnToContents(2);

    m_results->clear();
    m_sweep->setModel(document.path);
    m_sweep->setEngineSource([this, path = document.path] { return engineFor(path); });
    m_roofline->setModel(document.path);
    m_roofline->setEngineSource([this, path = document.path] { return engineFor(path); });
    m_runStatus->clear();
    m_inputs->clear();
    m_stack->setCurrentIndex(1);
    if (m_pendingState.is_object() && QString::fromStdString(m_pendingState.value("model", std::string())) == document.path)
        applyState(std::exchange(m_pendingState, nlohmann::json()));
    prefillInputs(document.path);
}

nlohmann::json ModelPage::saveState() const
{
    if (m_current == kNoDocument)
        return {};
    nlohmann::json state{{"model", currentModelPath().toStdString()},
                         {"inputs", m_inputs->text().toStdString()},
                         {"warmup", m_warmup->value()},
                         {"iterations", m_iterations->value()},
                         {"threads", m_threads->value()},
                         {"mode", m_mode->currentData().toInt() == int(model::RunMode::Train) ? "train" : "inference"},
                         {"tab", m_tabs->currentIndex() == m_tabs->indexOf(m_sweep) ? "sweep" : "profile"},
                         {"sweep", m_sweep->saveState()}};
    if (const auto *run = m_results->run())
        state["profile"] = profileRunToJson(*run);
    return state;
}

void ModelPage::restoreState(const nlohmann::json &state)
{
    if (!state.is_object() || !state.contains("model"))
        return;
    if (m_current != kNoDocument && QString::fromStdString(state.value("model", std::string())) == currentModelPath())
        applyState(state);
    else
        m_pendingState = state;
}

void ModelPage::applyState(const nlohmann::json &state)
{
    const auto integer = [&](const char *key, QSpinBox *spin) {
        if (const auto it = state.find(key); it != state.end() && it->is_number_integer())
            spin->setValue(it->get<int>());
    };
    if (const auto it = state.find("inputs"); it != state.end() && it->is_string())
        m_inputs->setText(QString::fromStdString(it->get<std::string>()));
    integer("warmup", m_warmup);
    integer("iterations", m_iterations);
    integer("threads", m_threads);
    m_mode->setCurrentIndex(m_mode->findData(
        int(state.value("mode", std::string()) == "train" ? model::RunMode::Train : model::RunMode::Inference)));
    if (const auto it = state.find("profile"); it != state.end()) {
        if (auto run = profileRunFromJson(*it)) {
            m_results->setRun(std::make_shared<const ProfileRun>(std::move(*run)), QFileInfo(currentModelPath()).fileName());
            m_runStatus->setText(tr("Measured before the session was saved; Run profile measures again."));
        }
    }
    if (const auto it = state.find("sweep"); it != state.end())
        m_sweep->restoreState(*it);
    m_tabs->setCurrentWidget(state.value("tab", std::string()) == "sweep" ? static_cast<QWidget *>(m_sweep) : m_results);
}

void ModelPage::setFallbackRoof(std::optional<analysis::DeviceRoof> roof)
{
    m_roofline->setFallbackRoof(roof);
    m_fallbackRoof = std::move(roof);
}

void ModelPage::setRunDefaults(int warmup, int iterations)
{
    m_warmup->setValue(warmup);
    m_iterations->setValue(iterations);
}

QString ModelPage::currentModelPath() const
{
    const auto document = m_workspace->model(m_current);
    return document ? document->path : QString();
}

void ModelPage::showPreviousRun(const QString &summary)
{
    if (!m_results->run())
        m_runStatus->setText(summary);
}

engine::Engine ModelPage::engineFor(const QString &path) const
{
    const auto document = m_workspace->model(m_workspace->modelIdOf(path));
    if (!document)
        return {};
    auto chosen = document->engine;
    if (engine::isPython(chosen) && path == currentModelPath() && m_device->currentIndex() >= 0)
        chosen.device = m_device->currentData().toString().toStdString();
    return chosen;
}

void ModelPage::fillDevices(const ModelDocument &document)
{
    m_device->clear();
    auto *items = qobject_cast<QStandardItemModel *>(m_device->model());
    if (!engine::isPython(document.engine)) {
        m_device->addItem(tr("cpu"), QStringLiteral("cpu"));
        m_device->setEnabled(false);
        m_device->setToolTip(tr("The embedded libtorch runs on the CPU; a GPU needs the Python engine (a .pt2 or model.py:build, or "
                                "TorchScript given to pyrometer-cli with --python)"));
        return;
    }
    m_device->setEnabled(true);
    for (std::size_t i = 0; i < document.python.devices.size(); ++i) {
        const auto &device = document.python.devices[i];
        QString label = QString::fromStdString(device);
        if (device != "cpu" && i - 1 < document.python.deviceNames.size())
            label += QStringLiteral(" · ") + QString::fromStdString(document.python.deviceNames[i - 1]);
        m_device->addItem(label, QString::fromStdString(device));
    }
    if (m_device->count() == 0)
        m_device->addItem(tr("cpu"), QStringLiteral("cpu"));
    if (!document.python.cudaUnavailable.empty() && items) {
        // CUDA greyed out, saying why.
        m_device->addItem(tr("cuda (unavailable)"), QStringLiteral("cuda"));
        auto *item = items->item(m_device->count() - 1);
        item->setEnabled(false);
        item->setToolTip(tr("torch %1 in %2: %3")
                             .arg(QString::fromStdString(document.python.torchVersion), QString::fromStdString(document.python.python),
                                  QString::fromStdString(document.python.cudaUnavailable)));
    }
    m_device->setCurrentIndex(0);
}

void ModelPage::prefillInputs(const QString &path)
{
    const std::filesystem::path file = path.toStdString();
    const DocumentId model = m_current;
    if (const auto document = m_workspace->model(model); document && engine::isPython(document->engine)) {
        // The worker already said what the model records or its factory returned; a TorchScript
        // archive may still hold the inputs its trace kept, which the reader below finds.
        if (!document->exampleInputs.empty()) {
            if (m_inputs->text().isEmpty())
                m_inputs->setText(QString::fromStdString(document->exampleInputs));
            return;
        }
    }
    // Reading the archive is quick, but it is file I/O: not on the GUI thread.
    m_jobs->run<std::string>(
        tr("Reading inputs of %1").arg(QFileInfo(path).fileName()), QStringLiteral("model-page-inputs"),
        [file](ProgressReporter &, const StopToken &) -> Result<std::string> {
            return engine::recordedInputSpec(file);
        },
        this,
        [this, model](std::string spec) {
            // The user may have typed something meanwhile, or opened another model.
            if (model == m_current && m_inputs->text().isEmpty() && !spec.empty())
                m_inputs->setText(QString::fromStdString(spec));
            if (model == m_current && spec.empty())
                m_inputs->setPlaceholderText(tr("this model records no example inputs: type them, such as 1x3x224x224"));
        });
}

void ModelPage::runProfile()
{
    const auto shown = m_workspace->model(m_current);
    if (!shown || m_runningJob)
        return;
    const auto &document = *shown;
    ProfileRequest request;
    request.model = document.path.toStdString();
    request.engine = engineFor(document.path);
    request.inputSpec = m_inputs->text().trimmed().toStdString();
    request.warmup = m_warmup->value();
    request.iterations = m_iterations->value();
    request.threads = m_threads->value();
    request.mode = model::RunMode(m_mode->currentData().toInt());
    request.traceDirectory =
        (QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/profiles")).toStdString();
    request.cpuRoofCache = cpuRoofCacheFile();
    request.fallbackRoof = m_fallbackRoof;

    const QString name = QFileInfo(document.path).fileName();
    m_run->setEnabled(false);
    m_runStatus->setText(tr("Running… (cancel it in the status bar)"));
    m_starting = true;
    const auto id = m_jobs->run<std::shared_ptr<const ProfileRun>>(
        tr("Profiling %1").arg(name), QStringLiteral("model-page-profile"),
        [request](ProgressReporter &progress, const StopToken &stop) -> Result<std::shared_ptr<const ProfileRun>> {
            auto run = ui::runProfile(request, progress, stop);
            if (!run.ok())
                return run.error();
            return std::make_shared<const ProfileRun>(std::move(run).value());
        },
        this, [this, name](std::shared_ptr<const ProfileRun> run) { m_results->setRun(std::move(run), name); });
    m_starting = false;
    if (m_jobs->activeJobs().contains(id))
        m_runningJob = id;
}

void ModelPage::jobFinished(JobTracker::JobId id, JobOutcome outcome, const QString &message)
{
    if (id != m_runningJob && !m_starting)
        return;
    m_runningJob = 0;
    m_run->setEnabled(true);
    switch (outcome) {
    case JobOutcome::Succeeded:
        m_runStatus->clear();
        break;
    case JobOutcome::Cancelled:
    case JobOutcome::Superseded:
        m_runStatus->setText(tr("Cancelled."));
        break;
    case JobOutcome::Failed:
        m_runStatus->setText(tr("Failed: %1").arg(message));
        break;
    }
}

} // namespace pyrometer::ui
