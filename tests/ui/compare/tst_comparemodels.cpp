// The row table models of the Sweep tab and the Compare page under QAbstractItemModelTester,
// and their sorting by value.
// Qt first: moc cannot parse <compare>, which the core headers bring in.
#include <QAbstractItemModelTester>
#include <QColor>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTest>

#include <memory>

#include "ui/compare/comparetables.h"
#include "ui/shell/preferences.h"
#include "ui/model/sweepview.h"

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

model::SweepPoint point(const char *variant, std::int64_t batch, double ms, std::int64_t bytes)
{
    model::SweepPoint p;
    p.variant = variant;
    p.batch = batch;
    p.latency.mean = ms;
    p.latency.p90 = ms * 1.1;
    p.throughputPerSecond = double(batch) * 1000.0 / ms;
    p.peakMemoryBytes = bytes;
    return p;
}

model::LayerRow layer(const char *module, double totalMs)
{
    model::LayerRow row;
    row.module = module;
    row.totalMs = totalMs;
    return row;
}

// Column `column` of a proxy sorted by it, as text, top to bottom.
QStringList sortedColumn(QAbstractItemModel *model, int column, int sortColumn, Qt::SortOrder order)
{
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(model);
    proxy.setSortRole(tables::TableTreeModel::SortRole);
    proxy.sort(sortColumn, order);
    QStringList cells;
    for (int row = 0; row < proxy.rowCount(); ++row)
        cells << proxy.index(row, column).data().toString();
    return cells;
}

} // namespace

class TestCompareModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sweepPoints()
    {
        SweepPointsModel model(sweepPointColumns());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.appendRow(point("baseline", 1, 2.0, 3 << 20));
        model.appendRow(point("baseline", 2, 3.0, 5 << 20));
        model.appendRow(point("frozen", 1, 1.5, 2 << 20));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 10);
        QCOMPARE(model.index(1, 1).data().toLongLong(), 2);
        QCOMPARE(model.index(1, 2).data().toString(), QString("3.000"));
        QCOMPARE(model.index(1, 8).data().toString(), QString("5.00 MiB"));
        QCOMPARE(model.index(1, 8).data(SweepPointsModel::ExportRole).toLongLong(), 5LL << 20);
        // Energy: unavailable, never 0, without a reading; exported empty.
        QCOMPARE(model.index(1, 6).data().toString(), QString("unavailable"));
        QVERIFY(!model.index(1, 6).data(SweepPointsModel::ExportRole).isValid());
        auto metered = point("frozen", 4, 2.0, 2 << 20);
        metered.energyMjPerInference = 0.25;
        model.appendRow(metered);
        QCOMPARE(model.index(3, 6).data().toString(), QString("0.250"));
        QCOMPARE(model.index(3, 7).data().toString(), QString("4000.0"));
        model.setRows({model.rows().begin(), model.rows().begin() + 3});
        QVERIFY(model.index(1, 2).data(Qt::TextAlignmentRole).toInt() & Qt::AlignRight);
        QVERIFY(!(model.index(1, 0).data(Qt::TextAlignmentRole).toInt() & Qt::AlignRight));
        QCOMPARE(model.headerData(5, Qt::Horizontal, Qt::DisplayRole).toString(), QString("Samples/s"));
        QCOMPARE(sortedColumn(&model, 2, 2, Qt::AscendingOrder), QStringList({"1.500", "2.000", "3.000"}));
        // The mean's 95% interval from the point's timed runs: 10 ± 2.776 x 1 / sqrt(5); none without runs.
        auto timed = point("baseline", 8, 10.0, 1 << 20);
        timed.latency.std = 1;
        timed.latency.n = 5;
        model.appendRow(timed);
        QCOMPARE(model.headerData(4, Qt::Horizontal, Qt::DisplayRole).toString(), QString("95% CI (ms)"));
        QCOMPARE(model.index(3, 4).data().toString(), QString("8.758–11.242"));
        QCOMPARE(model.index(0, 4).data().toString(), QString());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void variants()
    {
        std::unique_ptr<VariantsModel> owned(makeVariantsModel());
        auto &model = *owned;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model::VariantResult baseline;
        baseline.name = "baseline";
        baseline.latency.mean = 4;
        baseline.speedup = 1;
        baseline.modelBytes = 1 << 20;
        baseline.maxAbsDiff = 0;
        model::VariantResult frozen = baseline;
        frozen.name = "frozen";
        frozen.latency.mean = 2;
        frozen.speedup = 2;
        frozen.maxAbsDiff = 3e-6;
        frozen.note = "frozen; optimize_for_inference";
        model::VariantResult failed;
        failed.name = "int8_static";
        failed.error = "not supported: no observers";
        model.setRows({baseline, frozen, failed});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 17);
        QCOMPARE(model.index(1, 3).data().toString(), QString("2.00×"));
        QCOMPARE(model.index(1, 14).data().toString(), QString("3e-06"));
        QVERIFY(!model.index(2, 1).data().isValid()); // a failed variant has no latency
        QCOMPARE(model.index(2, 16).data().toString(), QString("failed: not supported: no observers"));
        QCOMPARE(sortedColumn(&model, 0, 3, Qt::DescendingOrder), QStringList({"frozen", "baseline", "int8_static"}));
        QCOMPARE(model.index(1, 4).data().toString(), QString("unavailable")); // no energy reading
        QVERIFY(!model.index(2, 4).data().isValid());                          // nor any for a failed one

        // A pruned variant scored on labelled data.
        model::VariantResult pruned = frozen;
        pruned.name = "prune_l1=0.5";
        pruned.energyMjPerInference = 2.0;
        pruned.compressedBytes = 512 << 10;
        pruned.params = 1234567;
        pruned.macs = 1.5e9;
        pruned.sparsity = 0.5;
        pruned.accuracy = 0.75;
        pruned.accuracyChange = -5;
        pruned.agreement = 0.8;
        model.setRows({baseline, pruned});
        QCOMPARE(model.index(1, 4).data().toString(), QString("2.000"));
        QCOMPARE(model.index(1, 5).data().toString(), QString("500.0"));
        QCOMPARE(model.index(1, 7).data().toString(), QString("512 KiB"));
        QCOMPARE(model.index(1, 8).data().toString(), QString("1.23M"));
        QCOMPARE(model.index(1, 9).data().toString(), QString("1.50G"));
        QCOMPARE(model.index(1, 10).data().toString(), QString("50.0 %"));
        pruned.layerSparsity = {{"conv1", "Conv2d", 432, 216}, {"fc", "Linear", 100, 50}};
        model.setRows({baseline, pruned});
        QCOMPARE(model.index(1, 10).data(Qt::ToolTipRole).toString(),
                 QString("conv1 (Conv2d): 50.0 % of 432 weights zero\nfc (Linear): 50.0 % of 100 weights zero"));
        QCOMPARE(model.index(1, kAccuracyColumn).data().toString(), QString("75.0 %"));
        QCOMPARE(model.index(1, kAccuracyChangeColumn).data().toString(), QString("-5.0 pt"));
        QCOMPARE(model.index(1, kAgreementColumn).data().toString(), QString("80.0 %"));
        QCOMPARE(model.index(1, kAgreementColumn).data(VariantsModel::ExportRole).toDouble(), 0.8);
        QVERIFY(!model.index(0, kAccuracyColumn).data().isValid()); // the baseline scored nothing here
    }

    // A failed variant's reason, however long, is read beside its name: the notes' column comes
    // second, inside the table's width, its rows as tall as their wrapped text.
    void notesWrapBesideTheNames()
    {
        std::unique_ptr<VariantsModel> model(makeVariantsModel());
        QTableView view;
        view.setModel(model.get());
        view.horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        showNotesBesideNames(&view);
        model::VariantResult baseline;
        baseline.name = "baseline";
        baseline.latency.mean = 4;
        baseline.speedup = 1;
        model::VariantResult failed;
        failed.name = "int8";
        failed.error = "quantized::linear_prepack is not available for the QuantizedCPU backend on this build: the "
                       "engine fbgemm needs AVX2 and qnnpack was not compiled in; choose another variant or run on a "
                       "machine whose PyTorch has a quantization engine";
        view.resize(900, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model->setRows({baseline, failed});
        fitNoteColumn(&view);
        QCOMPARE(view.horizontalHeader()->visualIndex(kNoteColumn), 1);
        const QModelIndex note = model->index(1, kNoteColumn);
        const QString text = note.data().toString();
        QVERIFY(text.startsWith(QLatin1String("failed: quantized::linear_prepack")));
        QTRY_VERIFY(view.visualRect(note).height() > 2 * view.fontMetrics().height());
        const QRect cell = view.visualRect(note);
        QVERIFY2(cell.right() < view.viewport()->width() / 2, qPrintable(QString::number(cell.right())));
        const QRect needed = view.fontMetrics().boundingRect(cell.adjusted(4, 0, -4, 0), Qt::TextWordWrap, text);
        QVERIFY2(needed.height() <= cell.height(),
                 qPrintable(QStringLiteral("%1 > %2").arg(needed.height()).arg(cell.height())));
        // The baseline, with no note, keeps a row of one line.
        QVERIFY(view.visualRect(model->index(0, kNoteColumn)).height() < 2 * view.fontMetrics().height());
    }

    void layerDeltas()
    {
        LayerDeltaModel model(layerDeltaColumns());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<model::LayerRow> base{layer("", 10), layer("a", 6), layer("b", 4)};
        std::vector<model::LayerRow> other{layer("", 9), layer("a", 7), layer("b", 2)};
        model.setRows(model::layerDeltas(base, other));
        QCOMPARE(model.index(0, 0).data().toString(), QString("(model)"));
        QCOMPARE(model.index(1, 4).data().toString(), QString("+1.000"));
        QCOMPARE(model.index(2, 5).data().toString(), QString("-50.0 %"));
        // Sorted by delta, the largest gain first.
        QCOMPARE(sortedColumn(&model, 0, 4, Qt::AscendingOrder), QStringList({"b", "(model)", "a"}));
    }

    void traceDiffs()
    {
        std::unique_ptr<TraceDiffModel> owned(makeTraceDiffModel(true));
        auto &model = *owned;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        analysis::DiffRow grew{"kernel", "gemm", 1000, 3000, 2, 2, analysis::Presence::Both};
        analysis::DiffRow gone{"memcpy", "HtoD", 500, 0, 1, 0, analysis::Presence::BaseOnly};
        model.setRows({grew, gone});
        QCOMPARE(model.columnCount(), 8);
        // Times in the preferred unit, deltas signed and coloured (slower red, faster blue);
        // exported in µs under headers that say so.
        QCOMPARE(model.index(0, 2).data().toString(), ui::displayDuration(1000));
        QCOMPARE(model.index(0, 4).data().toString(), QStringLiteral("+") + ui::displayDuration(2000));
        QCOMPARE(model.index(1, 4).data().toString(), QStringLiteral("\u2212") + ui::displayDuration(500));
        QCOMPARE(model.index(0, 4).data(Qt::ForegroundRole).value<QColor>(), QColor(kSlowerColour));
        QCOMPARE(model.index(1, 5).data(Qt::ForegroundRole).value<QColor>(), QColor(kFasterColour));
        QCOMPARE(model.index(0, 4).data(TraceDiffModel::ExportRole).toDouble(), 2.0);
        QCOMPARE(model.headerData(4, Qt::Horizontal, TraceDiffModel::ExportRole).toString(), QString("delta_us"));
        ui::setDisplayTimeUnit(pyrometer::TimeUnit::Milliseconds);
        QCOMPARE(model.index(0, 3).data().toString(), ui::displayDuration(3000));
        QVERIFY(model.index(0, 3).data().toString().endsWith(QStringLiteral("ms")));
        ui::setDisplayTimeUnit(pyrometer::TimeUnit::Auto);
        QCOMPARE(model.index(0, 7).data().toString(), QString("both"));
        QCOMPARE(model.index(1, 7).data().toString(), QString("base only"));
        QCOMPARE(sortedColumn(&model, 1, 4, Qt::AscendingOrder), QStringList({"HtoD", "gemm"}));
    }
};

QTEST_MAIN(TestCompareModels)
#include "tst_comparemodels.moc"
