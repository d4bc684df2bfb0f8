#include "ui/tables/operatorspage.h"

#include "core/analysis/kerneltable.h"
#include "core/analysis/moduletable.h"
#include "core/analysis/opmemory.h"
#include "core/util/format.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tabkeys.h"
#include "ui/shell/tracechooser.h"
#include "ui/tables/moduletree.h"
#include "ui/tables/tablebuild.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/workspace/analyses.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QStackedLayout>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace pyrometer::ui::tables {

namespace {

struct Tables {
    bool hasDevice = false;
    bool hasMemory = false;
    TableTree operators;
    TableTree kernels;
    TableTree modules;
    TableTree memory;
};

enum Tab { OperatorsTab, KernelsTab, ModulesTab, MemoryTab };

} // namespace

OperatorsPage::OperatorsPage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout(this)),
      m_empty(new EmptyState(tr("Operators"),
                             tr("Per-operator calls, self and total time as torch's key_averages() prints them, "
                                "the GPU kernels, the nn.Module tree and each operator's memory, grouped by name, "
                                "input shape, module or call stack."),
                             tr("Open a trace: Ctrl+O"), this)),
      m_traceChooser(new TraceChooser(workspace, this)), m_grouping(new QComboBox(this)), m_filter(new QLineEdit(this)),
      m_rangeLabel(new QLabel(this)), m_clearRange(new QPushButton(tr("Clear range"), this)),
      m_rangeBar(new QWidget(this)), m_tabs(new QTabWidget(this)), m_operators(new TablePane(this)),
      m_kernels(new TablePane(this)), m_modules(new TablePane(this)), m_memory(new TablePane(this))
{
    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Trace:"), this));
    bar->addWidget(m_traceChooser);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Group by:"), this));
    m_grouping->addItem(tr("Name"), int(analysis::OpGrouping::Name));
    m_grouping->addItem(tr("Input shape"), int(analysis::OpGrouping::Shape));
    m_grouping->addItem(tr("Module"), int(analysis::OpGrouping::Module));
    m_grouping->addItem(tr("Stack"), int(analysis::OpGrouping::Stack));
    m_grouping->setToolTip(tr("Module and stack group into trees; they need a trace recorded with with_stack=True"));
    bar->addWidget(m_grouping);
    bar->addSpacing(12);
    m_filter->setPlaceholderText(tr("Filter names"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(180);
    bar->addWidget(m_filter, 1);
    auto *copy = new QToolButton(this);
    copy->setText(tr("Copy"));
    copy->setToolTip(tr("Copy the selected rows, tab-separated with a header (Ctrl+C)"));
    bar->addWidget(copy);
    auto *exportButton = new QToolButton(this);
    exportButton->setText(tr("Export CSV…"));
    exportButton->setToolTip(tr("Save the rows of this table that pass the filter as CSV"));
    bar->addWidget(exportButton);
    layout->addLayout(bar);

    auto *rangeLayout = new QHBoxLayout(m_rangeBar);
    rangeLayout->setContentsMargins(0, 0, 0, 0);
    rangeLayout->addWidget(m_rangeLabel, 1);
    rangeLayout->addWidget(m_clearRange);
    m_rangeBar->setVisible(false);
    layout->addWidget(m_rangeBar);

    m_tabs->addTab(m_operators, tr("Operators"));
    m_tabs->addTab(m_kernels, tr("Kernels"));
    m_tabs->addTab(m_modules, tr("Modules"));
    m_tabs->addTab(m_memory, tr("Memory"));
    switchTabsWithCtrlTab(m_tabs, this);
    layout->addWidget(m_tabs, 1);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);

    connect(m_traceChooser, &TraceChooser::traceChosen, this, &OperatorsPage::showTrace);
    connect(workspace, &Workspace::traceClosed, this, [this](DocumentId id) {
        if (id == m_traceId)
            showTrace(m_workspace->newestTrace());
    });
    connect(m_grouping, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        for (auto *pane : {m_operators, m_kernels, m_modules, m_memory})
            pane->setFilterText(text);
    });
    connect(copy, &QToolButton::clicked, this, &OperatorsPage::copySelection);
    connect(exportButton, &QToolButton::clicked, this, &OperatorsPage::chooseExportFile);
    connect(m_clearRange, &QPushButton::clicked, this, &OperatorsPage::clearRange);
    for (auto *pane : {m_operators, m_kernels, m_modules, m_memory}) {
        connect(pane, &TablePane::currentEventNameChanged, this, [this](const QString &name) {
            if (!name.isEmpty() && m_traceId >= 0)
                Q_EMIT rowEventsSelected(m_traceId, name);
        });
        connect(pane, &TablePane::eventNameActivated, this, [this](const QString &name) {
            if (m_traceId >= 0)
                Q_EMIT rowEventsActivated(m_traceId, name);
        });
    }
}

