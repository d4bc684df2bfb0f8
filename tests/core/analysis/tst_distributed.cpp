// Per-rank and job figures: the two real ranks against an independent calculation in Python
// (scripts/make-distributed-fixtures.py), the CPU-only gloo rank by hand, the rules (names, bus
// factors, stragglers, identity, alignment) on small hand-made figures, the collective args of
// newer torch on a hand-written trace, and generated jobs with one slowed rank.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/distributed.h"
#include "core/analysis/job.h"
#include "core/analysis/stepmeasures.h"
#endif

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <fstream>
#include <numeric>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

std::filesystem::path rankFixture(int rank)
{
    return std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces" / "multirank"
        / ("sampled_rank-" + std::to_string(rank) + ".json.gz");
}

RankFigures figuresOf(const std::filesystem::path &file)
{
    auto trace = trace::loadTrace(file);
    if (!trace.ok()) {
        qWarning("%s", trace.error().message.c_str());
        return {};
    }
    const auto index = buildTraceIndex(*trace.value());
    return rankFigures(*index);
}

QJsonObject goldenRank(int i)
{
    QFile file(QString::fromStdString(goldenPath("multirank", ".ranks.json").string()));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object()["ranks"].toArray()[i].toObject();
}

std::int64_t ns(const QJsonValue &value)
{
    // Instants since the epoch come as strings: more digits than a double keeps.
    return value.isString() ? value.toString().toLongLong() : value.toInteger();
}

// A rank with given compute per step (µs) over two steps, for the straggler rules.
RankFigures rankComputing(int rank, double computePerStepUs)
{
    RankFigures r;
    r.rank = rank;
    r.worldSize = 8;
    r.file = "rank-" + std::to_string(rank) + ".json";
    r.steps = {{"ProfilerStep#1", 0, 1'000'000, 0, 0}, {"ProfilerStep#2", 1'000'000, 1'000'000, 0, 0}};
    r.computeNs = static_cast<std::int64_t>(computePerStepUs * 1000 * 2);
    return r;
}

void writeFile(const QString &path, const QByteArray &text)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

} // namespace

class TestDistributed : public QObject {
    Q_OBJECT

private slots:
    void realRanksMatchIndependentFigures_data()
    {
        QTest::addColumn<int>("rank");
        QTest::newRow("rank 0") << 0;
        QTest::newRow("rank 1") << 1;
    }

    void realRanksMatchIndependentFigures()
    {
        QFETCH(int, rank);
        const auto golden = goldenRank(rank);
        QVERIFY(!golden.isEmpty());
        const auto f = figuresOf(rankFixture(rank));
        QCOMPARE(f.rank, golden["rank"].toInt());
        QCOMPARE(f.worldSize, golden["world_size"].toInt());
        QCOMPARE(f.backend, std::string("nccl"));
        QVERIFY(!f.cpuOnly);
        QCOMPARE(f.windowStartNs, ns(golden["window_start_ns"]));
        QCOMPARE(f.windowEndNs, ns(golden["window_end_ns"]));
        QCOMPARE(f.computeNs, ns(golden["compute_ns"]));
        QCOMPARE(f.communicationNs, ns(golden["communication_ns"]));
        QCOMPARE(f.memoryNs, ns(golden["memory_ns"]));
        QCOMPARE(f.idleNs, ns(golden["idle_ns"]));
        QCOMPARE(f.overlapNs, ns(golden["overlap_ns"]));
        QCOMPARE(f.overlapPct, 100.0 * static_cast<double>(f.overlapNs) / static_cast<double>(f.communicationNs));

        const auto steps = golden["steps"].toArray();
        QCOMPARE(f.stepCount(), static_cast<int>(steps.size()));
        std::int64_t total = 0;
        for (int i = 0; i < f.stepCount(); ++i) {
            const auto step = steps[i].toObject();
            QCOMPARE(QString::fromStdString(f.steps[i].name), step["name"].toString());
            QCOMPARE(f.steps[i].startNs, ns(step["start_ns"]));
            QCOMPARE(f.steps[i].durationNs, ns(step["duration_ns"]));
            QCOMPARE(f.steps[i].computeNs, ns(step["compute_ns"]));
            QCOMPARE(f.steps[i].communicationNs, ns(step["communication_ns"]));
            total += f.steps[i].durationNs;
        }
        QCOMPARE(f.stepTimeUs, static_cast<double>(total) / f.stepCount() / 1000.0);

        // The partition of the window adds up.
        QCOMPARE(f.computeOnlyNs + f.hiddenCommunicationNs + f.exposedCommunicationNs + f.memoryOnlyNs + f.idleNs,
                 f.windowNs());

        // Every NCCL kernel is one call, named by the annotation that launched it.
        QStringList names;
        for (const auto &call : f.collectives) {
            names << QString::fromStdString(call.name);
            QVERIFY(call.onDevice);
            QVERIFY(call.endNs > call.startNs);
            QVERIFY2(call.bytes > 0, call.name.c_str());
        }
        QStringList expected;
        for (const auto &name : golden["annotated_collectives"].toArray())
            expected << QString::fromStdString(canonicalCollective(name.toString().toStdString()));
        names.sort();
        expected.sort();
        QCOMPARE(names, expected);
    }

