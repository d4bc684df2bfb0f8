// pyrometer-cli's numbers against the independent goldens and hand-worked figures: ops,
// kernels and steps of every fixture trace, the steps' GPU utilization, and a diff of the
// hand-built trace pair.
#include "clitestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace pyrometer::testing;

namespace {

const QString kAnalysisTrace = QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/torch_cpu_cnn.json");

} // namespace

class TestCliValues : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The numbers of ops, kernels and steps in csv, md and json against the independent
    // goldens, for every fixture trace.
    void tableCommandsMatchTheGoldens_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("trace");
        const QString traces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/");
        QTest::newRow("torch_cpu_cnn") << "torch_cpu_cnn" << kAnalysisTrace;
        QTest::newRow("a100_alexnet") << "a100_alexnet" << traces + "benchmark_result_2869224_1695835535_trace.json.gz";
        QTest::newRow("mi250_rocm") << "mi250_rocm" << traces + "mi250_minitoy_train_ROCm6_2_kineto.json.gz";
        QTest::newRow("cpu_gloo") << "cpu_gloo" << traces + "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz";
        QTest::newRow("h100_bert") << "h100_bert" << traces + "gaunernst_bert-small-uncased__1016001.json.gz";
        QTest::newRow("kineto_unordered") << "kineto_unordered" << traces + "before_fix_trace.json";
        QTest::newRow("v100_resnet50") << "v100_resnet50"
                                       << traces + "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
    }
    void tableCommandsMatchTheGoldens()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, trace);
        const auto run = [&](const QString &command, const QString &format) {
            const auto result = runCli({command, trace, "--format", format});
            return result.exitCode == 0 ? result.out : QString();
        };
        // ops: golden name,calls,total,self,min,max,device self,device total;
        // cli name,calls,self,self %,total,total %,avg,min,max,device self,device total,...
        {
            const auto ops = keyed(parseCsv(run("ops", "csv")), 1);
            const auto expected = golden(fixture, ".ops.csv");
            QVERIFY(!expected.isEmpty());
            QCOMPARE(ops.size(), expected.size());
            const int cliColumn[] = {0, 1, 4, 2, 7, 8, 9, 10};
            for (const auto &e : expected) {
                QVERIFY2(ops.contains(e[0]), qPrintable(e[0]));
                for (int c = 1; c < 8; ++c) {
                    // A CPU-only trace has no device columns: the golden's are zero.
                    const auto cell = ops[e[0]].value(cliColumn[c], QStringLiteral("0.000"));
                    QVERIFY2(cell == e[c], qPrintable(e[0] + ": column " + QString::number(c) + " " + cell + " != " + e[c]));
                }
            }
            // md carries the same cells.
            const auto md = run("ops", "md").split('\n', Qt::SkipEmptyParts);
            QCOMPARE(md.size(), ops.size() + 2);
        }
        // kernels: golden kind,name,count,total,min,max; cli kind,name,count,total,avg,min,max,%,op.
        {
            const auto kernels = keyed(parseCsv(run("kernels", "csv")), 2);
            const auto expected = golden(fixture, ".kernels.csv");
            QCOMPARE(kernels.size(), expected.size());
            for (const auto &e : expected) {
                const auto key = e.mid(0, 2).join(QChar(0));
                QVERIFY2(kernels.contains(key), qPrintable(e[1]));
                const auto &k = kernels[key];
                QVERIFY2(k[2] == e[2] && k[3] == e[3] && k[5] == e[4] && k[6] == e[5], qPrintable(k.join(',') + " != " + e.join(',')));
            }
            // json: the same totals as numbers.
            const auto json = QJsonDocument::fromJson(run("kernels", "json").toUtf8()).object().value("rows").toArray();
            QCOMPARE(json.size(), expected.size());
            for (const auto &row : json) {
                const auto r = row.toObject();
                const auto key = QStringList{r.value("kind").toString(), r.value("name").toString()}.join(QChar(0));
                QVERIFY2(kernels.contains(key), qPrintable(r.value("name").toString()));
                QCOMPARE(r.value("total_us").toDouble(), kernels[key][3].toDouble());
            }
        }
        // steps: golden step,duration,kernel,memcpy,memset,runtime,dataloader,cpu_exec,other; the
        // cli's first nine columns are the same.
        {
            auto steps = parseCsv(run("steps", "csv"));
            const auto expected = golden(fixture, ".steps.csv");
            QVERIFY(!steps.isEmpty());
            steps.removeFirst();
            QCOMPARE(steps.size(), expected.size());
            for (qsizetype r = 0; r < expected.size(); ++r)
                QCOMPARE(steps[r].mid(0, 9), expected[r]);
        }
    }

    void stepsGpuUtilizationMatchesTheGolden()
    {
        // v100_resnet50 in the analysis goldens: busy inside the steps and the summed step time.
        QFile golden(QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/v100_resnet50.utilization.csv"));
        QVERIFY(golden.open(QIODevice::ReadOnly));
        const auto row = QString::fromUtf8(golden.readAll()).split('\n').at(1).split(',');
        const QString run = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/tb_logdir/resnet50_num_workers_0/");
        const auto json = runCli({"steps", run + "worker0.1623143089861.pt.trace.json.gz", "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const auto gpu = QJsonDocument::fromJson(json.out.toUtf8()).object().value("gpu_utilization").toObject();
        QCOMPARE(gpu.value("over").toString(), QString("steps"));
        const auto device = gpu.value("devices").toArray().at(0).toObject();
        QCOMPARE(device.value("device").toInt(), row[0].toInt());
        QCOMPARE(device.value("busy_us").toDouble(), row[2].toDouble());
        QCOMPARE(device.value("time_us").toDouble(), row[3].toDouble());
        QCOMPARE(device.value("utilization").toDouble(), row[2].toDouble() / row[3].toDouble());
        // The table says the same in its last line.
        const auto table = runCli({"steps", run + "worker0.1623143089861.pt.trace.json.gz"}, "100");
        const auto percent = QString::number(100.0 * row[2].toDouble() / row[3].toDouble(), 'f', 1);
        QVERIFY2(table.out.contains("GPU " + row[0] + " busy " + percent + "% of the step time"), qPrintable(table.out.right(300)));
    }

    void diffOfTheHandBuiltPair()
    {
        const QString base = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_base.json");
        const QString other = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_other.json");
        const auto json = runCli({"diff", base, other, "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const auto document = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QMap<QString, QJsonObject> rows;
        for (const auto &row : document.value("rows").toArray())
            rows.insert(row.toObject().value("name").toString(), row.toObject());
        QCOMPARE(rows.size(), 8);
        QCOMPARE(rows["aten::convolution"].value("base_us").toDouble(), 80.0);
        QCOMPARE(rows["aten::convolution"].value("other_us").toDouble(), 50.0);
        QCOMPARE(rows["aten::convolution"].value("delta_pct").toDouble(), -37.5);
        QCOMPARE(rows["aten::relu"].value("base_calls").toInt(), 2);
        QCOMPARE(rows["aten::relu"].value("delta_us").toDouble(), -10.0);
        QCOMPARE(rows["aten::gone"].value("delta_pct").toDouble(), -100.0);
        QCOMPARE(rows["aten::gone"].value("presence").toString(), QString("base_only"));
        QVERIFY(rows["aten::added"].value("delta_pct").isNull()); // new: no percentage
        QCOMPARE(rows["aten::added"].value("presence").toString(), QString("other_only"));
        QCOMPARE(rows["kernel_a"].value("delta_pct").toDouble(), -40.0);
        QVERIFY(rows["kernel_c"].value("delta_pct").isNull());
        QCOMPARE(document.value("total").toObject().value("base_us").toDouble(), 230.0);
        QCOMPARE(document.value("total").toObject().value("other_us").toDouble(), 185.0);
        QCOMPARE(document.value("ops").toObject().value("delta_us").toDouble(), -35.0);
        QCOMPARE(document.value("kernels").toObject().value("delta_us").toDouble(), -10.0);
        // The table: "new" where json has null, the total's percentage to two decimals.
        const auto table = runCli({"diff", base, other}, "100");
        QVERIFY2(table.out.contains(QRegularExpression("aten::added +0\\.0 +25\\.0 +25\\.0 +new +other_only")), qPrintable(table.out));
        QVERIFY2(table.out.contains(QRegularExpression("total +ops self \\+ kernels +230\\.0 +185\\.0 +-45\\.0 +-19\\.57")), qPrintable(table.out));
    }
};

QTEST_GUILESS_MAIN(TestCliValues)
#include "tst_cli_values.moc"
