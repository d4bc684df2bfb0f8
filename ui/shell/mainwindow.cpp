#include "ui/shell/mainwindow.h"

#include "core/engine/engine.h"
#include "core/snapshot/reader.h"
#include "core/summary/summaryfile.h"
#include "core/trace/tracesource.h"
#include "core/util/version.h"
#include "resources/bundleddemo.h"
#include "ui/compare/comparepage.h"
#include "ui/distributed/distributedpage.h"
#include "ui/distributed/jobreportexport.h"
#include "ui/flamegraph/flamegraphpage.h"
#include "ui/gpu/gpupage.h"
#include "ui/jobs/jobstatuswidget.h"
#include "ui/jobs/jobtracker.h"
#include "ui/memory/memorypage.h"
#include "ui/model/modelpage.h"
#include "ui/model/profileresultsview.h"
#include "ui/overview/overviewpage.h"
#include "ui/report/pagesections.h"
#include "ui/report/reportexporter.h"
#include "ui/roofline/rooflinepage.h"
#include "ui/session/bookmarklist.h"
#include "ui/session/bookmarkmenu.h"
#include "ui/session/controlstate.h"
#include "ui/session/sessioncontroller.h"
#include "ui/shell/helpmenu.h"
#include "ui/shell/messagebanner.h"
#include "ui/shell/preferences.h"
#include "ui/shell/preferencesdialog.h"
#include "ui/shell/recentfiles.h"
#include "ui/shell/runchooserdialog.h"
#include "ui/snapshot/snapshotpage.h"
#include "ui/tables/operatorspage.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/workspace.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDate>
#include <QDragEnterEvent>
#include <QDir>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QMimeData>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cstring>