    void collectiveSizesFromTheOpsAroundTheLaunch()
    {
        const auto f = figuresOf(rankFixture(0));
        // nccl:all_reduce's Input Dims [[19618307]] of float; _all_gather_base's c10d op writes
        // [[1073741824], [16777216]] of signed char: the output is 64 inputs, a group of 64.
        const auto allReduce = std::find_if(f.collectives.begin(), f.collectives.end(), [](const CollectiveCall &c) {
            return c.name == "all_reduce";
        });
        QVERIFY(allReduce != f.collectives.end());
        QCOMPARE(allReduce->bytes, std::int64_t(19618307) * 4);
        const auto gather = std::find_if(f.collectives.begin(), f.collectives.end(), [](const CollectiveCall &c) {
            return c.name == "all_gather";
        });
        QVERIFY(gather != f.collectives.end());
        QCOMPARE(gather->bytes, std::int64_t(1073741824));
        QCOMPARE(gather->groupSize, 64);
    }

    void cpuOnlyRankUsesGlooAnnotations()
    {
        const auto f = figuresOf(fixturePath("cpu_gloo"));
        QVERIFY(f.cpuOnly);
        QCOMPARE(f.rank, 34);
        QCOMPARE(f.worldSize, 300);
        QCOMPARE(f.backend, std::string("gloo"));
        QCOMPARE(f.stepCount(), 1);
        // The step [1212075529876.817, +210109.162] µs holds the first gloo:all_reduce of each
        // thread: [..548353.304, +173209.713] and [..556659.473, +170471.258]; their union runs
        // from 548353.304 to 727130.731.
        QCOMPARE(f.windowStartNs, std::int64_t(1212075529876817));
        QCOMPARE(f.windowNs(), std::int64_t(210109162));
        QCOMPARE(f.communicationNs, std::int64_t(727130731 - 548353304));
        QCOMPARE(f.computeNs, std::int64_t(0)); // its only ops run after the step
        QCOMPARE(f.idleNs, f.windowNs() - f.communicationNs);
        QCOMPARE(f.collectives.size(), std::size_t(10));
        for (const auto &call : f.collectives) {
            QCOMPARE(call.name, std::string("all_reduce"));
            QVERIFY(!call.onDevice);
            QVERIFY(call.bytes == 321271 * 4 || call.bytes == 2082411 * 4);
        }
    }

