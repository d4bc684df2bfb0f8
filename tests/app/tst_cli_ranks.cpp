// pyrometer-cli ranks and report --job: a distributed job's figures as the core computes them,
// the straggler found and gated on, bad input named, and the job's HTML report.
#include <cmath>
#include <filesystem>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "clitestutil.h"
#include "core/analysis/job.h"
#include "core/report/jobreport.h"
#include "core/report/reportrender.h"

using namespace pyrometer;
using namespace pyrometer::testing;

namespace {

const QString kRealRanks = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/multirank");
const QString kJobs = QStringLiteral(PYROMETER_TEST_JOBS_DIR);

QJsonObject jsonOf(const Run &run)
{
    QJsonParseError error{};
    const auto document = QJsonDocument::fromJson(run.out.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("not JSON (%s): %s", qPrintable(error.errorString()), qPrintable(run.out.left(400)));
    return document.object();
}

QJsonObject manifestOf(const QString &job)
{
    QFile file(job + "/job.json");
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

analysis::JobFigures summarised(const QString &path)
{
    const auto files = analysis::jobFiles({std::filesystem::path(path.toStdString())});
    if (!files.ok())
        return {};
    auto job = analysis::summariseJob(files.value());
    return job.ok() ? std::move(job).value() : analysis::JobFigures{};
}

QList<int> stragglerRanks(const QJsonObject &json)
{
    QList<int> ranks;
    for (const auto &rank : json.value("stragglers").toArray())
        ranks << rank.toInt(-100);
    return ranks;
}

// Microseconds from the JSON against nanoseconds from the core: the CLI divides by 1000.
bool sameMicros(double us, std::int64_t ns)
{
    return std::abs(us - double(ns) / 1000.0) <= 1e-6 * std::max(1.0, std::abs(us));
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// A copy of file cut to half its bytes, in dir, with the same name.
QString truncatedCopy(const QString &file, const QString &dir)
{
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        return {};
    const auto bytes = in.readAll();
    const QString path = dir + "/" + QFileInfo(file).fileName();
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(bytes.left(bytes.size() / 2));
    return path;
}

} // namespace

class TestCliRanks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(kRealRanks + "/sampled_rank-0.json.gz"), qPrintable(kRealRanks));
        QVERIFY2(QFileInfo::exists(kJobs + "/job8/job.json"),
                 qPrintable("the rank_jobs fixture did not write " + kJobs + "/job8"));
    }

