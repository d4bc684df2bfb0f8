// The table models of the Tables pages: structure (QAbstractItemModelTester), numeric sorting,
// recursive filtering, copy and CSV export, and agreement with core/analysis's tables.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStyle>
#include <QStyleFactory>
#include <QTest>
#include <QTreeView>

#include "core/analysis/kernelnames.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/optable.h"
#include "core/trace/loader.h"
#include "ui/tables/frozencolumn.h"
#include "ui/tables/sortheader.h"
#include "ui/tables/tablebuild.h"
#include "ui/tables/tableexport.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

using namespace pyrometer;
using namespace pyrometer::ui::tables;
using analysis::OpGrouping;

namespace {

const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
const QString kBenchmark =
    QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/benchmark_result_2869224_1695835535_trace.json.gz");

struct Loaded {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
};

const Loaded &load(const QString &path)
{
    static std::map<QString, Loaded> cache;
    auto &entry = cache[path];
    if (!entry.trace) {
        auto result = trace::loadTrace(path.toStdString());
        if (!result.ok())
            qFatal("cannot load %s: %s", qPrintable(path), result.error().message.c_str());
        entry.trace = result.value();
        entry.index = analysis::buildTraceIndex(*entry.trace);
    }
    return entry;
}

TableTree opTree(const QString &path, OpGrouping grouping, analysis::OpTable *core = nullptr)
{
    const auto &loaded = load(path);
    analysis::OpTableOptions options;
    options.grouping = grouping;
    const auto table = analysis::buildOpTable(*loaded.index, options);
    if (core)
        *core = table;
    return buildOpTree(table, {grouping, loaded.index->hasDevice, !loaded.trace->memory.time.empty()});
}

// A small module table written by hand: two ops under Model/Encoder, one under Model/Head.
analysis::OpTable handTable()
{
    analysis::OpTable table;
    const auto row = [](std::string name, std::string group, std::uint64_t calls, std::int64_t total,
                        std::int64_t self) {
        analysis::OpRow r;
        r.name = std::move(name);
        r.group = std::move(group);
        r.calls = calls;
        r.totalNs = total;
        r.selfNs = self;
        r.minNs = total / std::int64_t(calls);
        r.maxNs = total / std::int64_t(calls);
        return r;
    };
    table.rows = {row("aten::addmm", "Model/Encoder/Linear_0", 3, 900, 900),
                  row("aten::linear, fused", "Model/Encoder/Linear_0", 2, 5'000, 100),
                  row("aten::relu", "Model/Head", 4, 20'000'000, 20'000'000)};
    table.selfSumNs = 900 + 100 + 20'000'000;
    return table;
}

QModelIndex findRow(const QAbstractItemModel *model, const QString &name, const QModelIndex &parent = {})
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const auto index = model->index(row, 0, parent);
        if (index.data().toString() == name)
            return index;
        if (auto found = findRow(model, name, index); found.isValid())
            return found;
    }
    return {};
}

// RFC 4180 fields of one line (no line breaks inside fields in these tests).
QStringList parseCsvLine(const QString &line)
{
    QStringList fields;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < line.size() && line[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            fields.push_back(field);
            field.clear();
        } else {
            field += c;
        }
    }
    fields.push_back(field);
    return fields;
}

} // namespace

class TestTableModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void modelTester_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("grouping"); // -1: kernels
        QTest::addColumn<bool>("expectTree");
        QTest::addRow("bert by name") << kBert << int(OpGrouping::Name) << false;
        QTest::addRow("bert by shape") << kBert << int(OpGrouping::Shape) << false;
        QTest::addRow("bert by module") << kBert << int(OpGrouping::Module) << true;
        QTest::addRow("bert by stack") << kBert << int(OpGrouping::Stack) << true;
        QTest::addRow("benchmark by name") << kBenchmark << int(OpGrouping::Name) << false;
        // Both hold memcpy or memset: kernels and memory operations are two groups.
        QTest::addRow("bert kernels") << kBert << -1 << true;
        QTest::addRow("benchmark kernels") << kBenchmark << -1 << true;
    }

    void modelTester()
    {
        QFETCH(QString, path);
        QFETCH(int, grouping);
        QFETCH(bool, expectTree);
        TableTreeModel model;
        QAbstractItemModelTester sourceTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setRecursiveFilteringEnabled(true);
        proxy.setSortRole(TableTreeModel::SortRole);
        proxy.setFilterRole(TableTreeModel::FilterRole);
        proxy.setSourceModel(&model);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);

        if (grouping < 0) {
            const auto &loaded = load(path);
            analysis::KernelTableOptions options;
            options.byStream = true;
            model.setTree(buildKernelTree(analysis::buildKernelTable(*loaded.index, options)));
        } else {
            model.setTree(opTree(path, OpGrouping(grouping)));
        }
        QVERIFY(model.rowCount() > 0);
        QCOMPARE(model.tree().isTree(), expectTree);
        for (int column = 0; column < model.columnCount(); ++column) {
            proxy.sort(column, Qt::DescendingOrder);
            proxy.sort(column, Qt::AscendingOrder);
        }
        proxy.setFilterFixedString(QStringLiteral("a"));
        proxy.setFilterFixedString(QStringLiteral("no such op anywhere"));
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setFilterFixedString(QString());
        QCOMPARE(proxy.rowCount(), model.rowCount());
        model.setTree(TableTree{}); // a reset to nothing
        QCOMPARE(model.rowCount(), 0);
    }

    void sortsDurationsByNumber()
    {
        TableTreeModel model;
        model.setTree(buildOpTree(handTable(), {OpGrouping::Name, false, false}));
        QSortFilterProxyModel proxy;
        proxy.setSortRole(TableTreeModel::SortRole);
        proxy.setSourceModel(&model);
        const int total = model.tree().columnIndex(column::kTotal);
        QVERIFY(total > 0);
        proxy.sort(total, Qt::AscendingOrder);
        QStringList shown;
        for (int row = 0; row < proxy.rowCount(); ++row)
            shown.push_back(proxy.index(row, total).data().toString());
        // 900 ns < 5 µs < 20 ms, which sorted as text would read "20.0 ms", "5.00 µs", "900 ns".
        QCOMPARE(shown.size(), 3);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("aten::addmm"));
        QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("aten::linear, fused"));
        QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("aten::relu"));
        QVERIFY(shown[0].endsWith(QStringLiteral("ns")));
        QVERIFY(shown[2].endsWith(QStringLiteral("ms")));

        // On a real table too: every neighbour pair in order of the raw number.
        model.setTree(opTree(kBert, OpGrouping::Name));
        const int self = model.tree().columnIndex(column::kSelf);
        proxy.sort(self, Qt::DescendingOrder);
        QVERIFY(proxy.rowCount() > 10);
        for (int row = 1; row < proxy.rowCount(); ++row)
            QVERIFY2(proxy.index(row - 1, self).data(TableTreeModel::RawValueRole).toLongLong() >=
                         proxy.index(row, self).data(TableTreeModel::RawValueRole).toLongLong(),
                     qPrintable(QString::number(row)));
    }

    void filterKeepsParentsOfMatches()
    {
        TableTreeModel model;
        model.setTree(buildOpTree(handTable(), {OpGrouping::Module, false, false}));
        QSortFilterProxyModel proxy;
        proxy.setRecursiveFilteringEnabled(true);
        proxy.setFilterRole(TableTreeModel::FilterRole);
        proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);

        QCOMPARE(proxy.rowCount(), 1);                  // Model
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 2); // Encoder, Head
        proxy.setFilterFixedString(QStringLiteral("ADDMM"));
        QCOMPARE(proxy.rowCount(), 1);
        const auto modelRow = proxy.index(0, 0);
        QCOMPARE(modelRow.data().toString(), QStringLiteral("Model"));
        QCOMPARE(proxy.rowCount(modelRow), 1); // Head has no match
        const auto encoder = proxy.index(0, 0, modelRow);
        QCOMPARE(encoder.data().toString(), QStringLiteral("Encoder"));
        const auto linear = proxy.index(0, 0, encoder);
        QCOMPARE(linear.data().toString(), QStringLiteral("Linear_0"));
        QCOMPARE(proxy.rowCount(linear), 1);
        QCOMPARE(proxy.index(0, 0, linear).data().toString(), QStringLiteral("aten::addmm"));
    }

    void groupRowsSumTheirSubtree()
    {
        TableTreeModel model;
        model.setTree(buildOpTree(handTable(), {OpGrouping::Module, false, false}));
        const auto &tree = model.tree();
        const auto modelRow = findRow(&model, QStringLiteral("Model"));
        const auto encoder = findRow(&model, QStringLiteral("Encoder"));
        const auto linear = findRow(&model, QStringLiteral("Linear_0"));
        const auto value = [&](const QModelIndex &row, const QString &title) {
            return row.siblingAtColumn(tree.columnIndex(title)).data(TableTreeModel::RawValueRole);
        };
        QCOMPARE(value(modelRow, column::kCalls).toULongLong(), 9ull);
        QCOMPARE(value(encoder, column::kCalls).toULongLong(), 5ull);
        QCOMPARE(value(linear, column::kSelf).toLongLong(), 1000ll);   // its own ops
        QCOMPARE(value(encoder, column::kSelf).toLongLong(), 0ll);     // no op directly in it
        QCOMPARE(value(encoder, column::kTotal).toLongLong(), 1000ll); // self of everything beneath
        QCOMPARE(value(modelRow, column::kTotal).toLongLong(), 20'001'000ll);
        QVERIFY(!value(modelRow, column::kMin).isValid()); // blank on group rows
        QCOMPARE(linear.data(TableTreeModel::EventNameRole).toString(), QString());
        QCOMPARE(findRow(&model, QStringLiteral("aten::relu")).data(TableTreeModel::EventNameRole).toString(),
                 QStringLiteral("aten::relu"));
    }

    void copiesSelectionAsTsvWithHeader()
    {
        TablePane pane;
        pane.setTree(buildOpTree(handTable(), {OpGrouping::Name, false, false}));
        pane.setColumnVisible(column::kMax, false);
        auto *view = pane.view();
        view->sortByColumn(pane.model()->tree().columnIndex(column::kCalls), Qt::AscendingOrder);
        QCOMPARE(pane.selectionAsTsv(), QString()); // nothing selected
        // Select rows 2 and 0 (relu has 4 calls, addmm 3): the text follows the view's order.
        auto *selection = view->selectionModel();
        const auto flags = QItemSelectionModel::Select | QItemSelectionModel::Rows;
        selection->select(pane.proxy()->index(2, 0), flags);
        selection->select(pane.proxy()->index(0, 0), flags);
        const QStringList lines = pane.selectionAsTsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        const QStringList header = lines[0].split(QLatin1Char('\t'));
        QCOMPARE(header.first(), QStringLiteral("name"));
        QVERIFY(header.contains(QStringLiteral("total_us")));
        QVERIFY(!header.contains(QStringLiteral("max_us"))); // hidden by the column chooser
        QCOMPARE(header.size(), pane.model()->columnCount() - 1);
        const QStringList first = lines[1].split(QLatin1Char('\t'));
        QCOMPARE(first.size(), header.size());
        QCOMPARE(first[0], QStringLiteral("aten::linear, fused")); // 2 calls
        QCOMPARE(lines[2].split(QLatin1Char('\t'))[0], QStringLiteral("aten::relu"));
        QCOMPARE(first[header.indexOf(QStringLiteral("total_us"))], QStringLiteral("5.000"));
    }

    void csvRoundTripsCommasAndQuotes()
    {
        analysis::OpTable table = handTable();
        table.rows[0].name = "weird, \"quoted\" op";
        TablePane pane;
        pane.setTree(buildOpTree(table, {OpGrouping::Name, false, false}));
        const QStringList lines = pane.allAsCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        const QStringList header = parseCsvLine(lines[0]);
        QCOMPARE(header.size(), pane.model()->columnCount());
        QStringList names;
        for (int i = 1; i < lines.size(); ++i) {
            const QStringList cells = parseCsvLine(lines[i]);
            QCOMPARE(cells.size(), header.size());
            names.push_back(cells[0]);
        }
        QVERIFY(names.contains(QStringLiteral("weird, \"quoted\" op")));
        QVERIFY(names.contains(QStringLiteral("aten::linear, fused")));
        QCOMPARE(csvField(QStringLiteral("plain")), QStringLiteral("plain"));
    }

    void agreesWithCoreTables_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("grouping");
        QTest::addRow("bert by name") << kBert << int(OpGrouping::Name);
        QTest::addRow("bert by module") << kBert << int(OpGrouping::Module);
        QTest::addRow("bert by stack") << kBert << int(OpGrouping::Stack);
        QTest::addRow("benchmark by name") << kBenchmark << int(OpGrouping::Name);
    }

    void agreesWithCoreTables()
    {
        QFETCH(QString, path);
        QFETCH(int, grouping);
        analysis::OpTable core;
        TableTreeModel model;
        model.setTree(opTree(path, OpGrouping(grouping), &core));
        QVERIFY(!core.rows.empty());
        const auto &tree = model.tree();
        const int calls = tree.columnIndex(column::kCalls);
        const int self = tree.columnIndex(column::kSelf);
        const int total = tree.columnIndex(column::kTotal);
        const bool moduleTree = OpGrouping(grouping) == OpGrouping::Module;
        const bool nested = moduleTree || OpGrouping(grouping) == OpGrouping::Stack;
        if (nested)
            QVERIFY(tree.isTree());
        int leaves = 0;
        int groups = 0;
        const std::function<void(const QModelIndex &)> visit = [&](const QModelIndex &parent) {
            for (int row = 0; row < model.rowCount(parent); ++row) {
                const auto index = model.index(row, 0, parent);
                const auto raw = [&](int column) {
                    return index.siblingAtColumn(column).data(TableTreeModel::RawValueRole);
                };
                if (model.rowCount(index) == 0) {
                    ++leaves;
                    continue;
                }
                // A group row: sum the core rows whose path lies beneath it, computed here.
                ++groups;
                const QString prefix = index.data(TableTreeModel::ExportRole).toString();
                quint64 expectCalls = 0;
                qint64 expectSelfBeneath = 0;
                for (const auto &r : core.rows) {
                    QString where = QString::fromStdString(r.group);
                    if (!moduleTree) { // stack frames: innermost first in the core, outermost first here
                        QStringList frames = where.split(QLatin1Char(';'), Qt::SkipEmptyParts);
                        std::reverse(frames.begin(), frames.end());
                        where = frames.join(QLatin1Char(';'));
                    }
                    const QChar sep = moduleTree ? QLatin1Char('/') : QLatin1Char(';');
                    if (where == prefix || where.startsWith(prefix + sep)) {
                        expectCalls += r.calls;
                        expectSelfBeneath += r.selfNs;
                    }
                }
                QCOMPARE(raw(calls).toULongLong(), expectCalls);
                QCOMPARE(raw(total).toLongLong(), expectSelfBeneath);
                visit(index);
            }
        };
        visit({});
        QCOMPARE(std::size_t(leaves), core.rows.size());
        if (nested)
            QVERIFY(groups > 0);
        if (!nested) {
            QCOMPARE(std::size_t(model.rowCount()), core.rows.size());
            for (const auto &r : core.rows) {
                const auto index = findRow(&model, QString::fromStdString(r.name));
                QVERIFY(index.isValid());
                QCOMPARE(index.siblingAtColumn(calls).data(TableTreeModel::RawValueRole).toULongLong(),
                         quint64(r.calls));
                QCOMPARE(index.siblingAtColumn(self).data(TableTreeModel::RawValueRole).toLongLong(), qint64(r.selfNs));
                QCOMPARE(index.siblingAtColumn(total).data(TableTreeModel::RawValueRole).toLongLong(),
                         qint64(r.totalNs));
            }
        }
    }

    // A torch.compile run: its Triton kernel under its compiled region, which sums it.
    void kernelsGatherUnderTheirCompiledRegion()
    {
        auto loaded = trace::loadTrace(std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces/triton_example.json.gz");
        QVERIFY(loaded.ok());
        const auto index = analysis::buildTraceIndex(*loaded.value());
        const auto core = analysis::buildKernelTable(*index);
        TableTreeModel model;
        QAbstractItemModelTester tester(&model);
        model.setTree(buildKernelTree(core));
        QCOMPARE(model.rowCount(), 1);
        const auto region = model.index(0, 0);
        QCOMPARE(region.data().toString(), QStringLiteral("Torch-Compiled Region: 0/0"));
        QCOMPARE(model.rowCount(region), 1);
        QCOMPARE(model.index(0, 0, region).data().toString(), QStringLiteral("triton_poi_fused_add_cos_sin_0"));
        const int total = model.tree().columnIndex(column::kTotal);
        QCOMPARE(model.index(0, total).data(TableTreeModel::RawValueRole).toLongLong(), core.totalNs);
        const int regionColumn = model.tree().columnIndex(column::kRegion);
        QCOMPARE(model.index(0, regionColumn, region).data().toString(), QStringLiteral("Torch-Compiled Region: 0/0"));
    }

    // Every kernel row of the core table is one leaf, under the group of its kernel type
    // (classifyKernel: memcpy and memset under Memory); the groups sum their rows.
    void kernelsAgreeWithCoreTable()
    {
        const auto &loaded = load(kBenchmark);
        analysis::KernelTableOptions options;
        options.byStream = true;
        const auto core = analysis::buildKernelTable(*loaded.index, options);
        QVERIFY(!core.rows.empty());
        TableTreeModel model;
        model.setTree(buildKernelTree(core));
        const auto &tree = model.tree();
        const int count = tree.columnIndex(column::kCount);
        const int total = tree.columnIndex(column::kTotal);
        const int stream = tree.columnIndex(column::kStream);
        QVERIFY(count > 0 && total > 0 && stream > 0);
        std::map<QString, std::pair<std::uint64_t, std::int64_t>> coreGroups; // group -> count, total
        std::map<std::pair<QString, qint64>, std::pair<std::uint64_t, std::int64_t>> coreRows;
        for (const auto &r : core.rows) {
            const auto type = analysis::classifyKernel(r.kind, r.name);
            auto &group = coreGroups[QString::fromUtf8(analysis::kernelTypeLabel(type).data())];
            group.first += r.count;
            group.second += r.totalNs;
            auto &row = coreRows[{QString::fromStdString(r.name), qint64(r.stream)}];
            row.first += r.count;
            row.second += r.totalNs;
        }
        // AlexNet on an A100: GEMMs, convolutions, elementwise kernels and memcpy at least.
        QVERIFY2(coreGroups.size() >= 4, qPrintable(QString::number(coreGroups.size())));
        QVERIFY(coreGroups.count(QStringLiteral("Memory")));
        QCOMPARE(model.rowCount(), int(coreGroups.size()));
        std::size_t leaves = 0;
        std::int64_t modelTotal = 0;
        for (int g = 0; g < model.rowCount(); ++g) {
            const auto group = model.index(g, 0);
            const QString title = group.data().toString();
            QVERIFY2(coreGroups.count(title), qPrintable(title));
            QCOMPARE(model.index(g, count).data(TableTreeModel::RawValueRole).toULongLong(), coreGroups[title].first);
            QCOMPARE(model.index(g, total).data(TableTreeModel::RawValueRole).toLongLong(), coreGroups[title].second);
            QVERIFY(group.data(TableTreeModel::EventNameRole).toString().isEmpty());
            for (int row = 0; row < model.rowCount(group); ++row) {
                // The row shows the short name and stands for the full one.
                const auto name = model.index(row, 0, group).data(TableTreeModel::EventNameRole).toString();
                QCOMPARE(model.index(row, 0, group).data().toString(),
                         QString::fromStdString(analysis::shortKernelName(name.toStdString())));
                const auto key = std::make_pair(
                    name, model.index(row, stream, group).data(TableTreeModel::RawValueRole).toLongLong());
                QVERIFY2(coreRows.count(key), qPrintable(name));
                QCOMPARE(model.index(row, total, group).data(TableTreeModel::RawValueRole).toLongLong(),
                         coreRows[key].second);
                modelTotal += model.index(row, total, group).data(TableTreeModel::RawValueRole).toLongLong();
                ++leaves;
            }
        }
        QCOMPARE(leaves, core.rows.size());
        QCOMPARE(modelTotal, core.totalNs);
    }

    // The first click on an amount's header sorts it largest first; on a name, A to Z.
    void amountsSortDescendingFirst()
    {
        TableTreeModel model;
        model.setTree(opTree(kBert, OpGrouping::Name));
        QSortFilterProxyModel proxy;
        proxy.setSortRole(TableTreeModel::SortRole);
        proxy.setSourceModel(&model);
        QTreeView view;
        view.setModel(&proxy);
        view.setSortingEnabled(true);
        view.sortByColumn(0, Qt::AscendingOrder);
        const int total = model.tree().columnIndex(column::kTotal);
        QVERIFY(total > 0);
        view.header()->resize(2000, 30);
        const auto click = [&](int column) {
            const int x = view.header()->sectionViewportPosition(column) + view.header()->sectionSize(column) / 2;
            QTest::mouseClick(view.header()->viewport(), Qt::LeftButton, {}, QPoint(x, 5));
        };
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        click(total);
        QCOMPARE(view.header()->sortIndicatorSection(), total);
        QCOMPARE(view.header()->sortIndicatorOrder(), Qt::DescendingOrder);
        const auto first = proxy.index(0, total).data(TableTreeModel::SortRole).toLongLong();
        const auto second = proxy.index(1, total).data(TableTreeModel::SortRole).toLongLong();
        QVERIFY(first >= second && first > 0);
        click(0);
        QCOMPARE(view.header()->sortIndicatorOrder(), Qt::AscendingOrder);
    }

    // Figures sort largest first (Number, Count, ...); names and ids (a device, a stream) A to Z.
    void initialSortOrderByKind()
    {
        TableTree tree;
        tree.columns = {
            {QStringLiteral("Name"), ColumnKind::Text, {}},     {QStringLiteral("GFLOP"), ColumnKind::Number, {}},
            {QStringLiteral("Stream"), ColumnKind::Id, {}},     {QStringLiteral("Calls"), ColumnKind::Count, {}},
            {QStringLiteral("Bytes"), ColumnKind::Bytes, {}},   {QStringLiteral("%"), ColumnKind::Percent, {}},
            {QStringLiteral("Total"), ColumnKind::Duration, {}}};
        TableTreeModel model;
        model.setTree(tree);
        const auto order = [&](int column) {
            return Qt::SortOrder(model.headerData(column, Qt::Horizontal, Qt::InitialSortOrderRole).toInt());
        };
        QCOMPARE(order(0), Qt::AscendingOrder);
        QCOMPARE(order(1), Qt::DescendingOrder);
        QCOMPARE(order(2), Qt::AscendingOrder);
        for (int column = 3; column < 7; ++column)
            QCOMPARE(order(column), Qt::DescendingOrder);
    }

    // The header's arrow points down on a descending sort (largest first) and up on an ascending
    // one, under Fusion (the Light and Dark themes' style).
    void sortArrowPointsTheWayRowsRun()
    {
        std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        QStandardItemModel model(3, 1);
        model.setHorizontalHeaderLabels({QString()}); // no label: the arrow is all that is drawn
        for (int row = 0; row < 3; ++row)
            model.setItem(row, 0, new QStandardItem(QString::number(row)));
        QTreeView view;
        view.setStyle(fusion.get());
        useSortHeader(&view);
        view.header()->setStyle(fusion.get());
        view.setModel(&model);
        view.setSortingEnabled(true);
        view.resize(200, 120);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Dark pixels' counts in the first and last rows the arrow covers.
        const auto arrowRows = [&](Qt::SortOrder order) {
            view.sortByColumn(0, order);
            const QImage image = view.header()->grab().toImage();
            const QColor background = image.pixelColor(image.width() / 4, image.height() / 2);
            int top = -1;
            int bottom = -1;
            std::vector<int> counts(std::size_t(image.height()), 0);
            for (int y = 2; y < image.height() - 2; ++y)
                for (int x = 2; x < image.width() - 2; ++x)
                    if (background.lightness() - image.pixelColor(x, y).lightness() > 60)
                        ++counts[std::size_t(y)];
            for (int y = 0; y < image.height(); ++y)
                if (counts[std::size_t(y)] > 0) {
                    top = top < 0 ? y : top;
                    bottom = y;
                }
            return std::pair<int, int>(top < 0 ? 0 : counts[std::size_t(top)],
                                       bottom < 0 ? 0 : counts[std::size_t(bottom)]);
        };
        const auto down = arrowRows(Qt::DescendingOrder);
        QVERIFY2(down.first > down.second,
                 qPrintable(QStringLiteral("descending: %1 then %2").arg(down.first).arg(down.second)));
        const auto up = arrowRows(Qt::AscendingOrder);
        QVERIFY2(up.first < up.second,
                 qPrintable(QStringLiteral("ascending: %1 then %2").arg(up.first).arg(up.second)));
    }

    // The memory columns say what they sum: not what was held at once.
    void memoryColumnsSayWhatTheySum()
    {
        TableTreeModel model;
        model.setTree(opTree(kBert, OpGrouping::Name));
        for (const auto &title : {column::kDeviceMem, column::kDeviceMemSelf, column::kCpuMem, column::kCpuMemSelf}) {
            const int at = model.tree().columnIndex(title);
            QVERIFY2(at > 0, qPrintable(title));
            const auto tip = model.headerData(at, Qt::Horizontal, Qt::ToolTipRole).toString();
            QVERIFY2(tip.contains(QStringLiteral("summed over all its calls")) &&
                         tip.contains(QStringLiteral("held at once")),
                     qPrintable(tip));
        }
    }

    // Scrolled right, the names stay at the left edge: the pixels there are the name column's
    // as it is drawn unscrolled, row for row, at any vertical scroll; a click there selects the
    // row, its header sorts by name, and a tree's expanded rows stay expanded.
    void nameColumnStaysWhenScrolledRight()
    {
        TablePane pane;
        pane.setTree(opTree(kBert, OpGrouping::Name));
        pane.resize(520, 260);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        auto *view = pane.view();
        view->setColumnWidth(0, 150);
        auto *frozen = view->findChild<FrozenColumn *>();
        QVERIFY(frozen);
        auto *across = view->horizontalScrollBar();
        auto *down = view->verticalScrollBar();
        QTRY_VERIFY(across->maximum() > 300); // the figures go far past the window
        QVERIFY(down->maximum() > 4);
        QVERIFY(!frozen->isVisible());
        view->clearFocus(); // the current row's focus frame is the view's own

        const QRect port = view->viewport()->geometry();
        const QRect names(port.left(), port.top(), 148, port.height()); // the edge line is beyond
        for (const int top : {0, 3, down->maximum()}) {
            down->setValue(top);
            across->setValue(0);
            QTRY_VERIFY(!frozen->isVisible());
            const QImage unscrolled = view->grab(names).toImage();
            across->setValue(across->maximum());
            QTRY_VERIFY(frozen->isVisible());
            QCOMPARE(frozen->verticalScrollBar()->value(), top);
            const QImage scrolled = view->grab(names).toImage();
            QVERIFY2(scrolled == unscrolled, qPrintable(QStringLiteral("rows from %1").arg(top)));
        }
        // Scrolling the overlay (the wheel over the names) scrolls the view.
        frozen->verticalScrollBar()->setValue(3);
        QCOMPARE(down->value(), 3);

        // A click on a name selects its row in the view, the figures included.
        const QModelIndex third =
            frozen->indexAt(QPoint(20, frozen->visualRect(view->model()->index(3, 0)).center().y()));
        QVERIFY(third.isValid());
        QTest::mouseClick(frozen->viewport(), Qt::LeftButton, {}, frozen->visualRect(third).center());
        QCOMPARE(view->currentIndex().row(), third.row());
        QVERIFY(view->selectionModel()->isRowSelected(third.row(), third.parent()));

        // Its header sorts the view by name, A to Z first.
        QVERIFY(view->header()->sortIndicatorSection() != 0);
        QTest::mouseClick(frozen->header()->viewport(), Qt::LeftButton, {}, QPoint(30, frozen->header()->height() / 2));
        QCOMPARE(view->header()->sortIndicatorSection(), 0);
        QCOMPARE(view->header()->sortIndicatorOrder(), Qt::AscendingOrder);
        QTRY_COMPARE(frozen->header()->sortIndicatorSection(), 0);
        QVERIFY(view->model()->index(0, 0).data().toString().compare(view->model()->index(1, 0).data().toString(),
                                                                     Qt::CaseInsensitive) <= 0);

        // A tree: the module rows expanded in the view are the ones expanded in the overlay.
        pane.setTree(opTree(kBert, OpGrouping::Module));
        view->setColumnWidth(0, 150);
        across->setValue(across->maximum());
        QTRY_VERIFY(frozen->isVisible());
        const QModelIndex top = view->model()->index(0, 0);
        QVERIFY(view->model()->hasChildren(top));
        QVERIFY(view->isExpanded(top));
        QTRY_VERIFY(frozen->isExpanded(top));
        view->collapse(top);
        QVERIFY(!frozen->isExpanded(top));
        frozen->expand(top);
        QVERIFY(view->isExpanded(top));

        // Scrolled back, the view draws its names itself again.
        across->setValue(0);
        QTRY_VERIFY(!frozen->isVisible());
    }

    void columnsFollowTheTrace()
    {
        // bert: GPU time and memory events; benchmark: GPU time, no memory events.
        const auto bert = opTree(kBert, OpGrouping::Name);
        QVERIFY(bert.columnIndex(column::kDeviceSelf) > 0);
        QVERIFY(bert.columnIndex(column::kCpuMem) > 0);
        const auto benchmark = opTree(kBenchmark, OpGrouping::Name);
        QVERIFY(benchmark.columnIndex(column::kDeviceTotal) > 0);
        QCOMPARE(benchmark.columnIndex(column::kCpuMem), -1);
        QCOMPARE(benchmark.columnIndex(column::kShape), -1);
        QVERIFY(opTree(kBert, OpGrouping::Shape).columnIndex(column::kShape) > 0);
    }
};

QTEST_MAIN(TestTableModels)
#include "tst_tablemodels.moc"
