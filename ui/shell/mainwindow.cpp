#include "ui/shell/mainwindow.h"

#include "core/torch/modelfile.h"
#include "core/util/version.h"
#include "ui/flamegraph/flamegraphpage.h"
#include "ui/jobs/jobstatuswidget.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/modelpage.h"
#include "ui/overview/overviewpage.h"
#include "resources/bundleddemo.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/messagebanner.h"
#include "ui/shell/recentfiles.h"
#include "ui/shell/runchooserdialog.h"
#include "ui/tables/operatorspage.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/workspace.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

namespace pyrometer::ui {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kPageKey = QStringLiteral("mainWindow/page");
const QString kWheelZoomsKey = QStringLiteral("timeline/wheelZooms");

const QString kTraceFilter = QObject::tr("Chrome traces (*.json *.json.gz);;All files (*)");
const QString kModelFilter = QObject::tr("TorchScript models (*.pt *.pth *.ptl *.torchscript *.zip);;All files (*)");

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
    connect(m_workspace, &Workspace::traceLoadFailed, this, [this](const QString &path) {
        m_banner->addAction(tr("Load the valid part of %1").arg(QFileInfo(path).fileName()),
                            [this, path] { m_workspace->openTrace(path, /*partial=*/true); });
    });
    connect(m_workspace, &Workspace::fileOpened, this, &MainWindow::rememberOpened);
    connect(m_workspace, &Workspace::logDirectoryFound, this, &MainWindow::chooseFromLogDirectory);
    connect(m_workspace, &Workspace::traceOpened, this, [this] { statusBar()->showMessage(tr("Trace loaded"), 3000); });
    connect(m_workspace, &Workspace::modelOpened, this, [this] { statusBar()->showMessage(tr("Model loaded"), 3000); });

    createMenus();
    restoreWindowState();
}

MainWindow::~MainWindow() = default;

void MainWindow::createPages()
{
    m_pages[Page::Overview] = new OverviewPage(m_workspace, this);
    m_pages[Page::Timeline] = new timeline::TimelinePage(m_workspace, m_jobs, this);
    m_pages[Page::FlameGraph] = new flamegraph::FlameGraphPage(m_workspace, m_jobs, this);
    m_pages[Page::Operators] = new tables::OperatorsPage(m_workspace, m_jobs, this);
    m_pages[Page::Model] = new ModelPage(m_workspace, m_jobs, this);
    connect(qobject_cast<ModelPage *>(m_pages.at(Page::Model)), &ModelPage::timelineRequested, this, [this] { showPage(Page::Timeline); });
    connect(qobject_cast<ModelPage *>(m_pages.at(Page::Model)), &ModelPage::flameGraphRequested, this, [this] { showPage(Page::FlameGraph); });
    auto *timelinePage = qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline));
    auto *operatorsPage = qobject_cast<tables::OperatorsPage *>(m_pages.at(Page::Operators));
    connect(timelinePage, &timeline::TimelinePage::openRangeInOperators, this, [this, operatorsPage](double start, double end) {
        operatorsPage->showRange(start, end);
        showPage(Page::Operators);
    });
    connect(operatorsPage, &tables::OperatorsPage::rowEventsSelected, timelinePage, &timeline::TimelinePage::highlightEvents);
    m_pages[Page::Compare] = new EmptyState(
        tr("Compare"),
        tr("Two traces, or two variants of a model, side by side: per-operator and per-layer deltas, "
           "a diff flame graph and overlaid batch-size sweeps."),
        tr("Open two traces: Ctrl+O"), this);

    for (const auto page : kAllPages) {
        m_sidebar->addItem(pageTitle(page));
        m_stack->addWidget(m_pages.at(page));
    }
    m_sidebar->setCurrentRow(0);

    // Pages that are still placeholders point at the Overview once something is open.
    connect(m_workspace, &Workspace::traceOpened, this, [this](int index) {
        const QString name = QFileInfo(m_workspace->traces().at(std::size_t(index)).path).fileName();
        for (const auto page : {Page::FlameGraph, Page::Operators}) {
            if (auto *empty = qobject_cast<EmptyState *>(m_pages.at(page)))
                empty->setHint(tr("%1 is open: its summary is on the Overview page.").arg(name));
        }
    });
}

void MainWindow::createMenus()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    auto *openTrace = file->addAction(tr("Open &trace…"), this, &MainWindow::chooseTrace);
    openTrace->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open trace &folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a TensorBoard log directory"));
        if (!dir.isEmpty())
            openPaths({dir});
    });
    auto *openModel = file->addAction(tr("Open &model…"), this, &MainWindow::chooseModel);
    openModel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Open &demo"), this, &MainWindow::openDemo);
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    rebuildRecentMenu();

    auto *view = menuBar()->addMenu(tr("&View"));
    int number = 1;
    for (const auto page : kAllPages) {
        auto *action = view->addAction(pageTitle(page), this, [this, page] { showPage(page); });
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + number++)));
    }
    view->addSeparator();
    // Perfetto zooms with the plain wheel, many editors with Ctrl+wheel: the user picks.
    auto *wheelZooms = view->addAction(tr("Mouse wheel &zooms the timeline"));
    wheelZooms->setCheckable(true);
    wheelZooms->setToolTip(tr("When off, the wheel scrolls and Ctrl+wheel zooms"));
    wheelZooms->setChecked(QSettings().value(kWheelZoomsKey, true).toBool());
    const auto applyWheel = [this](bool zooms) {
        qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline))->view()->setWheelZooms(zooms);
    };
    applyWheel(wheelZooms->isChecked());
    connect(wheelZooms, &QAction::toggled, this, [applyWheel](bool zooms) {
        QSettings().setValue(kWheelZoomsKey, zooms);
        applyWheel(zooms);
    });

    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Pyrometer"), this,
                    [this] { QMessageBox::about(this, tr("About Pyrometer"), aboutText()); });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

QString MainWindow::aboutText()
{
    return tr("<h3>Pyrometer %1</h3>"
              "<p>A workbench for profiling deep-learning models: open torch.profiler traces of any size, "
              "profile TorchScript models layer by layer, and compare runs.</p>"
              "<p>Qt %2 (built with %3)<br>libtorch %4</p>")
        .arg(QLatin1String(kVersion), QLatin1String(qVersion()), QLatin1String(QT_VERSION_STR),
             QString::fromStdString(torch::torchVersion()));
}

void MainWindow::showPage(Page page)
{
    m_sidebar->setCurrentRow(int(page));
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
    for (const auto &path : paths)
        m_workspace->open(path);
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
    if (!file.isEmpty())
        openPaths({file});
}

void MainWindow::chooseModel()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Open a TorchScript model"), QString(), kModelFilter);
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
    if (dialog.exec() == QDialog::Accepted) {
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
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kPageKey, pageName(currentPage()));
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