    void helpListsRanksAndReportJob()
    {
        const auto run = runCli({"--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QRegularExpression("\\n\\s+ranks\\s")), qPrintable(run.out));
        const auto report = runCli({"report", "--help"});
        QVERIFY2(report.out.contains("--job"), qPrintable(report.out));
    }

    // Two real ranks of a 128-rank NCCL job: the JSON holds what the core computes, and its
    // figures hold together.
    void realRanksJsonAgreesWithTheCore()
    {
        const auto run = runCli({"ranks", kRealRanks, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = jsonOf(run);
        const auto job = summarised(kRealRanks);
        QCOMPARE(job.ranks.size(), std::size_t(2));

        const auto ranks = json.value("ranks").toArray();
        QCOMPARE(ranks.size(), 2);
        QCOMPARE(json.value("world_size").toInt(), job.worldSize);
        QCOMPARE(json.value("backend").toString().toStdString(), job.backend);
        QCOMPARE(json.value("anchor").toString().toStdString(), job.anchor);
        for (int i = 0; i < ranks.size(); ++i) {
            const auto r = ranks[i].toObject();
            const auto &core = job.ranks[std::size_t(i)];
            QCOMPARE(r.value("rank").toInt(-100), i);
            QCOMPARE(core.rank, i);
            QVERIFY2(r.value("file").toString().endsWith(QString("sampled_rank-%1.json.gz").arg(i)),
                     qPrintable(r.value("file").toString()));
            QCOMPARE(r.value("steps").toInt(), 2);
            QCOMPARE(r.value("steps").toInt(), core.stepCount());
            QVERIFY(r.value("step_time_us").toDouble() > 0);
            QVERIFY(close(r.value("step_time_us").toDouble(), core.stepTimeUs));
            QVERIFY(sameMicros(r.value("compute_us").toDouble(), core.computeNs));
            QVERIFY(sameMicros(r.value("communication_us").toDouble(), core.communicationNs));
            QVERIFY(sameMicros(r.value("memory_us").toDouble(), core.memoryNs));
            QVERIFY(sameMicros(r.value("idle_us").toDouble(), core.idleNs));
            QVERIFY(sameMicros(r.value("exposed_communication_us").toDouble(), core.exposedCommunicationNs));
            QVERIFY(sameMicros(r.value("wait_us").toDouble(), job.waitNs[std::size_t(i)]));
            QVERIFY(sameMicros(r.value("clock_offset_us").toDouble(), job.clockOffsetNs[std::size_t(i)]));
            QVERIFY(close(r.value("overlap_pct").toDouble(), core.overlapPct));

            // The five parts partition the window; communication is its hidden and exposed parts.
            const double window = r.value("window_us").toDouble();
            QVERIFY(window > 0);
            const double parts = r.value("compute_only_us").toDouble() + r.value("hidden_communication_us").toDouble() +
                                 r.value("exposed_communication_us").toDouble() + r.value("memory_only_us").toDouble() +
                                 r.value("idle_us").toDouble();
            QVERIFY2(std::abs(parts - window) < 0.01, qPrintable(QString("%1 != %2").arg(parts).arg(window)));
            QVERIFY(std::abs(r.value("hidden_communication_us").toDouble() +
                             r.value("exposed_communication_us").toDouble() - r.value("communication_us").toDouble()) <
                    0.01);
            QVERIFY(r.value("compute_us").toDouble() >= r.value("compute_only_us").toDouble());
            QVERIFY(r.value("communication_us").toDouble() > 0); // NCCL kernels run on both ranks
            const double overlap = r.value("overlap_pct").toDouble();
            QVERIFY2(overlap >= 0 && overlap <= 100, qPrintable(QString::number(overlap)));
            QVERIFY(std::abs(overlap - 100.0 * r.value("hidden_communication_us").toDouble() /
                                           r.value("communication_us").toDouble()) < 1e-6);
        }

        QList<int> coreStragglers;
        for (const auto &s : job.stragglers)
            coreStragglers << s.rank;
        QCOMPARE(stragglerRanks(json), coreStragglers);
        QCOMPARE(json.value("straggler_reasons").toArray().size(), coreStragglers.size());

        // Ranks 2 to 127 are missing, and the problems say so.
        const auto problems = json.value("problems").toArray();
        QVERIFY(!problems.isEmpty());
        QVERIFY2(QJsonDocument(problems).toJson().contains("missing"), QJsonDocument(problems).toJson().constData());
    }

    void realRanksCollectivesBandwidth()
    {
        const auto run = runCli({"ranks", kRealRanks, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = jsonOf(run);
        const auto collectives = json.value("collectives").toArray();
        QVERIFY(!collectives.isEmpty());
        QCOMPARE(std::size_t(collectives.size()), summarised(kRealRanks).collectives.size());
        int known = 0;
        for (const auto &value : collectives) {
            const auto c = value.toObject();
            const auto name = c.value("name").toString();
            QVERIFY(!name.isEmpty());
            QVERIFY(c.value("calls").toInteger() > 0);
            const double time = c.value("time_us").toDouble();
            QVERIFY(time > 0);
            if (c.value("bytes").isNull()) {
                QVERIFY(c.value("algbw_gbps").isNull() && c.value("busbw_gbps").isNull());
                continue;
            }
            ++known;
            const double bytes = c.value("bytes").toDouble();
            QVERIFY(bytes >= 0);
            // GB/s (1e9 bytes): bytes x calls over the time in seconds.
            const double algbw = bytes * double(c.value("calls").toInteger()) / (time * 1e3);
            QVERIFY2(std::abs(c.value("algbw_gbps").toDouble() - algbw) <= 1e-9 * std::max(1.0, algbw),
                     qPrintable(QString("%1: %2 != %3").arg(name).arg(c.value("algbw_gbps").toDouble()).arg(algbw)));
            const double factor = analysis::busBandwidthFactor(name.toStdString(), c.value("group_size").toInt());
            QVERIFY(factor > 0);
            QVERIFY(std::abs(c.value("busbw_gbps").toDouble() - algbw * factor) <= 1e-9 * std::max(1.0, algbw));
            if (name == "all_reduce" && c.value("group_size").toInt() > 1)
                QVERIFY(c.value("busbw_gbps").toDouble() > c.value("algbw_gbps").toDouble());
        }
        QVERIFY(known > 0); // the real ranks' collectives carry their message sizes
    }

    void realRanksFailOnStragglerMatchesTheJson()
    {
        const auto json = jsonOf(runCli({"ranks", kRealRanks, "--format", "json"}));
        const auto stragglers = stragglerRanks(json);
        const auto gate = runCli({"ranks", kRealRanks, "--fail-on-straggler", "--format", "json"});
        QCOMPARE(gate.exitCode, stragglers.isEmpty() ? 0 : 1);
        for (const int rank : stragglers)
            QVERIFY2(gate.err.contains(QString("rank %1 ").arg(rank)), qPrintable(gate.err));
        // Without the flag a straggler is a finding, not a failure.
        QCOMPARE(runCli({"ranks", kRealRanks}).exitCode, 0);
    }

    void realRanksText()
    {
        const auto run = runCli({"ranks", kRealRanks}, "200");
        QCOMPARE(run.exitCode, 0);
        for (const char *column : {"rank", "steps", "step us", "compute us", "comm us", "exposed comm us", "memory us",
                                   "idle us", "overlap %", "wait us"})
            QVERIFY2(run.out.contains(column), column);
        QVERIFY(run.out.contains("sampled_rank-1.json.gz"));
        QVERIFY(run.out.contains(QRegularExpression("(Straggler: rank \\d+ \u2014 compute|No straggler: )")));
        QVERIFY(run.out.contains("busbw GB/s"));
        QVERIFY(run.out.contains(QRegularExpression("Problem: .*missing")));
        QVERIFY(run.out.contains("Clocks: "));
    }

    void realRanksCsvIsTheRanksTable()
    {
        const auto run = runCli({"ranks", kRealRanks + "/sampled_rank-0.json.gz",
                                 kRealRanks + "/sampled_rank-1.json.gz", "--format", "csv"});
        QCOMPARE(run.exitCode, 0);
        const auto rows = parseCsv(run.out);
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[0].first(), "rank");
        QCOMPARE(rows[1].first(), "0");
        QCOMPARE(rows[2].first(), "1");
        QCOMPARE(rows[1].size(), rows[0].size());
    }

    void generatedJobHasItsSlowRank_data()
    {
        QTest::addColumn<QString>("job");
        QTest::addRow("job8") << "job8";
        QTest::addRow("job64") << "job64";
    }

    void generatedJobHasItsSlowRank()
    {
        QFETCH(QString, job);
        const QString dir = kJobs + "/" + job;
        const auto manifest = manifestOf(dir);
        QVERIFY2(!manifest.isEmpty(), qPrintable(dir + "/job.json"));
        const int slow = manifest.value("slow_rank").toInt(-1);
        QVERIFY(slow >= 0);

        const auto run = runCli({"ranks", dir, "--format", "json", "--threads", "2"});
        QCOMPARE(run.exitCode, 0);
        const auto json = jsonOf(run);
        QCOMPARE(json.value("ranks").toArray().size(), manifest.value("ranks").toInt());
        QCOMPARE(stragglerRanks(json), QList<int>{slow});
        const auto reasons = json.value("straggler_reasons").toArray();
        QCOMPARE(reasons.size(), 1);
        QVERIFY(reasons[0].toObject().value("ratio").toDouble() > 1.1);

        const auto gate = runCli({"ranks", dir, "--fail-on-straggler"});
        QCOMPARE(gate.exitCode, 1);
        QVERIFY2(gate.err.contains(QString("Straggler: rank %1 ").arg(slow)), qPrintable(gate.err));
        QVERIFY2(gate.out.contains(QString("Straggler: rank %1 ").arg(slow)), qPrintable(gate.out));
    }

    void collectivesNameTheirProcessGroup()
    {
        // One rank of four whose all_reduce runs in process group "0" of ranks 0-3.
        const auto run =
            runCli({"ranks", "--format", "md", QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/collective_args.json")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QStringLiteral("| collective | group | members | bytes | ranks |")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("| all_reduce | 0 | 0-3 | 4000 | 4 | 1 |")), qPrintable(run.out));
        const auto json = QJsonDocument::fromJson(runCli({"ranks", "--format", "json",
                                                          QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/collective_args.json")})
                                                      .out.toUtf8())
                              .object();
        const auto collective = json["collectives"].toArray()[0].toObject();
        QCOMPARE(collective["group"].toString(), QStringLiteral("0"));
        QCOMPARE(collective["group_ranks"].toString(), QStringLiteral("0-3"));
        QCOMPARE(collective["group_size"].toInt(), 4);
    }

    void badInputIsNamed_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addRow("missing path") << "missing";
        QTest::addRow("folder without traces") << "empty";
        QTest::addRow("not a trace") << "text";
        QTest::addRow("truncated gzip") << "truncated";
        QTest::addRow("truncated gzip among good ranks") << "truncated-in-folder";
    }

    // A rank that does not load among ranks that do: the output is the other ranks, with the
    // failed one among its problems; stderr names it and the exit status says the input was bad.

    void badInputIsNamed()
    {
        QFETCH(QString, what);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList paths;
        QString named; // what the message must name
        if (what == "missing") {
            named = dir.filePath("no-such-job");
            paths << named;
        } else if (what == "empty") {
            QFile notes(dir.filePath("notes.txt"));
            QVERIFY(notes.open(QIODevice::WriteOnly));
            notes.write("not a trace\n");
            notes.close();
            named = dir.path();
            paths << named;
        } else if (what == "text") {
            named = dir.filePath("rank-0.json");
            QFile text(named);
            QVERIFY(text.open(QIODevice::WriteOnly));
            text.write("this is not JSON at all\n");
            text.close();
            paths << named << kRealRanks + "/sampled_rank-1.json.gz";
        } else if (what == "truncated") {
            named = truncatedCopy(kRealRanks + "/sampled_rank-0.json.gz", dir.path());
            QVERIFY(!named.isEmpty());
            paths << named;
        } else {
            QVERIFY(QFile::copy(kRealRanks + "/sampled_rank-1.json.gz", dir.filePath("sampled_rank-1.json.gz")));
            named = truncatedCopy(kRealRanks + "/sampled_rank-0.json.gz", dir.path());
            QVERIFY(!named.isEmpty());
            paths << dir.path();
        }
        const QStringList ranks = QStringList{"ranks", "--format", "json"} + paths;
        const QStringList report = QStringList{"report", "--job", "-o", dir.filePath("job.html")} + paths;
        const QString name = QFileInfo(named).fileName();
        if (what == "text" || what == "truncated-in-folder") {
            const auto run = runCli(ranks);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.trimmed().split('\n').first().contains(name), qPrintable(run.err));
            const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
            QCOMPARE(json["ranks"].toArray().size(), 1);
            QCOMPARE(json["failed_ranks"].toArray().size(), 1);
            QVERIFY(json["failed_ranks"].toArray()[0].toObject()["message"].toString().contains(name));
            const auto written = runCli(report);
            QCOMPARE(written.exitCode, 2);
            QFile html(dir.filePath("job.html"));
            QVERIFY(html.open(QIODevice::ReadOnly));
            QVERIFY(QString::fromUtf8(html.readAll()).contains(name));
            return;
        }
        for (const auto &arguments : {ranks, report}) {
            const auto run = runCli(arguments);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
            const auto message = run.err.trimmed();
            QVERIFY2(!message.contains('\n'), qPrintable(message));
            QVERIFY2(message.contains(QFileInfo(named).fileName()), qPrintable(message + " does not name " + named));
            QVERIFY(!QFileInfo::exists(dir.filePath("job.html")));
        }
    }

    // The report of a job: its straggler in words and evidence, and a chart of every rank.
    void jobReportShowsTheStragglerAndAChart()
    {
        const QString dir = kJobs + "/job8";
        const int slow = manifestOf(dir).value("slow_rank").toInt(-1);
        QCOMPARE(slow, 5);
        QTemporaryDir out;
        const auto path = out.filePath("job8.html");
        const auto run = runCli({"report", "--job", dir, "-o", path});
        QCOMPARE(run.exitCode, 0);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto html = QString::fromUtf8(file.readAll());
        QVERIFY2(html.contains("Straggler: rank 5 \u2014 compute"), qPrintable(html.left(2000)));
        QVERIFY(html.contains("id=\"stragglers\""));
        QVERIFY(html.contains("id=\"collectives\""));
        QVERIFY(html.contains("busbw GB/s"));

        // The chart: an SVG with a bar for every rank, rank 5 among them.
        const QRegularExpression image("data:image/svg\\+xml;base64,([A-Za-z0-9+/=]+)");
        const auto match = image.match(html);
        QVERIFY(match.hasMatch());
        const auto svg = QString::fromUtf8(QByteArray::fromBase64(match.captured(1).toLatin1()));
        QVERIFY(svg.startsWith("<svg"));
        for (int rank = 0; rank < 8; ++rank)
            QVERIFY2(svg.contains(QString(">rank %1<").arg(rank)), qPrintable(QString::number(rank)));
        QVERIFY(svg.contains("Exposed communication"));
    }

    // The chart's bars are the ranks' windows, split into the core's partition.
    void jobChartAddsUpToEachWindow()
    {
        const auto job = summarised(kJobs + "/job8");
        QCOMPARE(job.ranks.size(), std::size_t(8));
        const auto chart = report::rankChart(job);
        QCOMPARE(chart.bars.size(), job.ranks.size());
        QCOMPARE(chart.seriesNames.size(), report::kRankPartNames.size());
        for (std::size_t i = 0; i < job.ranks.size(); ++i) {
            double sum = 0;
            for (const auto value : chart.bars[i].values)
                sum += value;
            QVERIFY(std::abs(sum - double(job.ranks[i].windowNs()) / 1e6) < 1e-6);
            QVERIFY(job.ranks[i].windowNs() > 0);
        }
        const auto columns = report::rankColumnChart(job, 3);
        QCOMPARE(columns.itemCount, std::size_t(8));
        QCOMPARE(columns.itemsPerColumn, std::size_t(3));
        QCOMPARE(columns.columns.size(), std::size_t(3));

        const auto sections = report::jobSections(job, "job-");
        QVERIFY(!sections.empty());
        QCOMPARE(sections.front().id, "job-job");
        const auto html = report::renderHtml(report::makeReport({"job8"}, sections));
        QVERIFY(html.find("Straggler: rank 5") != std::string::npos);
        QCOMPARE(report::stragglerSentences(job).size(), job.stragglers.size());
    }
};

QTEST_GUILESS_MAIN(TestCliRanks)
#include "tst_cli_ranks.moc"
