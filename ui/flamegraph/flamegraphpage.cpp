#include "ui/flamegraph/flamegraphpage.h"

#include "core/analysis/flamediff.h"
#include "ui/flamegraph/breadcrumbbar.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/flamegraph/flametooltip.h"
#include "ui/flamegraph/sandwichview.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tracechooser.h"
#include "ui/workspace/analyses.h"
#include "ui/workspace/workspace.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QStackedLayout>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QSvgGenerator>
#include <QToolButton>
#include <QVBoxLayout>

#include <cstring>
#include <functional>
#include <sstream>

namespace pyrometer::ui::flamegraph {

namespace {

struct Built {
    std::shared_ptr<const TraceSource> source;
    std::shared_ptr<const TraceSource> compared;
    std::shared_ptr<const analysis::FlameGraph> graph;
    std::shared_ptr<const ChartData> chart;
};

struct BuiltSandwich {
    analysis::Sandwich sandwich;
    std::shared_ptr<const analysis::FlameGraph> callers;
    std::shared_ptr<const analysis::FlameGraph> callees;
};

std::shared_ptr<const TraceSource> sourceOf(const std::shared_ptr<const TraceDocument> &document)
{
    return document ? std::make_shared<const TraceSource>(TraceSource{document->trace, document->index}) : nullptr;
}

QString fileName(const Workspace *workspace, DocumentId id)
{
    const auto document = workspace->trace(id);
    return document ? document->fileName() : QString();
}

bool failed(QString *error, const QString &path, const QString &why)
{
    if (error)
        *error = QObject::tr("%1: %2").arg(path, why);
    return false;
}

// Writes through a temporary file renamed over path on success.
bool saveWith(const QString &path, QString *error, const std::function<bool(QIODevice &)> &write)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failed(error, path, file.errorString());
    if (!write(file)) {
        file.cancelWriting();
        return failed(error, path, file.error() != QFileDevice::NoError ? file.errorString() : QObject::tr("could not be written"));
    }
    if (!file.commit())
        return failed(error, path, file.errorString());
    return true;
}

} // namespace