bool OperatorsPage::hasContent() const
{
    return m_stack->currentIndex() == 1;
}

void OperatorsPage::showTrace(DocumentId id)
{
    if (id == m_traceId)
        return;
    m_traceId = id;
    m_shownTrace = kNoDocument;
    m_range.reset(); // a range belongs to the trace it was selected in
    m_rangeProcesses = {};
    m_rangeScope.clear();
    if (!m_workspace->trace(id)) { // the last trace was closed
        for (auto *pane : {m_operators, m_kernels, m_modules, m_memory})
            pane->setTree({});
        m_stack->setCurrentIndex(0);
        return;
    }
    m_traceChooser->select(id);
    recompute();
}

void OperatorsPage::setGrouping(analysis::OpGrouping grouping)
{
    m_grouping->setCurrentIndex(m_grouping->findData(int(grouping)));
}

void OperatorsPage::showRange(double startNs, double endNs, const analysis::ProcessSet &processes, const QString &scope)
{
    if (endNs < startNs)
        std::swap(startNs, endNs);
    m_range = analysis::TimeRange{std::int64_t(startNs), std::int64_t(endNs)};
    m_rangeProcesses = processes;
    m_rangeScope = processes.isAll() ? QString() : scope;
    recompute();
}

void OperatorsPage::clearRange()
{
    if (!m_range)
        return;
    m_range.reset();
    m_rangeProcesses = {};
    m_rangeScope.clear();
    recompute();
}

void OperatorsPage::updateRangeBar()
{
    m_rangeBar->setVisible(m_range.has_value());
    if (!m_range)
        return;
    std::int64_t origin = 0;
    if (const auto document = m_workspace->trace(m_traceId))
        origin = document->trace->info.spanStart;
    m_rangeLabel->setText(tr("Only events that start between %1 and %2 after the trace start (%3)")
                              .arg(QString::fromStdString(formatDuration(m_range->start - origin)),
                                   QString::fromStdString(formatDuration(m_range->end - origin)),
                                   QString::fromStdString(formatDuration(m_range->end - m_range->start))) +
                          (m_rangeScope.isEmpty()
                               ? QString()
                               : tr("; the operators and kernels of %1 alone (modules and memory: every rank)")
                                     .arg(m_rangeScope)));
}

void OperatorsPage::setFallbackDevice(std::optional<analysis::DeviceRoof> device)
{
    if (device == m_fallback)
        return;
    m_fallback = std::move(device);
    recompute();
}

