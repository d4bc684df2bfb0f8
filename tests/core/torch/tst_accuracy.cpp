// Accuracy on the user's data and energy per inference, on real TorchScript models (the
// torch_make_test_models fixture): the labelled set's expected scores were computed by
// PyTorch when scripts/pruningfacts.py made it; energy comes from a powercap tree written
// here, whose counter advances by exactly 1 mJ with each forward the run reports.
#include "../../labelledfacts.h"
#include "core/model/accuracy.h"
#include "core/torch/datainputs.h"
#include "core/torch/sweep.h"
#include "core/torch/variant.h"
#include "variantrow.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace pyrometer;
using namespace pyrometer::model;
using namespace pyrometer::torch;
using pyrometer::torch::testing::row;

namespace {

const std::filesystem::path kModels = PYROMETER_TEST_MODELS_DIR;

Result<CompareReport> compare(const std::filesystem::path &model, const char *variants,
                              const std::filesystem::path &data, const std::filesystem::path &labels,
                              const std::filesystem::path &powercap = "/nonexistent-powercap",
                              ProgressReporter progress = {})
{
    CompareOptions options;
    options.variants = parseVariants(variants).value();
    options.warmup = 0;
    options.iterations = 2;
    options.data = data;
    options.labels = labels;
    options.powercapRoot = powercap;
    return compareVariants(model, options, {}, progress, StopToken());
}

// A powercap tree with one package counter, advanced by 1000 µJ each time advance() is
// called: from a run's progress sink, once per forward, so the energy between the readings
// around a variant's timed runs is exactly 1 mJ per timed run.
class FakeRapl {
public:
    explicit FakeRapl(const std::filesystem::path &root) : m_zone(root / "intel-rapl:0")
    {
        std::filesystem::create_directories(m_zone);
        std::ofstream(m_zone / "name") << "package-0\n";
        std::ofstream(m_zone / "max_energy_range_uj") << "262143328850\n";
        advance();
    }
    void advance()
    {
        m_microjoules += 1000;
        std::ofstream(m_zone / "energy_uj.part") << m_microjoules << "\n";
        std::filesystem::rename(m_zone / "energy_uj.part", m_zone / "energy_uj");
    }

private:
    std::filesystem::path m_zone;
    std::uint64_t m_microjoules = 0;
};

} // namespace

