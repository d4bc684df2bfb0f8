// pyrometer-cli compare, sweep and export with pruning variants, accuracy on labelled data
// and energy, run as a user runs them; expected scores from the figures PyTorch wrote into
// facts.json when scripts/pruningfacts.py made the labelled set (the torch_test_models fixture).
#include "../labelledfacts.h"
#include "clitestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace pyrometer::testing;

namespace {

const QString kModels = QStringLiteral(PYROMETER_TEST_MODELS_DIR);

QString model(const char *file)
{
    return kModels + QLatin1Char('/') + QLatin1String(file);
}

QStringList labelled(QStringList arguments)
{
    return QStringList{"compare",    model("classifier.pt"),
                       "--variants", "prune_l1=0.5,prune_channels=0.3",
                       "--warmup",   "0",
                       "--iters",    "2",
                       "--data",     model("classifier_inputs.pt"),
                       "--labels",   model("classifier_labels.pt")} +
           arguments;
}

} // namespace

class TestCliOptimize : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!expectedScores("baseline").isEmpty(), "facts.json has no labelled set"); }

    void compareRowsCarryTheNewFigures()
    {
        const auto run = runCli(labelled({"--format", "json"}));
        QCOMPARE(run.exitCode, 0);
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QVERIFY(json.value("data").toString().startsWith("40 samples of "));
        const auto rows = json.value("rows").toArray();
        QCOMPARE(rows.size(), 3);
        const bool energy = json.value("energy_unavailable").isNull();
        for (const auto &value : rows) {
            const auto row = value.toObject();
            const auto name = row.value("variant").toString();
            const auto scores = expectedScores(name);
            QCOMPARE(row.value("accuracy").toDouble(), scores.value("correct").toInt() / 40.0);
            QCOMPARE(row.value("agreement").toDouble(), scores.value("agreeing").toInt() / 40.0);
            QVERIFY(row.value("params").toInteger() > 0);
            QVERIFY(row.value("macs").toDouble() > 0);
            QVERIFY(row.value("compressed_bytes").toInteger() > 0);
            // A figure where the counters can be read (above idle: 0 or more; the machine's: more), null
            // (never 0) where they cannot.
            QVERIFY2(energy ? row.value("energy_mj").toDouble() >= 0 : row.value("energy_mj").isNull(),
                     qPrintable(name));
            QVERIFY2(energy ? row.value("machine_energy_mj").toDouble() > 0 && row.value("idle_power_w").isDouble()
                            : row.value("machine_energy_mj").isNull() && row.value("idle_power_w").isNull(),
                     qPrintable(name));
        }
        QCOMPARE(rows[0].toObject().value("sparsity").toDouble(), 0.0);
        QVERIFY(std::abs(rows[1].toObject().value("sparsity").toDouble() - 0.5) < 0.01);
        QCOMPARE(rows[1].toObject().value("layers").toArray().size(), 3); // conv1, conv2, fc
        QVERIFY(rows[2].toObject().value("params").toInteger() < rows[0].toObject().value("params").toInteger());
        QVERIFY(rows[2].toObject().value("macs").toDouble() < rows[0].toObject().value("macs").toDouble());
        // Without data, the accuracy figures are null.
        const auto plain = runCli({"compare", model("small_cnn.pt"), "--variants", "prune_l1=0.5", "--warmup", "0",
                                   "--iters", "1", "--format", "json"});
        QCOMPARE(plain.exitCode, 0);
        const auto row = QJsonDocument::fromJson(plain.out.toUtf8()).object().value("rows").toArray()[1].toObject();
        QVERIFY(row.value("accuracy").isNull() && row.value("agreement").isNull());
        QVERIFY(QJsonDocument::fromJson(plain.out.toUtf8()).object().value("data").isNull());
    }

    // The gate judges each variant's drop in points against the baseline, from the same scores.
    void accuracyGate_data()
    {
        QTest::addColumn<double>("limit");
        QTest::addRow("tight") << 1.0;
        QTest::addRow("loose") << 50.0;
    }
    void accuracyGate()
    {
        QFETCH(double, limit);
        const auto run = runCli(labelled({"--max-accuracy-drop", QString::number(limit)}));
        const int base = expectedScores("baseline").value("correct").toInt();
        bool fails = false;
        for (const char *variant : {"prune_l1=0.5", "prune_channels=0.3"}) {
            const double drop = (base - expectedScores(variant).value("correct").toInt()) * 100.0 / 40.0;
            const bool failed = drop > limit;
            QCOMPARE(run.err.contains(QLatin1String(variant) + " drops top-1 accuracy"), failed);
            fails = fails || failed;
        }
        QCOMPARE(run.exitCode, fails ? 1 : 0);
        QVERIFY(run.out.contains("accuracy")); // the table is written either way
    }

    void badDataExitsTwoNamingTheFile_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::addRow("labels out of range")
            << labelled({}).mid(0, 10) + QStringList{"--labels", model("data/labels_range.pt")}
            << "pyrometer-cli: " + model("data/labels_range.pt") + ": label 4 is out of range";
        QTest::addRow("legacy format") << QStringList{"compare", model("classifier.pt"), "--data",
                                                      model("data/legacy.pt")}
                                       << "pyrometer-cli: " + model("data/legacy.pt") +
                                              ": written in torch.save's legacy format";
        QTest::addRow("gate without data")
            << QStringList{"compare", model("classifier.pt"), "--max-accuracy-drop", "1"}
            << "pyrometer-cli: " + model("classifier.pt") + ": --max-accuracy-drop needs --data";
        QTest::addRow("bad fraction") << QStringList{"compare", model("classifier.pt"), "--variants",
                                                     "prune_channels=3"}
                                      << "pyrometer-cli: " + model("classifier.pt") +
                                             ": --variants: variant \"prune_channels=3\"";
    }
    void badDataExitsTwoNamingTheFile()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const auto run = runCli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.startsWith(message), qPrintable(run.err));
        QCOMPARE(run.err.count('\n'), 1);
    }

    // The pruned model export writes is the pruned one: it reloads with fewer parameters.
    void exportWritesThePrunedModel()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("classifier_pruned.pt"));
        const auto run = runCli({"export", model("classifier.pt"), "--variant", "prune_channels=0.3", "-o", out});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("channel groups removed"), qPrintable(run.err));
        const auto params = [](const QString &path) {
            const auto r = runCli(
                {"compare", path, "--variants", "baseline", "--warmup", "0", "--iters", "1", "--format", "json"});
            return QJsonDocument::fromJson(r.out.toUtf8())
                .object()
                .value("rows")
                .toArray()[0]
                .toObject()
                .value("params")
                .toInteger();
        };
        QCOMPARE(params(out), 2666); // PyTorch's count of the pruned classifier (facts.json)
        QVERIFY(params(model("classifier.pt")) > params(out));
    }

    void sweepPointsCarryEnergy()
    {
        const auto run = runCli({"sweep", model("small_cnn.pt"), "--batches", "1,2", "--variants",
                                 "baseline,prune_channels=0.3", "--warmup", "0", "--iters", "1", "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const bool energy = json.value("energy_unavailable").isNull();
        const auto rows = json.value("rows").toArray();
        QCOMPARE(rows.size(), 4);
        for (const auto &row : rows)
            QVERIFY(energy ? row.toObject().value("machine_energy_mj").toDouble() > 0
                           : row.toObject().value("machine_energy_mj").isNull() &&
                                 row.toObject().value("energy_mj").isNull());
    }
};

QTEST_GUILESS_MAIN(TestCliOptimize)
#include "tst_cli_optimize.moc"