void OperatorsPage::recompute()
{
    const auto document = m_workspace->trace(m_traceId);
    if (!document)
        return;
    analysis::OpTableOptions opOptions;
    opOptions.grouping = analysis::OpGrouping(m_grouping->currentData().toInt());
    opOptions.sort = analysis::OpSort::Self;
    analysis::KernelTableOptions kernelOptions;
    kernelOptions.byStream = true;
    if (m_range) {
        opOptions.range = *m_range;
        kernelOptions.range = *m_range;
        opOptions.processes = m_rangeProcesses;
        kernelOptions.processes = m_rangeProcesses;
    }
    // Each op's and kernel's work under the trace's device's roof (or Preferences' for a device
    // the table lacks): the roofline columns.
    analysis::RooflineOptions workOptions;
    workOptions.everyOp = true;
    workOptions.byShape = opOptions.grouping == analysis::OpGrouping::Shape;
    workOptions.range = opOptions.range;
    workOptions.processes = opOptions.processes;
    workOptions.fallbackDevice = m_fallback;
    analysis::RooflineOptions kernelWorkOptions = workOptions;
    kernelWorkOptions.everyOp = false;
    kernelWorkOptions.byShape = false;
    kernelWorkOptions.byKernel = true;
    const bool workColumns = opOptions.grouping == analysis::OpGrouping::Name || opOptions.grouping == analysis::OpGrouping::Shape;
    const DocumentId id = m_traceId;
    // Captures copies only: the document and the options.
    const auto jobId = m_jobs->run<Tables>(
        tr("Computing operator tables"), QStringLiteral("operators-tables"),
        [document, opOptions, kernelOptions, workOptions, kernelWorkOptions, workColumns](ProgressReporter &progress,
                                                                                          const StopToken &stop) -> Result<Tables> {
            const Error cancelled{"operator tables cancelled"};
            const auto &index = *document->index;
            const auto ops = analyses::opTable(*document, opOptions, stop);
            progress.reportPermille(400);
            const auto kernels = ops ? analyses::kernelTable(*document, kernelOptions, stop) : nullptr;
            progress.reportPermille(700);
            const auto modules = kernels ? analyses::moduleTable(*document, opOptions.range, stop) : nullptr;
            const auto memory = modules ? analyses::opMemoryTable(*document, opOptions.range, stop) : nullptr;
            const auto work = memory && workColumns ? analyses::roofline(*document, workOptions, stop) : nullptr;
            const auto kernelWork =
                memory && index.hasDevice ? analyses::roofline(*document, kernelWorkOptions, stop) : nullptr;
            if (!memory || stop.stopRequested())
                return cancelled;
            Tables tables;
            tables.hasDevice = index.hasDevice;
            tables.hasMemory = !document->trace->memory.time.empty();
            OpTreeOptions treeOptions;
            treeOptions.grouping = opOptions.grouping;
            treeOptions.device = tables.hasDevice;
            treeOptions.memory = tables.hasMemory;
            treeOptions.work = work.get();
            tables.operators = buildOpTree(*ops, treeOptions);
            tables.kernels = buildKernelTree(*kernels, kernelWork.get());
            tables.modules = buildModuleTree(*modules, tables.hasDevice);
            tables.memory = buildOpMemoryTree(*memory);
            if (stop.stopRequested())
                return cancelled;
            return tables;
        },
        this,
        [this, id](Tables tables) {
            if (id != m_traceId)
                return;
            m_shownTrace = id;
            const bool hasKernels = !tables.kernels.roots.empty() || tables.hasDevice;
            const bool hasModules = !tables.modules.roots.empty();
            const bool hasMemory = tables.hasMemory;
            m_operators->setTree(std::move(tables.operators));
            m_kernels->setTree(std::move(tables.kernels));
            m_modules->setTree(std::move(tables.modules));
            m_memory->setTree(std::move(tables.memory));
            for (auto *pane : {m_operators, m_kernels, m_modules, m_memory})
                pane->setFilterText(m_filter->text());
            m_tabs->setTabEnabled(KernelsTab, hasKernels);
            m_tabs->setTabToolTip(KernelsTab, hasKernels ? QString() : tr("This trace has no GPU kernels"));
            m_tabs->setTabEnabled(ModulesTab, hasModules);
            m_tabs->setTabToolTip(ModulesTab, hasModules ? QString()
                                                         : tr("No nn.Module frames in this trace: record with "
                                                              "torch.profiler.profile(with_stack=True, with_modules=True)"));
            m_tabs->setTabEnabled(MemoryTab, hasMemory);
            m_tabs->setTabToolTip(MemoryTab, hasMemory ? QString()
                                                       : tr("No memory events in this trace: record with "
                                                            "torch.profiler.profile(profile_memory=True)"));
            updateRangeBar();
            m_stack->setCurrentIndex(1);
            applyPendingSelection();
            Q_EMIT tablesShown();
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

TablePane *OperatorsPage::currentPane() const
{
    return qobject_cast<TablePane *>(m_tabs->currentWidget());
}

void OperatorsPage::selectName(DocumentId id, const QString &name, bool kernel)
{
    m_pendingSelection = PendingSelection{name, kernel};
    if (id != m_traceId)
        showTrace(id); // applied when its tables are shown
    else if (m_shownTrace == id)
        applyPendingSelection();
}

void OperatorsPage::applyPendingSelection()
{
    if (!m_pendingSelection)
        return;
    const auto [name, kernel] = *m_pendingSelection;
    m_pendingSelection.reset();
    auto *pane = kernel ? m_kernels : m_operators;
    m_tabs->setCurrentWidget(pane);
    if (!pane->selectEventName(name) && !m_filter->text().isEmpty()) {
        m_filter->clear(); // the filter hid it
        pane->selectEventName(name);
    }
}

void OperatorsPage::copySelection()
{
    currentPane()->copySelection();
}

bool OperatorsPage::exportCsv(const QString &path, QString *error) const
{
    const auto *pane = currentPane();
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        file.write(pane->allAsCsv().toUtf8());
        if (file.commit())
            return true;
    }
    if (error)
        *error = tr("%1: %2").arg(path, file.errorString());
    return false;
}

void OperatorsPage::chooseExportFile()
{
    static const QString names[] = {QStringLiteral("operators.csv"), QStringLiteral("kernels.csv"),
                                    QStringLiteral("modules.csv"), QStringLiteral("memory.csv")};
    const QString suggested = names[std::clamp(m_tabs->currentIndex(), 0, int(std::size(names)) - 1)];
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), suggested, tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error))
        QMessageBox::warning(this, tr("Export CSV"), error);
}

} // namespace pyrometer::ui::tables
