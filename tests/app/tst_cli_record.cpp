// pyrometer-cli record: real programs recorded with Debian's python3-torch, as from a shell.
#include "clitestutil.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace pyrometer::testing;

namespace {

const QString kPython = QStringLiteral(PYROMETER_TEST_PYTHON);

QString program(const char *name)
{
    return QStringLiteral(PYROMETER_FIXTURES_DIR "/programs/") + QLatin1String(name);
}

// fails_after.py: CALLS forwards, then `raise` or exit with a status.
Run recordFailing(const QTemporaryDir &dir, const QString &calls, const QString &how, QStringList options = {})
{
    QStringList arguments{"record", "--python", kPython, "--out", dir.path()};
    arguments << options << "--" << program("fails_after.py") << calls << how;
    return runCli(arguments);
}

// pyrometer-cli record of slow_write.py (3 steps; its trace takes SLOW_SECONDS to write), in a
// process group of its own as a shell's foreground job is.
struct SlowRecord {
    QProcess process;
    QString out;
    QString err;

    SlowRecord(const QTemporaryDir &dir, const QString &seconds)
    {
        auto environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SLOW_PHASE"), QStringLiteral("export"));
        environment.insert(QStringLiteral("SLOW_SECONDS"), seconds);
        process.setProcessEnvironment(environment);
        process.setChildProcessModifier([] { ::setpgid(0, 0); });
        process.start(QStringLiteral(PYROMETER_CLI), {"record", "--python", kPython, "--steps", "3", "--keep-running",
                                                      "--out", dir.path(), "--", program("slow_write.py")});
    }
    // Reads until text shows in stdout (fromStderr: stderr), at most timeoutMs.
    bool waitFor(const QString &text, bool fromStderr = false, int timeoutMs = 120000)
    {
        const QDeadlineTimer deadline(timeoutMs);
        while (!deadline.hasExpired()) {
            out += QString::fromUtf8(process.readAllStandardOutput());
            err += QString::fromUtf8(process.readAllStandardError());
            if ((fromStderr ? err : out).contains(text))
                return true;
            if (process.state() == QProcess::NotRunning)
                return false;
            process.waitForReadyRead(100);
        }
        return false;
    }
    // Ctrl+C as a terminal sends it (to the foreground process group), or to the CLI alone.
    void interrupt(bool group) { ::kill(group ? -pid_t(process.processId()) : pid_t(process.processId()), SIGINT); }
    int finish()
    {
        const bool finished = process.waitForFinished(120000);
        out += QString::fromUtf8(process.readAllStandardOutput());
        err += QString::fromUtf8(process.readAllStandardError());
        if (!finished) {
            process.kill();
            return -2;
        }
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    }
};

} // namespace

