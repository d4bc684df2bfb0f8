// pyrometer-cli and a Python engine worker that misbehaves (picked up through $PYROMETER_ENGINE,
// as another version's would be): wrong types, no protocol, garbage, an endless line, a worker
// that lingers after its answer or hangs, Ctrl+C and --timeout. Each is a message and exit 2
// (or the answer, for a lingering worker), never an abort, a hang or a worker left running.
#include "clitestutil.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace pyrometer::testing;

namespace {

const QString kPython = QStringLiteral("/usr/bin/python3");

QString model()
{
    return QStringLiteral(PYROMETER_FIXTURES_DIR "/engine/factory_cnn.py:build");
}

// Whether the process runs (a zombie does not).
bool running(pid_t pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const auto text = QString::fromUtf8(stat.readAll());
    const auto close = text.lastIndexOf(QLatin1Char(')'));
    return close > 0 && text.mid(close + 2, 1) != QStringLiteral("Z");
}

bool gone(pid_t pid)
{
    return QTest::qWaitFor([pid] { return !running(pid); }, 10'000);
}

#ifndef Q_MOC_RUN
// What every fake worker starts with: the status channel, hello, and a flops answer.
const char *kPrelude = R"(
import json, os, signal, subprocess, sys, threading, time
out = os.fdopen(int(os.environ["PYROMETER_STATUS_FD"]), "w")
def emit(**message):
    out.write(json.dumps(message) + "\n")
    out.flush()
def hello():
    emit(event="hello", protocol=1, python="3.11.2", torch="9.9", devices=["cpu"])
def answer_flops():
    emit(event="loaded", kind="factory", parameters=6, inputs=[{"shape": [1, 2], "dtype": "float32"}],
         modules=[{"name": "", "type": "Net", "depth": 0, "own": 6, "total": 6}])
    emit(event="begin", of="ops")
    emit(event="item", of="ops", list="ops", item={"name": "aten::mm", "frames": [], "outputs": [[1, 3]],
         "args": [{"k": "t", "s": [1, 2], "e": 4, "d": "float32"}, {"k": "t", "s": [2, 3], "e": 4, "d": "float32"}]})
    emit(event="end", of="ops")
    emit(event="task_done", task="ops")
    emit(event="done")
)";

const char *kWrongTypes = R"(
hello()
emit(event="loaded", kind=7, parameters="many")
)";
const char *kUnversioned = R"(
emit(event="hello", python="3.9", torch="1.0")
)";
const char *kGarbage = R"(
hello()
print("the model says hello", flush=True)
out.write("\x00\x01 garbage\n")
out.flush()
time.sleep(60)
)";
const char *kOverlong = R"(
hello()
out.write("x" * (5 << 20))
out.flush()
time.sleep(120)
)";
const char *kLingers = R"(
hello()
answer_flops()
threading.Thread(target=time.sleep, args=(600,)).start()
)";
// Hangs, with a child of its own, both pids in the file the first argument after the request names.
const char *kHangs = R"(
hello()
child = subprocess.Popen(["sleep", "600"])
with open(os.environ["FAKE_PIDS"] + ".part", "w") as f:
    f.write("%d %d" % (os.getpid(), child.pid))
os.rename(os.environ["FAKE_PIDS"] + ".part", os.environ["FAKE_PIDS"])
if os.environ.get("FAKE_DEAF"):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
time.sleep(600)
)";
const char *kRequest = R"(
hello()
with open(sys.argv[1]) as f:
    request = json.load(f)
emit(event="error", kind="run", message="request at %s names %s" % (sys.argv[1], request["model"]), detail=[])
)";
#endif

