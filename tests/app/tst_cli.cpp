#include <algorithm>
#include <cmath>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "clitestutil.h"

using namespace pyrometer::testing;

namespace {

const QString kAnalysisTrace = QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/torch_cpu_cnn.json");
const QString kDemoModel = QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo_model.pt");
const QString kGpuTrace = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/mi250_minitoy_train_ROCm6_2_kineto.json.gz");

const QStringList kSubcommands{"info", "ops",   "kernels", "steps", "memory", "flame",
                               "advise", "diff", "profile", "flops", "report", "sweep", "compare"};

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void helpListsEverySubcommand()
    {
        const auto run = runCli({"--help"});
        QCOMPARE(run.exitCode, 0);
        for (const auto &name : kSubcommands)
            QVERIFY2(run.out.contains(QRegularExpression("\\n\\s+" + name + "\\s")), qPrintable(name));
        QVERIFY(run.out.contains("Exit status"));
    }

    void versionNamesPyrometerAndLibtorch()
    {
        const auto run = runCli({"--version"});
        QCOMPARE(run.exitCode, 0);
        // The libtorch CMake found: 1.13 on Debian 12, 2.6 on 13.
        const QString torch = QRegularExpression::escape(QStringLiteral(PYROMETER_TORCH_MAJOR_MINOR));
        QVERIFY(torch.size() >= 3);
        QVERIFY2(run.out.contains(QRegularExpression("^pyrometer-cli \\d+\\.\\d+\\.\\d+ \\(libtorch " + torch + "\\.")),
                 qPrintable(run.out));
    }

    void missingSubcommandIsBadInput()
    {
        const auto run = runCli({});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(!run.err.isEmpty());
    }

    void unknownSubcommandIsBadInput()
    {
        const auto run = runCli({"frobnicate", "x.json"});
        QCOMPARE(run.exitCode, 2);
    }

