// The Slurm path on a real Slurm: a one-node cluster started on this machine (slurm-cluster),
// scripts/slurm/summarize-job submitting the job array and its merge over a generated 16-rank
// job, and the merged result read by pyrometer-cli ranks exactly as the same traces read in
// process. A machine that cannot run the daemons fails here with the reason: never skipped.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kCluster = QStringLiteral(PYROMETER_SOURCE_DIR "/tests/slurm/slurm-cluster");
const QString kSubmit = QStringLiteral(PYROMETER_SOURCE_DIR "/scripts/slurm/summarize-job");
const QString kCli = QStringLiteral(PYROMETER_CLI);
const QString kJob16 = QStringLiteral(PYROMETER_TEST_JOBS_DIR "/job16");

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
    QString all() const { return out + err; }
};

Run run(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment, int seconds)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    if (!process.waitForStarted())
        return {-3, {}, program + " did not start: " + process.errorString()};
    if (!process.waitForFinished(seconds * 1000)) {
        process.kill();
        process.waitForFinished();
        return {-2, QString::fromUtf8(process.readAllStandardOutput()),
                program + QString(" did not finish in %1 s: ").arg(seconds) +
                    QString::fromUtf8(process.readAllStandardError())};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

} // namespace

class TestSlurm : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
    bool m_started = false;

    QString clusterDir() const { return m_dir.filePath("cluster"); }

    Run ranks(const QString &path) const { return run(kCli, {"ranks", path, "--format", "json"}, m_environment, 180); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(kJob16 + "/job.json"), qPrintable("the rank_jobs fixture did not write " + kJob16));
        const auto started = run(kCluster, {"start", clusterDir()}, m_environment, 150);
        m_started = true; // whatever it started is stopped in cleanupTestCase
        QVERIFY2(started.exitCode == 0,
                 qPrintable("this machine could not start a one-node Slurm cluster:\n" + started.all()));
        m_environment.insert("SLURM_CONF", clusterDir() + "/slurm.conf");
    }

    void jobArrayGivesTheInProcessJob()
    {
        const QString out = m_dir.filePath("out");
        const auto submitted = run(kSubmit,
                                   {"--cli", kCli, "--out", out, "--mem", "512M", "--time", "00:10:00", "--wait",
                                    "--wait-timeout", "400", kJob16},
                                   m_environment, 450);
        QVERIFY2(submitted.exitCode == 0, qPrintable(submitted.all()));
        QVERIFY2(submitted.all().contains("16"), qPrintable(submitted.all()));

        // One summary a rank, each a few kilobytes, and the merged job.
        const auto summaries = QDir(out + "/summaries").entryInfoList({"*.summary.json"}, QDir::Files);
        QCOMPARE(summaries.size(), 16);
        for (const auto &summary : summaries)
            QVERIFY2(summary.size() > 1000 && summary.size() < 64 * 1024, qPrintable(summary.filePath()));
        QVERIFY(QFileInfo::exists(out + "/job.json"));
        QCOMPARE(QFile(out + "/files.txt").open(QIODevice::ReadOnly), true);

        const auto merged = ranks(out + "/job.json");
        const auto traces = ranks(QFileInfo(kJob16).absoluteFilePath());
        QCOMPARE(merged.exitCode, 0);
        QCOMPARE(traces.exitCode, 0);
        QVERIFY(!traces.out.isEmpty());
        QCOMPARE(merged.out, traces.out);

        const auto json = QJsonDocument::fromJson(merged.out.toUtf8()).object();
        QCOMPARE(json.value("ranks").toArray().size(), 16);
        QCOMPARE(json.value("stragglers").toArray(), QJsonArray({11}));
    }

    void failedTaskIsReported()
    {
        // Three good ranks and one cut in half: its task fails, the merge never runs, and the
        // script says which file.
        const QString traces = m_dir.filePath("broken");
        QDir().mkpath(traces);
        for (int rank = 0; rank < 3; ++rank) {
            const QString name = QString("rank-%1.json.gz").arg(rank);
            QVERIFY(QFile::copy(kJob16 + "/" + name, traces + "/" + name));
        }
        QFile whole(kJob16 + "/rank-3.json.gz");
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const auto bytes = whole.readAll();
        QFile cut(traces + "/rank-3.json.gz");
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(bytes.left(bytes.size() / 2));
        cut.close();

        const QString out = m_dir.filePath("out-broken");
        const auto submitted =
            run(kSubmit, {"--cli", kCli, "--out", out, "--mem", "512M", "--wait", "--wait-timeout", "300", traces},
                m_environment, 350);
        QCOMPARE(submitted.exitCode, 1);
        QVERIFY2(submitted.all().contains("rank-3.json.gz"), qPrintable(submitted.all()));
        QVERIFY(!QFileInfo::exists(out + "/job.json"));
    }

    void cleanupTestCase()
    {
        if (!m_started)
            return;
        const auto stopped = run(kCluster, {"stop", clusterDir()}, m_environment, 120);
        QVERIFY2(stopped.exitCode == 0, qPrintable(stopped.all()));
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_slurm.moc"
