// pyrometer-cli's GPU analyses (kernels --by type, launches, idle, critical-path, sequences):
// their JSON against the goldens that scripts/make-{kerneltype,launch,idle,criticalpath}-
// fixtures.py computed from the traces with Python, the figures holding together, and bad input
// exiting 2 with the file named.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "clitestutil.h"

#include <QSet>

#include <cmath>

using namespace pyrometer::testing;

namespace {

const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/");
const QString kGoldens = QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/");
const QString kBert = kTraces + "gaunernst_bert-small-uncased__1016001.json.gz";
const QString kAlexnet = kTraces + "benchmark_result_2869224_1695835535_trace.json.gz";
const QString kResnet = kTraces + "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
const QString kVllm = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/vllm_gb10_cudagraphs.pt.trace.json.gz");
const QString kXdit = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/xdit_sd35_mi300x_compile.json.gz");
const QString kMtia = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/mtia_inference_rank_0.json.gz");
const QString kMi300x = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/mi300x_ddp_resnet18.json.gz");
const QString kFrontEnd = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/vllm_async_llm_cpu.pt.trace.json.gz");

QJsonObject json(const QStringList &arguments)
{
    const auto run = runCli(arguments);
    if (run.exitCode != 0)
        qWarning("%s", qPrintable(run.err));
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

// The golden's rows as header -> cell maps.
QList<QMap<QString, QString>> golden(const QString &name)
{
    QFile file(kGoldens + name);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const auto rows = parseCsv(QString::fromUtf8(file.readAll()));
    QList<QMap<QString, QString>> result;
    for (qsizetype r = 1; r < rows.size(); ++r) {
        QMap<QString, QString> row;
        for (qsizetype c = 0; c < rows[0].size() && c < rows[r].size(); ++c)
            row[rows[0][c]] = rows[r][c];
        result << row;
    }
    return result;
}

// Microseconds in the JSON against nanoseconds in a golden.
bool sameNs(double us, qint64 ns)
{
    return std::llround(us * 1000.0) == ns;
}

} // namespace

class TestCliGpu : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void kernelTypesAgreeWithPython_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("fixture");
        QTest::addRow("h100 bert") << kBert << "h100_bert";
        QTest::addRow("a100 alexnet") << kAlexnet << "a100_alexnet";
        QTest::addRow("v100 resnet50") << kResnet << "v100_resnet50";
    }

    void kernelTypesAgreeWithPython()
    {
        QFETCH(QString, trace);
        QFETCH(QString, fixture);
        const auto out = json({"kernels", trace, "--by", "type", "--format", "json"});
        const auto rows = out.value("rows").toArray();
        const auto expected = golden(fixture + ".kerneltypes.csv");
        QVERIFY(!expected.isEmpty());
        QCOMPARE(rows.size(), expected.size());
        double sum = 0;
        for (int i = 0; i < rows.size(); ++i) {
            const auto row = rows[i].toObject();
            QCOMPARE(row.value("type").toString(), expected[i]["type"]);
            QCOMPARE(row.value("calls").toInteger(), expected[i]["calls"].toLongLong());
            QVERIFY(sameNs(row.value("total_us").toDouble(), expected[i]["total_ns"].toLongLong()));
            QCOMPARE(row.value("type").toString(), row.value("type").toString().toLower());
            sum += row.value("total_us").toDouble();
        }
        QVERIFY(std::abs(sum - out.value("total_us").toDouble()) < 1e-6 * std::max(1.0, sum));
    }

    void launchesAgreeWithPython()
    {
        const auto out = json({"launches", kAlexnet, "--format", "json"});
        const auto byKernel = out.value("by_kernel").toArray();
        const auto expected = golden("a100_alexnet.launches.csv");
        QVERIFY(!expected.isEmpty());
        QCOMPARE(byKernel.size(), expected.size());
        qint64 launches = 0;
        for (const auto &e : expected) {
            const auto found = std::find_if(byKernel.begin(), byKernel.end(), [&](const QJsonValue &v) {
                return v.toObject().value("name").toString() == e["name"];
            });
            QVERIFY2(found != byKernel.end(), qPrintable(e["name"]));
            const auto row = found->toObject();
            QCOMPARE(row.value("count").toInteger(), e["count"].toLongLong());
            QVERIFY(sameNs(row.value("launch_delay_median_us").toDouble(), e["delay_median_ns"].toLongLong()));
            QVERIFY(sameNs(row.value("launch_delay_max_us").toDouble(), e["delay_max_ns"].toLongLong()));
            QCOMPARE(row.value("outliers").toInteger(), e["outliers"].toLongLong());
            launches += e["count"].toLongLong();
        }
        // One row per launch, as the JSON spells it, its delay = start - call end.
        const auto rows = out.value("rows").toArray();
        QCOMPARE(rows.size(), launches);
        for (const auto &value : rows) {
            const auto row = value.toObject();
            for (const char *key :
                 {"correlation", "kernel", "stream", "cpu_duration_us", "gpu_duration_us", "launch_delay_us"})
                QVERIFY2(row.contains(key), key);
            QVERIFY(row.value("correlation").toInteger() > 0);
            QVERIFY(row.value("gpu_duration_us").toDouble() >= 0);
        }
        // The longest queue per stream.
        int maxQueue = 0;
        for (const auto &q : golden("a100_alexnet.launchqueues.csv"))
            maxQueue = std::max(maxQueue, q["max_queue"].toInt());
        QCOMPARE(out.value("max_queue_length").toInt(), maxQueue);
        // No total delay in the tables, named as a sum in JSON: queued delays add up to more
        // than the trace.
        QVERIFY(!byKernel.first().toObject().contains("launch_delay_total_us"));
        QVERIFY(byKernel.first().toObject().contains("launch_delay_sum_us"));
        // The mean depth while queued, from the streams' sums: (3162406000 + 1588000) launch-ns
        // over (12920299000 - 9796683000) + (12012830000 - 12011629000) = 3124817000 ns queued is
        // 1.01 launches: CPU-bound. The idle share is the device's, over the union of its streams
        // (launchdevices.csv): 9796030000 of 12920299000 ns with nothing queued on any stream.
        qint64 window = 0, empty = 0, depth = 0;
        for (const auto &q : golden("a100_alexnet.launchqueues.csv")) {
            window += q["window_ns"].toLongLong();
            empty += q["empty_ns"].toLongLong();
            depth += q["depth_ns_sum"].toLongLong();
        }
        qint64 deviceWindow = 0, deviceEmpty = 0;
        for (const auto &d : golden("a100_alexnet.launchdevices.csv")) {
            deviceWindow += d["window_ns"].toLongLong();
            deviceEmpty += d["empty_ns"].toLongLong();
        }
        QCOMPARE(deviceWindow, qint64(12920299000));
        QCOMPARE(deviceEmpty, qint64(9796030000));
        const auto queue = out.value("queue").toObject();
        QCOMPARE(queue.value("bound").toString(), QStringLiteral("CPU-bound"));
        QVERIFY(std::abs(queue.value("idle_share").toDouble() - double(deviceEmpty) / double(deviceWindow)) < 1e-9);
        QVERIFY(std::abs(queue.value("mean_depth").toDouble() - double(depth) / double(window - empty)) < 1e-9);
    }

    void idleAgreesWithPython()
    {
        const auto out = json({"idle", kResnet, "--format", "json"});
        const auto streams = out.value("streams").toArray();
        const auto expected = golden("v100_resnet50.idle.csv");
        QVERIFY(!expected.isEmpty());
        QCOMPARE(streams.size(), expected.size());
        for (int i = 0; i < streams.size(); ++i) {
            const auto row = streams[i].toObject();
            QCOMPARE(row.value("step").toString(), expected[i]["step"]);
            QVERIFY(sameNs(row.value("host_wait_us").toDouble(), expected[i]["host_wait_ns"].toLongLong()));
            QVERIFY(sameNs(row.value("kernel_wait_us").toDouble(), expected[i]["kernel_wait_ns"].toLongLong()));
            QVERIFY(sameNs(row.value("other_us").toDouble(), expected[i]["other_ns"].toLongLong()));
            QVERIFY(sameNs(row.value("busy_us").toDouble(), expected[i]["busy_ns"].toLongLong()));
        }
        const auto gaps = out.value("gaps").toArray();
        QVERIFY(!gaps.isEmpty());
        for (const auto &g : gaps)
            QVERIFY(
                QStringList({"host_wait", "kernel_wait", "other"}).contains(g.toObject().value("cause").toString()));
    }

    void criticalPathReachesTheStepEnd()
    {
        const auto expected = golden("v100_resnet50.criticalpath.csv");
        QVERIFY(expected.size() >= 2);
        const auto out = json({"critical-path", kResnet, "--step", "1", "--format", "json"});
        QCOMPARE(out.value("step").toString(), expected[1]["step"]);
        const auto nodes = out.value("nodes").toArray();
        QVERIFY(!nodes.isEmpty());
        double sum = 0;
        for (const auto &n : nodes)
            sum += n.toObject().value("duration_us").toDouble() + n.toObject().value("wait_before_us").toDouble();
        const double length = out.value("length_us").toDouble();
        QVERIFY2(std::abs(sum - length) < 0.01, qPrintable(QString("%1 != %2").arg(sum).arg(length)));
        // It ends where the Python script says the step's last event ends.
        const double end = out.value("start_us").toDouble() + length;
        QVERIFY2(std::abs(end - expected[1]["end_us"].toDouble()) < 0.01, qPrintable(QString::number(end, 'f', 3)));
        const auto whatIfs = out.value("what_if_twice_as_fast").toArray();
        QVERIFY(!whatIfs.isEmpty());
        for (int i = 1; i < whatIfs.size(); ++i)
            QVERIFY(whatIfs[i - 1].toObject().value("saved_us").toDouble() >=
                    whatIfs[i].toObject().value("saved_us").toDouble());
    }

    // Rows: CPU nodes grouped under their op, adding up to the step's span as steps gives it;
    // --kind, --min-us and --sort narrow and order them.
    void criticalPathRows()
    {
        const auto all = json({"critical-path", kResnet, "--step", "3", "--format", "json"});
        const auto steps = json({"steps", kResnet, "--format", "json"}).value("rows").toArray();
        QVERIFY(steps.size() > 3);
        QCOMPARE(all.value("length_us").toDouble(), steps[3].toObject().value("duration_us").toDouble());
        const auto rows = all.value("rows").toArray();
        QVERIFY(!rows.isEmpty() && rows.size() < all.value("nodes").toArray().size() / 2);
        double sum = 0;
        int groups = 0;
        for (const auto &r : rows) {
            const auto row = r.toObject();
            sum += row.value("duration_us").toDouble() + row.value("wait_before_us").toDouble();
            if (row.value("kind").toString() == "op") {
                ++groups;
                QCOMPARE(row.value("children").toArray().size(), row.value("nodes").toInt());
            }
        }
        QVERIFY(groups > 0);
        QVERIFY2(std::abs(sum - all.value("length_us").toDouble()) < 0.01, qPrintable(QString::number(sum)));
        const auto gpu = json({"critical-path", kResnet, "--step", "3", "--kind", "gpu", "--min-us", "500", "--sort",
                               "duration", "--top", "5", "--format", "json"})
                             .value("rows")
                             .toArray();
        QCOMPARE(gpu.size(), 5);
        for (int i = 0; i < gpu.size(); ++i) {
            QCOMPARE(gpu[i].toObject().value("kind").toString(), QStringLiteral("device"));
            QVERIFY(gpu[i].toObject().value("duration_us").toDouble() >= 500);
            if (i > 0)
                QVERIFY(gpu[i - 1].toObject().value("duration_us").toDouble() >=
                        gpu[i].toObject().value("duration_us").toDouble());
        }
    }

    void sequencesAgreeWithPython()
    {
        const auto out = json({"sequences", kBert, "--format", "json"});
        const auto rows = out.value("rows").toArray();
        const auto expected = golden("h100_bert.sequences.csv");
        QVERIFY(!rows.isEmpty() && !expected.isEmpty());
        const auto top = rows[0].toObject();
        QCOMPARE(top.value("occurrences").toInteger(), expected[0]["occurrences"].toLongLong());
        QCOMPARE(top.value("length").toInteger(), expected[0]["length"].toLongLong());
        QVERIFY(sameNs(top.value("total_us").toDouble(), expected[0]["total_ns"].toLongLong()));
        QStringList kernels;
        for (const auto &k : top.value("kernels").toArray())
            kernels << k.toString();
        QCOMPARE(kernels.join(';'), expected[0]["kernels"]);
    }

    void tablesInATerminal()
    {
        const auto launches = runCli({"launches", kAlexnet}, "120");
        QCOMPARE(launches.exitCode, 0);
        QVERIFY(launches.out.contains("median delay us"));
        QVERIFY(launches.out.contains("launches waiting"));
        QVERIFY(launches.out.contains("us after the trace start"));
        QVERIFY(!launches.out.contains("total delay"));
        QVERIFY2(launches.out.contains("CPU-bound: while work was queued"), qPrintable(launches.out));
        const auto path = runCli({"critical-path", kBert}, "120");
        QCOMPARE(path.exitCode, 0);
        QVERIFY2(path.out.contains("on the critical path"), qPrintable(path.out));
        QVERIFY(path.out.contains("if twice as fast"));
        const auto idle = runCli({"idle", kBert}, "120");
        QCOMPARE(idle.exitCode, 0);
        QVERIFY(idle.out.contains("host wait"));
    }

    // The 2026 traces a new user tries: steps found without ProfilerStep and said so, the MTIA
    // named, empty device tables explained, Python frames in the flame graph, no negative
    // delays in tables.
    void traces2026OnTheCommandLine()
    {
        const auto steps = runCli({"steps", kMi300x}, "200");
        QCOMPARE(steps.exitCode, 0);
        QVERIFY2(steps.out.contains("Steps end where the optimizer's steps end (Optimizer.step#SGD.step)"),
                 qPrintable(steps.out));
        QVERIFY(steps.out.contains("Optimizer.step#SGD.step #5"));
        QCOMPARE(json({"steps", kMi300x, "--format", "json"})["rows"].toArray().size(), 5);

        const auto path = runCli({"critical-path", kMtia}, "200");
        QCOMPARE(path.exitCode, 0);
        QVERIFY2(path.out.contains(", MTIA "), qPrintable(path.out));

        const auto kernels = runCli({"kernels", kFrontEnd});
        QCOMPARE(kernels.exitCode, 0);
        QVERIFY2(kernels.err.contains("note: This trace holds no kernels"), qPrintable(kernels.err));
        const auto ops = runCli({"ops", kFrontEnd});
        QVERIFY2(ops.err.contains("18155 Python frames"), qPrintable(ops.err));
        // Its 18,155 frames, by the collapsed stacks' counts.
        const auto flame = runCli({"flame", kFrontEnd, "--events", "python", "--format", "csv"});
        QCOMPARE(flame.exitCode, 0);
        const auto rows = parseCsv(flame.out);
        QVERIFY(rows.size() > 1);
        const auto calls = rows.front().indexOf(QStringLiteral("calls"));
        QVERIFY(calls >= 0);
        qint64 frames = 0;
        for (int r = 1; r < rows.size(); ++r)
            frames += rows[r][calls].toLongLong();
        QCOMPARE(frames, qint64(18155));

        // The A100 trace has a kernel whose median delay is -6 µs: shown as 0.
        const auto launches = runCli({"launches", kAlexnet, "--format", "csv"});
        QCOMPARE(launches.exitCode, 0);
        const auto table = parseCsv(launches.out);
        const auto median = table.front().indexOf(QStringLiteral("median delay us"));
        QVERIFY(median >= 0);
        for (int r = 1; r < table.size(); ++r)
            QVERIFY2(table[r][median].toDouble() >= 0, qPrintable(table[r].join(',')));
        bool negative = false;
        for (const auto &g : json({"launches", kAlexnet, "--format", "json"})["by_kernel"].toArray())
            negative = negative || g.toObject()["launch_delay_median_us"].toDouble() < 0;
        QVERIFY(negative); // JSON keeps the measured value
    }

    // A trace that replays CUDA graphs, through every subcommand that reads launches: replays
    // counted once, graph ids in the kernels' JSON, graph-aware advice, readable names.
    void cudaGraphsOnTheCommandLine()
    {
        const auto graphs = runCli({"launches", kVllm, "--by", "graph"}, "200");
        QCOMPARE(graphs.exitCode, 0);
        QVERIFY2(graphs.out.contains("graph 590"), qPrintable(graphs.out));
        QVERIFY(graphs.out.contains("650 replays ran 12820 device events; 2310 were launched one by one"));
        const auto launches = json({"launches", kVllm, "--format", "json"});
        QCOMPARE(launches["cuda_graphs"].toObject()["replays"].toInt(), 650);
        QCOMPARE(launches["cuda_graphs"].toObject()["graphs"].toArray().size(), 65);
        for (const auto &stream : launches["by_stream"].toArray())
            QCOMPARE(stream.toObject()["count"].toInt(), stream.toObject()["stream"].toInt() == 7 ? 2950 : 10);
        const auto kernels = json({"kernels", kVllm, "--format", "json"});
        const auto top = kernels["rows"].toArray().first().toObject();
        QCOMPARE(top["op"].toString(), QStringLiteral("graph replay"));
        QCOMPARE(top["display_name"].toString(), QStringLiteral("device_kernel<GemmUniversal<\u2026>>"));
        QVERIFY(top["graph_ids"].toArray().size() > 1);
        QVERIFY(top["graph_count"].toInt() > 0);
        const auto advise = runCli({"advise", kVllm, "--format", "json"});
        QCOMPARE(advise.exitCode, 0);
        QVERIFY(advise.out.contains("\"cuda_graphs\""));
        QVERIFY(!advise.out.contains("reduce-overhead"));
        const auto path = json({"critical-path", kVllm, "--format", "json"});
        QVERIFY(path["device_us"].toDouble() > 0.95 * path["length_us"].toDouble());
    }

    // Triton ops name their kernels' provenance: 26 generated kernels on the xDiT trace.
    void tritonProvenanceOnTheCommandLine()
    {
        const auto kernels = json({"kernels", kXdit, "--format", "json"});
        QSet<QString> hashes;
        for (const auto &row : kernels["rows"].toArray()) {
            const auto r = row.toObject();
            if (!r.contains("kernel_hash"))
                continue;
            QCOMPARE(r["backend"].toString(), QStringLiteral("triton"));
            QVERIFY(r["kernel_file"].toString().endsWith(r["kernel_hash"].toString() + ".py"));
            hashes.insert(r["kernel_hash"].toString());
        }
        QCOMPARE(hashes.size(), 26);
        const auto roofline = json({"roofline", kXdit, "--by-kernel", "--format", "json"});
        int sourced = 0;
        for (const auto &row : roofline["rows"].toArray())
            sourced += row.toObject().contains("kernel_source") ? 1 : 0;
        QVERIFY(sourced > 0);
    }

    void badInputExitsTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named");
        for (const char *command : {"launches", "idle", "critical-path", "sequences"})
            QTest::addRow("%s missing", command)
                << QStringList{command, "/nonexistent/trace.json"} << "/nonexistent/trace.json";
        QTest::addRow("step out of range") << QStringList{"critical-path", kBert, "--step", "7"} << kBert;
        QTest::addRow("kind misspelt") << QStringList{"critical-path", kBert, "--kind", "kernel"} << "--kind";
        QTest::addRow("type misspelt") << QStringList{"kernels", kBert, "--by", "typ"} << "--by";
    }

    void badInputExitsTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        const auto run = runCli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(named), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestCliGpu)
#include "tst_cli_gpu.moc"
