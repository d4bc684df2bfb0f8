// The Modules and Memory tables: model structure (QAbstractItemModelTester), agreement with
// the golden module and per-op memory tables, and the new tabs of the Operators page.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include "../../core/analysis/analysistestutil.h"
#include "core/analysis/moduletable.h"
#include "core/analysis/opmemory.h"
#include "ui/jobs/jobtracker.h"
#include "ui/tables/moduletree.h"
#include "ui/tables/operatorspage.h"
#include "ui/tables/tablebuild.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/workspace/workspace.h"

using namespace pyrometer;
using namespace pyrometer::ui;
using namespace pyrometer::ui::tables;
using pyrometer::analysis::testing::goldenPath;
using pyrometer::analysis::testing::loadFixture;
using pyrometer::analysis::testing::microsToNs;
using pyrometer::analysis::testing::readCsv;
using pyrometer::analysis::testing::verifyFixtures;

namespace {

const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");

TableTree treeFor(const std::string &fixture, bool modules)
{
    const auto loaded = loadFixture(fixture);
    if (modules)
        return buildModuleTree(analysis::buildModuleTable(*loaded.index), loaded.index->hasDevice);
    return buildOpMemoryTree(analysis::buildOpMemoryTable(*loaded.index));
}

} // namespace

class TestModuleTables : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { verifyFixtures(); }

    void modelTester_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<bool>("modules");
        QTest::addRow("bert modules") << "h100_bert" << true;
        QTest::addRow("bert memory") << "h100_bert" << false;
        QTest::addRow("resnet memory") << "v100_resnet50" << false;
    }

    void modelTester()
    {
        QFETCH(QString, fixture);
        QFETCH(bool, modules);
        TableTreeModel model;
        QAbstractItemModelTester sourceTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setRecursiveFilteringEnabled(true);
        proxy.setSortRole(TableTreeModel::SortRole);
        proxy.setFilterRole(TableTreeModel::FilterRole);
        proxy.setSourceModel(&model);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTree(treeFor(fixture.toStdString(), modules));
        QVERIFY(model.rowCount() > 0);
        QCOMPARE(model.tree().isTree(), modules);
        for (int column = 0; column < model.columnCount(); ++column) {
            proxy.sort(column, Qt::DescendingOrder);
            proxy.sort(column, Qt::AscendingOrder);
        }
        proxy.setFilterFixedString(modules ? QStringLiteral("Linear_3") : QStringLiteral("addmm"));
        QVERIFY(proxy.rowCount() > 0);
        proxy.setFilterFixedString(QStringLiteral("no such row anywhere"));
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setFilterFixedString(QString());
        model.setTree(TableTree{});
        QCOMPARE(model.rowCount(), 0);
    }

    void moduleTreeAgreesWithGolden()
    {
        const auto tree = treeFor("h100_bert", true);
        TableTreeModel model;
        model.setTree(tree);
        auto expected = readCsv(goldenPath("h100_bert", ".modules.csv"));
        expected.erase(expected.begin());
        QCOMPARE(tree.nodes.size(), expected.size());
        const int total = tree.columnIndex(column::kTotal);
        const int self = tree.columnIndex(column::kSelf);
        const int deviceTotal = tree.columnIndex(column::kDeviceTotal);
        QVERIFY(total > 0 && self > 0 && deviceTotal > 0);
        // Every golden path is a node whose path, total, self and device time match.
        std::map<QString, const TableNode *> byPath;
        for (const auto &node : tree.nodes)
            byPath[node.path] = &node;
        for (const auto &row : expected) {
            const auto it = byPath.find(QString::fromStdString(row[0]));
            QVERIFY2(it != byPath.end(), row[0].c_str());
            QCOMPARE(it->second->values[std::size_t(total)].toLongLong(), microsToNs(row[2]));
            QCOMPARE(it->second->values[std::size_t(self)].toLongLong(), microsToNs(row[3]));
            QCOMPARE(it->second->values[std::size_t(deviceTotal)].toLongLong(), microsToNs(row[4]));
            QVERIFY(it->second->eventName.startsWith(QStringLiteral("nn.Module: ")));
        }
        // One root: the whole model, 100% of it.
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(
            model.index(0, tree.columnIndex(column::kModuleTotalPercent)).data(TableTreeModel::RawValueRole).toDouble(),
            100.0);
        QVERIFY(model.rowCount(model.index(0, 0)) > 0);
    }

    void memoryTreeAgreesWithGolden_data() { analysis::testing::addFixtureRows(); }
    void memoryTreeAgreesWithGolden()
    {
        QFETCH(QString, fixture);
        const auto tree = treeFor(fixture.toStdString(), false);
        auto expected = readCsv(goldenPath(fixture.toStdString(), ".opmemory.csv"));
        expected.erase(expected.begin());
        QCOMPARE(tree.nodes.size(), expected.size());
        if (expected.empty())
            return; // no memory events with addresses in this trace
        const int device = tree.columnIndex(column::kDevice);
        const int allocated = tree.columnIndex(column::kAllocated);
        const int net = tree.columnIndex(column::kNet);
        // Without addresses (the 2021 V100 trace) there is no "held at peak" column, and the
        // golden holds nothing at the peak.
        const int held = tree.columnIndex(column::kHeldAtPeak);
        for (const auto &row : expected) {
            const auto it = std::find_if(tree.nodes.begin(), tree.nodes.end(), [&](const TableNode &n) {
                return n.values[0].toString().toStdString() == row[1] &&
                       n.values[std::size_t(device)].toString().toStdString() == row[0];
            });
            QVERIFY2(it != tree.nodes.end(), row[1].c_str());
            QCOMPARE(it->values[std::size_t(allocated)].toLongLong(), std::stoll(row[4]));
            QCOMPARE(it->values[std::size_t(net)].toLongLong(), std::stoll(row[4]) - std::stoll(row[5]));
            QCOMPARE(held >= 0 ? it->values[std::size_t(held)].toLongLong() : 0LL, std::stoll(row[6]));
        }
        if (fixture == QLatin1String("v100_resnet50"))
            QCOMPARE(held, -1);
    }

    void operatorsPageHasModulesAndMemoryTabs()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OperatorsPage page(&workspace, &jobs);
        QSignalSpy shown(&page, &OperatorsPage::tablesShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QCOMPARE(page.tabs()->count(), 4);
        QCOMPARE(page.tabs()->tabText(2), QStringLiteral("Modules"));
        QCOMPARE(page.tabs()->tabText(3), QStringLiteral("Memory"));
        QVERIFY(page.tabs()->isTabEnabled(2) && page.tabs()->isTabEnabled(3));
        QVERIFY(page.modulesPane()->model()->rowCount() == 1);
        QVERIFY(page.memoryPane()->model()->rowCount() > 5);

        // Selecting a module highlights its frames in the timeline.
        page.tabs()->setCurrentIndex(2);
        QCOMPARE(page.currentPane(), page.modulesPane());
        QSignalSpy selected(&page, &OperatorsPage::rowEventsSelected);
        auto *view = page.modulesPane()->view();
        view->setCurrentIndex(view->model()->index(0, 0));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(1).toString(), QStringLiteral("nn.Module: BertLMHeadModel_0"));

        // The filter reaches the new tabs, and CSV export takes the current one.
        page.filterBox()->setText(QStringLiteral("Linear_3"));
        QVERIFY(page.modulesPane()->proxy()->rowCount() == 1);
        const QString csv = page.modulesPane()->allAsCsv();
        QVERIFY(csv.startsWith(QStringLiteral("module,calls,total_us")));
        QVERIFY(csv.contains(QStringLiteral("Linear_3")));
        page.filterBox()->clear();

        // The overview's jump: a name, selected in its tab.
        page.selectName(workspace.traces().begin()->first, QStringLiteral("aten::addmm"), false);
        QCOMPARE(page.currentPane(), page.operatorsPane());
        QCOMPARE(page.operatorsPane()->view()->currentIndex().data(TableTreeModel::EventNameRole).toString(),
                 QStringLiteral("aten::addmm"));
    }

    void cpuTraceDisablesModulesAndMemory()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OperatorsPage page(&workspace, &jobs);
        QSignalSpy shown(&page, &OperatorsPage::tablesShown);
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/debian_legacy_linear.json"));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QVERIFY(!page.tabs()->isTabEnabled(2));
        QVERIFY(!page.tabs()->isTabEnabled(3));
        QVERIFY(page.tabs()->tabToolTip(3).contains(QStringLiteral("profile_memory=True")));
        QVERIFY(page.tabs()->tabToolTip(2).contains(QStringLiteral("with_stack=True")));
    }
};

QTEST_MAIN(TestModuleTables)
#include "tst_moduletables.moc"