QString writeFake(const QTemporaryDir &dir, const char *body)
{
    const auto path = dir.filePath(QStringLiteral("fake_worker.py"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(kPrelude);
    file.write(body);
    return path;
}

Run flopsWith(const QString &fake, const QStringList &extra = {}, QMap<QString, QString> environment = {})
{
    environment.insert(QStringLiteral("PYROMETER_ENGINE"), fake);
    return runCli(QStringList{QStringLiteral("flops"), model(), QStringLiteral("--python"), kPython} + extra, QString(),
                  environment);
}

} // namespace

class TestCliWorker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void wrongTypesBreakTheProtocol()
    {
        QTemporaryDir dir;
        const auto run = flopsWith(writeFake(dir, kWrongTypes));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral(
                     "the Python engine's worker [/usr/bin/python3 (Python 3.11.2, torch 9.9)] broke its "
                     "protocol: loaded: 'kind' is an integer, not a string")),
                 qPrintable(run.err));
        QVERIFY(run.err.contains(QStringLiteral("($PYROMETER_ENGINE chose this worker)")));
    }

    void aWorkerWithoutAVersionIsNamed()
    {
        QTemporaryDir dir;
        const auto run = flopsWith(writeFake(dir, kUnversioned));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("broke its protocol: hello: 'protocol' is missing")),
                 qPrintable(run.err));
    }

    // Garbage ends the run at once, with the worker's last output.
    void garbageEndsTheRun()
    {
        QTemporaryDir dir;
        const auto run = flopsWith(writeFake(dir, kGarbage));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("broke its protocol: a line that is not JSON")), qPrintable(run.err));
        QVERIFY(run.err.contains(QStringLiteral("its last output:\nthe model says hello")));
    }

    void anEndlessLineEndsTheRun()
    {
        QTemporaryDir dir;
        const auto run = flopsWith(writeFake(dir, kOverlong));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("wrote a line longer than 4 MiB on its channel, and was ended")),
                 qPrintable(run.err));
    }

    // A worker that answers, then does not exit (a model's non-daemon thread): its answer is
    // kept, and it is ended after a grace period.
    void aWorkerThatLingersIsEndedAndItsAnswerKept()
    {
        QTemporaryDir dir;
        const auto run = flopsWith(writeFake(dir, kLingers), {QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(QJsonDocument::fromJson(run.out.toUtf8()).object().value(QStringLiteral("total_macs")).toDouble(),
                 6.0);
    }

    // Ctrl+C (SIGINT as a terminal sends it, or to the CLI alone) and SIGTERM end the worker's
    // process group, its own children included, even a worker deaf to SIGINT.
    void aSignalEndsTheWorkersGroup_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<bool>("group");
        QTest::addColumn<bool>("deaf");
        QTest::newRow("Ctrl+C to the group") << int(SIGINT) << true << false;
        QTest::newRow("SIGINT to the CLI, a deaf worker") << int(SIGINT) << false << true;
        QTest::newRow("SIGTERM to the CLI") << int(SIGTERM) << false << false;
    }
    void aSignalEndsTheWorkersGroup()
    {
        QFETCH(int, signal);
        QFETCH(bool, group);
        QFETCH(bool, deaf);
        QTemporaryDir dir;
        const auto pids = dir.filePath(QStringLiteral("pids"));
        auto environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("PYROMETER_ENGINE"), writeFake(dir, kHangs));
        environment.insert(QStringLiteral("FAKE_PIDS"), pids);
        if (deaf)
            environment.insert(QStringLiteral("FAKE_DEAF"), QStringLiteral("1"));
        QProcess cli;
        cli.setProcessEnvironment(environment);
        cli.setChildProcessModifier([] { ::setpgid(0, 0); });
        cli.start(QStringLiteral(PYROMETER_CLI),
                  {QStringLiteral("flops"), model(), QStringLiteral("--python"), kPython});
        QVERIFY(QTest::qWaitFor([&] { return QFile::exists(pids); }, 60'000));
        QFile file(pids);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto ids = QString::fromUtf8(file.readAll()).split(QLatin1Char(' '));
        const pid_t worker = ids.at(0).toInt();
        const pid_t child = ids.at(1).toInt();
        QVERIFY(running(worker) && running(child));
        ::kill(group ? -pid_t(cli.processId()) : pid_t(cli.processId()), signal);
        QVERIFY(cli.waitForFinished(30'000));
        QCOMPARE(cli.exitCode(), 2);
        const auto err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("factory_cnn.py:build: interrupted")), qPrintable(err));
        QVERIFY(gone(worker));
        QVERIFY(gone(child));
    }

    void aTimeoutStopsAHangingWorker()
    {
        QTemporaryDir dir;
        const auto run = flopsWith(writeFake(dir, kHangs), {QStringLiteral("--timeout"), QStringLiteral("2")},
                                   {{QStringLiteral("FAKE_PIDS"), dir.filePath(QStringLiteral("pids"))}});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("factory_cnn.py:build: stopped after 2 s (--timeout 2)")),
                 qPrintable(run.err));
        QFile file(dir.filePath(QStringLiteral("pids")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(gone(QString::fromUtf8(file.readAll()).split(QLatin1Char(' ')).at(0).toInt()));
    }

    // The request reaches the worker on an inherited descriptor: no file in $TMPDIR that
    // another user could replace (a link to another model) or read.
    void theRequestIsNoFile()
    {
        QTemporaryDir dir;
        QTemporaryDir tmp;
        const auto run = flopsWith(writeFake(dir, kRequest), {}, {{QStringLiteral("TMPDIR"), tmp.path()}});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("request at /dev/fd/4 names ") + model()), qPrintable(run.err));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestCliWorker)
#include "tst_cli_worker.moc"
