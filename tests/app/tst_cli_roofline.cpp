// pyrometer-cli roofline: a GPU trace under its device's roof and under one given by name or by
// figures, the device table with its sources, bad input (exit 2), and resnet18 through batch 1, 8
// and 32 on the embedded engine under this machine's measured (and then cached) roof.
#include "clitestutil.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace pyrometer::testing;

namespace {

const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
const QString kMi250 = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
const QString kResnet18 = QStringLiteral(PYROMETER_TEST_MODELS_DIR "/resnet18.pt");

QJsonObject json(const Run &run)
{
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

QJsonObject layerNamed(const QJsonArray &layers, const QString &name)
{
    for (const auto &layer : layers)
        if (layer.toObject().value("layer").toString() == name)
            return layer.toObject();
    return {};
}

} // namespace

class TestCliRoofline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void traceUnderItsDevice()
    {
        const auto run = runCli({"roofline", kBert, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto out = json(run);
        QCOMPARE(out.value("trace_device").toString(), QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(out.value("device").toObject().value("name").toString(), QStringLiteral("NVIDIA H100 SXM5 80GB"));
        const auto rows = out.value("rows").toArray();
        QVERIFY(rows.size() > 5);
        double known = 0;
        for (const auto &value : rows) {
            const auto row = value.toObject();
            if (row.value("flops").isNull()) {
                QCOMPARE(row.value("bound").toString(), QStringLiteral("unknown"));
                continue;
            }
            known += row.value("time_us").toDouble();
            // Achieved = work / time; intensity = FLOPs / bytes, as the columns say.
            QVERIFY(qAbs(row.value("achieved_flops").toDouble() * row.value("time_us").toDouble() * 1e-6 -
                         row.value("flops").toDouble()) <= 1e-6 * row.value("flops").toDouble());
            QVERIFY(qAbs(row.value("intensity").toDouble() * row.value("bytes").toDouble() - row.value("flops").toDouble()) <=
                    1e-6 * row.value("flops").toDouble());
            QVERIFY(row.value("pct_of_roof").toDouble() > 0);
        }
        QVERIFY(qAbs(known - out.value("known_us").toDouble()) < 0.01);

        const auto table = runCli({"roofline", kBert, "--by-shape", "--top", "3"}, QStringLiteral("200"));
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains(QStringLiteral("aten::linear")));
        QVERIFY(table.out.contains(QStringLiteral("NVIDIA H100 SXM5 80GB")));
        QVERIFY(table.out.contains(QStringLiteral("Known work covers")));

        // By kernel: the same device time, each kernel with its launching op, stream and the
        // work of the call that launched it; the chains of memory-bound ops are listed.
        const auto kernels = runCli({"roofline", kBert, "--by-kernel", "--format", "json"});
        QCOMPARE(kernels.exitCode, 0);
        const auto byKernel = json(kernels);
        QVERIFY(qAbs(byKernel.value("total_us").toDouble() - out.value("total_us").toDouble()) < 0.01);
        int gemms = 0;
        for (const auto &value : byKernel.value("rows").toArray()) {
            const auto row = value.toObject();
            QVERIFY(!row.value("kernel").toString().isEmpty());
            QVERIFY(row.value("stream").toInt() >= 0);
            if (row.value("launching_op").toString() == QStringLiteral("aten::linear") && !row.value("flops").isNull())
                ++gemms;
        }
        QVERIFY(gemms >= 1);
        for (const auto &value : out.value("chains").toArray()) {
            const auto chain = value.toObject();
            QVERIFY(chain.value("ops").toArray().size() >= 2);
            QVERIFY(chain.value("occurrences").toInt() >= 1);
        }
        const auto both = runCli({"roofline", kBert, "--by-kernel", "--by-shape"});
        QCOMPARE(both.exitCode, 2);
    }

    void deviceByNameOrFigures()
    {
        auto run = runCli({"roofline", kMi250, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(json(run).value("device").isNull()); // "AMD Radeon Graphics" says too little
        for (const auto &row : json(run).value("rows").toArray())
            QCOMPARE(row.toObject().value("pct_of_roof").isNull(), true);
        run = runCli({"roofline", kMi250, "--device", "MI250X", "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(json(run).value("device").toObject().value("name").toString(), QStringLiteral("AMD Instinct MI250X (per GCD)"));
        run = runCli({"roofline", kMi250, "--peak", "100", "--bandwidth", "1000", "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto device = json(run).value("device").toObject();
        QCOMPARE(device.value("bandwidth").toDouble(), 1e12);
        QCOMPARE(device.value("vector_flops").toDouble(), 1e14);

        const auto devices = runCli({"roofline", "--devices", "--format", "csv"});
        QCOMPARE(devices.exitCode, 0);
        const auto rows = parseCsv(devices.out);
        QVERIFY(rows.size() > 15);
        for (int i = 1; i < rows.size(); ++i)
            QVERIFY2(!rows[i].last().isEmpty(), qPrintable(rows[i].first())); // every figure has a source
    }

    void badInputExitsTwo()
    {
        QTemporaryDir dir;
        const auto truncated = dir.filePath("truncated.json");
        QFile file(truncated);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 1)");
        file.close();
        auto run = runCli({"roofline", truncated});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("truncated.json")));
        run = runCli({"roofline", kBert, "--device", "GH200"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("GH200")));
        run = runCli({"roofline", kBert, "--peak", "100"});
        QCOMPARE(run.exitCode, 2);
        // A wrong input shape fails in the model's first run, before the roof is measured.
        QTemporaryDir cache;
        run = runCli({"roofline", kResnet18, "--input", "Bx3x224", "--batches", "1"}, QString(),
                     {{QStringLiteral("XDG_CACHE_HOME"), cache.path()}});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains(QStringLiteral("resnet18.pt")));
        QVERIFY(!QFile::exists(cache.filePath("pyrometer/cpu-roof.json")));
    }

    // resnet18 at batch 1, 8 and 32: a convolution's FLOPs grow with the batch, its weights do
    // not, so its intensity rises; every layer of known work lies under the measured roof.
    void resnet18SweepUnderTheMeasuredRoof()
    {
        QTemporaryDir cache;
        const QMap<QString, QString> environment{{QStringLiteral("XDG_CACHE_HOME"), cache.path()}};
        const QStringList arguments{"roofline", kResnet18, "--input", "Bx3x224x224", "--batches", "1,8,32",
                                    "--threads", "2", "--iters", "2", "--format", "json"};
        const auto run = runCli(arguments, QString(), environment);
        QCOMPARE(run.exitCode, 0);
        const auto out = json(run);
        const auto device = out.value("device").toObject();
        QVERIFY(device.value("measured").toBool());
        QVERIFY(device.value("name").toString().contains(QStringLiteral("measured")));
        QVERIFY(device.value("vector_flops").toDouble() > 1e9);
        QVERIFY(device.value("bandwidth").toDouble() > 1e8);
        QVERIFY(QFile::exists(cache.filePath("pyrometer/cpu-roof.json")));

        const auto batches = out.value("batches").toArray();
        QCOMPARE(batches.size(), 3);
        QCOMPARE(batches[0].toObject().value("batch").toInt(), 1);
        QCOMPARE(batches[2].toObject().value("batch").toInt(), 32);
        const auto conv = [&](int b) { return layerNamed(batches[b].toObject().value("layers").toArray(), "layer1.0.conv1"); };
        QVERIFY(!conv(0).isEmpty());
        QCOMPARE(conv(0).value("type").toString(), QStringLiteral("Conv2d"));
        // 64 -> 64 channels, 3x3, on 56x56: 2 x 64 x 56 x 56 x 64 x 9 FLOPs a sample.
        const double perSample = 2.0 * 64 * 56 * 56 * 64 * 9;
        QCOMPARE(conv(0).value("flops").toDouble(), perSample);
        QCOMPARE(conv(2).value("flops").toDouble(), 32 * perSample);
        // Its weights (64 x 64 x 9 floats) are read once whatever the batch; activations scale.
        const double weights = 64.0 * 64 * 9 * 4;
        const double activations = 2.0 * 64 * 56 * 56 * 4;
        QCOMPARE(conv(0).value("bytes").toDouble(), weights + activations);
        QCOMPARE(conv(2).value("bytes").toDouble(), weights + 32 * activations);
        QVERIFY(conv(1).value("intensity").toDouble() > conv(0).value("intensity").toDouble());
        QVERIFY(conv(2).value("intensity").toDouble() > conv(1).value("intensity").toDouble());
        for (const auto &batch : batches) {
            for (const auto &value : batch.toObject().value("layers").toArray()) {
                const auto layer = value.toObject();
                if (layer.value("flops").isNull())
                    continue;
                QVERIFY2(layer.value("pct_of_roof").toDouble() > 0, qPrintable(layer.value("layer").toString()));
                QVERIFY(layer.value("bound").toString() != QStringLiteral("unknown"));
            }
        }

        // A second run takes the roof from the cache: the same figures, not measured again.
        const auto again = runCli({"roofline", kResnet18, "--input", "Bx3x224x224", "--batches", "1", "--threads", "2", "--iters",
                                   "1", "--format", "json"},
                                  QString(), environment);
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(json(again).value("device").toObject().value("vector_flops").toDouble(), device.value("vector_flops").toDouble());
        QCOMPARE(json(again).value("device").toObject().value("bandwidth").toDouble(), device.value("bandwidth").toDouble());
    }
};

QTEST_GUILESS_MAIN(TestCliRoofline)
#include "tst_cli_roofline.moc"