class TestAccuracy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        for (const char *file : {"classifier.pt", "classifier_inputs.pt", "classifier_labels.pt", "data/two_inputs.pt"})
            QVERIFY2(std::filesystem::exists(kModels / file), (kModels / file).c_str());
        QCOMPARE(pyrometer::testing::labelledSet().value("samples").toInt(), 40);
    }

    void dataFilesInTheInputsField_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("data"); // empty: shapes
        QTest::addColumn<QString>("labels");
        QTest::addRow("shapes") << "1x3x224x224,1x10:int64"
                                << ""
                                << "";
        QTest::addRow("inputs only") << "val.pt"
                                     << "/models/val.pt"
                                     << "";
        QTest::addRow("with labels") << " val.pt , val_labels.pt "
                                     << "/models/val.pt"
                                     << "/models/val_labels.pt";
        QTest::addRow("absolute") << "/data/x.pt,/data/y.pt"
                                  << "/data/x.pt"
                                  << "/data/y.pt";
        QTest::addRow("a folder") << "data/x"
                                  << "/models/data/x"
                                  << "";
    }
    void dataFilesInTheInputsField()
    {
        QFETCH(QString, text);
        QFETCH(QString, data);
        QFETCH(QString, labels);
        const auto files = dataFilesIn(text.toStdString(), "/models");
        QVERIFY(files.ok());
        QCOMPARE(files->has_value(), !data.isEmpty());
        if (files.value()) {
            QCOMPARE(QString::fromStdString(files.value()->data.string()), data);
            QCOMPARE(QString::fromStdString(files.value()->labels.string()), labels);
        }
    }
    void threeFilesAreRefused()
    {
        const auto files = dataFilesIn("a.pt, b.pt, c.pt", "/models");
        QVERIFY(!files.ok());
        QVERIFY(QString::fromStdString(files.error().message).contains("not 3 items"));
    }

    // The labels are the baseline's predictions with 8 of 40 flipped: it scores exactly 32/40;
    // each pruned variant's correct and agreeing counts are PyTorch's.
    void accuracyOnTheLabelledSet()
    {
        const auto report = compare(kModels / "classifier.pt", "prune_l1=0.5,prune_channels=0.3",
                                    kModels / "classifier_inputs.pt", kModels / "classifier_labels.pt");
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QVERIFY2(QString::fromStdString(report->dataNote).startsWith("40 samples of "), report->dataNote.c_str());
        QCOMPARE(report->inputs, parseInputSpecs("8x3x16x16").value()); // timed at the batch the model records
        const auto expected = pyrometer::testing::labelledSet().value("variants").toObject();
        for (const char *name : {"baseline", "prune_l1=0.5", "prune_channels=0.3"}) {
            const auto &r = row(report.value(), name);
            QVERIFY2(r.ok(), r.error.c_str());
            const auto counts = expected.value(name).toObject();
            QCOMPARE(r.accuracy, std::optional<double>(counts.value("correct").toInt() / 40.0));
            QCOMPARE(r.agreement, std::optional<double>(counts.value("agreeing").toInt() / 40.0));
        }
        const auto &base = row(report.value(), "baseline");
        QCOMPARE(*base.accuracy, 32.0 / 40.0);
        const auto &l1 = row(report.value(), "prune_l1=0.5");
        QVERIFY(*l1.agreement < 1.0); // the set holds samples whose prediction pruning changes
        QCOMPARE(*l1.accuracyChange, (*l1.accuracy - 0.8) * 100.0);
        QCOMPARE(base.accuracyChange, std::optional<double>(0.0));
        QCOMPARE(*accuracyDrop(l1), (0.8 - *l1.accuracy) * 100.0);
    }

    // Without labels there is no accuracy; agreement is still PyTorch's, and the gate's drop is
    // the share of predictions that changed.
    void agreementWithoutLabels()
    {
        const auto report =
            compare(kModels / "classifier.pt", "prune_channels=0.3", kModels / "classifier_inputs.pt", {});
        QVERIFY(report.ok());
        const auto &pruned = row(report.value(), "prune_channels=0.3");
        QVERIFY(!pruned.accuracy);
        const auto agreeing = pyrometer::testing::labelledSet()
                                  .value("variants")
                                  .toObject()
                                  .value("prune_channels=0.3")
                                  .toObject()
                                  .value("agreeing")
                                  .toInt();
        QCOMPARE(pruned.agreement, std::optional<double>(agreeing / 40.0));
        QCOMPARE(*accuracyDrop(pruned), (1.0 - agreeing / 40.0) * 100.0);
        QVERIFY(!pruned.accuracyChange);
        QVERIFY(QString::fromStdString(report->dataNote).contains("without labels"));
    }

    // A tuple saved from Python feeds a model of two inputs of two dtypes.
    void tupleOfInputs()
    {
        const auto report = compare(kModels / "two_inputs.pt", "threads=1", kModels / "data" / "two_inputs.pt", {});
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QVERIFY2(QString::fromStdString(report->dataNote).startsWith("10 samples"), report->dataNote.c_str());
        QCOMPARE(row(report.value(), "threads=1").agreement, std::optional<double>(1.0));
    }

    void badFilesAreNamed_data()
    {
        QTest::addColumn<QString>("data");
        QTest::addColumn<QString>("labels");
        QTest::addColumn<QString>("named"); // the file the message starts with
        QTest::addColumn<QString>("says");
        const QString inputs = "classifier_inputs.pt";
        QTest::addRow("missing") << "no_such.pt"
                                 << ""
                                 << "no_such.pt"
                                 << "no such file";
        QTest::addRow("legacy format") << "data/legacy.pt"
                                       << ""
                                       << "data/legacy.pt"
                                       << "_use_new_zipfile_serialization=False";
        QTest::addRow("not torch.save") << "data/not_torch.pt"
                                        << ""
                                        << "data/not_torch.pt"
                                        << "not a file torch.save writes";
        QTest::addRow("a model") << "small_cnn.pt"
                                 << ""
                                 << "small_cnn.pt"
                                 << "a TorchScript model, not data";
        QTest::addRow("a dict") << "data/dict.pt"
                                << ""
                                << "data/dict.pt"
                                << "dict";
        QTest::addRow("wrong shape") << "data/inputs_2channels.pt"
                                     << ""
                                     << "data/inputs_2channels.pt"
                                     << "the model rejected its samples";
        QTest::addRow("float labels") << inputs << "data/labels_float.pt"
                                      << "data/labels_float.pt"
                                      << "not Float";
        QTest::addRow("2-D labels") << inputs << "data/labels_2d.pt"
                                    << "data/labels_2d.pt"
                                    << "not 40x1";
        QTest::addRow("too few labels") << inputs << "data/labels_short.pt"
                                        << "data/labels_short.pt"
                                        << "39 labels for the 40 samples";
        QTest::addRow("out of range") << inputs << "data/labels_range.pt"
                                      << "data/labels_range.pt"
                                      << "label 4 is out of range";
    }
    void badFilesAreNamed()
    {
        QFETCH(QString, data);
        QFETCH(QString, labels);
        QFETCH(QString, named);
        QFETCH(QString, says);
        const auto path = [](const QString &name) {
            return name.isEmpty() ? std::filesystem::path() : kModels / name.toStdString();
        };
        const auto report = compare(kModels / "classifier.pt", "prune_l1=0.5", path(data), path(labels));
        QVERIFY(!report.ok());
        const auto message = QString::fromStdString(report.error().message);
        QVERIFY2(message.startsWith(QString::fromStdString(path(named).string()) + ": "), qPrintable(message));
        QVERIFY2(message.contains(says), qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
    }

    void energyFromTheCounters()
    {
        QTemporaryDir dir;
        FakeRapl rapl(dir.path().toStdString());
        // Unthrottled, and few steps: every forward moves the progress, and the counter.
        const auto eachForward = [&] {
            return ProgressReporter([&](int) { rapl.advance(); }, std::chrono::milliseconds(0));
        };
        const auto report =
            compare(kModels / "small_cnn.pt", "prune_channels=0.3", {}, {}, dir.path().toStdString(), eachForward());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QVERIFY2(report->energyUnavailable.empty(), report->energyUnavailable.c_str());
        // 2 timed runs of 1 sample, 1 mJ each; the counters do not move in the idle wait before.
        for (const auto &r : report->rows) {
            QCOMPARE(r.energyMjPerInference, std::optional<double>(1.0));
            QCOMPARE(r.machineEnergyMjPerInference, std::optional<double>(1.0));
            QCOMPARE(r.idlePowerW, std::optional<double>(0.0));
            QCOMPARE(model::inferencesPerJoule(r.energyMjPerInference), std::optional<double>(1000.0));
        }
        SweepOptions sweep;
        sweep.batches = {1, 2};
        sweep.warmup = 0;
        sweep.iterations = 2;
        sweep.powercapRoot = dir.path().toStdString();
        auto progress = eachForward();
        const auto points = runSweep(kModels / "small_cnn.pt", sweep, {}, progress, StopToken());
        QVERIFY(points.ok());
        QVERIFY(points->energyUnavailable.empty());
        QCOMPARE(points->points.size(), std::size_t(2));
        for (const auto &point : points->points) // 1 mJ a run of the whole batch
            QCOMPARE(point.energyMjPerInference, std::optional<double>(1.0 / double(point.batch)));
    }

    // No counters: said once, with the path, and no row shows a figure (not a zero).
    void energyUnavailableSaysWhy()
    {
        const auto report = compare(kModels / "small_cnn.pt", "prune_l1=0.5", {}, {}, "/nonexistent-powercap");
        QVERIFY(report.ok());
        QVERIFY2(QString::fromStdString(report->energyUnavailable).contains("/nonexistent-powercap"),
                 report->energyUnavailable.c_str());
        for (const auto &r : report->rows)
            QVERIFY(!r.energyMjPerInference);
        QTemporaryDir dir; // a zone whose counter is missing: unreadable, named
        std::filesystem::create_directories(dir.path().toStdString() + "/intel-rapl:0");
        std::ofstream(dir.path().toStdString() + "/intel-rapl:0/name") << "package-0\n";
        std::ofstream(dir.path().toStdString() + "/intel-rapl:0/max_energy_range_uj") << "262143328850\n";
        const auto unreadable = compare(kModels / "small_cnn.pt", "prune_l1=0.5", {}, {}, dir.path().toStdString());
        QVERIFY(unreadable.ok());
        QVERIFY2(QString::fromStdString(unreadable->energyUnavailable).contains("energy_uj"),
                 unreadable->energyUnavailable.c_str());
        QVERIFY(!unreadable->rows.front().energyMjPerInference);
    }
};

QTEST_GUILESS_MAIN(TestAccuracy)
#include "tst_accuracy.moc"
