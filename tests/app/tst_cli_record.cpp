// pyrometer-cli record: real programs recorded with Debian's python3-torch, as from a shell.
#include "clitestutil.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

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