namespace pyrometer::ui {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kPageKey = QStringLiteral("mainWindow/page");

const QString kTraceFilter =
    QObject::tr("Chrome traces and allocator snapshots (*.json *.json.gz *.pickle *.pickle.gz);;All files (*)");
const QString kSessionFilter = QObject::tr("Pyrometer sessions (*.pyrometer);;All files (*)");
const QString kReportFilter = QObject::tr("HTML report (*.html);;Markdown report (*.md)");
const QString kModelFilter = QObject::tr("Models (*.pt *.pth *.ptl *.torchscript *.zip *.pt2 *.py);;TorchScript models (*.pt *.pth *.ptl "
                                         "*.torchscript *.zip);;torch.export programs (*.pt2);;Python files with a build() "
                                         "function (*.py);;All files (*)");

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_jobs(new JobTracker(this)), m_workspace(new Workspace(m_jobs, this)),
      m_banner(new MessageBanner(this)), m_jobStatus(new JobStatusWidget(m_jobs, this)),
      m_sidebar(new QListWidget(this)), m_stack(new QStackedWidget(this))
{
    setWindowTitle(QStringLiteral("Pyrometer"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/pyrometer.svg")));
    setAcceptDrops(true);

    auto *central = new QWidget(this);
    auto *outer = new QVBoxLayout(central);
    outer->setContentsMargins(6, 6, 6, 0);
    outer->addWidget(m_banner);
    auto *row = new QHBoxLayout;
    row->addWidget(m_sidebar);
    row->addWidget(m_stack, 1);
    outer->addLayout(row, 1);
    setCentralWidget(central);

    m_sidebar->setFixedWidth(150);
    m_sidebar->setFrameShape(QFrame::NoFrame);
    m_sidebar->setSpacing(2);
    QFont sidebarFont = m_sidebar->font();
    sidebarFont.setPointSizeF(sidebarFont.pointSizeF() * 1.1);
    m_sidebar->setFont(sidebarFont);
    createPages();
    connect(m_sidebar, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    connect(m_sidebar, &QListWidget::itemClicked, this, &MainWindow::focusPage);

    statusBar()->addPermanentWidget(m_jobStatus);
    connect(m_jobs, &JobTracker::finished, this,
            [this](JobTracker::JobId, const QString &title, JobOutcome outcome, const QString &message) {
                if (outcome == JobOutcome::Failed)
                    showError(message);
                else if (outcome == JobOutcome::Cancelled)
                    statusBar()->showMessage(tr("%1: cancelled").arg(title), 5000);
            });
    connect(m_workspace, &Workspace::openFailed, this, &MainWindow::showError);
    // A truncated or damaged trace: offer what the CLI's --partial does.
    connect(m_workspace, &Workspace::traceLoadFailed, this, [this](const QString &path, const QString &message, bool partial) {
        // Only a file that went wrong part way has a valid part to load, and only once.
        static const QRegularExpression partWay(QStringLiteral("truncated|corrupt|at byte [1-9]"));
        if (partial || !partWay.match(message).hasMatch())
            return;
        m_banner->addAction(tr("Load the valid part of %1").arg(QFileInfo(path).fileName()),
                            [this, path] { m_workspace->openTrace(path, /*partial=*/true); });
    });
    connect(m_workspace, &Workspace::fileOpened, this, &MainWindow::rememberOpened);
    connect(m_workspace, &Workspace::logDirectoryFound, this, &MainWindow::chooseFromLogDirectory);
    // A folder of one job's rank traces opens as the job; File → Open trace folder as traces
    // opens its ranks one by one.
    connect(m_workspace, &Workspace::jobFolderFound, this, [this](const QString &path) {
        openJob({path});
        statusBar()->showMessage(
            tr("%1 holds the ranks of one job: opened as a job (File → Open trace folder as traces opens each)")
                .arg(QFileInfo(path).fileName()),
            8000);
    });
    connect(m_workspace, &Workspace::traceOpened, this, [this] { statusBar()->showMessage(tr("Trace loaded"), 3000); });
    connect(m_workspace, &Workspace::traceOpenedAgain, this, [this](DocumentId id) {
        statusBar()->showMessage(tr("%1 is open already: showing it").arg(m_workspace->trace(id)->fileName()), 5000);
    });
    connect(m_workspace, &Workspace::modelOpened, this, [this] { statusBar()->showMessage(tr("Model loaded"), 3000); });
    // Land on the page that shows what was opened: a trace is not shown by the Model page; a
    // model is by the Model and Compare pages.
    const auto landOnTrace = [this] {
        if (m_landing != Landing::Trace)
            return;
        m_landing = Landing::None;
        if (currentPage() == Page::Model)
            showPage(Page::Overview);
    };
    connect(m_workspace, &Workspace::traceOpened, this, landOnTrace);
    connect(m_workspace, &Workspace::traceOpenedAgain, this, landOnTrace);
    const auto landOnModel = [this] {
        if (m_landing != Landing::Model)
            return;
        m_landing = Landing::None;
        if (currentPage() != Page::Model && currentPage() != Page::Compare)
            showPage(Page::Model);
    };
    connect(m_workspace, &Workspace::modelOpened, this, landOnModel);
    connect(m_workspace, &Workspace::modelOpenedAgain, this, landOnModel);
    connect(m_workspace, &Workspace::jobOpened, this, [this] {
        statusBar()->showMessage(tr("Job summarised"), 3000);
        if (m_landing == Landing::Job) {
            m_landing = Landing::None;
            showPage(Page::Distributed);
        }
    });

    createSession();
    createMenus();
    applyPreferences(Preferences::load(QSettings()));
    restoreWindowState();
}

MainWindow::~MainWindow() = default;

void MainWindow::setInteractive(bool interactive)
{
    m_interactive = interactive;
    m_bookmarkMenu->setInteractive(interactive);
}

void MainWindow::createSession()
{
    auto *timelinePage = qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline));
    auto *modelPage = qobject_cast<ModelPage *>(m_pages.at(Page::Model));
    m_bookmarks = new BookmarkList(this);
    m_bookmarkMenu = new BookmarkMenu(m_bookmarks, m_workspace, timelinePage, this);
    connect(m_bookmarkMenu, &BookmarkMenu::timelineRequested, this, [this] { showPage(Page::Timeline); });

    SessionController::Parts parts;
    parts.workspace = m_workspace;
    parts.jobs = m_jobs;
    parts.bookmarks = m_bookmarks;
    parts.timeline = timelinePage;
    parts.model = modelPage;
    parts.currentPage = [this] { return pageName(currentPage()); };
    parts.showPage = [this](const QString &name) {
        if (const auto page = pageFromName(name))
            showPage(*page);
    };
    m_session = new SessionController(std::move(parts), this);
    auto *comparePage = qobject_cast<ComparePage *>(m_pages.at(Page::Compare));
    m_session->setComparisonState([comparePage] { return comparePage->saveState(); },
                                  [comparePage](const nlohmann::json &state) { comparePage->restoreState(state); });
    m_session->addPageState(QStringLiteral("model"), [modelPage] { return modelPage->saveState(); },
                            [modelPage](const nlohmann::json &state) { modelPage->restoreState(state); });
    auto *operators = qobject_cast<tables::OperatorsPage *>(m_pages.at(Page::Operators));
    const NamedControls operatorControls{{"grouping", operators->groupingChooser()}, {"filter", operators->filterBox()}};
    m_session->addPageState(QStringLiteral("operators"), [operatorControls] { return saveControls(operatorControls); },
                            [operatorControls](const nlohmann::json &state) { restoreControls(operatorControls, state); });
    auto *flame = qobject_cast<flamegraph::FlameGraphPage *>(m_pages.at(Page::FlameGraph));
    const NamedControls flameControls{{"mode", flame->modeChooser()},          {"python", flame->pythonToggle()},
                                      {"per_thread", flame->perThreadToggle()}, {"merge_steps", flame->mergeStepsToggle()},
                                      {"color", flame->colorChooser()},         {"search", flame->searchBox()}};
    m_session->addPageState(QStringLiteral("flamegraph"), [flameControls] { return saveControls(flameControls); },
                            [flameControls](const nlohmann::json &state) { restoreControls(flameControls, state); });
    auto *snapshots = qobject_cast<SnapshotPage *>(m_pages.at(Page::Snapshots));
    m_session->addPageState(
        QStringLiteral("snapshots"), [snapshots] { return snapshots->saveState(); },
        [snapshots](const nlohmann::json &state) { snapshots->restoreState(state); });
    connect(m_session, &SessionController::failed, this, &MainWindow::showError);
    connect(m_session, &SessionController::filesMissing, this, [this](const QStringList &files) {
        showError(tr("Not found, so not opened: %1. The rest of the session is open.").arg(files.join(QStringLiteral(", "))));
    });
    connect(m_session, &SessionController::saved, this,
            [this](const QString &path) { statusBar()->showMessage(tr("Session saved to %1").arg(path), 5000); });

    m_reports = new ReportExporter(m_workspace, m_jobs, this);
    m_reports->setModelRun([modelPage] { return modelPage->results()->sharedRun(); });
    m_reports->addContributor(QStringLiteral("sweep"), [modelPage] { return sweepSections(*modelPage->sweepView()); });
    m_reports->addContributor(QStringLiteral("compare"), [page = qobject_cast<ComparePage *>(m_pages.at(Page::Compare))] {
        return compareSections(*page);
    });
    m_reports->addContributor(
        QStringLiteral("snapshots"),
        [page = qobject_cast<SnapshotPage *>(m_pages.at(Page::Snapshots))] { return page->reportSections(); });
    connect(m_reports, &ReportExporter::failed, this, &MainWindow::showError);
    connect(m_reports, &ReportExporter::exported, this,
            [this](const QString &path) { statusBar()->showMessage(tr("Report written to %1").arg(path), 8000); });
}

void MainWindow::enableCrashRecovery()
{
    const QString directory = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/sessions");
    const QString recovered = m_session->startAutosave(directory);
    if (recovered.isEmpty())
        return;
    m_banner->showError(tr("Pyrometer did not exit cleanly last time. Its session was saved and can be restored."));
    m_recoveryOffered = true;
    m_banner->addAction(tr("Restore"), [this, recovered] {
        m_recoveryOffered = false;
        if (m_session->open(recovered))
            m_banner->dismiss();
    });
}

void MainWindow::saveSessionAs()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Save session"), QString(), kSessionFilter);
    refocusAfterDialog();
    if (file.isEmpty())
        return;
    m_session->save(file.endsWith(QStringLiteral(".pyrometer")) ? file : file + QStringLiteral(".pyrometer"));
}

void MainWindow::chooseSession()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Open session"), QString(), kSessionFilter);
    refocusAfterDialog();
    if (!file.isEmpty())
        openSession(file);
}

