// Pruning variants on real TorchScript models (the torch_make_test_models fixture): what they
// zero and remove, checked against PyTorch's own count of the pruned architectures
// (scripts/pruningfacts.py builds and runs them) and against counts worked by hand here.
// Few runs: figures are checked for what they count, never for speed.
#include "core/torch/flops.h"
#include "core/torch/sweep.h"
#include "core/torch/variant.h"
#include "variantrow.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace pyrometer;
using namespace pyrometer::model;
using namespace pyrometer::torch;
using pyrometer::torch::testing::row;

namespace {

std::filesystem::path testModel(const QString &name)
{
    return std::filesystem::path(PYROMETER_TEST_MODELS_DIR) / (name.toStdString() + ".pt");
}

std::filesystem::path demoModel()
{
    return std::filesystem::path(PYROMETER_RESOURCES_DIR) / "demo" / "demo_model.pt";
}

QJsonObject facts()
{
    QFile file(QStringLiteral(PYROMETER_TEST_MODELS_DIR "/facts.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

Result<CompareReport> compare(const std::filesystem::path &path, const char *variants, int iterations = 1)
{
    CompareOptions options;
    options.variants = parseVariants(variants).value();
    options.warmup = 0;
    options.iterations = iterations;
    ProgressReporter progress;
    return compareVariants(path, options, {}, progress, StopToken());
}

// Channels a group keeps: Python's round (halves to even), as torch.nn.utils.prune counts.
std::int64_t kept(std::int64_t channels, double amount = 0.3)
{
    return channels - std::min<std::int64_t>(channels - 1, std::int64_t(std::nearbyint(amount * double(channels))));
}

} // namespace

class TestPruning : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        for (const auto &path : {testModel("small_cnn"), testModel("classifier"), testModel("mlp"), demoModel()})
            QVERIFY2(std::filesystem::exists(path), path.c_str());
        QVERIFY2(facts().contains("pruned"), "facts.json has no pruned figures: run scripts/make-test-models.py");
    }

    void namesRoundTrip()
    {
        const auto variants = parseVariants("prune_l1=0.5, prune_l1_global=0.25,prune_channels=0.3");
        QVERIFY(variants.ok());
        QCOMPARE(variants->size(), std::size_t(3));
        QCOMPARE(variants->at(0).kind, VariantKind::PruneL1);
        QVERIFY(!variants->at(0).global);
        QVERIFY(variants->at(1).global);
        QCOMPARE(variants->at(2).amount, 0.3);
        QCOMPARE(variantName(variants->at(0)), std::string("prune_l1=0.5"));
        QCOMPARE(variantName(variants->at(1)), std::string("prune_l1_global=0.25"));
        QCOMPARE(variantName(variants->at(2)), std::string("prune_channels=0.3"));
        for (const char *bad :
             {"prune_l1=1.5", "prune_l1=0", "prune_channels=abc", "prune_channels=", "prune_l1=0.5x"}) {
            const auto parsed = parseVariants(bad);
            QVERIFY2(!parsed.ok(), bad);
            QVERIFY2(QString::fromStdString(parsed.error().message).contains("between 0 and 1"),
                     parsed.error().message.c_str());
        }
    }

    // Each layer loses exactly half its weights, the dense size stays, and zlib finds the zeros.
    void l1ZeroesEachLayer()
    {
        const auto report = compare(testModel("small_cnn"), "prune_l1=0.5", 3);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto &base = row(report.value(), "baseline");
        const auto &pruned = row(report.value(), "prune_l1=0.5");
        QVERIFY2(pruned.ok(), pruned.error.c_str());
        QCOMPARE(base.sparsity, std::optional<double>(0.0));
        QCOMPARE(pruned.layerSparsity.size(), std::size_t(4)); // conv1, dw, pw, fc
        std::int64_t weights = 0;
        std::int64_t zeros = 0;
        for (const auto &layer : pruned.layerSparsity) {
            QCOMPARE(layer.zeros, std::int64_t(std::nearbyint(0.5 * double(layer.weights))));
            weights += layer.weights;
            zeros += layer.zeros;
        }
        QCOMPARE(*pruned.sparsity, double(zeros) / double(weights));
        QCOMPARE(pruned.params, base.params);
        QCOMPARE(pruned.macs, base.macs);
        QCOMPARE(pruned.modelBytes, base.modelBytes);
        QVERIFY2(pruned.compressedBytes < base.compressedBytes,
                 qPrintable(QStringLiteral("%1 vs %2").arg(pruned.compressedBytes).arg(base.compressedBytes)));
        // The note tells the truth about speed either way.
        QCOMPARE(QString::fromStdString(pruned.note).contains("dense kernels multiply a zero"), pruned.speedup < 1.05);
    }

    // One threshold for all layers: the model's share is exact, the layers' shares differ.
    void l1GlobalZeroesTheSmallestAnywhere()
    {
        const auto report = compare(testModel("small_cnn"), "prune_l1_global=0.5");
        QVERIFY(report.ok());
        const auto &pruned = row(report.value(), "prune_l1_global=0.5");
        QVERIFY2(pruned.ok(), pruned.error.c_str());
        std::int64_t weights = 0;
        std::int64_t zeros = 0;
        bool uneven = false;
        for (const auto &layer : pruned.layerSparsity) {
            weights += layer.weights;
            zeros += layer.zeros;
            uneven = uneven || std::abs(layer.fraction() - 0.5) > 0.05;
        }
        QCOMPARE(zeros, std::int64_t(std::nearbyint(0.5 * double(weights))));
        QVERIFY(uneven);
    }

    // Parameters and MACs of the pruned models against PyTorch's count of the same
    // architectures, built and run by scripts/pruningfacts.py.
    void channelsMatchPyTorch_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("small_cnn (depthwise)") << "small_cnn";
        QTest::addRow("classifier (trained)") << "classifier";
        QTest::addRow("resnet18 (residual groups)") << "resnet18";
    }
    void channelsMatchPyTorch()
    {
        QFETCH(QString, name);
        const auto expected = facts().value("pruned").toObject().value(name).toObject();
        QVERIFY(!expected.isEmpty());
        const auto report = compare(testModel(name), "prune_channels=0.3");
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto &base = row(report.value(), "baseline");
        const auto &pruned = row(report.value(), "prune_channels=0.3");
        QVERIFY2(pruned.ok(), pruned.error.c_str());
        const auto figures = [](const QJsonObject &object) {
            return std::make_pair(object.value("parameters").toInteger(), object.value("macs").toInteger());
        };
        QCOMPARE(std::make_pair(qint64(*base.params), qint64(*base.macs)),
                 figures(expected.value("baseline").toObject()));
        QCOMPARE(std::make_pair(qint64(*pruned.params), qint64(*pruned.macs)),
                 figures(expected.value("prune_channels=0.3").toObject()));
        QVERIFY(pruned.modelBytes < base.modelBytes);
        QVERIFY2(QString::fromStdString(pruned.note).contains("left whole: "), pruned.note.c_str());
        QVERIFY(pruned.maxAbsDiff.has_value()); // same output shape as the baseline's
    }