FlameGraphPage::FlameGraphPage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout(this)),
      m_empty(new EmptyState(tr("Flame graph"),
                             tr("The operators' aggregated call tree, where width is time: with Python frames, a "
                                "time-ordered flame chart, a sandwich view of one function, and a diff of two runs "
                                "coloured by change."),
                             tr("Open a trace: Ctrl+O"), this)),
      m_traceChooser(new TraceChooser(workspace, this)), m_mode(new QComboBox(this)), m_python(new QCheckBox(tr("Python frames"), this)),
      m_perThread(new QCheckBox(tr("Per thread"), this)), m_mergeSteps(new QCheckBox(tr("Merge steps"), this)), m_color(new QComboBox(this)), m_compare(new QComboBox(this)),
      m_breadcrumb(new BreadcrumbBar(this)), m_search(new QLineEdit(this)), m_share(new QLabel(this)),
      m_summary(new QLabel(this)), m_sandwichButton(new QToolButton(this)), m_exportButton(new QToolButton(this)),
      m_views(new QStackedWidget(this)),
      m_graphView(new FlameGraphView(this)), m_chartView(new FlameChartView(this)), m_sandwich(new SandwichView(this))
{
    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Trace:"), this));
    m_traceChooser->setMinimumContentsLength(12); // a narrower box: this page's bar is full
    bar->addWidget(m_traceChooser);
    m_mode->addItem(tr("Call tree"), int(Mode::Icicle));
    m_mode->addItem(tr("Time order"), int(Mode::Chart));
    m_mode->setToolTip(tr("Call tree: stacks merged, width is total time. Time order: each call where it ran."));
    bar->addWidget(m_mode);
    m_python->setToolTip(tr("Include python_function frames (traces recorded with with_stack=True)"));
    bar->addWidget(m_python);
    m_perThread->setChecked(true);
    bar->addWidget(m_perThread);
    m_mergeSteps->setChecked(true);
    m_mergeSteps->setToolTip(tr("One ProfilerStep#* frame for all steps, so their stacks add up"));
    bar->addWidget(m_mergeSteps);
    bar->addSpacing(4);
    bar->addWidget(new QLabel(tr("Colour:"), this));
    m_color->addItem(tr("Category"), int(FlameColorMode::ByCategory));
    m_color->addItem(tr("Name"), int(FlameColorMode::ByName));
    m_color->addItem(tr("Change"), int(FlameColorMode::ByChange));
    bar->addWidget(m_color);
    bar->addSpacing(4);
    bar->addWidget(new QLabel(tr("Compare:"), this));
    m_compare->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_compare->setMinimumContentsLength(10);
    m_compare->setToolTip(tr("Another open trace as the base: frames are coloured by how their time changed from it"));
    bar->addWidget(m_compare);
    bar->addStretch(1);
    layout->addLayout(bar);

    auto *second = new QHBoxLayout;
    second->addWidget(m_breadcrumb, 1);
    m_search->setPlaceholderText(tr("Search frames"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(200);
    second->addWidget(m_search);
    m_share->setMinimumWidth(170);
    second->addWidget(m_share);
    m_sandwichButton->setText(tr("Sandwich"));
    m_sandwichButton->setToolTip(tr("Callers and callees of the zoomed frame's function (or double-click any frame)"));
    second->addWidget(m_sandwichButton);
    second->addWidget(m_exportButton);
    layout->addLayout(second);
    m_summary->setTextFormat(Qt::RichText);
    layout->addWidget(m_summary);

    m_views->addWidget(m_graphView);
    m_views->addWidget(m_chartView);
    m_views->addWidget(m_sandwich);
    layout->addWidget(m_views, 1);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);
    createExportActions();
    updateColorChoices();

    connect(m_traceChooser, &TraceChooser::traceChosen, this, &FlameGraphPage::showTrace);
    connect(workspace, &Workspace::traceClosed, this, &FlameGraphPage::traceClosed);
    connect(m_compare, &QComboBox::currentIndexChanged, this, [this](int item) {
        if (item >= 0)
            compareWith(m_compare->itemData(item).toInt());
    });
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { setMode(Mode(m_mode->currentData().toInt())); });
    connect(m_python, &QCheckBox::toggled, this, &FlameGraphPage::rebuild);
    connect(m_perThread, &QCheckBox::toggled, this, &FlameGraphPage::rebuild);
    connect(m_mergeSteps, &QCheckBox::toggled, this, &FlameGraphPage::rebuild);
    connect(m_color, &QComboBox::currentIndexChanged, this, [this] {
        m_graphView->setColorMode(colorMode());
        m_chartView->setByName(colorMode() == FlameColorMode::ByName);
        m_sandwich->setColorMode(colorMode());
    });
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_graphView->setSearchText(text);
        m_chartView->setSearchText(text);
        updateShare();
    });
    connect(m_graphView, &FlameGraphView::zoomChanged, this, &FlameGraphPage::updateBreadcrumb);
    connect(m_chartView, &FlameChartView::zoomChanged, this, &FlameGraphPage::updateBreadcrumb);
    connect(m_breadcrumb, &BreadcrumbBar::crumbClicked, this, [this](int level) {
        if (m_views->currentWidget() == m_chartView) {
            const auto path = m_chartView->focusPath();
            if (level == 0 || std::size_t(level) > path.size()) {
                m_chartView->showAll();
                return;
            }
            const auto &ref = path[std::size_t(level - 1)];
            const auto &track = m_chartView->chart()->source->trace->track(ref.track);
            m_chartView->showRange(double(track.start[ref.event.value]), double(track.end(ref.event)), ref);
            return;
        }
        if (const auto *graph = m_graphView->graph()) {
            const auto path = analysis::flamePath(graph->tree, m_graphView->zoom());
            if (std::size_t(level) < path.size())
                m_graphView->zoomTo(path[std::size_t(level)]);
        }
    });
    connect(m_graphView, &FlameGraphView::sandwichRequested, this, &FlameGraphPage::showSandwich);
    connect(m_sandwich, &SandwichView::sandwichRequested, this, &FlameGraphPage::showSandwich);
    connect(m_sandwich, &SandwichView::closeRequested, this, &FlameGraphPage::closeSandwich);
    connect(m_sandwichButton, &QToolButton::clicked, this, [this] {
        if (const auto *graph = m_graphView->graph(); graph && m_graphView->zoom() != 0)
            showSandwich(QString::fromStdString(graph->tree.nodes[m_graphView->zoom()].name));
    });
}