    void canonicalNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("annotation") << "nccl:all_reduce" << "all_reduce";
        QTest::newRow("gather base") << "nccl:_all_gather_base" << "all_gather";
        QTest::newRow("c10d") << "c10d::allreduce_" << "all_reduce";
        QTest::newRow("args") << "allreduce" << "all_reduce";
        QTest::newRow("tensor") << "reduce_scatter_tensor_coalesced" << "reduce_scatter";
        QTest::newRow("alltoall base") << "alltoall_base" << "all_to_all";
        QTest::newRow("gloo") << "gloo:broadcast" << "broadcast";
        QTest::newRow("kernel") << "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
                                << "all_reduce";
        QTest::newRow("dev kernel") << "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                                    << "all_gather";
        QTest::newRow("send recv") << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)" << "send_recv";
        QTest::newRow("reduce") << "nccl:reduce" << "reduce";
        QTest::newRow("send") << "send" << "send";
        QTest::newRow("other") << "nccl:monitored_barrier_" << "barrier";
        QTest::newRow("unknown") << "nccl:custom_thing_" << "custom_thing";
    }

    void canonicalNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, canonical);
        QCOMPARE(QString::fromStdString(canonicalCollective(name.toStdString())), canonical);
    }

    void communicationKernels()
    {
        QVERIFY(isCommunicationKernelName("ncclKernel_AllReduce_RING_LL_Sum_float"));
        QVERIFY(isCommunicationKernelName("ncclDevKernel_Broadcast_RING_LL"));
        QVERIFY(isCommunicationKernelName("void rcclKernel<...>"));
        QVERIFY(isCommunicationKernelName("NCCL_something"));
        QVERIFY(!isCommunicationKernelName("volta_sgemm_128x64_nn"));
        QVERIFY(!isCommunicationKernelName("void at::native::vectorized_elementwise_kernel<4>"));
    }

    void busFactorsAreNcclTests()
    {
        QCOMPARE(busBandwidthFactor("all_reduce", 8), 2.0 * 7 / 8);
        QCOMPARE(busBandwidthFactor("all_gather", 8), 7.0 / 8);
        QCOMPARE(busBandwidthFactor("reduce_scatter", 4), 3.0 / 4);
        QCOMPARE(busBandwidthFactor("all_to_all", 128), 127.0 / 128);
        QCOMPARE(busBandwidthFactor("broadcast", 8), 1.0);
        QCOMPARE(busBandwidthFactor("reduce", 8), 1.0);
        QCOMPARE(busBandwidthFactor("all_reduce", 1), 0.0);
    }

    void dtypeSizes()
    {
        QCOMPARE(dtypeBytes("float"), 4);
        QCOMPARE(dtypeBytes("Float"), 4);
        QCOMPARE(dtypeBytes("c10::Half"), 2);
        QCOMPARE(dtypeBytes("c10::BFloat16"), 2);
        QCOMPARE(dtypeBytes("long int"), 8);
        QCOMPARE(dtypeBytes("unsigned char"), 1);
        QCOMPARE(dtypeBytes("signed char"), 1);
        QCOMPARE(dtypeBytes("double"), 8);
        QCOMPARE(dtypeBytes("Scalar"), 0);
        QCOMPARE(dtypeBytes(""), 0);
    }

    void collectiveTableBandwidths()
    {
        // Two all-reduces of 1 MB (1 ms and 3 ms) and one of 2 MB (2 ms), in a group of 4.
        const std::vector<CollectiveCall> calls{
            {"all_reduce", 1'000'000, 4, 0, 1'000'000, true},
            {"all_reduce", 1'000'000, 4, 5'000'000, 8'000'000, true},
            {"all_reduce", 2'000'000, -1, 10'000'000, 12'000'000, true},
            {"broadcast", -1, -1, 0, 500, true},
        };
        const auto rows = collectiveTable(calls, 8, 3);
        QCOMPARE(rows.size(), std::size_t(3));
        // Largest time first.
        QCOMPARE(rows[0].bytes, std::int64_t(1'000'000));
        QCOMPARE(rows[0].calls, std::uint64_t(2));
        QCOMPARE(rows[0].timeNs, std::int64_t(4'000'000));
        QCOMPARE(rows[0].rank, 3);
        QCOMPARE(rows[0].groupSize, 4);
        QCOMPARE(rows[0].algbwGBps, 0.5); // 2 MB in 4 ms
        QCOMPARE(rows[0].busbwGBps, 0.5 * 2 * 3 / 4);
        QCOMPARE(rows[1].bytes, std::int64_t(2'000'000));
        QCOMPARE(rows[1].groupSize, 8); // the args do not say: the job's world size
        QCOMPARE(rows[1].algbwGBps, 1.0);
        QCOMPARE(rows[1].busbwGBps, 1.0 * 2 * 7 / 8);
        QCOMPARE(rows[2].name, std::string("broadcast"));
        QCOMPARE(rows[2].algbwGBps, 0.0); // size unknown
    }

    void stragglers_data()
    {
        QTest::addColumn<QList<double>>("compute");
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("pair, one slow") << QList<double>{100, 130} << QList<int>{1};
        QTest::newRow("pair, even") << QList<double>{100, 105} << QList<int>{};
        QTest::newRow("eight, one slow") << QList<double>{100, 101, 99, 100, 102, 150, 100, 98} << QList<int>{5};
        QTest::newRow("eight, noisy") << QList<double>{100, 103, 97, 101, 104, 96, 100, 102} << QList<int>{};
        QTest::newRow("eight, two slow") << QList<double>{100, 140, 99, 100, 102, 150, 100, 98} << QList<int>{1, 5};
        // 10% above the median, but within the others' spread: not an outlier.
        QTest::newRow("wide spread") << QList<double>{80, 120, 90, 110, 100, 125, 85, 115} << QList<int>{};
    }

    void stragglers()
    {
        QFETCH(QList<double>, compute);
        QFETCH(QList<int>, expected);
        std::vector<RankFigures> ranks;
        for (int i = 0; i < compute.size(); ++i)
            ranks.push_back(rankComputing(i, compute[i] * 1000));
        QList<int> named;
        for (const auto &s : findStragglers(ranks)) {
            named << s.rank;
            QVERIFY(s.ratio > 1.10);
            QCOMPARE(s.computePerStepUs, compute[s.rank] * 1000);
            QVERIFY2(s.reason.find("against a median of") != std::string::npos, s.reason.c_str());
        }
        QCOMPARE(named, expected);
    }

    void identityProblemsAreReported()
    {
        std::vector<RankFigures> ranks;
        for (const int rank : {0, 1, 1, 3})
            ranks.push_back(rankComputing(rank, 100));
        ranks[2].file = "copy/rank-1.json";
        ranks.push_back(rankComputing(2, 100));
        ranks.back().worldSize = 16;
        ranks.back().file = "other/rank-2.json";
        auto nameless = rankComputing(-1, 100);
        nameless.file = "trace.json";
        ranks.push_back(nameless);
        auto byName = rankComputing(-1, 100);
        byName.file = "logs/rank_6.pt.trace.json.gz"; // no distributedInfo: the name says
        ranks.push_back(byName);

        const auto job = combineRanks(ranks);
        QCOMPARE(job.worldSize, 8);
        QStringList problems;
        for (const auto &p : job.problems)
            problems << QString::fromStdString(p);
        const auto text = problems.join('\n');
        QVERIFY2(text.contains("rank 1 appears in 2 files: rank-1.json, rank-1.json"), qPrintable(text));
        QVERIFY2(text.contains("rank-2.json: world size 16, the others 8"), qPrintable(text));
        QVERIFY2(text.contains("trace.json: no rank number"), qPrintable(text));
        QVERIFY2(text.contains("missing: 4-5, 7"), qPrintable(text));
        QVERIFY2(!text.contains("rank_6"), qPrintable(text));
        QCOMPARE(job.ranks.front().rank, -1);
        QCOMPARE(job.ranks.back().rank, 6);
    }

    void rankNumbersFromFileNames()
    {
        QCOMPARE(rankFromFileName("rank-3.json.gz"), 3);
        QCOMPARE(rankFromFileName("/a/b/rank_12.pt.trace.json"), 12);
        QCOMPARE(rankFromFileName("Rank7.json"), 7);
        QCOMPARE(rankFromFileName("rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"), 34);
        QCOMPARE(rankFromFileName("host_1234.1695835535.pt.trace.json.gz"), -1);
        QCOMPARE(rankFromFileName("ranking.json"), -1);
    }

    // A folder is one job's ranks by the distributedInfo in each file's first bytes, or, where
    // it comes after more events than those bytes hold, by rank-N names; never by loading.
    void ranksOfOneJobFromHeadsOrNames_data()
    {
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<QList<int>>("ranks"); // -1: no distributedInfo
        QTest::addColumn<QList<int>>("worldSizes");
        QTest::addColumn<bool>("late"); // distributedInfo after 300 KiB of events
        QTest::addColumn<bool>("job");
        QTest::addRow("heads") << QStringList{"a.json", "b.json"} << QList<int>{0, 1} << QList<int>{2, 2} << false
                               << true;
        QTest::addRow("late, rank names") << QStringList{"rank-0.json", "rank-1.json"} << QList<int>{0, 1}
                                          << QList<int>{2, 2} << true << true;
        QTest::addRow("late, other names") << QStringList{"a.json", "b.json"} << QList<int>{0, 1} << QList<int>{2, 2}
                                           << true << false;
        QTest::addRow("a rank twice") << QStringList{"a.json", "b.json"} << QList<int>{1, 1} << QList<int>{2, 2}
                                      << false << false;
        QTest::addRow("two world sizes") << QStringList{"a.json", "b.json"} << QList<int>{0, 1} << QList<int>{2, 4}
                                         << false << false;
        QTest::addRow("unrelated") << QStringList{"a.json", "b.json"} << QList<int>{-1, -1} << QList<int>{-1, -1}
                                   << false << false;
        QTest::addRow("one rank") << QStringList{"rank-0.json"} << QList<int>{0} << QList<int>{1} << false << false;
    }

    void ranksOfOneJobFromHeadsOrNames()
    {
        QFETCH(QStringList, names);
        QFETCH(QList<int>, ranks);
        QFETCH(QList<int>, worldSizes);
        QFETCH(bool, late);
        QFETCH(bool, job);
        QTemporaryDir dir;
        std::vector<std::filesystem::path> files;
        for (qsizetype i = 0; i < names.size(); ++i) {
            QByteArray events = R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1})";
            if (late)
                events += QByteArray(R"(,{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1})").repeated(6000);
            const QByteArray info = ranks[i] < 0 ? QByteArray()
                                                 : QByteArray(R"("distributedInfo":{"backend":"nccl","rank":)") +
                                                       QByteArray::number(ranks[i]) + R"(,"world_size":)" +
                                                       QByteArray::number(worldSizes[i]) + "}";
            QByteArray text = "{";
            if (!info.isEmpty() && !late)
                text += info + ",";
            text += R"("traceEvents":[)" + events + "]";
            if (!info.isEmpty() && late)
                text += "," + info;
            writeFile(dir.filePath(names[i]), text + "}");
            files.push_back(dir.filePath(names[i]).toStdString());
        }
        QCOMPARE(ranksOfOneJob(files), job);
    }

    void clocksAlignOnACommonCollectiveAndWaitsAreMeasured()
    {
        // Rank 1's clock runs 1 ms ahead. Both run an all_to_all (rank 0 alone first runs a
        // broadcast), then two all_reduces; rank 1 arrives 300 µs late at the first all_reduce,
        // rank 0 200 µs late at the second. Collectives end together.
        auto r0 = rankComputing(0, 100);
        auto r1 = rankComputing(1, 100);
        const std::int64_t skew = 1'000'000;
        r0.collectives = {{"broadcast", 8, 2, 0, 100'000, true},
                          {"all_to_all", 64, 2, 200'000, 500'000, true},
                          {"all_reduce", 64, 2, 1'000'000, 2'000'000, true},
                          {"all_reduce", 64, 2, 3'200'000, 4'000'000, true}};
        r1.collectives = {{"all_to_all", 64, 2, 250'000 + skew, 500'000 + skew, true},
                          {"all_reduce", 64, 2, 1'300'000 + skew, 2'000'000 + skew, true},
                          {"all_reduce", 64, 2, 3'000'000 + skew, 4'000'000 + skew, true}};
        const auto job = combineRanks({r1, r0});
        QCOMPARE(job.ranks[0].rank, 0);
        QCOMPARE(job.clockOffsetNs, (std::vector<std::int64_t>{0, -skew}));
        QVERIFY2(job.anchor.find("all_to_all of 64 B #1") != std::string::npos, job.anchor.c_str());
        // Rank 0 waits 50 µs + 300 µs; rank 1 waits 200 µs.
        QCOMPARE(job.waitNs, (std::vector<std::int64_t>{350'000, 200'000}));
        // Across ranks: all_reduce 64 B, 4 calls; per rank: two rows each for rank 0's.
        const auto allReduce = std::find_if(job.collectives.begin(), job.collectives.end(),
                                            [](const CollectiveRow &r) { return r.name == "all_reduce"; });
        QVERIFY(allReduce != job.collectives.end());
        QCOMPARE(allReduce->calls, std::uint64_t(4));
        QCOMPARE(allReduce->rank, -1);
        QCOMPARE(allReduce->timeNs, std::int64_t(1'000'000 + 800'000 + 700'000 + 1'000'000));
        const auto rank0Rows = std::count_if(job.collectivesByRank.begin(), job.collectivesByRank.end(),
                                             [](const CollectiveRow &r) { return r.rank == 0; });
        QCOMPARE(rank0Rows, 3);
    }

    void theAnchorIsTheCallUnderWhichMostCallsEndTogether()
    {
        // Rank 1's clock runs 1 ms ahead. Its first call, a broadcast, ends 2 ms late (a kernel
        // cut by the trace's end, say): aligning on it would put every other call apart. The
        // first all_reduce lines up both all_reduces.
        auto r0 = rankComputing(0, 100);
        auto r1 = rankComputing(1, 100);
        const std::int64_t skew = 1'000'000;
        r0.collectives = {{"broadcast", 8, 2, 0, 1'000'000, true},
                          {"all_reduce", 64, 2, 2'000'000, 5'000'000, true},
                          {"all_reduce", 64, 2, 6'000'000, 9'000'000, true}};
        r1.collectives = {{"broadcast", 8, 2, 0 + skew, 3'000'000 + skew, true},
                          {"all_reduce", 64, 2, 2'500'000 + skew, 5'000'000 + skew, true},
                          {"all_reduce", 64, 2, 6'200'000 + skew, 9'000'000 + skew, true}};
        const auto job = combineRanks({r0, r1});
        QCOMPARE(job.clockOffsetNs, (std::vector<std::int64_t>{0, -skew}));
        QVERIFY2(job.anchor.find("all_reduce of 64 B #1; 2 of 3 calls") != std::string::npos, job.anchor.c_str());
        // Waits count the calls that end together only: rank 0 waits 500 + 200 µs.
        QCOMPARE(job.waitNs, (std::vector<std::int64_t>{700'000, 0}));
    }

    void noCommonCollectiveMeansNoAlignment()
    {
        auto r0 = rankComputing(0, 100);
        auto r1 = rankComputing(1, 100);
        r0.collectives = {{"broadcast", 8, 2, 0, 100, true}};
        r1.collectives = {{"all_reduce", 8, 2, 50, 100, true}};
        const auto job = combineRanks({r0, r1});
        QCOMPARE(job.clockOffsetNs, (std::vector<std::int64_t>{0, 0}));
        QCOMPARE(job.waitNs, (std::vector<std::int64_t>{0, 0}));
        QVERIFY2(job.anchor.rfind("none", 0) == 0, job.anchor.c_str());
    }

    void newerCollectiveArgsAreRead()
    {
        // torch 2.x writes the collective's args on record_param_comms and on the NCCL kernel,
        // and a pg_config in distributedInfo.
        const auto path = QString(PYROMETER_FIXTURES_DIR) + "/traces/collective_args.json";
        auto trace = trace::loadTrace(path.toStdString());
        QVERIFY(trace.ok());
        const auto &t = *trace.value();
        QCOMPARE(t.info.distributed.rank, 2);
        QCOMPARE(t.info.distributed.worldSize, 4);
        QCOMPARE(t.info.distributed.backend, std::string("nccl"));
        QCOMPARE(t.info.distributed.pgConfig, std::string(R"([{"pg_name":"0","pg_size":4,"ranks":[0,1,2,3]}])"));
        QCOMPARE(t.collectiveArgs.size(), std::size_t(2));
        const trace::CollectiveArgs *kernelArgs = nullptr;
        for (std::uint32_t k = 0; k < t.tracks.size(); ++k) {
            for (std::uint32_t e = 0; e < t.tracks[k].size(); ++e) {
                if (t.string(t.tracks[k].eventName[e]).rfind("ncclDev", 0) == 0)
                    kernelArgs = t.collective(trace::TrackId(k), trace::EventIndex(e));
                if (t.string(t.tracks[k].eventName[e]) == "volta_sgemm")
                    QVERIFY(!t.collective(trace::TrackId(k), trace::EventIndex(e)));
            }
        }
        QVERIFY(kernelArgs);
        QCOMPARE(t.string(kernelArgs->name), std::string_view("allreduce"));
        QCOMPARE(kernelArgs->inNelems, std::int64_t(1000));
        QCOMPARE(kernelArgs->outNelems, std::int64_t(1000));
        QCOMPARE(t.string(kernelArgs->dtype), std::string_view("Float"));
        QCOMPARE(kernelArgs->groupSize, 4);
        QCOMPARE(t.string(kernelArgs->groupRanks), std::string_view("[0,1,2,3]"));

        const auto f = rankFigures(*buildTraceIndex(t));
        QCOMPARE(f.collectives.size(), std::size_t(1));
        QCOMPARE(f.collectives[0].name, std::string("all_reduce"));
        QCOMPARE(f.collectives[0].bytes, std::int64_t(4000));
        QCOMPARE(f.collectives[0].groupSize, 4);
        // Compute [300, 700) µs, communication [100, 500) µs: 200 µs of 400 overlap.
        QCOMPARE(f.communicationNs, std::int64_t(400'000));
        QCOMPARE(f.computeNs, std::int64_t(400'000));
        QCOMPARE(f.overlapNs, std::int64_t(200'000));
        QCOMPARE(f.overlapPct, 50.0);
        QCOMPARE(f.idleNs, std::int64_t(1'000'000 - 600'000));
    }

    void truncatedRankStillSaysWhichRankItIs()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath("cut.json");
        writeFile(path, "{\"distributedInfo\": {\"backend\": \"gloo\", \"rank\": 5, \"world_size\": 8},"
                        " \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\","
                        " \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 10}, {\"ph\": \"X\", \"pid\": 1, \"ti");
        trace::LoadOptions options;
        options.partial = true;
        auto trace = trace::loadTrace(path.toStdString(), options);
        QVERIFY(trace.ok());
        QVERIFY(trace.value()->info.partial);
        QCOMPARE(trace.value()->info.distributed.rank, 5);
    }

    void jobFilesAndErrors()
    {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        std::filesystem::create_directories(root / "empty");
        auto none = jobFiles({root / "empty"});
        QVERIFY(!none.ok());
        QVERIFY2(none.error().message.find("empty") != std::string::npos, none.error().message.c_str());
        auto missing = jobFiles({root / "nothing.json"});
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().message.find("nothing.json") != std::string::npos, missing.error().message.c_str());

        const auto folder = rankFixture(0).parent_path();
        auto files = jobFiles({folder, rankFixture(1)});
        QVERIFY(files.ok());
        QCOMPARE(files.value().size(), std::size_t(2)); // rank 1 given twice counts once

        // A file that is not a trace is named among the job's problems; the other rank loads.
        const auto bad = root / "rank-9.json";
        std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": \"X\", ";
        auto job = summariseJob({rankFixture(0), bad});
        QVERIFY(job.ok());
        QCOMPARE(job.value().ranks.size(), std::size_t(1));
        QCOMPARE(job.value().failedRanks.size(), std::size_t(1));
        QVERIFY2(job.value().failedRanks[0].message.find("rank-9.json") != std::string::npos,
                 job.value().failedRanks[0].message.c_str());
    }

    void generatedJobNamesTheSlowRank_data()
    {
        QTest::addColumn<QString>("job");
        QTest::newRow("8 ranks") << "job8";
        QTest::newRow("64 ranks") << "job64";
    }

    void generatedJobNamesTheSlowRank()
    {
        QFETCH(QString, job);
        const std::filesystem::path folder = std::filesystem::path(PYROMETER_TEST_JOBS_DIR) / job.toStdString();
        QFile manifestFile(QString::fromStdString((folder / "job.json").string()));
        QVERIFY2(manifestFile.open(QIODevice::ReadOnly), "run the make_test_jobs test first");
        const auto manifest = QJsonDocument::fromJson(manifestFile.readAll()).object();
        const int slow = manifest["slow_rank"].toInt(-1);
        const int count = manifest["ranks"].toInt();
        QVERIFY(slow >= 0);

        const auto files = jobFiles({folder});
        QVERIFY(files.ok());
        QCOMPARE(static_cast<int>(files.value().size()), count);
        auto summary = summariseJob(files.value());
        QVERIFY2(summary.ok(), summary.ok() ? "" : summary.error().message.c_str());
        const auto &j = summary.value();
        QCOMPARE(static_cast<int>(j.ranks.size()), count);
        QVERIFY2(j.problems.empty(), j.problems.empty() ? "" : j.problems.front().c_str());
        QCOMPARE(j.stragglers.size(), std::size_t(1));
        QCOMPARE(j.stragglers[0].rank, slow);
        QVERIFY(j.stragglers[0].ratio > 1.2);
        // Each rank's clock offset undoes the generator's skew (µs in the manifest), up to the
        // difference of the anchor collective's end on the slow rank, which the generator keeps.
        const auto skews = manifest["clock_offsets_us"].toArray();
        for (int r = 0; r < count; ++r) {
            QCOMPARE(j.ranks[r].rank, r);
            const auto skewNs = static_cast<std::int64_t>(std::llround(skews[r].toDouble() * 1000));
            QCOMPARE(j.clockOffsetNs[r] - j.clockOffsetNs[0], -(skewNs - static_cast<std::int64_t>(std::llround(skews[0].toDouble() * 1000))));
        }
        // The slow rank arrives last: it waits least, every other rank waits on it.
        const auto least = std::min_element(j.waitNs.begin(), j.waitNs.end()) - j.waitNs.begin();
        QCOMPARE(static_cast<int>(least), slow);
        for (int r = 0; r < count; ++r) {
            if (r != slow)
                QVERIFY(j.waitNs[r] > j.waitNs[slow]);
        }

        // Per step, the same: in every step the slow rank computes most and waits least, and
        // a rank's steps' waits add up to its wait (every matched call falls in a step). The
        // steps end together, so step time is not what differs: wait or compute is.
        QCOMPARE(j.stepWaitNs.size(), j.ranks.size());
        for (int r = 0; r < count; ++r) {
            QCOMPARE(j.stepWaitNs[r].size(), j.ranks[r].steps.size());
            QCOMPARE(std::accumulate(j.stepWaitNs[r].begin(), j.stepWaitNs[r].end(), std::int64_t(0)), j.waitNs[r]);
            for (const auto &step : j.ranks[r].steps)
                QVERIFY(step.exposedCommunicationNs >= 0 && step.exposedCommunicationNs <= step.communicationNs);
        }
        const auto steps = j.ranks[slow].steps.size();
        QVERIFY(steps > 0);
        for (std::size_t s = 0; s < steps; ++s) {
            for (int r = 0; r < count; ++r) {
                if (r == slow)
                    continue;
                QVERIFY(*stepMeasureNs(j, r, s, StepMeasure::Wait) > *stepMeasureNs(j, slow, s, StepMeasure::Wait));
                QVERIFY(*stepMeasureNs(j, r, s, StepMeasure::Compute) < *stepMeasureNs(j, slow, s, StepMeasure::Compute));
            }
        }
        const auto chosen = mostVaryingMeasure(j);
        QVERIFY2(chosen == StepMeasure::Wait || chosen == StepMeasure::Compute, stepMeasureName(chosen).data());
        QVERIFY(stepMeasureSpread(j, chosen) > stepMeasureSpread(j, StepMeasure::StepTime));
    }

    void stepMeasureNamesAndNumbers()
    {
        QCOMPARE(profilerStepNumber("ProfilerStep#12"), 12);
        QCOMPARE(profilerStepNumber("ProfilerStep#"), -1);
        QCOMPARE(profilerStepNumber("ProfilerStep#4a"), -1);
        QCOMPARE(profilerStepNumber("aten::mm"), -1);
        // One rank: nothing differs, step time it is; a step that is not there has no value.
        JobFigures one;
        one.ranks.push_back({});
        one.ranks[0].steps.push_back({"ProfilerStep#3", 0, 1000, 600, 300});
        QCOMPARE(mostVaryingMeasure(one), StepMeasure::StepTime);
        QCOMPARE(stepMeasureNs(one, 0, 0, StepMeasure::Compute), std::optional<std::int64_t>(600));
        QCOMPARE(stepMeasureNs(one, 0, 0, StepMeasure::ExposedCommunication), std::optional<std::int64_t>()); // unknown
        QCOMPARE(stepMeasureNs(one, 0, 0, StepMeasure::Wait), std::optional<std::int64_t>()); // not aligned
        QCOMPARE(stepMeasureNs(one, 0, 1, StepMeasure::StepTime), std::optional<std::int64_t>());
        // Two ranks whose steps take the same time, one computing longer: compute differs.
        JobFigures two = one;
        two.ranks.push_back(one.ranks[0]);
        two.ranks[1].steps[0].computeNs = 900;
        QCOMPARE(mostVaryingMeasure(two), StepMeasure::Compute);
        QCOMPARE(stepMeasureSpread(two, StepMeasure::Compute), 0.15); // sd 150 of a 1000 ns step
    }

    void realPairAsAJob()
    {
        auto job = summariseJob({rankFixture(1), rankFixture(0)}, {2});
        QVERIFY(job.ok());
        const auto &j = job.value();
        QCOMPARE(j.ranks.size(), std::size_t(2));
        QCOMPARE(j.ranks[0], figuresOf(rankFixture(0)));
        QCOMPARE(j.worldSize, 128);
        QCOMPARE(j.backend, std::string("nccl"));
        QVERIFY(std::any_of(j.problems.begin(), j.problems.end(), [](const std::string &p) {
            return p.find("2 of 128 ranks present; missing: 2-127") != std::string::npos;
        }));
        QVERIFY2(j.anchor.find("the end of a collective every rank ran") == 0, j.anchor.c_str());
        // Rank 0 waits on rank 1, the slower, in the calls that end together once aligned.
        QVERIFY(j.waitNs[0] > 0);
        QCOMPARE(j.waitNs[1], std::int64_t(0));
        // Rank 1 computes 136 ms a step against rank 0's 105 ms (the golden's figures).
        QCOMPARE(j.stragglers.size(), std::size_t(1));
        QCOMPARE(j.stragglers[0].rank, 1);
        QCOMPARE(j.stragglers[0].ratio, j.ranks[1].computePerStepUs() / j.ranks[0].computePerStepUs());
        std::uint64_t calls = 0;
        for (const auto &row : j.collectives)
            calls += row.calls;
        QCOMPARE(calls, j.ranks[0].collectives.size() + j.ranks[1].collectives.size());
    }
};

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