    // The bundled demo, worked by hand: stem 16, block1 32 (through its depthwise conv),
    // block2 64 channels; the head's output is the model's and stays 10.
    void channelsOnTheDemoByHand()
    {
        const auto report = compare(demoModel(), "prune_channels=0.3");
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto &pruned = row(report.value(), "prune_channels=0.3");
        QVERIFY2(pruned.ok(), pruned.error.c_str());
        const std::int64_t a = kept(16), b = kept(32), c = kept(64);
        QCOMPARE(a, 11);
        QCOMPARE(b, 22);
        QCOMPARE(c, 45);
        const std::int64_t params = 3 * a * 9 + 2 * a   // stem conv (no bias), bn
                                    + a * b * 9 + 2 * b // block1 conv, bn
                                    + b * 9 + 2 * b     // block1 depthwise conv, bn
                                    + b * c * 9 + 2 * c // block2 conv, bn
                                    + c * 10 + 10;      // head
        QCOMPARE(*pruned.params, params);
        // Batch 8 at 64x64: the stem keeps 64x64, block1 and its depthwise conv 32x32, block2 16x16.
        const double macs =
            8.0 * (a * 64 * 64 * 3 * 9 + b * 32 * 32 * a * 9 + b * 32 * 32 * 9 + c * 16 * 16 * b * 9 + 10 * c);
        QCOMPARE(*pruned.macs, macs);
        QCOMPARE(QString::fromStdString(pruned.note),
                 QStringLiteral("30% of the output channels of 3 channel groups removed (34 channels); "
                                "left whole: head (it is the model's output)"));
    }

