#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

#include <qcustomplot.h>

#include "ui/model/latencyhistogram.h"
#include "ui/model/layertreemodel.h"

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

// Rows as text, one per line: "depth module type totalMs", depth-first like profileLayers'.
std::vector<model::LayerRow> rowsFromText(const QString &text)
{
    std::vector<model::LayerRow> rows;
    for (const auto &line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const auto parts = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        model::LayerRow row;
        row.depth = parts.at(0).toInt();
        row.module = parts.at(1) == QLatin1String("-") ? std::string() : parts.at(1).toStdString();
        row.type = parts.at(2).toStdString();
        row.totalMs = parts.at(3).toDouble();
        row.selfMs = row.totalMs / 2;
        row.calls = 1;
        row.params = std::uint64_t(row.totalMs * 1000);
        row.macs = row.totalMs * 1e6;
        row.allocatedBytes = 2048;
        row.outputShapes = {{8, 16, 4, 4}};
        rows.push_back(row);
    }
    for (std::size_t i = 0; i + 1 < rows.size(); ++i)
        rows[i].leaf = rows[i + 1].depth <= rows[i].depth;
    return rows;
}

const QString kNet = QStringLiteral("0 - Net 10\n"
                                    "1 stem Sequential 2\n"
                                    "2 stem.0 Conv2d 1.5\n"
                                    "2 stem.1 ReLU 0.5\n"
                                    "1 block Sequential 7\n"
                                    "2 block.0 Conv2d 6\n"
                                    "2 block.1 ReLU 1\n"
                                    "1 head Linear 0.25\n");

// The visible tree as "name(child,child)", children in the model's order.
QString dump(const QAbstractItemModel &model, const QModelIndex &parent = {})
{
    QStringList parts;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        QString text = index.data(LayerTreeModel::QualifiedNameRole).toString();
        if (text.isEmpty())
            text = index.data().toString();
        if (model.rowCount(index) > 0)
            text += QLatin1Char('(') + dump(model, index) + QLatin1Char(')');
        parts << text;
    }
    return parts.join(QLatin1Char(','));
}

} // namespace

class TestLayerTreeModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void buildsTheTreeByDepth()
    {
        LayerTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rowsFromText(kNet), QStringLiteral("net.pt"));
        QCOMPARE(dump(model), QStringLiteral("net.pt(stem(stem.0,stem.1),block(block.0,block.1),head)"));
        QCOMPARE(model.columnCount(), int(LayerTreeModel::ColumnCount));
        const QModelIndex block0 = model.index(0, 0, model.index(1, 0, model.index(0, 0)));
        QCOMPARE(block0.data(LayerTreeModel::QualifiedNameRole).toString(), QStringLiteral("block.0"));
        QCOMPARE(model.parent(block0).data(LayerTreeModel::QualifiedNameRole).toString(), QStringLiteral("block"));
        QCOMPARE(block0.data().toString(), QStringLiteral("0")); // the tree shows the path
        QCOMPARE(block0.data(LayerTreeModel::DepthRole).toInt(), 2);
        QVERIFY(block0.data(LayerTreeModel::LeafRole).toBool());
        QVERIFY(!model.parent(block0).data(LayerTreeModel::LeafRole).toBool());
        QCOMPARE(model.layer(block0)->type, std::string("Conv2d"));

        model.clear();
        QCOMPARE(model.rowCount(), 0);
        model.setRows(rowsFromText(kNet), QStringLiteral("again.pt"));
        QCOMPARE(model.rowCount(model.index(0, 0)), 3);
    }

    void displaysColumns_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("display");
        QTest::addColumn<QVariant>("sortValue");
        QTest::addRow("type") << int(LayerTreeModel::TypeColumn) << "Conv2d" << QVariant(QStringLiteral("Conv2d"));
        QTest::addRow("total ms") << int(LayerTreeModel::TotalMsColumn) << "6.000" << QVariant(6.0);
        QTest::addRow("self ms") << int(LayerTreeModel::SelfMsColumn) << "3.000" << QVariant(3.0);
        QTest::addRow("params") << int(LayerTreeModel::ParamsColumn) << "6,000" << QVariant(qulonglong(6000));
        QTest::addRow("macs") << int(LayerTreeModel::MacsColumn) << "6.00 M" << QVariant(6e6);
        QTest::addRow("memory") << int(LayerTreeModel::MemoryColumn) << "2.00 KiB" << QVariant(qlonglong(2048));
        QTest::addRow("shapes") << int(LayerTreeModel::OutputShapesColumn) << "[8x16x4x4]" << QVariant(QStringLiteral("[8x16x4x4]"));
    }
    void displaysColumns()
    {
        QFETCH(int, column);
        QFETCH(QString, display);
        QFETCH(QVariant, sortValue);
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        LayerTreeModel model;
        model.setRows(rowsFromText(kNet), QStringLiteral("net.pt"));
        const QModelIndex block = model.index(1, 0, model.index(0, 0));
        const QModelIndex cell = model.index(0, column, block);
        QCOMPARE(cell.data().toString(), display);
        QCOMPARE(cell.data(LayerTreeModel::SortRole), sortValue);
        QVERIFY(!model.headerData(column, Qt::Horizontal).toString().isEmpty());
    }

    // Leaf layers under a roof: bytes, intensity, % of the roof at that intensity and the bound,
    // worked by hand; blocks stay blank; without a roof the share and bound are unknown.
    void rooflineColumns()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        auto rows = rowsFromText(kNet);
        // block.0 (Conv2d, 6 ms): 12 GFLOP over 40 MB, float. stem.1 (ReLU, 0.5 ms): 1 MFLOP over 8 MB.
        for (auto &row : rows) {
            if (row.module == "block.0") {
                row.flops = 12e9;
                row.bytes = 40e6;
                row.elementBytes = 4;
            } else if (row.module == "stem.1") {
                row.flops = 1e6;
                row.bytes = 8e6;
                row.elementBytes = 4;
            }
        }
        // A roof of 100 GFLOP/s and 20 GB/s: the ridge at 5 FLOP/byte.
        const auto roof = analysis::customDevice("test CPU", 100e9, 20e9);
        LayerTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rows, QStringLiteral("net.pt"), roof);
        const QModelIndex root = model.index(0, 0);
        const QModelIndex block = model.index(1, 0, root);
        const QModelIndex conv = model.index(0, 0, block);
        const QModelIndex relu = model.index(1, 0, model.index(0, 0, root));
        QCOMPARE(conv.data(LayerTreeModel::QualifiedNameRole).toString(), QStringLiteral("block.0"));
        QCOMPARE(relu.data(LayerTreeModel::QualifiedNameRole).toString(), QStringLiteral("stem.1"));
        // The convolution: 300 FLOP/byte, compute-bound; 12 GFLOP in 6 ms is 2 TFLOP/s, twenty times
        // the 100 GFLOP/s this roof allows: 2000% (a roof set too low shows as such).
        QCOMPARE(conv.siblingAtColumn(LayerTreeModel::BytesColumn).data().toString(), QStringLiteral("40"));
        QCOMPARE(conv.siblingAtColumn(LayerTreeModel::IntensityColumn).data().toString(), QStringLiteral("300"));
        QCOMPARE(conv.siblingAtColumn(LayerTreeModel::IntensityColumn).data(LayerTreeModel::SortRole).toDouble(), 300.0);
        QCOMPARE(conv.siblingAtColumn(LayerTreeModel::RoofColumn).data(LayerTreeModel::SortRole).toDouble(), 2000.0);
        QCOMPARE(conv.siblingAtColumn(LayerTreeModel::BoundColumn).data().toString(), QStringLiteral("compute"));
        // The ReLU: 0.125 FLOP/byte, memory-bound; the roof there is 2.5 GFLOP/s; it reached
        // 1e6 / 0.5e-3 = 2 GFLOP/s: 80%.
        QCOMPARE(relu.siblingAtColumn(LayerTreeModel::IntensityColumn).data().toString(), QStringLiteral("0.125"));
        QCOMPARE(relu.siblingAtColumn(LayerTreeModel::RoofColumn).data().toString(), QStringLiteral("80"));
        QCOMPARE(relu.siblingAtColumn(LayerTreeModel::BoundColumn).data().toString(), QStringLiteral("memory"));
        QVERIFY(relu.siblingAtColumn(LayerTreeModel::RoofColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("test CPU")));
        // A block and a layer of unknown bytes.
        QCOMPARE(block.siblingAtColumn(LayerTreeModel::BoundColumn).data().toString(), QString());
        QVERIFY(!model.roofline(block));
        const QModelIndex head = model.index(2, 0, root);
        QCOMPARE(head.siblingAtColumn(LayerTreeModel::BytesColumn).data().toString(), QStringLiteral("unknown"));
        QCOMPARE(head.siblingAtColumn(LayerTreeModel::BoundColumn).data().toString(), QStringLiteral("unknown"));

        // No roof: intensity known, share and bound not.
        model.setRows(rows, QStringLiteral("net.pt"));
        const QModelIndex again = model.index(0, 0, model.index(1, 0, model.index(0, 0)));
        QCOMPARE(again.siblingAtColumn(LayerTreeModel::IntensityColumn).data().toString(), QStringLiteral("300"));
        QCOMPARE(again.siblingAtColumn(LayerTreeModel::RoofColumn).data().toString(), QStringLiteral("unknown"));
        QCOMPARE(again.siblingAtColumn(LayerTreeModel::BoundColumn).data().toString(), QStringLiteral("unknown"));
    }

    void sortsNumericallyWithinParents()
    {
        LayerTreeModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(LayerTreeModel::SortRole);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rowsFromText(kNet), QStringLiteral("net.pt"));
        proxy.sort(LayerTreeModel::TotalMsColumn, Qt::DescendingOrder);
        // 10 ms must not sort before 2 ms as text would ("10" < "2").
        QCOMPARE(dump(proxy), QStringLiteral("net.pt(block(block.0,block.1),stem(stem.0,stem.1),head)"));
        proxy.sort(LayerTreeModel::ModuleColumn, Qt::AscendingOrder);
        QCOMPARE(dump(proxy), QStringLiteral("net.pt(block(block.0,block.1),head,stem(stem.0,stem.1))"));
    }

    void filtersRecursively_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QString>("expected");
        QTest::addRow("none") << "" << "net.pt(stem(stem.0,stem.1),block(block.0,block.1),head)";
        QTest::addRow("type keeps ancestors") << "relu" << "net.pt(stem(stem.1),block(block.1))";
        QTest::addRow("qualified name") << "block.0" << "net.pt(block(block.0))";
        QTest::addRow("a leaf type") << "Linear" << "net.pt(head)";
        QTest::addRow("numbers are not matched") << "6" << "";
        QTest::addRow("nothing") << "zzz" << "";
    }
    void filtersRecursively()
    {
        QFETCH(QString, filter);
        QFETCH(QString, expected);
        LayerTreeModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setRecursiveFilteringEnabled(true);
        proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
        proxy.setFilterRole(LayerTreeModel::FilterRole);
        proxy.setFilterKeyColumn(LayerTreeModel::ModuleColumn);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rowsFromText(kNet), QStringLiteral("net.pt"));
        proxy.setFilterFixedString(filter);
        QCOMPARE(dump(proxy), expected);
    }

    void histogramBins_data()
    {
        QTest::addColumn<QVector<double>>("samples");
        QTest::addColumn<QVector<int>>("counts");
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("width");
        QTest::addRow("empty") << QVector<double>{} << QVector<int>{} << 0.0 << 0.0;
        QTest::addRow("all equal") << QVector<double>{2, 2, 2} << QVector<int>{3} << 1.99 << 0.02;
        QTest::addRow("four samples, two bins") << QVector<double>{1, 2, 3, 5} << QVector<int>{2, 2} << 1.0 << 2.0;
        QTest::addRow("max in last bin") << QVector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8} << QVector<int>{3, 3, 3} << 0.0 << 8.0 / 3;
    }
    void histogramBins()
    {
        QFETCH(QVector<double>, samples);
        QFETCH(QVector<int>, counts);
        QFETCH(double, start);
        QFETCH(double, width);
        const auto bins = ui::histogramBins(std::vector<double>(samples.begin(), samples.end()));
        QCOMPARE(QVector<int>(bins.counts.begin(), bins.counts.end()), counts);
        QCOMPARE(bins.start, start);
        QVERIFY(qAbs(bins.width - width) < 1e-9);
    }

    void histogramBinsAreCapped()
    {
        std::vector<double> samples(10000);
        for (std::size_t i = 0; i < samples.size(); ++i)
            samples[i] = double(i);
        const auto bins = ui::histogramBins(samples, 40);
        QCOMPARE(int(bins.counts.size()), 40);
        int total = 0;
        for (const int count : bins.counts)
            total += count;
        QCOMPARE(total, 10000);
    }

    void histogramWidgetShowsBars()
    {
        LatencyHistogram histogram;
        histogram.setSamples({1.0, 1.1, 1.2, 1.2, 1.3, 2.0, 1.1, 1.15, 1.25}, 1.23, 1.9);
        QCOMPARE(histogram.bars()->data()->size(), 3);
        double total = 0;
        for (auto it = histogram.bars()->data()->constBegin(); it != histogram.bars()->data()->constEnd(); ++it)
            total += it->value;
        QCOMPARE(total, 9.0);
        histogram.clear();
        QCOMPARE(histogram.bars()->data()->size(), 0);
    }
};

QTEST_MAIN(TestLayerTreeModel)
#include "tst_layertreemodel.moc"