void MainWindow::openSession(const QString &path)
{
    auto mode = SessionController::OpenMode::Add;
    if (m_interactive && (!m_workspace->traces().empty() || !m_workspace->models().empty())) {
        QMessageBox box(QMessageBox::Question, tr("Open session"),
                        tr("Replace what is open with the session %1, or add the session's files to it?")
                            .arg(QFileInfo(path).fileName()),
                        QMessageBox::Cancel, this);
        auto *replace = box.addButton(tr("&Replace"), QMessageBox::AcceptRole);
        auto *add = box.addButton(tr("&Add"), QMessageBox::AcceptRole);
        box.setDefaultButton(replace);
        box.exec();
        refocusAfterDialog();
        if (box.clickedButton() == replace)
            mode = SessionController::OpenMode::Replace;
        else if (box.clickedButton() != add)
            return;
    }
    m_session->open(path, mode);
}

MainWindow::CloseTarget MainWindow::closeTarget() const
{
    // The document the page shown is about; the Compare page shows two, so it closes none.
    CloseTarget target;
    switch (currentPage()) {
    case Page::Overview:
        target.trace = qobject_cast<OverviewPage *>(m_pages.at(Page::Overview))->currentTrace();
        break;
    case Page::Timeline:
        target.trace = qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline))->currentTrace();
        break;
    case Page::FlameGraph:
        target.trace = qobject_cast<flamegraph::FlameGraphPage *>(m_pages.at(Page::FlameGraph))->currentTrace();
        break;
    case Page::Operators:
        target.trace = qobject_cast<tables::OperatorsPage *>(m_pages.at(Page::Operators))->currentTrace();
        break;
    case Page::Memory:
        target.trace = qobject_cast<MemoryPage *>(m_pages.at(Page::Memory))->currentTrace();
        break;
    case Page::Model:
        target.model = qobject_cast<ModelPage *>(m_pages.at(Page::Model))->currentModel();
        break;
    case Page::Compare:
    case Page::Snapshots: // closed by closeCurrent itself
        break;
    case Page::Distributed:
        target.job = qobject_cast<distributed::DistributedPage *>(m_pages.at(Page::Distributed))->currentJob();
        break;
    case Page::Gpu:
        target.trace = qobject_cast<gpu::GpuPage *>(m_pages.at(Page::Gpu))->currentTrace();
        break;
    case Page::Roofline:
        target.trace = qobject_cast<roofline::RooflinePage *>(m_pages.at(Page::Roofline))->currentTrace();
        break;
    }
    // The Overview of a model alone: the model.
    if (currentPage() == Page::Overview && target.trace == kNoDocument && m_workspace->traces().empty())
        target.model = m_workspace->newestModel();
    if (!m_workspace->trace(target.trace))
        target.trace = kNoDocument;
    if (!m_workspace->model(target.model))
        target.model = kNoDocument;
    if (!m_workspace->jobDocument(target.job))
        target.job = kNoDocument;
    return target;
}

