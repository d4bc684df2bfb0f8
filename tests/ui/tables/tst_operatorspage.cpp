// The Operators page: empty state, tables computed by a job, grouping, time ranges, selection
// signal and CSV export.
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <functional>

#include "../maybegrab.h"
#include "core/analysis/opnames.h"
#include "core/analysis/optable.h"
#include "core/analysis/roofline.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/emptystate.h"
#include "ui/tables/operatorspage.h"
#include "ui/tables/tablebuild.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/workspace/workspace.h"

using namespace pyrometer;
using namespace pyrometer::ui;
using namespace pyrometer::ui::tables;

namespace {

const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");

quint64 sumCalls(const TableTreeModel *model)
{
    const int calls = model->tree().columnIndex(column::kCalls);
    quint64 sum = 0;
    for (int row = 0; row < model->rowCount(); ++row)
        sum += model->index(row, calls).data(TableTreeModel::RawValueRole).toULongLong();
    return sum;
}

} // namespace

class TestOperatorsPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsEmptyStateUntilATraceIsOpen()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OperatorsPage page(&workspace, &jobs);
        QVERIFY(!page.hasContent());
        QCOMPARE(page.emptyState()->hint(), QStringLiteral("Open a trace: Ctrl+O"));
        page.showRange(0, 1000); // nothing open: ignored, no job
        QVERIFY(jobs.isIdle());
        QVERIFY(!page.hasContent());
    }

    void buildsTablesOffTheGuiThread()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OperatorsPage page(&workspace, &jobs);
        bool busyAfterOpen = false;
        int rowsAfterOpen = -1;
        QStringList titles;
        // Connected after the page, so this runs once the page has reacted to the new trace.
        connect(&workspace, &Workspace::traceOpened, this, [&] {
            busyAfterOpen = !jobs.isIdle();
            for (const auto id : jobs.activeJobs())
                titles.push_back(jobs.title(id));
            rowsAfterOpen = page.operatorsPane()->model()->rowCount();
        });
        QSignalSpy shown(&page, &OperatorsPage::tablesShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QVERIFY(busyAfterOpen);
        QVERIFY(titles.contains(QStringLiteral("Computing operator tables")));
        QCOMPARE(rowsAfterOpen, 0); // the model filled only when the job came back
        QTRY_VERIFY_WITH_TIMEOUT(jobs.isIdle(), 5000);
        QVERIFY(page.hasContent());
        QVERIFY(page.operatorsPane()->model()->rowCount() > 10);
        QVERIFY(page.kernelsPane()->model()->rowCount() > 0);
        QVERIFY(page.tabs()->isTabEnabled(1));
        QCOMPARE(page.traceChooser()->count(), 1);

        // Group by module: recomputed by a job, now a tree.
        page.setGrouping(analysis::OpGrouping::Module);
        QVERIFY(!jobs.isIdle());
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 2, 10000);
        QVERIFY(page.operatorsPane()->model()->tree().isTree());
        QVERIFY(page.operatorsPane()->view()->rootIsDecorated());

        // The filter box filters both tables.
        page.filterBox()->setText(QStringLiteral("no such operator"));
        QCOMPARE(page.operatorsPane()->proxy()->rowCount(), 0);
        QCOMPARE(page.kernelsPane()->proxy()->rowCount(), 0);
        page.filterBox()->clear();
        QVERIFY(page.operatorsPane()->proxy()->rowCount() > 0);
    }

    // The roofline columns: each op's work (nested ops too) and each kernel's, under the trace's
    // device's roof, as core/analysis computes them; blank or "unknown" where not known; none in
    // the module grouping.
    void rooflineColumns()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OperatorsPage page(&workspace, &jobs);
        page.resize(1600, 800);
        page.show();
        QSignalSpy shown(&page, &OperatorsPage::tablesShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        const auto document = workspace.trace(workspace.newestTrace());
        QVERIFY(document);
        analysis::RooflineOptions everyOp;
        everyOp.everyOp = true;
        const auto work = analysis::buildRoofline(*document->index, everyOp);
        QVERIFY(work.device);

        const auto *ops = page.operatorsPane()->model();
        const int name = ops->tree().columnIndex(column::kName);
        const int gflop = ops->tree().columnIndex(QStringLiteral("GFLOP"));
        const int bound = ops->tree().columnIndex(QStringLiteral("Bound"));
        const int roof = ops->tree().columnIndex(QStringLiteral("% of roof"));
        QVERIFY(gflop > 0 && bound > 0 && roof > 0);
        QVERIFY(ops->tree().columnIndex(QStringLiteral("TFLOP/s")) > 0); // a GPU trace
        int placed = 0;
        bool sawUnknown = false;
        bool sawNoWork = false;
        for (int row = 0; row < ops->rowCount(); ++row) {
            const auto op = ops->index(row, name).data().toString().toStdString();
            const auto it = std::find_if(work.rows.begin(), work.rows.end(), [&](const auto &r) { return r.name == op; });
            const auto flops = ops->index(row, gflop).data(TableTreeModel::RawValueRole);
            if (it == work.rows.end() && analysis::opnames::doesNoWork(op)) {
                // A view or an empty tensor does no work: 0, not "unknown".
                QCOMPARE(flops.typeId(), QMetaType::Double);
                QCOMPARE(flops.toDouble(), 0.0);
                QCOMPARE(ops->index(row, gflop).data().toString(), QStringLiteral("0"));
                QVERIFY(!ops->index(row, bound).data(TableTreeModel::RawValueRole).isValid());
                sawNoWork = true;
                continue;
            }
            if (it == work.rows.end()) {
                QCOMPARE(flops.toString(), QStringLiteral("unknown"));
                QVERIFY(!ops->index(row, bound).data(TableTreeModel::RawValueRole).isValid());
                sawUnknown = true;
                continue;
            }
            ++placed;
            QVERIFY(std::abs(flops.toDouble() - it->flops / 1e9) <= 0.006 * it->flops / 1e9);
            QCOMPARE(ops->index(row, bound).data().toString(),
                     QString::fromLatin1(analysis::boundName(it->bound).data()));
            QVERIFY(std::abs(ops->index(row, roof).data(TableTreeModel::RawValueRole).toDouble() - it->percentOfRoof)
                    <= 0.006 * it->percentOfRoof);
        }
        QCOMPARE(placed, int(work.rows.size())); // every op of known work has its row
        QVERIFY(sawUnknown);                     // aten::embedding, aten::to ... have no formula
        QVERIFY(sawNoWork);                      // aten::view, aten::empty, aten::transpose ...

        // Kernels: the GEMMs launched by aten::linear are placed, with their launching op.
        const auto *kernels = page.kernelsPane()->model();
        const int kernelBound = kernels->tree().columnIndex(QStringLiteral("Bound"));
        const int launchOp = kernels->tree().columnIndex(column::kLaunchOp);
        QVERIFY(kernelBound > 0);
        int boundKernels = 0;
        std::function<void(const QModelIndex &)> visit = [&](const QModelIndex &parent) {
            for (int row = 0; row < kernels->rowCount(parent); ++row) {
                const auto index = kernels->index(row, 0, parent);
                visit(index);
                const auto text = index.siblingAtColumn(kernelBound).data().toString();
                if (text == QStringLiteral("compute") || text == QStringLiteral("memory")) {
                    ++boundKernels;
                    QVERIFY(!index.siblingAtColumn(launchOp).data().toString().isEmpty());
                }
            }
        };
        visit({});
        QVERIFY(boundKernels >= 3);
        page.tabs()->setCurrentIndex(0);
        // The roofline columns are the last ones: scrolled to, for the screenshot.
        auto *scroll = page.operatorsPane()->view()->horizontalScrollBar();
        scroll->setValue(scroll->maximum());
        maybeGrab(page, QStringLiteral("operators-roofline-columns.png"));

        // Module grouping: a tree of modules, no roofline columns.
        page.setGrouping(analysis::OpGrouping::Module);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 2, 10000);
        QCOMPARE(page.operatorsPane()->model()->tree().columnIndex(QStringLiteral("GFLOP")), -1);
    }

    void recomputesForATimeRange()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OperatorsPage page(&workspace, &jobs);
        QSignalSpy shown(&page, &OperatorsPage::tablesShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        const auto *model = page.operatorsPane()->model();
        const quint64 allCalls = sumCalls(model);
        QVERIFY(!page.rangeLabel()->isVisibleTo(&page));

        const auto trace = workspace.traces().begin()->second->trace;
        const auto start = trace->info.spanStart;
        const auto middle = start + trace->info.spanNanoseconds() / 2;
        page.showRange(double(start), double(middle));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 2, 10000);
        QVERIFY(page.range().has_value());
        QVERIFY(page.rangeLabel()->isVisibleTo(&page));
        QVERIFY(page.rangeLabel()->text().contains(QStringLiteral("between")));
        const quint64 firstHalf = sumCalls(model);

        // The same numbers as core/analysis over that range.
        const auto index = analysis::buildTraceIndex(*trace);
        analysis::OpTableOptions options;
        options.range = analysis::TimeRange{start, middle};
        std::uint64_t expected = 0;
        for (const auto &row : analysis::buildOpTable(*index, options).rows)
            expected += row.calls;
        QCOMPARE(firstHalf, quint64(expected));
        QVERIFY(firstHalf < allCalls);

        page.clearRange();
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 3, 10000);
        QVERIFY(!page.range().has_value());
        QVERIFY(!page.rangeLabel()->isVisibleTo(&page));
        QCOMPARE(sumCalls(model), allCalls);
    }

    void selectingARowAnnouncesItsEvents()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OperatorsPage page(&workspace, &jobs);
        QSignalSpy shown(&page, &OperatorsPage::tablesShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QSignalSpy selected(&page, &OperatorsPage::rowEventsSelected);
        auto *view = page.operatorsPane()->view();
        const auto row = view->model()->index(1, 0);
        view->setCurrentIndex(row);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toInt(), workspace.traces().begin()->first);
        QCOMPARE(selected.at(0).at(1).toString(), row.data().toString());

        page.tabs()->setCurrentIndex(1);
        auto *kernels = page.kernelsPane()->view();
        // A group row (a kernel type: GEMM, Memory, ...) stands for no events; its rows do.
        const auto group = kernels->model()->index(0, 0);
        QVERIFY(kernels->model()->rowCount(group) > 0);
        kernels->setCurrentIndex(group);
        QCOMPARE(selected.count(), 1);
        const auto kernel = kernels->model()->index(0, 0, group);
        kernels->setCurrentIndex(kernel);
        QCOMPARE(selected.count(), 2);
        // The row shows the kernel's short name and announces its full one, as the trace has it.
        QCOMPARE(selected.at(1).at(1).toString(), kernel.data(tables::TableTreeModel::EventNameRole).toString());
        QVERIFY(selected.at(1).at(1).toString().startsWith(QStringLiteral("void cutlass::Kernel2<")));
        if (const auto shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
            page.resize(1200, 500);
            page.show();
            page.grab().save(QDir(shots).filePath(QStringLiteral("pyrometer-kernels-grouped.png")));
        }
        // Double-click (or Enter) asks for the row's events in the Timeline.
        QSignalSpy activated(&page, &OperatorsPage::rowEventsActivated);
        Q_EMIT kernels->activated(kernel);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(1).toString(), kernel.data(tables::TableTreeModel::EventNameRole).toString());
        Q_EMIT kernels->activated(group);
        QCOMPARE(activated.count(), 1);

        // Export writes the current tab (kernels): a header and a line per row.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("kernels.csv"));
        QVERIFY(page.exportCsv(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        int rows = 0;
        for (int g = 0; g < kernels->model()->rowCount(); ++g)
            rows += 1 + kernels->model()->rowCount(kernels->model()->index(g, 0));
        QCOMPARE(lines.size(), rows + 1);
        QVERIFY(lines.first().startsWith(QStringLiteral("name,count,total_us")));
        QString error;
        QVERIFY(!page.exportCsv(dir.filePath(QStringLiteral("missing/dir/x.csv")), &error));
        QVERIFY(error.contains(QStringLiteral("x.csv")));
    }
};

QTEST_MAIN(TestOperatorsPage)
#include "tst_operatorspage.moc"
