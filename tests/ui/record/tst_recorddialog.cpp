#include "ui/compare/comparepage.h"
#include "ui/memory/memorypage.h"
#include "ui/overview/overviewpage.h"
#include "ui/plots/memorycategoryplot.h"
#include "ui/record/interpreterprobe.h"
#include "ui/record/recorddialog.h"
#include "ui/record/recordrun.h"
#include "ui/record/recordsettings.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"
#include "ui/shell/preferences.h"
#include "ui/workspace/workspace.h"

#include "../maybegrab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

#include <atomic>
#include <csignal>
#include <memory>
#include <thread>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kPython = QStringLiteral(PYROMETER_TEST_PYTHON);

QString program(const char *name)
{
    return QStringLiteral(PYROMETER_FIXTURES_DIR "/programs/") + QLatin1String(name);
}

record::RecordOptions optionsFor(const QTemporaryDir &dir, const char *script, int steps)
{
    record::RecordOptions options;
    options.python = kPython.toStdString();
    options.script = program(script).toStdString();
    options.outputDirectory = dir.path().toStdString();
    options.skip = 0;
    options.warmup = 1;
    options.steps = steps;
    return options;
}

// slow_write.py: 3 steps, and a trace that takes seconds seconds to write.
record::RecordOptions slowWriteOptions(const QTemporaryDir &dir, const char *seconds)
{
    auto options = optionsFor(dir, "slow_write.py", 3);
    options.keepRunning = true;
    options.environment = {{"SLOW_PHASE", "export"}, {"SLOW_SECONDS", seconds}};
    return options;
}

bool waitFinished(RecordDialog &dialog)
{
    return QTest::qWaitFor([&] { return !dialog.isRecording(); }, 120'000);
}

// A quick record (the program raises) with CUDA asked for, in python.
record::RecordOptions waitingOptions(const QTemporaryDir &dir, const char *python)
{
    auto options = optionsFor(dir, "raises.py", 2);
    options.cuda = true;
    options.python = python;
    return options;
}

// A probe in place of the interpreter's: it counts its calls, holds until released (or
// stopped), and answers that torch sees a GPU. Shared, as a probe runs on a worker thread.
struct HeldProbe {
    std::atomic<int> calls{0};
    std::atomic<int> stopped{0};
    std::atomic<bool> released{false};
    std::vector<std::string> asked; // written before calls is counted up

    // Probes of the dialog's interpreters go to a new HeldProbe, delay after the last change.
    static std::shared_ptr<HeldProbe> install(RecordDialog &dialog, std::chrono::milliseconds delay)
    {
        auto held = std::make_shared<HeldProbe>();
        InterpreterProbe::ProbeFunction probe = [held](const std::string &python,
                                                       const StopToken &stop) -> Result<record::InterpreterInfo> {
            held->asked.push_back(python);
            ++held->calls;
            while (!held->released && !stop.stopRequested())
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            if (stop.stopRequested()) {
                ++held->stopped;
                return Error{python + ": stopped"};
            }
            record::InterpreterInfo info;
            info.python = python;
            info.executable = python;
            info.torchVersion = "1.13.0";
            info.pythonVersion = "3.11.2";
            info.cuda = true;
            info.cudaDevices = 1;
            return info;
        };
        dialog.interpreterProbe()->setProbeFunction(probe);
        dialog.interpreterProbe()->setDelay(delay);
        return held;
    }
};

} // namespace

class TestRecordDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_recorddialog"));
        QSettings().clear();
    }

    void formRoundTripsTheOptions()
    {
        RecordDialog dialog;
        record::RecordOptions options;
        options.python = "/opt/conda/bin/python";
        options.script = "trainer.main";
        options.asModule = true;
        options.arguments = {"--data", "my data", "-v"};
        options.workingDirectory = "/srv/project";
        options.environment = {{"OMP_NUM_THREADS", "4"}};
        options.outputDirectory = "/srv/logs";
        options.mark = record::StepMark::Time;
        options.delaySeconds = 2.5;
        options.durationSeconds = 7;
        options.steps = 9;
        options.withStack = true;
        options.keepRunning = true;
        dialog.setOptions(options);
        auto read = dialog.options();
        read.cuda = options.cuda; // enabled only when the probe sees a GPU
        QCOMPARE(read, options);
    }

    void probeSaysWhatTheInterpreterOffers()
    {
        RecordDialog dialog;
        dialog.pythonCombo()->setCurrentText(kPython);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.interpreterLabel()->text().startsWith(QStringLiteral("torch ")), 30'000);
        QVERIFY(dialog.interpreterLabel()->text().contains(kPython));
        QVERIFY(!dialog.cudaCheck()->isEnabled()); // no GPU on a test machine
        // An interpreter whose torch answered is the one setting now, before any record.
        QCOMPARE(chosenPython(QSettings()), kPython);
        QCOMPARE(Preferences::load(QSettings()).python, kPython);
        dialog.pythonCombo()->setCurrentText(QStringLiteral("/nonexistent/python"));
        QTRY_VERIFY_WITH_TIMEOUT(
            dialog.interpreterLabel()->text().contains(QStringLiteral("cannot start /nonexistent/python")), 30'000);
        QCOMPARE(chosenPython(QSettings()), kPython); // one that failed is not chosen
    }

    void typingStartsOneProbe()
    {
        RecordDialog dialog;
        // Well above the time between two keystrokes, however busy the machine.
        const auto held = HeldProbe::install(dialog, std::chrono::milliseconds(1500));
        held->released = true;
        auto *field = dialog.pythonCombo()->lineEdit();
        field->clear();
        QTest::keyClicks(field, QStringLiteral("/opt/venv/bin/python3"));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.interpreterLabel()->text().startsWith(QStringLiteral("torch 1.13.0")), 10'000);
        QCOMPARE(held->calls.load(), 1);
        QCOMPARE(held->asked.back(), std::string("/opt/venv/bin/python3"));
        QVERIFY(dialog.cudaCheck()->isEnabled());
    }

    void anotherInterpreterStopsTheProbeRunning()
    {
        RecordDialog dialog;
        const auto held = HeldProbe::install(dialog, std::chrono::milliseconds(0));
        dialog.pythonCombo()->setCurrentText(QStringLiteral("/opt/a/python"));
        QTRY_COMPARE_WITH_TIMEOUT(held->calls.load(), 1, 10'000);
        QVERIFY(dialog.interpreterLabel()->text().contains(QStringLiteral("Checking /opt/a/python")));
        dialog.pythonCombo()->setCurrentText(QStringLiteral("/opt/b/python"));
        QTRY_COMPARE_WITH_TIMEOUT(held->stopped.load(), 1, 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(held->calls.load(), 2, 10'000);
        held->released = true;
        QTRY_VERIFY_WITH_TIMEOUT(dialog.interpreterProbe()->isAnswered(), 10'000);
        // The answer is the current interpreter's; the stopped probe's is dropped.
        QVERIFY(dialog.interpreterLabel()->text().contains(QStringLiteral("/opt/b/python")));
        QVERIFY(!dialog.interpreterLabel()->text().contains(QStringLiteral("stopped")));
    }

    void probeThatHangsTimesOut()
    {
        RecordDialog dialog;
        const auto held = HeldProbe::install(dialog, std::chrono::milliseconds(0));
        dialog.interpreterProbe()->setTimeout(std::chrono::milliseconds(200));
        dialog.pythonCombo()->setCurrentText(QStringLiteral("/opt/hangs/python"));
        QTRY_VERIFY_WITH_TIMEOUT(
            dialog.interpreterLabel()->text().contains(QStringLiteral("/opt/hangs/python did not answer in 0.2 s")),
            10'000);
        QTRY_COMPARE_WITH_TIMEOUT(held->stopped.load(), 1, 10'000);
        QVERIFY(!dialog.cudaCheck()->isEnabled());
    }

    void recordWaitsForTheProbeOfItsInterpreter()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        const auto held = HeldProbe::install(dialog, std::chrono::milliseconds(0));
        dialog.setOptions(waitingOptions(dir, "/usr/bin/../bin/python3")); // not the settings' last name
        QTRY_COMPARE_WITH_TIMEOUT(held->calls.load(), 1, 10'000);
        // Record while the interpreter is being asked: it waits for its answer.
        QVERIFY(dialog.startRecord());
        QVERIFY(!dialog.run()->isRunning());
        QVERIFY(dialog.isRecording());
        QVERIFY(!dialog.recordButton()->isEnabled());
        QVERIFY2(dialog.statusLabel()->text().contains(QStringLiteral("Checking /usr/bin/../bin/python3")),
                 qPrintable(dialog.statusLabel()->text()));
        held->released = true;
        QTRY_VERIFY_WITH_TIMEOUT(dialog.run()->isRunning() || !dialog.isRecording(), 10'000);
        // It recorded with what the interpreter offers (a GPU), and remembers CUDA on.
        QVERIFY(dialog.run()->options().cuda);
        QVERIFY(waitFinished(dialog));
        QSettings settings;
        QVERIFY(RecordSettings::load(settings).options.cuda);
        QCOMPARE(held->calls.load(), 1);
    }

    void cancelWhileWaitingForTheProbeStartsNothing()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        const auto held = HeldProbe::install(dialog, std::chrono::milliseconds(0));
        dialog.setOptions(waitingOptions(dir, "/opt/waiting/python"));
        QVERIFY(dialog.startRecord());
        QVERIFY(dialog.isWaitingForProbe());
        dialog.cancelRecord();
        QVERIFY(!dialog.isRecording());
        held->released = true;
        QTRY_VERIFY_WITH_TIMEOUT(dialog.interpreterProbe()->isAnswered(), 10'000);
        QVERIFY(!dialog.run()->isRunning());
        QVERIFY(dialog.recordButton()->isEnabled());
    }

    void recordsATrainingLoopLive()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.resize(900, 760);
        auto options = optionsFor(dir, "train_cnn.py", 3);
        options.arguments = {"20"};
        dialog.setOptions(options);
        QSignalSpy traces(&dialog, &RecordDialog::traceRecorded);
        std::vector<int> recordedSeen;
        connect(dialog.run(), &RecordRun::progressed, &dialog,
                [&](const record::RecordProgress &progress) { recordedSeen.push_back(progress.recorded); });
        QVERIFY(dialog.startRecord());
        QVERIFY(dialog.isRecording());
        QVERIFY(!dialog.recordButton()->isEnabled());
        QVERIFY(dialog.cancelButton()->isEnabled());
        QVERIFY(!dialog.startRecord()); // one record at a time
        QVERIFY(waitFinished(dialog));
        maybeGrab(dialog, QStringLiteral("record-dialog.png"));
        QCOMPARE(traces.size(), 1);
        const auto trace = traces.at(0).at(0).toString();
        QVERIFY(QFileInfo(trace).isFile());
        QVERIFY(trace.startsWith(dir.path()));
        // The program's own output, live, and the launcher's notes.
        QVERIFY(dialog.log()->toPlainText().contains(QStringLiteral("step 0 loss")));
        QVERIFY(dialog.log()->toPlainText().contains(QStringLiteral("trace written: ") + trace));
        QCOMPARE(dialog.progressBar()->maximum(), 3);
        QCOMPARE(dialog.progressBar()->value(), 3);
        QVERIFY2(dialog.statusLabel()->text().startsWith(QStringLiteral("Recorded 3 of 3 steps")),
                 qPrintable(dialog.statusLabel()->text()));
        QVERIFY(dialog.interpreterLabel()->text().startsWith(QStringLiteral("torch ")));
        QVERIFY(!recordedSeen.empty());
        QVERIFY(std::is_sorted(recordedSeen.begin(), recordedSeen.end()));
        QVERIFY(dialog.recordAgainButton()->isEnabled());
        QVERIFY(!dialog.cancelButton()->isEnabled());

        // The settings are remembered for the next dialog.
        RecordDialog next;
        QCOMPARE(next.scriptEdit()->text(), program("train_cnn.py"));
        QCOMPARE(next.pythonCombo()->currentText(), kPython);
        QCOMPARE(next.argumentsEdit()->text(), QStringLiteral("20"));
    }

    void failureIsShownWithTheProgramsOutput()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.setOptions(optionsFor(dir, "raises.py", 3));
        QSignalSpy traces(&dialog, &RecordDialog::traceRecorded);
        QVERIFY(dialog.startRecord());
        QVERIFY(waitFinished(dialog));
        QCOMPARE(traces.size(), 0);
        QVERIFY2(dialog.statusLabel()->text().contains(QStringLiteral("raises.py raised before a step was recorded")),
                 qPrintable(dialog.statusLabel()->text()));
        QVERIFY(dialog.log()->toPlainText().contains(QStringLiteral("ValueError: the data set at ./data is empty")));
        QVERIFY(dialog.recordButton()->isEnabled());
        // An incomplete form says what is missing and starts nothing.
        dialog.scriptEdit()->setText(dir.filePath(QStringLiteral("missing.py")));
        QVERIFY(!dialog.startRecord());
        QVERIFY(dialog.statusLabel()->text().contains(QStringLiteral("missing.py: no such script")));
        QVERIFY(!dialog.isRecording());
    }

    void barCountsTheStepsAsked()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        auto options = optionsFor(dir, "train_cnn.py", 3);
        options.skip = 2;
        dialog.setOptions(options);
        // Before a record: none of the 3 asked, however many are skipped or warm up.
        QCOMPARE(dialog.progressBar()->maximum(), 3);
        QCOMPARE(dialog.progressBar()->text(), QStringLiteral("0 of 3 steps recorded"));
        QVERIFY(dialog.progressBar()->toolTip().contains(QStringLiteral("takes 6 steps")));
        options.repeat = 2;
        dialog.setOptions(options);
        QCOMPARE(dialog.progressBar()->text(), QStringLiteral("0 of 6 steps recorded"));
        options.mark = record::StepMark::Time;
        dialog.setOptions(options);
        QCOMPARE(dialog.progressBar()->text(), QStringLiteral("0 of 1 time windows recorded"));
    }

    void formStaysPutWhenTheCheckEnds()
    {
        RecordDialog dialog;
        dialog.resize(860, 720);
        dialog.show();
        auto held = std::make_shared<std::atomic<bool>>(false);
        dialog.interpreterProbe()->setDelay(std::chrono::milliseconds(0));
        dialog.interpreterProbe()->setProbeFunction(
            [held](const std::string &python, const StopToken &stop) -> Result<record::InterpreterInfo> {
                while (!*held && !stop.stopRequested())
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                return Error{python + " has no usable torch: Traceback (most recent call last): File \"<string>\", "
                                      "line 1, in <module> ModuleNotFoundError: No module named 'torch'; choose "
                                      "an interpreter (a venv's or conda's python) where `import torch` works"};
            });
        dialog.pythonCombo()->setCurrentText(QStringLiteral("/opt/short/python"));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.interpreterLabel()->text().contains(QStringLiteral("Checking")), 10'000);
        QTest::qWait(50);
        const auto before = dialog.scriptEdit()->mapTo(&dialog, QPoint(0, 0));
        *held = true;
        QTRY_VERIFY_WITH_TIMEOUT(dialog.interpreterProbe()->isAnswered(), 10'000);
        QVERIFY(dialog.interpreterLabel()->text().contains(QStringLiteral("no usable torch")));
        QTest::qWait(50);
        QCOMPARE(dialog.scriptEdit()->mapTo(&dialog, QPoint(0, 0)), before);
        QVERIFY(dialog.interpreterLabel()->toolTip().contains(QStringLiteral("No module named 'torch'")));
    }

    void recordsGoToTheUsersDataFolder()
    {
        const auto folder = defaultRecordFolder(QStringLiteral("/srv/project/train.py"));
        QCOMPARE(folder, QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                             QStringLiteral("/pyrometer/records/train"));
        QVERIFY(!folder.startsWith(legacyRecordsFolder()));
        // A default folder of an earlier version, remembered, gives way to the default.
        QSettings settings;
        settings.setValue(QStringLiteral("record/outputDirectory"), legacyRecordsFolder() + QStringLiteral("/train"));
        QVERIFY(RecordSettings::load(settings).options.outputDirectory.empty());
        settings.setValue(QStringLiteral("record/outputDirectory"), QStringLiteral("/srv/logs"));
        QCOMPARE(RecordSettings::load(settings).options.outputDirectory, std::filesystem::path("/srv/logs"));
        settings.remove(QStringLiteral("record/outputDirectory"));
    }

    void cancelKeepsACompleteTrace()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.run()->setStopPolicy({std::chrono::milliseconds(5000), std::chrono::milliseconds(2000)});
        dialog.setOptions(optionsFor(dir, "slow_loop.py", 1000));
        QSignalSpy traces(&dialog, &RecordDialog::traceRecorded);
        QVERIFY(dialog.startRecord());
        dialog.resize(900, 760);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.progressBar()->value() >= 2, 60'000);
        // Live: the bar, the step count and the elapsed time move while the program runs.
        QVERIFY(dialog.statusLabel()->text().startsWith(QStringLiteral("Step ")));
        QVERIFY(dialog.statusLabel()->text().contains(QStringLiteral(" of 1000 recorded")));
        maybeGrab(dialog, QStringLiteral("record-live.png"));
        dialog.cancelRecord();
        QVERIFY(waitFinished(dialog));
        maybeGrab(dialog, QStringLiteral("record-cancelled.png"));
        QCOMPARE(traces.size(), 1);
        const auto &outcome = dialog.run()->lastOutcome();
        QVERIFY(outcome.exit.stopped);
        // What was kept, in the status, the log and the bar: the steps recorded, whole, in the trace.
        const auto kept = QStringLiteral("cancelled after %1 of 1000 steps; the %1 recorded are in %2")
                              .arg(outcome.recorded)
                              .arg(traces.at(0).at(0).toString());
        QVERIFY2(dialog.statusLabel()->text().contains(kept), qPrintable(dialog.statusLabel()->text()));
        QVERIFY(dialog.log()->toPlainText().contains(kept));
        QCOMPARE(dialog.progressBar()->value(), outcome.recorded);
        QVERIFY(dialog.progressBar()->text().contains(QStringLiteral("cancelled")));
    }

    // Cancel while the trace is written waits for it and says so; the button becomes Drop.
    void cancelWhileWritingWaitsForTheTrace()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.run()->setStopPolicy({std::chrono::milliseconds(500), std::chrono::milliseconds(2000)});
        dialog.setOptions(slowWriteOptions(dir, "4"));
        QSignalSpy traces(&dialog, &RecordDialog::traceRecorded);
        QVERIFY(dialog.startRecord());
        dialog.resize(900, 760);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.statusLabel()->text().startsWith(QStringLiteral("Writing the trace")), 60'000);
        dialog.cancelRecord();
        QTRY_VERIFY_WITH_TIMEOUT(
            dialog.statusLabel()->text().contains(QStringLiteral("Cancelling: waiting for the trace of the 3 "
                                                                 "recorded steps to be written. Drop gives it up.")),
            10'000);
        QCOMPARE(dialog.cancelButton()->text(), QStringLiteral("&Drop"));
        QVERIFY(dialog.cancelButton()->isEnabled());
        maybeGrab(dialog, QStringLiteral("record-cancel-writing.png"));
        QVERIFY(waitFinished(dialog));
        QCOMPARE(traces.size(), 1);
        const auto &outcome = dialog.run()->lastOutcome();
        QVERIFY(outcome.exit.stopped);
        QCOMPARE(outcome.recorded, 3);
        QVERIFY(dialog.statusLabel()->text().contains(QStringLiteral("cancelled after its record was complete")));
        QCOMPARE(dialog.cancelButton()->text(), QStringLiteral("&Cancel"));
    }

    // Drop, the second press, gives the write up at once: nothing kept, and the dialog says so.
    void dropGivesTheWriteUp()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.run()->setStopPolicy({std::chrono::milliseconds(500), std::chrono::milliseconds(2000)});
        dialog.setOptions(slowWriteOptions(dir, "60"));
        QSignalSpy traces(&dialog, &RecordDialog::traceRecorded);
        QVERIFY(dialog.startRecord());
        QTRY_VERIFY_WITH_TIMEOUT(dialog.statusLabel()->text().startsWith(QStringLiteral("Writing the trace")), 60'000);
        dialog.cancelRecord();
        dialog.cancelRecord();
        QVERIFY(waitFinished(dialog));
        // Ended by the drop (terminated), not by a write that finished.
        QCOMPARE(dialog.run()->lastOutcome().exit.signal, SIGTERM);
        QCOMPARE(traces.size(), 0);
        QCOMPARE(dialog.run()->lastOutcome().failure, record::RecordFailure::Dropped);
        QVERIFY2(dialog.statusLabel()->text().contains(QStringLiteral("the write was dropped; nothing was kept")),
                 qPrintable(dialog.statusLabel()->text()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList());
    }

    // Quitting while a record is written: the window stays with a box that says what is
    // finishing; dropping it ends the program and the window closes.
    void quittingWhileARecordIsWrittenShowsWhatIsFinishing()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        auto *dialog = window.recordDialog();
        dialog->run()->setStopPolicy({std::chrono::milliseconds(500), std::chrono::milliseconds(2000)});
        dialog->setOptions(slowWriteOptions(dir, "60"));
        QVERIFY(dialog->startRecord());
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusLabel()->text().startsWith(QStringLiteral("Writing the trace")), 60'000);
        QVERIFY(!window.close());
        QVERIFY(window.isVisible());
        auto *box = window.finishingBox();
        QVERIFY(box);
        QTRY_VERIFY_WITH_TIMEOUT(box->isVisible(), 5'000);
        QTRY_VERIFY2_WITH_TIMEOUT(
            box->text().contains(QStringLiteral("once the trace of the 3 recorded steps of slow_write.py is written")),
            qPrintable(box->text()), 5'000);
        maybeGrab(*box, QStringLiteral("record-quit-finishing.png"));
        QPushButton *drop = nullptr;
        for (auto *button : box->buttons())
            if (button->text() == QStringLiteral("&Drop it and quit"))
                drop = qobject_cast<QPushButton *>(button);
        QVERIFY(drop);
        drop->click();
        QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), 30'000);
        QVERIFY(!dialog->isRecording());
        QCOMPARE(dialog->run()->lastOutcome().failure, record::RecordFailure::Dropped);
    }

    void windowOpensRecordsAndComparesTheLastTwo()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        auto *dialog = window.recordDialog();
        dialog->setOptions(optionsFor(dir, "train_cnn.py", 2));
        QVERIFY(dialog->startRecord());
        QVERIFY(waitFinished(*dialog));
        // The trace opens on the Overview as soon as it is written.
        QTRY_COMPARE_WITH_TIMEOUT(int(window.workspace()->traces().size()), 1, 60'000);
        QCOMPARE(window.currentPage(), Page::Overview);
        QCOMPARE(window.recordedTraces().size(), 1);

        // Its memory by category on the Memory page.
        window.showPage(Page::Memory);
        auto *memory = qobject_cast<MemoryPage *>(window.pageWidget(Page::Memory));
        QTRY_VERIFY_WITH_TIMEOUT(memory->showsCategories(), 60'000);
        QCOMPARE(memory->categoryPlot()->plot()->graphCount(), int(record::kMemoryCategoryCount));
        const auto caption = memory->categoryCaption()->text();
        QVERIFY2(caption.contains(QStringLiteral("Peak")), qPrintable(caption));
        QVERIFY(caption.contains(QStringLiteral("Optimizer state")));
        QVERIFY(caption.contains(QStringLiteral("3 samples per step")));
        // The peak's step as the trace names it, on the Memory page and the Overview alike.
        const auto trace = window.workspace()->traces().begin()->second;
        const auto peak = record::memoryPeak(*trace->memoryCategories);
        const auto step = QStringLiteral("ProfilerStep#%1").arg(peak.sample.profilerStep);
        QVERIFY2(caption.contains(step), qPrintable(caption));
        bool named = false;
        for (const auto &track : trace->trace->tracks)
            for (const auto name : track.eventName)
                named = named || trace->trace->string(name) == step.toStdString();
        QVERIFY2(named, qPrintable(step));
        auto *overview = qobject_cast<OverviewPage *>(window.pageWidget(Page::Overview));
        QTRY_VERIFY_WITH_TIMEOUT(overview->data() != nullptr, 60'000);
        const auto note = overview->memoryNote()->text();
        QVERIFY2(note.contains(QStringLiteral("Recorded program")) && note.contains(step), qPrintable(note));
        QVERIFY(note.contains(QStringLiteral("Optimizer state")));
        QVERIFY(!note.contains(QStringLiteral("No memory events")));
        QTest::qWait(200);
        maybeGrab(window, QStringLiteral("record-memory.png"));

        // Record again: the same settings, a second trace, and the two compared before → after.
        QVERIFY(dialog->recordAgain());
        QVERIFY(waitFinished(*dialog));
        QTRY_COMPARE_WITH_TIMEOUT(int(window.workspace()->traces().size()), 2, 60'000);
        QCOMPARE(window.recordedTraces().size(), 2);
        auto *compare = qobject_cast<ComparePage *>(window.pageWidget(Page::Compare));
        QTRY_VERIFY_WITH_TIMEOUT(!compare->comparedTraces().first.isEmpty(), 60'000);
        QCOMPARE(compare->comparedTraces().first, QFileInfo(window.recordedTraces().at(0)).fileName());
        QCOMPARE(compare->comparedTraces().second, QFileInfo(window.recordedTraces().at(1)).fileName());
        window.showPage(Page::Compare);
        QTest::qWait(200);
        maybeGrab(window, QStringLiteral("record-compare.png"));

        // A failed record leaves the window as it was and says why.
        dialog->setOptions(optionsFor(dir, "no_steps.py", 2));
        QVERIFY(dialog->startRecord());
        QVERIFY(waitFinished(*dialog));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.banner()->messages().join(QLatin1Char('\n')).contains(QStringLiteral("no_steps.py ended after")),
            10'000);
        QCOMPARE(int(window.workspace()->traces().size()), 2);
    }
};

QTEST_MAIN(TestRecordDialog)
#include "tst_recorddialog.moc"