void MainWindow::closeCurrent()
{
    if (currentPage() == Page::Snapshots)
        return qobject_cast<SnapshotPage *>(m_pages.at(Page::Snapshots))->closeCurrent();
    const auto target = closeTarget();
    if (target.job != kNoDocument)
        m_workspace->closeJob(target.job);
    else if (target.trace != kNoDocument)
        m_workspace->closeTrace(target.trace);
    else if (target.model != kNoDocument)
        m_workspace->closeModel(target.model);
    else
        statusBar()->showMessage(tr("Nothing to close on this page"), 3000);
}

void MainWindow::refocusAfterDialog()
{
    // Without a window manager (Xvfb, some kiosks) nothing gives the window its focus back when
    // a dialog closes, and the page shortcuts (Ctrl+1…9, 0) stop working until a click.
    activateWindow();
    raise();
    if (auto *page = m_stack->currentWidget())
        page->setFocus();
}

QString MainWindow::defaultReportPath(const QDate &date) const
{
    QString source;
    // A job shown: named after its folder, and written beside it.
    if (const auto job = m_workspace->jobDocument(closeTarget().job); job && !job->files.isEmpty())
        source = QFileInfo(job->files.front()).absolutePath();
    else if (!m_workspace->traces().empty())
        source = m_workspace->traces().begin()->second->path;
    else if (!m_workspace->models().empty())
        source = m_workspace->models().begin()->second->path;
    const QFileInfo info(source);
    QString name = info.fileName();
    for (const auto *suffix : {".gz", ".json", ".pt.trace", ".pt", ".pth", ".torchscript"}) {
        if (name.endsWith(QLatin1String(suffix)) && name.size() > int(std::strlen(suffix)))
            name.chop(int(std::strlen(suffix)));
    }
    if (source.isEmpty())
        name = QStringLiteral("pyrometer");
    const QString folder = !source.isEmpty() && QFileInfo(info.absolutePath()).isWritable() ? info.absolutePath() : QDir::homePath();
    return QDir(folder).filePath(QStringLiteral("%1-report-%2.html").arg(name, date.toString(Qt::ISODate)));
}

