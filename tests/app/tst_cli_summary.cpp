// pyrometer-cli summarize and merge: a job summarised rank by rank and merged reads, through
// ranks, exactly as the same traces do; merged files merge again; bad input is named.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "clitestutil.h"

using namespace pyrometer::testing;

namespace {

const QString kRealRanks = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/multirank");
const QString kJobs = QStringLiteral(PYROMETER_TEST_JOBS_DIR);

QByteArray contents(const QString &file)
{
    QFile in(file);
    return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
}

// Summarises every trace --list names into dir, one file each; returns their paths.
QStringList summariseAll(const QString &job, const QString &dir)
{
    const auto list = runCli({"summarize", job, "--list"});
    if (list.exitCode != 0)
        return {};
    QStringList summaries;
    int n = 0;
    for (const auto &trace : list.out.split('\n', Qt::SkipEmptyParts)) {
        const QString out = QString("%1/%2.summary.json").arg(dir).arg(n++, 5, 10, QChar('0'));
        const auto run = runCli({"summarize", trace, "-o", out});
        if (run.exitCode != 0) {
            qWarning("%s", qPrintable(run.err));
            return {};
        }
        summaries << out;
    }
    return summaries;
}

} // namespace

class TestCliSummary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(kJobs + "/job8/job.json"),
                 qPrintable("the rank_jobs fixture did not write " + kJobs));
    }

    void listNamesEveryTraceAbsolute()
    {
        const auto run = runCli({"summarize", kJobs + "/job8", "--list"});
        QCOMPARE(run.exitCode, 0);
        const auto lines = run.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 8);
        for (const auto &line : lines) {
            QVERIFY2(QFileInfo(line).isAbsolute() && QFileInfo(line).isFile(), qPrintable(line));
            QVERIFY(line.startsWith(QFileInfo(kJobs + "/job8").absoluteFilePath()));
        }
    }

    void mergedSummariesReadAsTheTraces_data()
    {
        QTest::addColumn<QString>("job");
        QTest::addRow("two real ranks") << kRealRanks;
        QTest::addRow("8 generated ranks") << kJobs + "/job8";
    }

    void mergedSummariesReadAsTheTraces()
    {
        QFETCH(QString, job);
        QTemporaryDir dir;
        const auto summaries = summariseAll(QFileInfo(job).absoluteFilePath(), dir.path());
        QVERIFY(summaries.size() >= 2);
        for (const auto &file : summaries) {
            QVERIFY2(QFileInfo(file).size() < 64 * 1024, qPrintable(file));
            QVERIFY(contents(file).startsWith("{\"kind\":\"pyrometer-rank-summary\",\"format\":1,"));
        }
        const QString merged = dir.filePath("out/job.json");
        QDir().mkpath(dir.filePath("out"));
        const auto merge = runCli({"merge", dir.path(), "-o", merged});
        QCOMPARE(merge.exitCode, 0);
        QVERIFY2(merge.err.contains(QString("merged %1 ranks").arg(summaries.size())), qPrintable(merge.err));

        const auto traces = runCli({"ranks", QFileInfo(job).absoluteFilePath(), "--format", "json"});
        const auto fromMerged = runCli({"ranks", merged, "--format", "json"});
        const auto fromFolder = runCli({"ranks", dir.path(), "--format", "json"});
        QCOMPARE(traces.exitCode, 0);
        QCOMPARE(fromMerged.exitCode, 0);
        QCOMPARE(fromFolder.exitCode, 0);
        QVERIFY(!traces.out.isEmpty());
        QCOMPARE(fromMerged.out, traces.out);
        QCOMPARE(fromFolder.out, traces.out);
        // The tables too, where the straggler and the collectives are said in words.
        QCOMPARE(runCli({"ranks", merged, "--format", "md"}).out,
                 runCli({"ranks", QFileInfo(job).absoluteFilePath(), "--format", "md"}).out);
    }

    void mergeIsAssociativeOnDisk()
    {
        QTemporaryDir dir;
        const auto summaries = summariseAll(QFileInfo(kJobs + "/job8").absoluteFilePath(), dir.path());
        QCOMPARE(summaries.size(), 8);
        const QString left = dir.filePath("left.json"), right = dir.filePath("right.json"),
                      all = dir.filePath("all.json");
        QCOMPARE(runCli({"merge", summaries[0], summaries[1], summaries[2], "-o", left}).exitCode, 0);
        QCOMPARE(runCli({"merge", summaries[3], summaries[4], summaries[5], summaries[6], summaries[7], "-o", right})
                     .exitCode,
                 0);
        const QString both = dir.filePath("both.json");
        QCOMPARE(runCli({"merge", right, left, "-o", both}).exitCode, 0);
        QCOMPARE(runCli(QStringList{"merge"} + summaries + QStringList{"-o", all}).exitCode, 0);
        QVERIFY(!contents(all).isEmpty());
        QCOMPARE(contents(both), contents(all));
        // A part merged again changes nothing.
        const QString again = dir.filePath("again.json");
        QCOMPARE(runCli({"merge", all, left, summaries[7], "-o", again}).exitCode, 0);
        QCOMPARE(contents(again), contents(all));
        const auto json = QJsonDocument::fromJson(contents(all)).object();
        QCOMPARE(json.value("kind").toString(), QString("pyrometer-job-summary"));
        QCOMPARE(json.value("ranks").toArray().size(), 8);
    }

    void stragglerGateWorksOnSummaries()
    {
        QTemporaryDir dir;
        QVERIFY(summariseAll(QFileInfo(kJobs + "/job8").absoluteFilePath(), dir.path()).size() == 8);
        const auto run = runCli({"ranks", dir.path(), "--fail-on-straggler"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("rank 5"), qPrintable(run.err));
    }

    void badInputExitsTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named");
        QTest::addRow("folder without --list") << QStringList{"summarize", kRealRanks} << kRealRanks;
        QTest::addRow("missing trace") << QStringList{"summarize", "/nonexistent/rank-0.json"}
                                       << "/nonexistent/rank-0.json";
        QTest::addRow("trace to merge") << QStringList{"merge", kRealRanks + "/sampled_rank-0.json.gz"}
                                        << kRealRanks + "/sampled_rank-0.json.gz";
        QTest::addRow("missing summary") << QStringList{"merge", "/nonexistent/a.summary.json"}
                                         << "/nonexistent/a.summary.json";
    }

    void badInputExitsTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        const auto run = runCli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(named), qPrintable(run.err));
        QCOMPARE(run.err.count('\n'), 1);
    }

    void damagedSummaryAndTruncatedTrace()
    {
        QTemporaryDir dir;
        const QString damaged = dir.filePath("rank-3.summary.json");
        QFile out(damaged);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("{\"kind\":\"pyrometer-rank-summary\",\"format\":1,\"rank\":{\"trace\":");
        out.close();
        const auto ranks = runCli({"ranks", damaged});
        QCOMPARE(ranks.exitCode, 2);
        QVERIFY2(ranks.err.contains(damaged) && ranks.err.contains("not valid JSON"), qPrintable(ranks.err));
        const auto merge = runCli({"merge", dir.path(), "-o", dir.filePath("job.json")});
        QCOMPARE(merge.exitCode, 2);
        QVERIFY(!QFileInfo::exists(dir.filePath("job.json")));

        const QByteArray trace = contents(kRealRanks + "/sampled_rank-0.json.gz");
        const QString cut = dir.filePath("rank-0.json.gz");
        QFile truncated(cut);
        QVERIFY(truncated.open(QIODevice::WriteOnly));
        truncated.write(trace.left(trace.size() / 2));
        truncated.close();
        const auto summarize = runCli({"summarize", cut, "-o", dir.filePath("r.summary.json")});
        QCOMPARE(summarize.exitCode, 2);
        QVERIFY2(summarize.err.contains(cut), qPrintable(summarize.err));
        QVERIFY(!QFileInfo::exists(dir.filePath("r.summary.json")));
    }
};

QTEST_GUILESS_MAIN(TestCliSummary)
#include "tst_cli_summary.moc"
