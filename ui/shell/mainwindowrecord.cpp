// The main window's recording of programs: File → Record program… and what becomes of the
// traces the Record dialog writes.
#include "ui/shell/mainwindow.h"

#include "ui/compare/comparepage.h"
#include "ui/record/recorddialog.h"
#include "ui/record/recordrun.h"
#include "ui/shell/messagebanner.h"

#include <QFileInfo>
#include <QStatusBar>

namespace pyrometer::ui {

RecordDialog *MainWindow::recordDialog()
{
    if (m_recordDialog)
        return m_recordDialog;
    m_recordDialog = new RecordDialog(this);
    connect(m_recordDialog, &RecordDialog::traceRecorded, this, [this](const QString &path) {
        // Opens as soon as it is written, on the Overview.
        openPaths({path});
        showPage(Page::Overview);
        m_recordedTraces << path;
        statusBar()->showMessage(tr("Recorded %1").arg(QFileInfo(path).fileName()), 8000);
    });
    // With the dialog closed, the status bar follows the record.
    connect(m_recordDialog->run(), &RecordRun::progressed, this, [this](const record::RecordProgress &progress) {
        if (!m_recordDialog->isVisible())
            statusBar()->showMessage(
                tr("Recording %1: step %2, %3 of %4 recorded, %5 s")
                    .arg(QFileInfo(QString::fromStdString(m_recordDialog->run()->options().script)).fileName())
                    .arg(progress.steps)
                    .arg(progress.recorded)
                    .arg(progress.asked)
                    .arg(progress.elapsedSeconds, 0, 'f', 0),
                2000);
    });
    connect(m_recordDialog, &RecordDialog::recordFinished, this, [this](const record::RecordOutcome &outcome) {
        if (!outcome.recordedSomething()) {
            m_banner->showError(QString::fromStdString(outcome.message));
            return;
        }
        // Two records or more: the last two side by side, before → after.
        if (m_recordedTraces.size() >= 2) {
            auto *compare = qobject_cast<ComparePage *>(m_pages.at(Page::Compare));
            compare->compareTraces(m_recordedTraces.at(m_recordedTraces.size() - 2), m_recordedTraces.back());
        }
    });
    return m_recordDialog;
}

void MainWindow::showRecordDialog()
{
    auto *dialog = recordDialog();
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

} // namespace pyrometer::ui