void FlameGraphPage::createExportActions()
{
    m_exportFolded = new QAction(tr("Folded stacks…"), this);
    m_exportFolded->setToolTip(tr("The call tree as folded stacks (flamegraph.pl, speedscope), self time in µs"));
    m_exportSvg = new QAction(tr("SVG…"), this);
    m_exportSvg->setToolTip(tr("The view as drawn, as a vector image"));
    m_exportPng = new QAction(tr("PNG…"), this);
    m_exportPng->setToolTip(tr("The view as drawn, as an image of its size"));
    connect(m_exportFolded, &QAction::triggered, this, [this] {
        chooseExport(tr("Export folded stacks"), QStringLiteral(".folded"), tr("Folded stacks (*.folded *.txt)"),
                     &FlameGraphPage::exportFolded);
    });
    connect(m_exportSvg, &QAction::triggered, this,
            [this] { chooseExport(tr("Export SVG"), QStringLiteral(".svg"), tr("SVG image (*.svg)"), &FlameGraphPage::exportSvg); });
    connect(m_exportPng, &QAction::triggered, this,
            [this] { chooseExport(tr("Export PNG"), QStringLiteral(".png"), tr("PNG image (*.png)"), &FlameGraphPage::exportPng); });
    const QList<QAction *> exports{m_exportFolded, m_exportSvg, m_exportPng};
    auto *menu = new QMenu(m_exportButton);
    menu->addActions(exports);
    m_exportButton->setText(tr("Export"));
    m_exportButton->setToolTip(tr("Save the call tree as folded stacks, or the view as SVG or PNG"));
    m_exportButton->setMenu(menu);
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    m_exportButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // The same actions at the end of the views' context menus.
    m_graphView->addActions(exports);
    m_chartView->addActions(exports);
    m_chartView->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_exportButton->setEnabled(false);
    for (auto *action : exports)
        action->setEnabled(false);
}

QString FlameGraphPage::defaultExportName(const QString &extension) const
{
    QString name = m_traceId >= 0 ? fileName(m_workspace, m_traceId) : QStringLiteral("trace");
    for (const auto *suffix : {".gz", ".json"}) {
        if (name.endsWith(QLatin1String(suffix), Qt::CaseInsensitive))
            name.chop(qsizetype(std::strlen(suffix)));
    }
    return name + QStringLiteral("-flame") + extension;
}

bool FlameGraphPage::exportFolded(const QString &path, QString *error) const
{
    const auto *graph = m_graphView->graph();
    if (!graph)
        return failed(error, path, tr("no flame graph is shown"));
    std::ostringstream folded;
    analysis::writeFolded(folded, graph->tree);
    const std::string text = folded.str();
    return saveWith(path, error, [&](QIODevice &file) { return file.write(text.data(), qint64(text.size())) == qint64(text.size()); });
}

bool FlameGraphPage::exportSvg(const QString &path, QString *error) const
{
    QWidget *view = currentView();
    if (!hasContent() || !view)
        return failed(error, path, tr("no flame graph is shown"));
    return saveWith(path, error, [&](QIODevice &file) {
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(view->size());
        generator.setViewBox(view->rect());
        generator.setResolution(96); // its width and height, in mm, are then the view's size in CSS pixels
        generator.setTitle(tr("Flame graph of %1").arg(fileName(m_workspace, m_traceId)));
        QPainter painter;
        if (!painter.begin(&generator))
            return false;
        view->render(&painter);
        return painter.end();
    });
}

bool FlameGraphPage::exportPng(const QString &path, QString *error) const
{
    QWidget *view = currentView();
    if (!hasContent() || !view)
        return failed(error, path, tr("no flame graph is shown"));
    // Rendered at the view's size in pixels, whatever the screen's scale.
    QImage image(view->size(), QImage::Format_RGB32);
    image.fill(view->palette().base().color());
    view->render(&image);
    return saveWith(path, error, [&](QIODevice &file) { return image.save(&file, "PNG"); });
}