class TestCliRecord : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void printsTheTracePath()
    {
        QTemporaryDir dir;
        const auto run = runCli({"record", "--python", kPython, "--steps", "2", "--skip", "0", "--out", dir.path(),
                                 "--", program("train_cnn.py"), "10"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        // The program's output passes through; the trace's path is the last line.
        QVERIFY(run.out.contains(QStringLiteral("step 0 loss")));
        const auto lines = run.out.trimmed().split(QLatin1Char('\n'));
        const auto trace = lines.last();
        QVERIFY2(trace.startsWith(dir.path()) && trace.endsWith(QStringLiteral(".pt.trace.json.gz")),
                 qPrintable(run.out));
        QVERIFY(QFileInfo(trace).isFile());
        QVERIFY(run.err.contains(QStringLiteral("2 steps recorded")));
        // What it wrote opens like any trace.
        const auto info = runCli({"steps", trace, "--format", "json"});
        QCOMPARE(info.exitCode, 0);
        const auto steps = QJsonDocument::fromJson(info.out.toUtf8());
        QVERIFY(!steps.isNull());
        QVERIFY(info.out.contains(QStringLiteral("ProfilerStep#")));
    }

    void jsonHasTheMemoryPeak()
    {
        QTemporaryDir dir;
        const auto run = runCli({"record", "--python", kPython, "--steps", "2", "--skip", "0", "--out", dir.path(),
                                 "--format", "json", "--", program("train_cnn.py"), "10"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(json.value("recorded").toInt(), 2);
        QCOMPARE(json.value("traces").toArray().size(), 1);
        QCOMPARE(json.value("memory").toArray().size(), 1);
        const auto peak = json.value("memory_peak").toObject();
        QCOMPARE(peak.value("source").toString(), QStringLiteral("launcher"));
        const auto bytes = peak.value("bytes").toObject();
        // The CNN of train_cnn.py: 5,450 float32 parameters; Adam keeps two moments of each.
        QCOMPARE(bytes.value("parameters").toInteger(), 21800);
        QCOMPARE(bytes.value("optimizer_state").toInteger() - 8 * 4, 2 * 21800); // + a float32 step counter per tensor
        // The program's own output went to stderr, leaving stdout to the JSON.
        QVERIFY(run.err.contains(QStringLiteral("step 0 loss")));
    }

    void failureBeforeAStepExitsTwo()
    {
        QTemporaryDir dir;
        const auto run = runCli({"record", "--python", kPython, "--out", dir.path(), "--", program("raises.py")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral(
                     "raises.py raised before a step was recorded: ValueError: the data set at ./data is empty")),
                 qPrintable(run.err));
        QVERIFY(run.err.contains(QStringLiteral("last output:")));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
    }

    void raisingInTheFirstRecordedStepExitsTwo()
    {
        // Two steps taken (skip 1, warm-up 1), and the first recorded one raises: nothing is kept.
        QTemporaryDir dir;
        const auto run = recordFailing(dir, "2", "raise");
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("fails_after.py raised before a step was recorded: RuntimeError: the "
                                                 "batch after call 2 is broken")),
                 qPrintable(run.err));
        QVERIFY(run.err.contains(QStringLiteral("last output:")));
        QVERIFY(!run.err.contains(QStringLiteral("the trace is complete")));
        QVERIFY(!run.out.contains(QStringLiteral(".pt.trace.json.gz")));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
    }

    void programsOwnStatusIsReportedAsItsOwn()
    {
        QTemporaryDir dir;
        const auto run = recordFailing(dir, "0", "3");
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("fails_after.py: the program exited with status 3")),
                 qPrintable(run.err));
        QVERIFY(!run.err.contains(QStringLiteral("no usable torch")));
    }

    void raisingAfterARecordKeepsTheTraceAndExitsOne()
    {
        QTemporaryDir dir;
        const QStringList steps{"--steps", "10", "--skip", "0", "--warmup", "0"};
        const auto run = recordFailing(dir, "3", "raise", steps);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("fails_after.py raised RuntimeError: the batch after call 3 is broken "
                                                 "after 3 of 10 steps were recorded")),
                 qPrintable(run.err));
        const auto trace = run.out.trimmed().split(QLatin1Char('\n')).last();
        QVERIFY2(trace.endsWith(QStringLiteral(".pt.trace.json.gz")) && QFileInfo(trace).isFile(), qPrintable(run.out));
        // As JSON too: the traces, and how the program failed.
        QTemporaryDir other;
        const auto json = recordFailing(other, "3", "raise", steps + QStringList{"--format", "json"});
        QCOMPARE(json.exitCode, 1);
        const auto object = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(object.value("traces").toArray().size(), 1);
        QVERIFY(
            object.value("program_failure").toString().contains(QStringLiteral("fails_after.py raised RuntimeError")));
    }

    // Ctrl+C while the trace is written waits for it, says so, and keeps the whole record.
    void ctrlCWhileTheTraceIsWrittenWaitsForIt_data()
    {
        QTest::addColumn<bool>("group");
        QTest::newRow("to the process group") << true;
        QTest::newRow("to the CLI alone") << false;
    }
    void ctrlCWhileTheTraceIsWrittenWaitsForIt()
    {
        QFETCH(bool, group);
        QTemporaryDir dir;
        SlowRecord record(dir, QStringLiteral("3"));
        QVERIFY2(record.waitFor(QStringLiteral("slow export begins")), qPrintable(record.err));
        record.interrupt(group);
        QCOMPARE(record.finish(), 0);
        QVERIFY2(record.err.contains(
                     QStringLiteral("cancelling: waiting for the trace of the 3 recorded steps to be written "
                                    "(Ctrl+C again drops it)")),
                 qPrintable(record.err));
        QVERIFY(record.err.contains(
            QStringLiteral("cancelled after its record was complete; the 3 steps recorded are in")));
        const auto trace = record.out.trimmed().split(QLatin1Char('\n')).last();
        QVERIFY2(trace.endsWith(QStringLiteral(".pt.trace.json.gz")) && QFileInfo(trace).isFile(),
                 qPrintable(record.out));
        const auto steps = runCli({"steps", trace, "--format", "json"});
        QCOMPARE(steps.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(steps.out.toUtf8()).object().value(QStringLiteral("rows")).toArray().size(),
                 3);
    }

    // A second Ctrl+C drops the write at once: nothing kept, no partial file, exit 2.
    void aSecondCtrlCDropsTheWrite_data() { ctrlCWhileTheTraceIsWrittenWaitsForIt_data(); }
    void aSecondCtrlCDropsTheWrite()
    {
        QFETCH(bool, group);
        QTemporaryDir dir;
        SlowRecord record(dir, QStringLiteral("60"));
        QVERIFY2(record.waitFor(QStringLiteral("slow export begins")), qPrintable(record.err));
        record.interrupt(group);
        QVERIFY2(record.waitFor(QStringLiteral("Ctrl+C again drops it"), true), qPrintable(record.err));
        record.interrupt(group);
        QCOMPARE(record.finish(), 2);
        // Ended now, not once the 60 s write had finished: the terminal said so.
        QVERIFY(record.err.contains(QStringLiteral("ending the program now; a trace being written is dropped")));
        QVERIFY2(record.err.contains(
                     QStringLiteral("slow_write.py: cancelled while the trace of its 3 recorded steps was written, "
                                    "and the write was dropped; nothing was kept")),
                 qPrintable(record.err));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList());
    }

    void badArgumentsExitTwo()
    {
        const auto none = runCli({"record", "--python", kPython});
        QCOMPARE(none.exitCode, 2);
        QVERIFY(none.err.contains(QStringLiteral("record needs a program")));
        const auto missing = runCli({"record", "--", "/nonexistent/train.py"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains(QStringLiteral("/nonexistent/train.py: no such script")));
        const auto mark = runCli({"record", "--mark", "epoch", "--", program("train_cnn.py")});
        QCOMPARE(mark.exitCode, 2);
        QVERIFY(mark.err.contains(QStringLiteral("unknown step mark 'epoch'")));
        const auto python = runCli({"record", "--python", "/nonexistent/python", "--", program("train_cnn.py")});
        QCOMPARE(python.exitCode, 2);
        QVERIFY(python.err.contains(QStringLiteral("cannot start /nonexistent/python")));
    }
};

QTEST_GUILESS_MAIN(TestCliRecord)
#include "tst_cli_record.moc"