void MainWindow::exportReport()
{
    QString selected;
    QString file =
        QFileDialog::getSaveFileName(this, tr("Export report"), defaultReportPath(QDate::currentDate()), kReportFilter, &selected);
    refocusAfterDialog();
    if (file.isEmpty())
        return;
    if (!file.endsWith(QStringLiteral(".html")) && !file.endsWith(QStringLiteral(".md")))
        file += selected.contains(QStringLiteral("*.md")) ? QStringLiteral(".md") : QStringLiteral(".html");
    exportReportTo(file);
}

quint64 MainWindow::exportReportTo(const QString &file)
{
    report::ReportOptions options;
    options.timeUnit = displayTimeUnit();
    // The Distributed page reports its job; every other page the open traces and model.
    if (const auto job = m_workspace->jobDocument(closeTarget().job)) {
        return distributed::exportJobReport(
            m_jobs, job, file, options, this,
            [this](const QString &path) { statusBar()->showMessage(tr("Report written to %1").arg(path), 8000); },
            [this](const QString &message) { showError(message); });
    }
    return m_reports->exportTo(file, options);
}

void MainWindow::showPreferences()
{
    PreferencesDialog dialog(Preferences::load(QSettings()), this);
    const bool accepted = dialog.exec() == QDialog::Accepted;
    refocusAfterDialog();
    if (!accepted)
        return;
    const Preferences preferences = dialog.preferences();
    QSettings settings;
    preferences.save(settings);
    applyPreferences(preferences);
}

void MainWindow::applyPreferences(const Preferences &preferences)
{
    applyTheme(preferences.theme);
    setDisplayTimeUnit(preferences.timeUnit);
    qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline))->setColorMode(preferences.colorMode);
    m_wheelZooms->setChecked(preferences.wheelZooms); // the View menu's item applies it
    qobject_cast<ModelPage *>(m_pages.at(Page::Model))->setRunDefaults(preferences.warmup, preferences.iterations);
    qobject_cast<ModelPage *>(m_pages.at(Page::Model))->setFallbackRoof(fallbackRoof(preferences));
    qobject_cast<roofline::RooflinePage *>(m_pages.at(Page::Roofline))->setFallbackDevice(fallbackRoof(preferences));
    qobject_cast<tables::OperatorsPage *>(m_pages.at(Page::Operators))->setFallbackDevice(fallbackRoof(preferences));
    // Durations already on screen are formatted again in the new unit.
    qobject_cast<OverviewPage *>(m_pages.at(Page::Overview))->reformat();
    for (auto *widget : findChildren<QWidget *>())
        widget->update();
}