void FlameGraphPage::chooseExport(const QString &title, const QString &extension, const QString &filter,
                                  bool (FlameGraphPage::*write)(const QString &, QString *) const)
{
    const auto document = m_workspace->trace(m_traceId);
    const QString folder = document ? QFileInfo(document->path).absolutePath() : QString();
    const QString suggested = folder.isEmpty() ? defaultExportName(extension) : folder + QLatin1Char('/') + defaultExportName(extension);
    const QString path = QFileDialog::getSaveFileName(this, title, suggested, filter);
    if (path.isEmpty())
        return;
    QString error;
    if (!(this->*write)(path, &error))
        QMessageBox::warning(this, title, error);
}

bool FlameGraphPage::hasContent() const
{
    return m_stack->currentIndex() == 1;
}

QWidget *FlameGraphPage::currentView() const
{
    return m_views->currentWidget();
}

FlameColorMode FlameGraphPage::colorMode() const
{
    return FlameColorMode(m_color->currentData().toInt());
}

analysis::FlameOptions FlameGraphPage::options() const
{
    analysis::FlameOptions options;
    options.events = m_python->isChecked() ? analysis::FlameEvents::OpsPython : analysis::FlameEvents::Ops;
    options.threadRoots = m_perThread->isChecked() && m_compareId < 0;
    return options;
}

void FlameGraphPage::showTrace(DocumentId id)
{
    if (id == m_traceId)
        return;
    m_traceId = m_workspace->trace(id) ? id : kNoDocument;
    m_compareId = kNoDocument;
    fillCompareChoices();
    if (m_traceId == kNoDocument) { // the last trace was closed
        m_graphView->setGraph(nullptr);
        m_chartView->setChart(nullptr);
        m_stack->setCurrentIndex(0);
        updateBreadcrumb();
        updateSummary();
        return;
    }
    m_traceChooser->select(id);
    updateColorChoices();
    rebuild();
}

void FlameGraphPage::fillCompareChoices()
{
    // The other open traces, to compare with.
    const QSignalBlocker blocker(m_compare);
    m_compare->clear();
    m_compare->addItem(tr("nothing"), kNoDocument);
    for (const auto &[id, document] : m_workspace->traces()) {
        if (id != m_traceId)
            m_compare->addItem(document->fileName(), id);
    }
    m_compare->setCurrentIndex(std::max(0, m_compare->findData(m_compareId)));
}

void FlameGraphPage::traceClosed(DocumentId id)
{
    if (id == m_traceId) {
        showTrace(m_workspace->newestTrace());
        return;
    }
    const bool compared = id == m_compareId;
    if (compared)
        m_compareId = kNoDocument;
    fillCompareChoices();
    if (compared) {
        updateColorChoices();
        rebuild();
    }
}

void FlameGraphPage::compareWith(DocumentId id)
{
    if (id == m_traceId)
        id = kNoDocument;
    {
        const QSignalBlocker blocker(m_compare);
        m_compare->setCurrentIndex(std::max(0, m_compare->findData(id)));
    }
    if (id == m_compareId)
        return;
    m_compareId = id;
    updateColorChoices();
    rebuild();
}

void FlameGraphPage::setMode(Mode mode)
{
    {
        const QSignalBlocker blocker(m_mode);
        m_mode->setCurrentIndex(m_mode->findData(int(mode)));
    }
    const bool chart = mode == Mode::Chart;
    updateEnabled();
    if (chart && !m_chartView->chart())
        rebuild();
    else if (!chart && hasContent())
        m_views->setCurrentWidget(m_graphView);
    else if (chart && hasContent())
        m_views->setCurrentWidget(m_chartView);
    updateBreadcrumb();
    updateSummary();
}

