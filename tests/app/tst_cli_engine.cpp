// pyrometer-cli with the Python engine: --python and --device on profile, flops, sweep, compare
// and report, a .pt2 or a factory chosen by itself, and bad input exiting 2 with a message.
#include "clitestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace pyrometer::testing;

namespace {

const QString kPython = QStringLiteral("/usr/bin/python3");

QString factory(const char *file, const char *function)
{
    return QStringLiteral(PYROMETER_FIXTURES_DIR "/engine/") + QLatin1String(file) + QLatin1Char(':') + QLatin1String(function);
}

QString made(const char *name)
{
    return QStringLiteral(PYROMETER_ENGINE_MODELS_DIR "/") + QLatin1String(name);
}

bool torch2()
{
    QFile file(made("facts.json"));
    return file.open(QIODevice::ReadOnly) &&
        QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("torch")).toString().startsWith(QLatin1Char('2'));
}

} // namespace

class TestCliEngine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void flopsOfAFactoryAsOfItsTorchScript()
    {
        const auto python = runCli({QStringLiteral("flops"), factory("factory_cnn.py", "build"), QStringLiteral("--python"), kPython,
                                    QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(python.exitCode == 0, qPrintable(python.err));
        const auto p = QJsonDocument::fromJson(python.out.toUtf8()).object();
        QVERIFY(p.value(QStringLiteral("engine")).toString().startsWith(QLatin1String("Python ")));
        const auto embedded = runCli({QStringLiteral("flops"), made("factory_cnn.pt"), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(embedded.exitCode == 0, qPrintable(embedded.err));
        const auto e = QJsonDocument::fromJson(embedded.out.toUtf8()).object();
        QVERIFY(e.value(QStringLiteral("engine")).toString().startsWith(QLatin1String("embedded libtorch")));
        QCOMPARE(p.value(QStringLiteral("total_macs")).toDouble(), e.value(QStringLiteral("total_macs")).toDouble());
        QCOMPARE(p.value(QStringLiteral("rows")).toArray().size(), e.value(QStringLiteral("rows")).toArray().size());
    }

    void profileWritesTorchsTrace()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("cnn.pt.trace.json"));
        // No --python: a factory runs in $PYROMETER_PYTHON (set by the test) by itself.
        const auto run = runCli({QStringLiteral("profile"), factory("factory_cnn.py", "build"), QStringLiteral("--iters"),
                                 QStringLiteral("3"), QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--trace"), trace});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Python ")) && run.out.contains(QLatin1String("FactoryCnn")) && run.out.contains(QLatin1String("Conv2d")), qPrintable(run.out));
        QFile file(trace);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("ProfilerStep#1"));
    }

    void compareDefaultsToTheEnginesVariants()
    {
        const auto run = runCli({QStringLiteral("compare"), factory("factory_cnn.py", "build"), QStringLiteral("--iters"),
                                 QStringLiteral("2"), QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--format"),
                                 QStringLiteral("json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QStringList names;
        for (const auto row : QJsonDocument::fromJson(run.out.toUtf8()).object().value(QStringLiteral("rows")).toArray())
            names << row.toObject().value(QStringLiteral("variant")).toString();
        QCOMPARE(names, (QStringList{QStringLiteral("baseline"), QStringLiteral("compile"), QStringLiteral("channels_last"),
                                     QStringLiteral("int8"), QStringLiteral("bf16")}));
    }

    void badInputExitsTwo()
    {
        const auto cudaEmbedded = runCli({QStringLiteral("flops"), made("factory_cnn.pt"), QStringLiteral("--device"), QStringLiteral("cuda")});
        QCOMPARE(cudaEmbedded.exitCode, 2);
        QVERIFY2(cudaEmbedded.err.contains(QLatin1String("needs the Python engine")), qPrintable(cudaEmbedded.err));
        const auto device = runCli({QStringLiteral("flops"), made("factory_cnn.pt"), QStringLiteral("--device"), QStringLiteral("tpu")});
        QCOMPARE(device.exitCode, 2);
        QVERIFY2(device.err.contains(QLatin1String("cpu, cuda or cuda:N")), qPrintable(device.err));
        const auto cuda = runCli({QStringLiteral("profile"), factory("factory_cnn.py", "build"), QStringLiteral("--device"),
                                  QStringLiteral("cuda:0")});
        QCOMPARE(cuda.exitCode, 2);
        QVERIFY2(cuda.err.contains(QLatin1String("has no CUDA device")), qPrintable(cuda.err));
        const auto stateDict = runCli({QStringLiteral("flops"), QStringLiteral(PYROMETER_FIXTURES_DIR "/models/state_dict.pt"),
                                       QStringLiteral("--python"), kPython});
        QCOMPARE(stateDict.exitCode, 2);
        QVERIFY2(stateDict.err.contains(QLatin1String("weights without a model")), qPrintable(stateDict.err));
        const auto embeddedVariant = runCli({QStringLiteral("compare"), made("factory_cnn.pt"), QStringLiteral("--variants"),
                                             QStringLiteral("baseline,compile"), QStringLiteral("--iters"), QStringLiteral("1"),
                                             QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(embeddedVariant.exitCode, 0); // the baseline ran: the variant's row says why it did not
        QVERIFY2(embeddedVariant.out.contains(QLatin1String("the Python engine builds")), qPrintable(embeddedVariant.out));
    }

    void exportPrograms()
    {
        if (!torch2()) {
            const auto refused = runCli({QStringLiteral("flops"), made("fake.pt2")});
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains(QLatin1String("needs torch 2.1 or newer")), qPrintable(refused.err));
            return;
        }
        const auto flops = runCli({QStringLiteral("flops"), made("resnet18.pt2")});
        QVERIFY2(flops.exitCode == 0, qPrintable(flops.err));
        QVERIFY2(flops.out.contains(QLatin1String("1.8141 GMACs")), qPrintable(flops.out));
        const auto sweep = runCli({QStringLiteral("sweep"), made("resnet18.pt2"), QStringLiteral("--batches"), QStringLiteral("1,2"),
                                   QStringLiteral("--iters"), QStringLiteral("1"), QStringLiteral("--warmup"), QStringLiteral("1")});
        QVERIFY2(sweep.exitCode == 0, qPrintable(sweep.err));
        QVERIFY2(sweep.out.contains(QLatin1String("fixed batch of 1")), qPrintable(sweep.out));
    }
};

QTEST_GUILESS_MAIN(TestCliEngine)
#include "tst_cli_engine.moc"
