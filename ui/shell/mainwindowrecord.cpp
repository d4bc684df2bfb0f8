// The main window's recording of programs: File → Record program… and what becomes of the
// traces the Record dialog writes.
#include "ui/shell/mainwindow.h"

#include "ui/compare/comparepage.h"
#include "ui/record/recorddialog.h"
#include "ui/record/recordrun.h"
#include "ui/shell/messagebanner.h"

#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
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

bool MainWindow::holdCloseForRecord()
{
    if (!m_recordDialog || !m_recordDialog->isRecording())
        return false;
    auto *run = m_recordDialog->run();
    if (!run->isRunning()) { // still waiting for the interpreter's answer: nothing to finish
        m_recordDialog->cancelRecord();
        return false;
    }
    if (m_finishingBox)
        return true;
    const auto script = QFileInfo(QString::fromStdString(run->options().script)).fileName();
    m_finishingBox =
        new QMessageBox(QMessageBox::Information, tr("Finishing the record"), QString(), QMessageBox::NoButton, this);
    m_finishingBox->setAttribute(Qt::WA_DeleteOnClose);
    m_finishingBox->setWindowModality(Qt::NonModal);
    auto *drop = m_finishingBox->addButton(tr("&Drop it and quit"), QMessageBox::DestructiveRole);
    // The box closes only when the record is over.
    drop->disconnect();
    connect(drop, &QPushButton::clicked, run, [this, run, drop] {
        drop->setEnabled(false);
        m_finishingBox->setInformativeText(
            tr("Ending %1 now\u2026").arg(m_finishingBox->property("script").toString()));
        run->abandon();
    });
    m_finishingBox->setProperty("script", script);
    const auto describe = [this, script](const record::RecordProgress &progress) {
        m_finishingBox->setText(progress.writing ? tr("Pyrometer quits once the trace of %1 of %2 is written.")
                                                       .arg(recordedStepsText(progress.recorded), script)
                                                 : tr("Pyrometer quits once %1 ends its record with the step in "
                                                      "progress (%2 of %3 recorded) and writes it.")
                                                       .arg(script)
                                                       .arg(progress.recorded)
                                                       .arg(progress.asked));
    };
    describe(record::RecordProgress{0, 0, int(run->options().steps), 0, false, true, false});
    m_finishingBox->setInformativeText(tr("Dropping it ends the program now; nothing of this record is kept."));
    connect(run, &RecordRun::progressed, m_finishingBox, describe);
    connect(
        run, &RecordRun::finished, this,
        [this] {
            if (m_finishingBox)
                m_finishingBox->close();
            m_finishingBox = nullptr;
            close();
        },
        Qt::ConnectionType(Qt::QueuedConnection | Qt::SingleShotConnection));
    run->cancel();
    m_finishingBox->show();
    return true;
}

void MainWindow::showRecordDialog()
{
    auto *dialog = recordDialog();
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

} // namespace pyrometer::ui