void FlameGraphPage::updateColorChoices()
{
    // "Change" needs a comparison; comparing starts with it.
    const bool diff = m_compareId >= 0;
    updateEnabled();
    auto *model = qobject_cast<QStandardItemModel *>(m_color->model());
    if (model)
        model->item(2)->setEnabled(diff);
    if (diff)
        m_color->setCurrentIndex(2);
    else if (colorMode() == FlameColorMode::ByChange)
        m_color->setCurrentIndex(0);
}

void FlameGraphPage::updateEnabled()
{
    // The chart is per thread, of one run, with each step where it ran; a diff matches stacks
    // without thread frames, since thread names differ between runs.
    const bool chart = Mode(m_mode->currentData().toInt()) == Mode::Chart;
    const bool diff = m_compareId >= 0;
    m_perThread->setEnabled(!chart && !diff);
    m_mergeSteps->setEnabled(!chart);
    m_perThread->setToolTip(diff ? tr("A comparison merges the threads: their names differ between runs")
                                 : tr("A first level per thread; off merges the threads' stacks"));
    m_compare->setEnabled(!chart);
}

void FlameGraphPage::rebuild()
{
    const auto document = m_workspace->trace(m_traceId);
    if (!document)
        return;
    const auto base = m_workspace->trace(m_compareId);
    const DocumentId traceId = m_traceId;
    const DocumentId compareId = m_compareId;
    const bool chart = Mode(m_mode->currentData().toInt()) == Mode::Chart;
    // Captures copies only: the documents and the options.
    const auto jobId = m_jobs->run<Built>(
        tr("Building the flame graph"), QStringLiteral("flamegraph"),
        [document, base, options = options(), mergeSteps = m_mergeSteps->isChecked(),
         chart](ProgressReporter &progress, const StopToken &stop) -> Result<Built> {
            const Error cancelled{"flame graph cancelled"};
            Built built;
            built.source = sourceOf(document);
            built.compared = sourceOf(base);
            progress.reportPermille(300);
            const auto treeOf = [&](const TraceDocument &of) -> std::optional<analysis::FlameTree> {
                const auto tree = analyses::flameTree(of, options, stop);
                if (!tree)
                    return std::nullopt;
                return mergeSteps ? analysis::mergeProfilerSteps(*tree) : *tree;
            };
            auto tree = treeOf(*document);
            const auto baseTree = base ? treeOf(*base) : std::nullopt;
            if (!tree || (base && !baseTree))
                return cancelled;
            if (baseTree) {
                built.graph = std::make_shared<const analysis::FlameGraph>(
                    analysis::prepareDiffGraph(analysis::diffFlameTrees(*baseTree, *tree)));
            } else {
                built.graph = std::make_shared<const analysis::FlameGraph>(analysis::prepareFlameGraph(std::move(*tree)));
            }
            progress.reportPermille(700);
            if (chart)
                built.chart = std::make_shared<const ChartData>(
                    ChartData{built.source, analysis::buildFlameChart(*built.source->index, options.events, &stop)});
            if (stop.stopRequested())
                return cancelled;
            return built;
        },
        this,
        [this, traceId, compareId](Built built) {
            if (traceId != m_traceId || compareId != m_compareId)
                return;
            m_graphView->setColorMode(colorMode());
            m_graphView->setGraph(built.graph);
            m_chartView->setChart(built.chart);
            m_chartView->setSearchText(m_search->text());
            m_stack->setCurrentIndex(1);
            m_views->setCurrentWidget(built.chart ? static_cast<QWidget *>(m_chartView) : m_graphView);
            updateBreadcrumb();
            updateShare();
            updateSummary();
            Q_EMIT graphShown();
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

void FlameGraphPage::updateBreadcrumb()
{
    QStringList crumbs;
    if (m_views->currentWidget() == m_chartView) {
        crumbs << tr("all");
        if (const auto *shown = m_chartView->chart()) {
            const auto &trace = *shown->source->trace;
            for (const auto &ref : m_chartView->focusPath())
                crumbs << QString::fromUtf8(trace.string(trace.track(ref.track).eventName[ref.event.value]));
        }
    } else if (const auto *graph = m_graphView->graph()) {
        for (const auto node : analysis::flamePath(graph->tree, m_graphView->zoom()))
            crumbs << QString::fromUtf8(graph->label(node).data(), qsizetype(graph->label(node).size()));
    }
    m_breadcrumb->setCrumbs(crumbs);
    m_sandwichButton->setEnabled(m_views->currentWidget() == m_graphView && m_graphView->zoom() != 0);
    const bool exportable = m_graphView->graph() != nullptr;
    m_exportButton->setEnabled(exportable);
    for (auto *action : {m_exportFolded, m_exportSvg, m_exportPng})
        action->setEnabled(exportable);
}

void FlameGraphPage::updateShare()
{
    if (m_search->text().isEmpty() || !m_graphView->graph()) {
        m_share->clear();
        return;
    }
    const auto &search = m_graphView->search();
    const QString frames = search.frames == 1 ? tr("1 frame") : tr("%1 frames").arg(search.frames);
    m_share->setText(tr("%1, %2 of total").arg(frames, percent(search.share)));
    m_share->setToolTip(tr("%1 of %2: matches nested in other matches count once")
                            .arg(duration(search.matchedNs), duration(m_graphView->graph()->tree.nodes[0].totalNs)));
}

void FlameGraphPage::updateSummary()
{
    const auto *graph = m_graphView->graph();
    if (!graph || m_traceId < 0) {
        m_summary->clear();
        return;
    }
    const QString name = fileName(m_workspace, m_traceId).toHtmlEscaped();
    const QString what = m_python->isChecked() ? tr("operator and Python time") : tr("operator time");
    if (m_views->currentWidget() == m_chartView && m_chartView->chart()) {
        const auto &chart = m_chartView->chart()->chart;
        m_summary->setText(tr("<b>%1</b>: %2 of %3 on %4 thread(s), in time order. Wheel zooms, drag pans, "
                              "click a slice to fit it.")
                               .arg(name, duration(chart.totalNs), what)
                               .arg(chart.threads.size()));
        return;
    }
    const auto total = graph->tree.nodes[0].totalNs;
    if (!graph->isDiff()) {
        m_summary->setText(tr("<b>%1</b>: %2 of %3. Click a frame to zoom, double-click for its sandwich view.")
                               .arg(name, duration(total), what));
        return;
    }
    const auto baseTotal = graph->base[0].totalNs;
    const QString change = baseTotal > 0 ? percent(double(total - baseTotal) / double(baseTotal)) : QStringLiteral("–");
    m_summary->setText(tr("<b>%1</b> (%2, widths) against <b>%3</b> (%4): %5%6. "
                          "<span style='color:#d62728'>■</span> slower, <span style='color:#1f6fd6'>■</span> faster, "
                          "deeper for a larger change; grey: unchanged or in one run only.")
                           .arg(name, duration(total), fileName(m_workspace, m_compareId).toHtmlEscaped(),
                                duration(baseTotal), total >= baseTotal ? QStringLiteral("+") : QString(), change));
}

void FlameGraphPage::showSandwich(const QString &function)
{
    const auto graph = m_graphView->sharedGraph();
    if (!graph || function.isEmpty())
        return;
    m_jobs->run<BuiltSandwich>(
        tr("Building the sandwich view"), QStringLiteral("flamegraph-sandwich"),
        [graph, function = function.toStdString()](ProgressReporter &, const StopToken &) -> Result<BuiltSandwich> {
            BuiltSandwich built;
            built.sandwich = analysis::buildSandwich(graph->tree, function);
            built.callers = std::make_shared<const analysis::FlameGraph>(analysis::prepareFlameGraph(built.sandwich.callers));
            built.callees = std::make_shared<const analysis::FlameGraph>(analysis::prepareFlameGraph(built.sandwich.callees));
            return built;
        },
        this,
        [this, function](BuiltSandwich built) {
            m_sandwich->setColorMode(colorMode());
            m_sandwich->setSandwich(function, built.sandwich.stacks, built.callers, built.callees);
            m_views->setCurrentWidget(m_sandwich);
            m_sandwichButton->setEnabled(false);
            Q_EMIT sandwichShown();
        });
}

void FlameGraphPage::closeSandwich()
{
    setMode(Mode(m_mode->currentData().toInt()));
}

} // namespace pyrometer::ui::flamegraph