    void infoCountsTheDemoTrace()
    {
        const auto run = runCli({"info", QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json"), "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        // 285 complete events, as Python's json module counts them in the file.
        QCOMPARE(json.value("events").toInteger(), 285);
        QCOMPARE(json.value("phases").toObject().value("X").toInteger(), 285);
        QCOMPARE(json.value("tracks").toInteger(), 1);
        QVERIFY(json.value("span_us").toDouble() > 0);
        QVERIFY(json.contains("load_seconds") && json.contains("bytes"));
        QVERIFY(json.value("build_seconds").toDouble() > 0);
        QVERIFY(json.value("build_seconds").toDouble() < json.value("load_seconds").toDouble());
    }

    void infoFormats_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expected");
        QTest::addRow("table") << "table" << "events           285";
        QTest::addRow("csv") << "csv" << "events,285";
        QTest::addRow("md") << "md" << "| events | 285 |";
    }
    void infoFormats()
    {
        QFETCH(QString, format);
        QFETCH(QString, expected);
        const auto run = runCli({"info", QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json"), "--format", format});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(expected), qPrintable(run.out));
    }

    void infoRefusesBadInput_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("says");
        QTest::addRow("missing") << "/no/such/trace.json" << "no such file";
        QTest::addRow("not json") << QStringLiteral(PYROMETER_RESOURCES_DIR "/icons/pyrometer.svg") << "byte 0";
        QTest::addRow("empty log dir") << QStringLiteral(PYROMETER_FIXTURES_DIR "/models") << "no traces here";
    }
    void infoRefusesBadInput()
    {
        QFETCH(QString, path);
        QFETCH(QString, says);
        const auto run = runCli({"info", path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.startsWith("pyrometer-cli: " + path), qPrintable(run.err));
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
        QCOMPARE(run.err.count('\n'), 1);
    }

    void unknownFormatIsBadInput()
    {
        const auto run = runCli({"info", QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json"), "--format", "xml"});
        QCOMPARE(run.exitCode, 2);
    }

    void opsRowsAreSortedBySelfTimeAndLimited()
    {
        const auto run = runCli({"ops", kAnalysisTrace, "--format", "json", "--top", "5"});
        QCOMPARE(run.exitCode, 0);
        const auto rows = QJsonDocument::fromJson(run.out.toUtf8()).object().value("rows").toArray();
        QCOMPARE(rows.size(), 5);
        double previous = std::numeric_limits<double>::infinity();
        for (const auto &row : rows) {
            const auto object = row.toObject();
            for (const auto *key : {"name", "calls", "total_us", "self_us"})
                QVERIFY2(object.contains(key), key);
            QVERIFY(object.value("self_us").toDouble() <= previous);
            QVERIFY(object.value("self_us").toDouble() <= object.value("total_us").toDouble());
            previous = object.value("self_us").toDouble();
        }
    }

    void opsAgreeWithKeyAverages()
    {
        // key_averages() as python3-torch printed it for the same recording (made by
        // scripts/make-analysis-fixtures.py): calls and self time per op.
        QFile csv(QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/torch_cpu_cnn.key_averages.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList header = QString::fromUtf8(csv.readLine()).trimmed().split(',');
        const int nameColumn = header.indexOf("name"), callsColumn = header.indexOf("calls");
        QVERIFY(nameColumn >= 0 && callsColumn >= 0);
        QHash<QString, int> expectedCalls;
        while (!csv.atEnd()) {
            const QStringList cells = QString::fromUtf8(csv.readLine()).trimmed().split(',');
            if (cells.size() > std::max(nameColumn, callsColumn))
                expectedCalls.insert(cells[nameColumn], cells[callsColumn].toInt());
        }
        QVERIFY(expectedCalls.size() > 5);
        const auto run = runCli({"ops", kAnalysisTrace, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto rows = QJsonDocument::fromJson(run.out.toUtf8()).object().value("rows").toArray();
        QCOMPARE(rows.size(), expectedCalls.size());
        for (const auto &row : rows) {
            const auto name = row.toObject().value("name").toString();
            QVERIFY2(expectedCalls.contains(name), qPrintable(name));
            QCOMPARE(row.toObject().value("calls").toInt(), expectedCalls.value(name));
        }
    }

    void flameIsFoldedStacks()
    {
        const auto run = runCli({"flame", kAnalysisTrace, "--format", "collapsed"});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.size() > 10);
        const QRegularExpression line(R"(^[^;]+(;[^;]+)* \d+(\.\d+)?$)");
        for (const auto &text : lines)
            QVERIFY2(line.match(text).hasMatch(), qPrintable(text));
    }

    void tablesFitTheTerminalAndMachineFormatsKeepNames()
    {
        // The two spans of the TensorBoard run: kernel names several hundred characters long.
        const QString run = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/tb_logdir/resnet50_num_workers_0/");
        const QStringList spans{run + "worker0.1623143089861.pt.trace.json.gz", run + "worker0.1623143566756.pt.trace.json.gz"};
        const auto csv = runCli({"diff", spans[0], spans[1], "--format", "csv"}, "80");
        QCOMPARE(csv.exitCode, 0);
        QStringList fullNames;
        for (const auto &line : csv.out.split('\n', Qt::SkipEmptyParts))
            fullNames << line;
        QVERIFY2(std::any_of(fullNames.begin(), fullNames.end(), [](const QString &line) { return line.size() > 200; }),
                 "csv keeps long names whole");
        for (const QString columns : {"80", "120"}) {
            const auto table = runCli({"diff", spans[0], spans[1]}, columns);
            QCOMPARE(table.exitCode, 0);
            int elided = 0;
            for (const auto &line : table.out.split('\n', Qt::SkipEmptyParts)) {
                QVERIFY2(line.size() <= columns.toInt(), qPrintable(QString::number(line.size()) + ": " + line));
                const auto cells = line.split(QRegularExpression(QStringLiteral("\\s{2,}")));
                const auto it = std::find_if(cells.begin(), cells.end(), [](const QString &cell) { return cell.contains(QChar(0x2026)); });
                if (it == cells.end())
                    continue;
                const auto name = *it;
                const auto cut = name.indexOf(QChar(0x2026));
                ++elided;
                // The elided name keeps both ends of one real name.
                const auto head = name.left(cut), tail = name.mid(cut + 1);
                QVERIFY2(head.size() >= 7 && tail.size() >= 7, qPrintable(name));
                QVERIFY2(std::any_of(fullNames.begin(), fullNames.end(),
                                     [&](const QString &full) { return full.contains(head) && full.contains(tail); }),
                         qPrintable(name));
            }
            QVERIFY2(elided > 0, qPrintable(table.out));
        }
    }

    void proseColumnsWrapUnderTheirRow()
    {
        // Findings are sentences: in a table they go under their row, whole, wrapped to fit.
        const auto table = runCli({"advise", kGpuTrace}, "80");
        QCOMPARE(table.exitCode, 0);
        const auto json = runCli({"advise", kGpuTrace, "--format", "json"});
        const auto rows = QJsonDocument::fromJson(json.out.toUtf8()).object().value("rows").toArray();
        QVERIFY(!rows.isEmpty());
        QString unwrapped;
        for (const auto &line : table.out.split('\n', Qt::SkipEmptyParts)) {
            QVERIFY2(line.size() <= 80, qPrintable(line));
            unwrapped += line.startsWith("    ") ? " " + line.trimmed() : "\n" + line;
        }
        for (const auto &row : rows) {
            const auto finding = row.toObject();
            QVERIFY2(unwrapped.contains("finding: " + finding.value("detail").toString()), qPrintable(unwrapped));
            QVERIFY2(unwrapped.contains("fix: " + finding.value("fix").toString()), qPrintable(unwrapped));
        }
    }

    void diffGatesOnRegressions()
    {
        const QString base = QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json");
        // A trace against itself: no change, and the gate passes.
        auto run = runCli({"diff", base, base, "--format", "json", "--fail-if-slower", "1"});
        QCOMPARE(run.exitCode, 0);
        const auto total = QJsonDocument::fromJson(run.out.toUtf8()).object().value("total").toObject();
        QCOMPARE(total.value("delta_us").toDouble(), 0.0);
        QCOMPARE(total.value("base_us").toDouble(), total.value("other_us").toDouble());
        // Its steps repeat: the steady steps' ratio is 1, within noise.
        const auto steps = QJsonDocument::fromJson(run.out.toUtf8()).object().value("steps").toObject();
        QCOMPARE(steps.value("ratio").toDouble(), 1.0);
        QVERIFY(steps.value("within_noise").toBool());
        QVERIFY(steps.value("base_steps").toInt() >= 2);
        QCOMPARE(steps.value("ratio_ci95").toArray().size(), 2);
        // The demo spends far more time than the small CNN recording: as "other" it is a
        // regression, and the gate fails.
        run = runCli({"diff", kAnalysisTrace, base, "--format", "json", "--fail-if-slower", "5"});
        const auto slower = QJsonDocument::fromJson(run.out.toUtf8()).object().value("total").toObject();
        QVERIFY(slower.value("delta_pct").toDouble() > 5);
        QCOMPARE(run.exitCode, 1);
        // The other way round it is faster, and passes.
        QCOMPARE(runCli({"diff", base, kAnalysisTrace, "--fail-if-slower", "5"}).exitCode, 0);
    }

    void analysisCommandsRefuseBadInput_data()
    {
        QTest::addColumn<QString>("command");
        for (const auto *command : {"ops", "kernels", "steps", "memory", "flame", "advise"})
            QTest::addRow("%s", command) << QString::fromLatin1(command);
    }
    void analysisCommandsRefuseBadInput()
    {
        QFETCH(QString, command);
        const QString missing = QStringLiteral("/no/such/trace.json");
        const auto run = runCli({command, missing});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(missing) && run.err.count('\n') == 1, qPrintable(run.err));
    }

    void flopsCountsTheDemoModelByHand()
    {
        const auto run = runCli({"flops", kDemoModel, "--input", "8x3x64x64", "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        // Convolutions and the linear layer, N*Cout*Hout*Wout*Cin/groups*k*k and N*in*out:
        const qint64 stem = 8LL * 16 * 64 * 64 * 3 * 3 * 3;
        const qint64 block1 = 8LL * 32 * 32 * 32 * 16 * 9 + 8LL * 32 * 32 * 32 * 1 * 9; // dense, then depthwise
        const qint64 block2 = 8LL * 64 * 16 * 16 * 32 * 9;
        const qint64 head = 8LL * 64 * 10;
        QCOMPARE(qint64(json.value("total_macs").toDouble()), stem + block1 + block2 + head);
        QVERIFY(json.value("total_flops").toDouble() >= 2 * json.value("total_macs").toDouble());
        QCOMPARE(json.value("params").toInteger(), 24698); // PyTorch's count (demo_facts.json)
    }

    void profileReportsLatencyAndLayers()
    {
        const auto run = runCli({"profile", kDemoModel, "--input", "2x3x64x64", "--warmup", "1", "--iters", "5", "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const auto latency = json.value("latency_ms").toObject();
        for (const auto *key : {"cold", "mean", "std", "min", "p50", "p90", "p99"})
            QVERIFY2(latency.contains(key), key);
        QVERIFY(latency.value("min").toDouble() > 0);
        QVERIFY(latency.value("min").toDouble() <= latency.value("p50").toDouble());
        QVERIFY(latency.value("p50").toDouble() <= latency.value("p90").toDouble());
        QVERIFY(latency.value("p90").toDouble() <= latency.value("p99").toDouble());
        QVERIFY(json.value("throughput_per_s").toDouble() > 0);
        bool sawConv = false;
        for (const auto &layer : json.value("layers").toArray()) {
            const auto object = layer.toObject();
            if (object.value("module").toString() == "stem.0") {
                sawConv = true;
                QCOMPARE(object.value("type").toString(), QString("Conv2d"));
                QCOMPARE(object.value("macs").toDouble(), 2.0 * 16 * 64 * 64 * 27);
                QCOMPARE(object.value("params").toInteger(), 432);
                QVERIFY(object.value("calls").toInt() >= 1);
            }
        }
        QVERIFY(sawConv);
    }

    void reportWritesHtmlAndMarkdown()
    {
        QTemporaryDir dir;
        const QString html = dir.filePath("r.html");
        auto run = runCli({"report", kGpuTrace, kDemoModel, "--input", "1x3x64x64", "--warmup", "1", "--iters", "3", "-o", html});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString page = QString::fromUtf8(file.readAll());
        for (const char *part : {"<th>Operator</th>", "<th>Kernel</th>", "<th>Step</th>", "<th>Layer</th>", "stem.0",
                                 "data:image/svg+xml;base64,", "id=\"input1-summary\"", "id=\"input2-summary\""})
            QVERIFY2(page.contains(QLatin1String(part)), part);

        const QString markdown = dir.filePath("r.md");
        run = runCli({"report", kGpuTrace, "-o", markdown, "--top", "3", "--time-unit", "us"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile md(markdown);
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY(text.contains("| Operator | Calls |"));
        // --top 3: three operator rows under the header and its rule.
        const auto lines = text.split('\n');
        const auto header = lines.indexOf(QRegularExpression("^\\| Operator \\|.*"));
        QVERIFY(header > 0);
        QVERIFY(lines.value(header + 4).startsWith("| ") && !lines.value(header + 5).startsWith("| "));
        QVERIFY(lines.value(header + 2).contains(QString::fromUtf8("\u00b5s |")));
    }

    void reportRefusesBadInput_data()
    {
        static QTemporaryDir out; // the reports must not appear here
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("says");
        QTest::addRow("missing trace") << QStringList{"report", "/no/such/trace.json", "-o", out.filePath("r.html")}
                                       << "/no/such/trace.json";
        QTest::addRow("extension") << QStringList{"report", kGpuTrace, "-o", out.filePath("r.pdf")} << ".html or .md";
        QTest::addRow("not a model") << QStringList{"report", QStringLiteral(PYROMETER_FIXTURES_DIR "/models/state_dict.pt"),
                                                    "-o", out.filePath("r.md")}
                                     << "state_dict.pt";
    }
    void reportRefusesBadInput()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, says);
        const auto run = runCli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(says) && run.err.count('\n') == 1, qPrintable(run.err));
        QVERIFY(!QFile::exists(arguments.value(3)));
    }

    void profileRefusesAWrongShape()
    {
        const auto run = runCli({"profile", kDemoModel, "--input", "2x4x64x64"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.startsWith("pyrometer-cli: " + kDemoModel), qPrintable(run.err));
        QVERIFY2(run.err.contains("channels"), qPrintable(run.err));
        QCOMPARE(run.err.count('\n'), 1);
    }

    void batchDimensionBOnlyForSweeps()
    {
        const auto help = runCli({"sweep", "--help"});
        QVERIFY2(help.out.contains("Bx3x224x224"), qPrintable(help.out));
        const auto run = runCli({"profile", kDemoModel, "--input", "Bx3x64x64"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--input") && run.err.contains("batch size a sweep varies"), qPrintable(run.err));
    }

    void sweepWritesRowsInOrderAndKnees()
    {
        // B, as the help shows it, names the swept batch dimension.
        const auto run = runCli({"sweep", kDemoModel, "--input", "Bx3x64x64", "--batches", "1,2,4", "--variants", "baseline,threads=1",
                                 "--memory-budget", "64MiB", "--warmup", "0", "--iters", "2", "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(json.value("input").toString(), QString("Bx3x64x64"));
        const auto rows = json.value("rows").toArray();
        QCOMPARE(rows.size(), 6);
        const qint64 batches[] = {1, 2, 4, 1, 2, 4};
        for (int i = 0; i < rows.size(); ++i) {
            const auto row = rows[i].toObject();
            QCOMPARE(row.value("variant").toString(), QString(i < 3 ? "baseline" : "threads=1"));
            QCOMPARE(row.value("batch").toInteger(), batches[i]);
            for (const auto *key : {"latency_ms", "p90_ms", "throughput_per_s", "peak_memory_bytes"})
                QVERIFY2(row.value(key).toDouble() > 0, key);
            if (i % 3 > 0)
                QVERIFY(row.value("peak_memory_bytes").toDouble() > rows[i - 1].toObject().value("peak_memory_bytes").toDouble());
        }
        const auto knee = json.value("knee").toObject();
        QVERIFY(knee.contains("baseline") && knee.contains("threads=1"));
        QCOMPARE(json.value("memory_source").toString(), QString("cpu-allocator"));
        QCOMPARE(json.value("memory_budget_bytes").toInteger(), 64LL << 20);
        // The knee and the largest batch in budget, worked out here from the measured rows by
        // their definitions: the knee is the smallest batch from which no larger batch gains
        // 10% or more per doubling; the largest batch is the largest whose peak fits the budget.
        for (const auto &entry : json.value("variants").toArray()) {
            const auto variant = entry.toObject().value("variant").toString();
            QMap<qint64, double> throughput;
            qint64 largest = 0;
            for (const auto &row : rows) {
                const auto r = row.toObject();
                if (r.value("variant").toString() != variant)
                    continue;
                throughput.insert(r.value("batch").toInteger(), r.value("throughput_per_s").toDouble());
                if (r.value("peak_memory_bytes").toDouble() <= double(64LL << 20))
                    largest = std::max(largest, r.value("batch").toInteger());
            }
            QCOMPARE(entry.toObject().value("largest_fitting_batch").toInteger(), largest);
            const auto paysToGrow = [&](qint64 from) {
                for (auto to = throughput.upperBound(from); to != throughput.end(); ++to)
                    if (to.value() >= throughput.value(from) * std::pow(1.10, std::log2(double(to.key()) / double(from))))
                        return true;
                return false;
            };
            qint64 expectedKnee = 0;
            for (auto it = throughput.begin(); it != std::prev(throughput.end()); ++it)
                if (!paysToGrow(it.key())) {
                    expectedKnee = it.key();
                    break;
                }
            const auto reported = entry.toObject().value("knee");
            if (expectedKnee == 0)
                QVERIFY2(reported.isNull(), qPrintable(variant));
            else
                QCOMPARE(reported.toObject().value("batch").toInteger(), expectedKnee);
        }
    }

    void compareGatesOnAVariant()
    {
        // Every variant is "slower than the baseline by more than -100%": the gate must fire,
        // after the table was written.
        const auto run = runCli({"compare", kDemoModel, "--input", "2x3x64x64", "--variants", "baseline,frozen,int8_static,threads=1",
                                 "--warmup", "0", "--iters", "2", "--format", "json", "--fail-if-slower", "-100", "--gate", "threads=1"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("threads=1 is") && run.err.contains("slower than the baseline"), qPrintable(run.err));
        const auto rows = QJsonDocument::fromJson(run.out.toUtf8()).object().value("rows").toArray();
        QCOMPARE(rows.size(), 4);
        QStringList names;
        for (const auto &row : rows)
            names << row.toObject().value("variant").toString();
        QCOMPARE(names, QStringList({"baseline", "frozen", "int8_static", "threads=1"}));
        const auto baseline = rows[0].toObject();
        QCOMPARE(baseline.value("speedup").toDouble(), 1.0);
        QVERIFY(baseline.value("model_bytes").toInteger() > 24698 * 4); // its float weights, at least
        const auto frozen = rows[1].toObject();
        for (const auto *key : {"latency_ms", "speedup", "model_bytes"})
            QVERIFY2(frozen.value(key).toDouble() > 0, key);
        QVERIFY(frozen.value("max_abs_diff").toDouble() < 1e-4);
        QVERIFY(!frozen.contains("error"));
        // int8 static: convolutions and the head calibrated and quantized.
        const auto int8Static = rows[2].toObject();
        QVERIFY2(!int8Static.contains("error"), qPrintable(int8Static.value("error").toString()));
        QVERIFY2(int8Static.value("note").toString().contains("int8 static"), qPrintable(int8Static.value("note").toString()));
        QVERIFY(int8Static.value("model_bytes").toInteger() < baseline.value("model_bytes").toInteger());
    }

    void exportWritesTheVariantAsTorchScript()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("conv_int8.pt"));
        const QString model = QStringLiteral(PYROMETER_TEST_MODELS_DIR "/conv_only.pt");
        const auto run = runCli({"export", model, "--variant", "int8_static", "-o", out});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("2 convolutions int8 static"), qPrintable(run.err));
        // The file opens as a model of its own, records its inputs, and runs its int8 convolutions.
        const auto again = runCli({"compare", out, "--variants", "baseline", "--warmup", "0", "--iters", "1", "--format", "json"});
        QCOMPARE(again.exitCode, 0);
        const auto json = QJsonDocument::fromJson(again.out.toUtf8()).object();
        QCOMPARE(json.value("input").toString(), QStringLiteral("1x3x16x16"));
        const auto original = runCli({"compare", model, "--variants", "baseline", "--warmup", "0", "--iters", "1", "--format", "json"});
        const auto bytes = [](const Run &r) {
            return QJsonDocument::fromJson(r.out.toUtf8()).object().value("rows").toArray()[0].toObject().value("model_bytes").toInteger();
        };
        QVERIFY2(bytes(again) < bytes(original), qPrintable(QStringLiteral("%1 vs %2").arg(bytes(again)).arg(bytes(original))));
        const QString trace = dir.filePath(QStringLiteral("conv_int8.trace.json"));
        const auto profile = runCli({"profile", out, "--warmup", "0", "--iters", "1", "--format", "json", "--trace", trace});
        QCOMPARE(profile.exitCode, 0);
        QFile traceFile(trace);
        QVERIFY(traceFile.open(QIODevice::ReadOnly));
        QVERIFY(traceFile.readAll().contains("quantized::conv2d"));
        // Its MACs, from the unpacked int8 weights, are the float model's: 16x16 outputs of
        // 8 channels over 3x3x3, then of 4 over 8x3x3.
        const auto layers = QJsonDocument::fromJson(profile.out.toUtf8()).object().value("layers").toArray();
        QCOMPARE(layers[0].toObject().value("macs").toDouble(), 16.0 * 16 * 8 * 27 + 16.0 * 16 * 4 * 72);

        // What saves nothing, and where nothing can be written, are bad input.
        const auto threads = runCli({"export", model, "--variant", "threads=1", "-o", out});
        QCOMPARE(threads.exitCode, 2);
        QVERIFY(threads.err.contains("nothing to save"));
        const auto nowhere = runCli({"export", model, "--variant", "frozen", "-o", dir.filePath(QStringLiteral("missing/x.pt"))});
        QCOMPARE(nowhere.exitCode, 2);
        QVERIFY2(nowhere.err.contains("missing/x.pt"), qPrintable(nowhere.err));
        QVERIFY(!QDir(dir.path()).entryList(QDir::Files).join(' ').contains(QStringLiteral("part"))); // no half-written file left
    }

    void compareRowSaysWhyAVariantFailed()
    {
        // A model of convolutions only: int8 dynamic has nothing to quantize and says so in
        // its row; the other variant still runs, and a failed variant is not a bad input.
        const auto run = runCli({"compare", QStringLiteral(PYROMETER_TEST_MODELS_DIR "/conv_only.pt"), "--variants", "int8,int8_static",
                                 "--warmup", "0", "--iters", "1", "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto rows = QJsonDocument::fromJson(run.out.toUtf8()).object().value("rows").toArray();
        QCOMPARE(rows.size(), 3);
        const auto failed = rows[1].toObject();
        QCOMPARE(failed.value("variant").toString(), QStringLiteral("int8"));
        QVERIFY2(failed.value("error").toString().startsWith("no linear, LSTM or GRU layer"), qPrintable(failed.value("error").toString()));
        QVERIFY(failed.value("latency_ms").isNull() && failed.value("model_bytes").isNull()); // not measured, not zero
        QVERIFY2(rows[2].toObject().value("note").toString().startsWith("2 convolutions int8 static"),
                 qPrintable(rows[2].toObject().value("note").toString()));
    }

    void compareDiffsTwoProfiles()
    {
        QTemporaryDir dir;
        const auto write = [&](const QString &name, double model, double conv, const char *extra) {
            QFile file(dir.filePath(name));
            file.open(QIODevice::WriteOnly);
            file.write(QStringLiteral(R"({"model": "m.pt", "layers": [
                {"module": "", "type": "Net", "depth": 0, "total_ms": %1, "self_ms": 0},
                {"module": "conv", "type": "Conv2d", "depth": 1, "total_ms": %2, "self_ms": %2}%3]})")
                           .arg(model).arg(conv).arg(QLatin1String(extra)).toUtf8());
            return file.fileName();
        };
        const auto base = write("base.json", 10, 6, R"(, {"module": "fc", "type": "Linear", "depth": 1, "total_ms": 4})");
        const auto other = write("other.json", 12.5, 9, "");
        const auto run = runCli({"compare", base, other, "--format", "json", "--fail-if-slower", "20"});
        QCOMPARE(run.exitCode, 1); // the model's row is 25% slower
        const auto rows = QJsonDocument::fromJson(run.out.toUtf8()).object().value("rows").toArray();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[1].toObject().value("delta_ms").toDouble(), 3.0);
        QCOMPARE(rows[1].toObject().value("delta_pct").toDouble(), 50.0);
        QCOMPARE(rows[2].toObject().value("presence").toString(), QString("base only"));

        const QString notProfile = dir.filePath("notprofile.json");
        QFile bad(notProfile);
        bad.open(QIODevice::WriteOnly);
        bad.write(R"({"traceEvents": []})");
        bad.close();
        const auto refused = runCli({"compare", base, notProfile});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(notProfile) && refused.err.contains("layers") && refused.err.count('\n') == 1, qPrintable(refused.err));

        // With the timed runs saved, they judge with their noise: 64 ± 25 ms against 83 ± 25 ms
        // over 10 runs each is 30% slower yet within noise (95% CI of the ratio 0.93 to 1.80),
        // not a failure; the same means over 200 runs of ±2 ms are beyond it.
        const auto timed = [&](const QString &name, double mean, double std, int runs) {
            QFile file(dir.filePath(name));
            file.open(QIODevice::WriteOnly);
            file.write(QStringLiteral(R"({"model": "m.pt", "iterations": %3, "latency_ms": {"mean": %1, "std": %2},
                "layers": [{"module": "", "type": "Net", "depth": 0, "total_ms": %1, "self_ms": 0}]})")
                           .arg(mean)
                           .arg(std)
                           .arg(runs)
                           .toUtf8());
            return file.fileName();
        };
        const auto noisy =
            runCli({"compare", timed("a.json", 64, 25, 10), timed("b.json", 83, 25, 10), "--fail-if-slower", "20"});
        QCOMPARE(noisy.exitCode, 0);
        QVERIFY2(noisy.err.contains("29.69% slower") && noisy.err.contains("within noise"), qPrintable(noisy.err));
        const auto clear =
            runCli({"compare", timed("c.json", 64, 2, 200), timed("d.json", 83, 2, 200), "--fail-if-slower", "20"});
        QCOMPARE(clear.exitCode, 1);
        QVERIFY2(clear.err.contains("29.69% slower") && !clear.err.contains("within noise"), qPrintable(clear.err));
    }

    void sweepAndCompareRefuseBadInput()
    {
        const auto missing = runCli({"compare", "/no/such/model.pt", "--variants", "baseline,frozen"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("/no/such/model.pt") && missing.err.contains("no such file") && missing.err.count('\n') == 1,
                 qPrintable(missing.err));
        const auto variant = runCli({"sweep", kDemoModel, "--input", "1x3x64x64", "--variants", "baseline,fast"});
        QCOMPARE(variant.exitCode, 2);
        QVERIFY2(variant.err.contains(kDemoModel) && variant.err.contains("unknown variant \"fast\""), qPrintable(variant.err));
    }

    void subcommandHelpShowsUsage()
    {
        const auto run = runCli({"profile", "--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("--input"), qPrintable(run.out));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
