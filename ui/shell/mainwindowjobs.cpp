// The main window's distributed jobs: opening them (File → Open job…, --job) and what the
// Distributed page asks of the window (a rank's step in the Timeline, status messages).
#include "ui/shell/mainwindow.h"

#include "ui/distributed/distributedpage.h"
#include "ui/shell/messagebanner.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/workspace.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>

#include <memory>

namespace pyrometer::ui {

void MainWindow::openJob(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    if (!m_recoveryOffered)
        m_banner->dismiss();
    m_landing = Landing::Job;
    m_workspace->openJob(paths);
}

void MainWindow::chooseJob(bool folder)
{
    QStringList paths;
    if (folder) {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Open a folder of rank traces or rank summaries"), currentFolder());
        if (!dir.isEmpty())
            paths.append(dir);
    } else {
        paths = QFileDialog::getOpenFileNames(this, tr("Open the rank traces or summaries of a job"), currentFolder(),
                                              tr("Rank traces and summaries (*.json *.json.gz);;All files (*)"));
    }
    refocusAfterDialog();
    openJob(paths);
}

QString MainWindow::currentFolder() const
{
    const auto folderOf = [](const QString &path) {
        const QFileInfo info(path);
        return info.isDir() ? info.absoluteFilePath() : info.absolutePath();
    };
    if (const auto job = m_workspace->jobDocument(m_workspace->newestJob()); job && !job->files.isEmpty())
        return folderOf(job->files.first());
    auto id = qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline))->currentTrace();
    if (id == kNoDocument)
        id = m_workspace->newestTrace();
    const auto trace = m_workspace->trace(id);
    return trace ? folderOf(trace->path) : QString();
}

void MainWindow::connectDistributedPage()
{
    auto *page = qobject_cast<distributed::DistributedPage *>(m_pages.at(Page::Distributed));
    auto *timelinePage = qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline));
    connect(page, &distributed::DistributedPage::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message, 8000); });
    // A heat-map cell: that rank's step, zoomed to and selected in the Timeline.
    connect(page, &distributed::DistributedPage::stepRequested, this,
            [this, timelinePage](DocumentId trace, double start, double end, std::optional<timeline::EventRef> step) {
        showPage(Page::Timeline);
        // The step's annotation selected, the rank's rows from the top (its GPU tracks lead
        // them), then the step's range.
        const auto select = [timelinePage, start, end, step] {
            auto *view = timelinePage->view();
            if (step) {
                view->selectEvent(step, /*reveal=*/true);
                view->scrollToPartOf(view->index()->trace->track(step->track).process.value);
            }
            view->selectRange(start, end);
        };
        const bool shown = timelinePage->currentTrace() == trace && timelinePage->view()->index();
        if (!shown) {
            auto connection = std::make_shared<QMetaObject::Connection>();
            *connection = connect(timelinePage, &timeline::TimelinePage::traceShown, this, [connection, timelinePage, trace, select] {
                QObject::disconnect(*connection);
                if (timelinePage->currentTrace() == trace)
                    select();
            });
        }
        timelinePage->showEvents(trace, {}, start, end);
        if (shown)
            select();
    });
}

} // namespace pyrometer::ui