    // x.size() in a scripted forward (squeeze-and-excitation): the one-input aten::size is read
    // as sizes taken at run time, not as a size of dimension input(1), which it lacks.
    void channelsWithSizeOfAllDimensions()
    {
        const auto report = compare(testModel("squeeze_excite"), "prune_channels=0.3");
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        const auto &base = row(report.value(), "baseline");
        const auto &pruned = row(report.value(), "prune_channels=0.3");
        QVERIFY2(pruned.ok(), pruned.error.c_str());
        QVERIFY(*pruned.params <= *base.params);
        QVERIFY(pruned.maxAbsDiff.has_value()); // it runs, with the baseline's output shape
    }

    // Linears only: the hidden layers shrink, the output layer is named and left whole.
    void channelsOfAnMlpByHand()
    {
        const auto report = compare(testModel("mlp"), "prune_channels=0.3");
        QVERIFY(report.ok());
        const auto &pruned = row(report.value(), "prune_channels=0.3");
        QVERIFY2(pruned.ok(), pruned.error.c_str());
        const std::int64_t h = kept(512);
        QCOMPARE(h, 358);
        QCOMPARE(*pruned.params, 256 * h + h + h * h + h + h * 10 + 10);
        QVERIFY(QString::fromStdString(pruned.note).contains("left whole: fc3 (it is the model's output)"));
    }

    void channelsRefusedWhereNothingCanShrink()
    {
        const auto report = compare(testModel("recurrent"), "prune_channels=0.3");
        QVERIFY(report.ok());
        const auto &pruned = row(report.value(), "prune_channels=0.3");
        QVERIFY(!pruned.ok());
        QVERIFY2(QString::fromStdString(pruned.error).contains("no layer's channels could be pruned: left whole: head"),
                 pruned.error.c_str());
        QVERIFY(row(report.value(), "baseline").ok()); // the others still run
    }

    // What export writes is the pruned model: smaller on disk, and it loads and runs with the
    // same parameters the compare row counted.
    void exportedChannelsReload()
    {
        const auto out = std::filesystem::temp_directory_path() / "pyrometer-tst-pruning-export.pt";
        const auto note = exportVariant(demoModel(), parseVariants("prune_channels=0.3")->front(), {}, out);
        QVERIFY2(note.ok(), note.ok() ? "" : note.error().message.c_str());
        const auto flops = countFlops(out, {});
        std::filesystem::remove(out);
        QVERIFY2(flops.ok(), flops.ok() ? "" : flops.error().message.c_str());
        const auto report = compare(demoModel(), "prune_channels=0.3");
        QVERIFY(report.ok());
        QCOMPARE(std::int64_t(flops->params), *row(report.value(), "prune_channels=0.3").params);
        QCOMPARE(flops->totalMacs, *row(report.value(), "prune_channels=0.3").macs);
    }

    void sweepsPrunedVariants()
    {
        SweepOptions options;
        options.batches = {1, 2};
        options.variants = parseVariants("prune_l1=0.5,prune_channels=0.3").value();
        options.warmup = 0;
        options.iterations = 1;
        ProgressReporter progress;
        const auto report = runSweep(testModel("small_cnn"), options, {}, progress, StopToken());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->points.size(), std::size_t(4));
        QCOMPARE(report->points.back().variant, std::string("prune_channels=0.3"));
        for (const auto &summary : report->summaries)
            QVERIFY2(summary.error.empty(), summary.error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPruning)
#include "tst_pruning.moc"