void MainWindow::createMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *openTrace = file->addAction(tr("Open &trace…"), this, &MainWindow::chooseTrace);
    openTrace->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open trace &folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a TensorBoard log directory"));
        refocusAfterDialog();
        if (!dir.isEmpty())
            openPaths({dir});
    });
    file->addAction(tr("Open trace folder as tr&aces…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open each trace of a folder"), currentFolder());
        refocusAfterDialog();
        if (dir.isEmpty())
            return;
        if (!m_recoveryOffered)
            m_banner->dismiss();
        m_landing = Landing::Trace;
        m_workspace->open(dir, /*folderAsTraces=*/true);
    })->setToolTip(tr("The ranks of a job, each as a trace of its own"));
    file->addAction(tr("Open &job…"), this, [this] { chooseJob(/*folder=*/true); })
        ->setToolTip(tr("A folder of rank traces of one distributed job"));
    file->addAction(tr("Open job from f&iles…"), this, [this] { chooseJob(/*folder=*/false); })
        ->setToolTip(tr("The rank traces of one distributed job"));
    auto *openModel = file->addAction(tr("Open &model…"), this, &MainWindow::chooseModel);
    openModel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Open &demo"), this, &MainWindow::openDemo);
    auto *recordProgram = file->addAction(tr("&Record program…"), this, &MainWindow::showRecordDialog);
    recordProgram->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    file->addSeparator();
    m_closeAction = file->addAction(tr("&Close"), this, &MainWindow::closeCurrent);
    m_closeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W)); // ::Close: Ctrl+F4 in some themes
    m_closeAction->setShortcutContext(Qt::WindowShortcut);
    auto *closeAll = file->addAction(tr("Close a&ll"), m_workspace, &Workspace::closeAll);
    closeAll->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    // Says what Close closes, as the page shown changes and documents come and go.
    const auto updateClose = [this, closeAll] {
        const auto target = closeTarget();
        const QString name = target.job != kNoDocument     ? m_workspace->jobDocument(target.job)->title()
                             : target.trace != kNoDocument ? m_workspace->trace(target.trace)->fileName()
                             : target.model != kNoDocument ? m_workspace->model(target.model)->fileName()
                                                           : QString();
        m_closeAction->setText(name.isEmpty() ? tr("&Close") : tr("&Close %1").arg(name));
        m_closeAction->setEnabled(!name.isEmpty());
        closeAll->setEnabled(!m_workspace->traces().empty() || !m_workspace->models().empty() ||
                             !m_workspace->jobDocuments().empty());
    };
    connect(file, &QMenu::aboutToShow, this, updateClose);
    connect(m_stack, &QStackedWidget::currentChanged, this, updateClose);
    for (const auto signal : {&Workspace::traceOpened, &Workspace::traceClosed, &Workspace::modelOpened,
                              &Workspace::modelClosed, &Workspace::traceSelected, &Workspace::jobOpened, &Workspace::jobClosed})
        connect(m_workspace, signal, this, updateClose);
    updateClose();
    file->addSeparator();
    file->addAction(tr("Open &session…"), this, &MainWindow::chooseSession);
    auto *saveSession = file->addAction(tr("&Save session…"), this, &MainWindow::saveSessionAs);
    saveSession->setShortcut(QKeySequence::Save);
    auto *exportReportAction = file->addAction(tr("&Export report…"), this, &MainWindow::exportReport);
    exportReportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    rebuildRecentMenu();

    auto *edit = menuBar()->addMenu(tr("&Edit"));
    auto *preferences = edit->addAction(tr("&Preferences…"), this, &MainWindow::showPreferences);
    preferences->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    preferences->setMenuRole(QAction::PreferencesRole);

    auto *view = menuBar()->addMenu(tr("&View"));
    int number = 1;
    for (const auto page : kAllPages) {
        auto *action = view->addAction(pageTitle(page), this, [this, page] { showPage(page); });
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + number++ % 10))); // the tenth: Ctrl+0
    }
    view->addSeparator();
    // Perfetto zooms with the plain wheel, many editors with Ctrl+wheel: the user picks.
    // The same setting as in Preferences: either place changes both.
    m_wheelZooms = view->addAction(tr("Mouse wheel &zooms the timeline"));
    m_wheelZooms->setCheckable(true);
    m_wheelZooms->setToolTip(tr("When off, the wheel scrolls and Ctrl+wheel zooms"));
    m_wheelZooms->setChecked(QSettings().value(kWheelZoomsKey, true).toBool());
    const auto applyWheel = [this](bool zooms) {
        qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline))->view()->setWheelZooms(zooms);
    };
    applyWheel(m_wheelZooms->isChecked());
    connect(m_wheelZooms, &QAction::toggled, this, [applyWheel](bool zooms) {
        QSettings().setValue(kWheelZoomsKey, zooms);
        applyWheel(zooms);
    });

    menuBar()->addMenu(m_bookmarkMenu);

    addHelpMenu(this, {[this] { return currentPage(); }, [this](Page page) { showPage(page); }, &MainWindow::aboutText});
}

QString MainWindow::aboutText()
{
    return tr("<h3>Pyrometer %1</h3>"
              "<p>A workbench for profiling deep-learning models: open torch.profiler traces of any size, "
              "profile models (TorchScript, torch.export, nn.Module factories) layer by layer, and compare runs.</p>"
              "<p>Qt %2 (built with %3)<br>libtorch %4</p>")
        .arg(QLatin1String(kVersion), QLatin1String(qVersion()), QLatin1String(QT_VERSION_STR),
             QString::fromStdString(engine::embeddedTorchVersion()));
}

void MainWindow::showPage(Page page)
{
    m_sidebar->setCurrentRow(int(page));
    focusPage();
}

void MainWindow::focusPage()
{
    // A page with a focus proxy (the Timeline's view) takes the keys when it is shown by a
    // shortcut, a link or a click; arrowing through the sidebar leaves them there.
    if (auto *page = m_stack->currentWidget(); page && page->focusProxy())
        page->setFocus(Qt::OtherFocusReason);
}

Page MainWindow::currentPage() const
{
    return kAllPages.at(std::size_t(std::max(0, m_stack->currentIndex())));
}

QWidget *MainWindow::pageWidget(Page page) const
{
    return m_pages.at(page);
}

void MainWindow::openPaths(const QStringList &paths)
{
    // Where the window goes when what was asked for arrives: a trace to a page that shows it,
    // a model alone to the Model page.
    m_landing = Landing::None;
    for (const auto &path : paths) {
        const auto kind = trace::classifyInput(path.toStdString());
        if (kind == trace::InputKind::TraceFile && summary::isSummaryFile(path.toStdString()))
            m_landing = Landing::Job; // a rank summary or a merged job opens on the Distributed page
        else if (kind == trace::InputKind::TraceFile || kind == trace::InputKind::LogDirectory)
            m_landing = Landing::Trace;
        else if (kind == trace::InputKind::Model && !path.endsWith(QStringLiteral(".pyrometer")) && m_landing == Landing::None)
            m_landing = Landing::Model;
    }
    // A new request: what went wrong before it is no longer news (an offer to restore the
    // session of a crashed run stays until it is answered).
    if (!paths.isEmpty() && !m_recoveryOffered)
        m_banner->dismiss();
    for (const auto &path : paths) {
        if (path.endsWith(QStringLiteral(".pyrometer")))
            openSession(path);
        else if (snapshot::looksLikeSnapshot(path.toStdString()))
            qobject_cast<SnapshotPage *>(m_pages.at(Page::Snapshots))->open(path);
        else
            m_workspace->open(path);
    }
}

void MainWindow::openDemo()
{
    QString error;
    const QStringList files = resources::extractDemo(&error);
    if (files.isEmpty()) {
        showError(error);
        return;
    }
    openPaths(files);
}

void MainWindow::chooseTrace()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Open a trace"), QString(), kTraceFilter);
    refocusAfterDialog();
    if (!file.isEmpty())
        openPaths({file});
}

void MainWindow::chooseModel()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Open a model"), QString(), kModelFilter);
    refocusAfterDialog();
    if (!file.isEmpty())
        openPaths({file});
}

void MainWindow::chooseFromLogDirectory(const QString &path, const std::vector<trace::LogRun> &runs)
{
    rememberOpened(path);
    RunChooserDialog dialog(path, runs, this);
    if (!m_interactive) {
        for (const auto &file : dialog.checkedFiles())
            m_workspace->openTrace(file);
        return;
    }
    const bool accepted = dialog.exec() == QDialog::Accepted;
    refocusAfterDialog();
    if (accepted) {
        for (const auto &file : dialog.checkedFiles())
            m_workspace->openTrace(file);
    }
}

void MainWindow::showError(const QString &message)
{
    ++m_failures;
    m_banner->showError(message);
    statusBar()->showMessage(message, 10000);
}

void MainWindow::rememberOpened(const QString &path)
{
    // The demo lives in the cache directory: not worth a recent entry.
    if (path.contains(QStringLiteral("/demo/demo")))
        return;
    QSettings settings;
    RecentFiles::add(settings, path);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QSettings settings;
    const QStringList files = RecentFiles::load(settings);
    for (const auto &file : files)
        m_recentMenu->addAction(file, this, [this, file] { openPaths({file}); });
    if (files.isEmpty()) {
        m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear list"), this, [this] {
        QSettings writable;
        RecentFiles::clear(writable);
        rebuildRecentMenu();
    });
}

void MainWindow::restoreWindowState()
{
    const QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
        const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
        resize(std::min(1400, available.width() * 9 / 10), std::min(900, available.height() * 9 / 10));
    }
    restoreState(settings.value(kStateKey).toByteArray());
    if (const auto page = pageFromName(settings.value(kPageKey).toString()))
        showPage(*page);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (holdCloseForRecord()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kPageKey, pageName(currentPage()));
    m_session->markCleanExit();
    m_jobs->cancelAll();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (std::any_of(urls.begin(), urls.end(), [](const QUrl &url) { return url.isLocalFile(); }))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const auto &url : event->mimeData()->urls()) {
        if (url.isLocalFile())
            paths.append(url.toLocalFile());
    }
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    openPaths(paths);
}

} // namespace pyrometer::ui
