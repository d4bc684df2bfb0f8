// The GPU page and the Overview's GPU row: launch distributions, idle causes, the critical path
// and repeated sequences of a real GPU trace, each table holding what core/analysis computed;
// the path and the outliers shown in the Timeline's terms; a CPU-only trace says why it has
// nothing to show; the kernels table grouped by kernel type.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

#include <cmath>

#include <qcustomplot.h>

#include "../maybegrab.h"
#include "core/analysis/criticalpath.h"
#include "core/analysis/criticalpathrows.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/launches.h"
#include "ui/gpu/gpupage.h"
#include "ui/gpu/gputrees.h"
#include "ui/jobs/jobtracker.h"
#include "ui/overview/overviewpage.h"
#include "ui/plots/kerneltypeplot.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/pages.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/workspace/workspace.h"

#include "../maybegrab.h"

using namespace pyrometer;
using namespace pyrometer::ui;
using gpu::GpuPage;

namespace {

const QString kAlexnet =
    QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/benchmark_result_2869224_1695835535_trace.json.gz");
const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
const QString kResnet = QStringLiteral(PYROMETER_FIXTURES_DIR
                                       "/traces/tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
const QString kVllm = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/vllm_gb10_cudagraphs.pt.trace.json.gz");
const QString kCpu = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");

using tables::TableTreeModel;

// The raw value of column `title` in top-level row `row` of a pane's model (source order).
QVariant cell(tables::TablePane *pane, int row, const QString &title)
{
    const auto *model = pane->model();
    return model->index(row, model->tree().columnIndex(title)).data(TableTreeModel::RawValueRole);
}

} // namespace

class TestGpuPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tablesHoldTheAnalyses()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        GpuPage page(&workspace, &jobs);
        QVERIFY(!page.hasContent());
        QVERIFY(page.emptyState()->hint().contains(QStringLiteral("Ctrl+O")));
        page.resize(1400, 800);
        page.show();
        QSignalSpy shown(&page, &GpuPage::gpuShown);
        workspace.openTrace(kAlexnet);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 20000);
        QVERIFY(page.hasContent() && !page.showsNoGpu());
        const auto *data = page.data();
        QVERIFY(data);
        const auto &index = *data->index;

        // Launches: one row per kernel name, as buildLaunchStats groups them.
        const auto stats = analysis::buildLaunchStats(index);
        QVERIFY(!stats.launches.empty());
        QAbstractItemModelTester launchTester(page.launchesPane()->model());
        QCOMPARE(page.launchesPane()->model()->rowCount(), int(stats.byKernel.size()));
        bool negative = false; // a median delay below 0 (the kernel began before its call returned)
        for (int r = 0; r < int(stats.byKernel.size()); ++r) {
            const auto &g = stats.byKernel[std::size_t(r)];
            negative = negative || g.delayMedianNs < 0;
            // Shown short; the row stands for the full name.
            QCOMPARE(cell(page.launchesPane(), r, gpu::column::kKernel).toString().toStdString(),
                     analysis::shortKernelName(g.name));
            QCOMPARE(
                page.launchesPane()->model()->index(r, 0).data(TableTreeModel::EventNameRole).toString().toStdString(),
                g.name);
            QCOMPARE(cell(page.launchesPane(), r, gpu::column::kLaunches).toULongLong(), g.count);
            // A delay below 0 is shown as none: the kernel waited for nothing.
            QCOMPARE(cell(page.launchesPane(), r, gpu::column::kMedianDelay).toLongLong(),
                     std::max<qint64>(0, g.delayMedianNs));
        }
        QVERIFY(negative); // the A100 trace has one (-6 µs), so the rule above is exercised
        QCOMPARE(page.streamsPane()->model()->rowCount(), int(stats.byStream.size()));
        // No total delay; per stream, the queue's depth and the time it held nothing, from the
        // queues (a100_alexnet.launchqueues.csv: stream 7 empty 9796683000 of 12920299000 ns).
        QCOMPARE(page.launchesPane()->model()->tree().columnIndex(QStringLiteral("Total delay")), -1);
        for (int r = 0; r < int(stats.queues.size()); ++r) {
            const auto &q = stats.queues[std::size_t(r)];
            QCOMPARE(cell(page.streamsPane(), r, gpu::column::kMaxQueue).toULongLong(), quint64(q.maxLength));
            QCOMPARE(cell(page.streamsPane(), r, gpu::column::kIdleEmpty).toDouble(), 100.0 * q.emptyShare());
            // The mean queue is a number to one decimal, right-aligned as the other figures.
            const auto *model = page.streamsPane()->model();
            const auto mean = model->index(r, model->tree().columnIndex(gpu::column::kMeanQueue));
            QCOMPARE(mean.data(Qt::DisplayRole).toString(), QString::number(std::round(q.meanDepth() * 10.0) / 10.0));
            QVERIFY(mean.data(Qt::TextAlignmentRole).toInt() & Qt::AlignRight);
        }
        QCOMPARE(cell(page.streamsPane(), 0, gpu::column::kIdleEmpty).toDouble(), 100.0 * 9796683000.0 / 12920299000.0);
        QVERIFY2(page.launchVerdict()->text().startsWith(QStringLiteral("CPU-bound")), qPrintable(page.launchVerdict()->text()));
        maybeGrab(page, QStringLiteral("gpu-launches.png"));
        QVERIFY2(page.summary()->text().contains(QString::number(stats.launches.size())),
                 qPrintable(page.summary()->text()));

        // Idle: the steps as groups, each stream's causes adding up to its span less busy.
        const auto idle = analysis::buildIdleBreakdown(index);
        auto *idleModel = page.idlePane()->model();
        QAbstractItemModelTester idleTester(idleModel);
        std::size_t streams = 0;
        const auto &tree = idleModel->tree();
        for (int g = 0; g < idleModel->rowCount(); ++g) {
            const auto group = idleModel->index(g, 0);
            for (int r = 0; r < idleModel->rowCount(group); ++r, ++streams) {
                const auto value = [&](const QString &title) {
                    return idleModel->index(r, tree.columnIndex(title), group)
                        .data(TableTreeModel::RawValueRole)
                        .toLongLong();
                };
                QCOMPARE(value(gpu::column::kBusy) + value(gpu::column::kHostWait) + value(gpu::column::kKernelWait) +
                             value(gpu::column::kOther),
                         value(gpu::column::kSpan));
            }
        }
        QCOMPARE(streams, idle.streams.size());

        // The critical path of the trace (it has no ProfilerStep): rows summing with their waits
        // to its length.
        QVERIFY(!data->path.nodes.empty() && data->steps.empty());
        const auto &path = data->path;
        QCOMPARE(path.step, std::string("trace"));
        std::int64_t sum = 0;
        for (int r = 0; r < page.pathPane()->model()->rowCount(); ++r)
            sum += cell(page.pathPane(), r, gpu::column::kDuration).toLongLong() +
                   cell(page.pathPane(), r, gpu::column::kWaitBefore).toLongLong();
        QCOMPARE(sum, path.lengthNs());
        QCOMPARE(page.stepChooser()->count(), std::max<int>(1, int(data->steps.size())));
        QVERIFY(page.pathSummary()->text().contains(QStringLiteral("on the path")));
        QSignalSpy jumps(&page, &GpuPage::timelineJumpRequested);
        page.showPathInTimeline();
        QCOMPARE(jumps.count(), 1);
        const auto jump = jumps.at(0).at(1).value<overview::TimelineJump>();
        QCOMPARE(jump.events.size(), path.nodes.size());
        QCOMPARE(jump.startNs, path.startNs);
        QCOMPARE(jump.endNs, path.endNs);
        maybeGrab(page, QStringLiteral("gpu-launches.png"));
        page.tabs()->setCurrentIndex(1);
        maybeGrab(page, QStringLiteral("gpu-idle.png"));
        page.tabs()->setCurrentIndex(2);
        maybeGrab(page, QStringLiteral("gpu-critical-path.png"));
        page.tabs()->setCurrentIndex(3);
        maybeGrab(page, QStringLiteral("gpu-sequences.png"));
    }

    // The V100 ResNet-50's longest step: its path covers the step's span, and its 6,000-odd nodes
    // come as a few hundred rows, CPU nodes under their top-level op, longest first, filterable.
    void criticalPathGroupsAndFilters()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        GpuPage page(&workspace, &jobs);
        page.resize(1400, 800);
        page.show();
        QSignalSpy shown(&page, &GpuPage::gpuShown);
        workspace.openTrace(kResnet);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
        const auto *data = page.data();
        QVERIFY(data);
        page.tabs()->setCurrentIndex(2);
        maybeGrab(page, QStringLiteral("gpu-critical-path-v100.png"));
        QVERIFY(!data->path.nodes.empty());
        const auto &path = data->path;
        QCOMPARE(path.lengthNs(), data->steps[data->pathStep].durationNs());
        auto *pathModel = page.pathPane()->model();
        QAbstractItemModelTester pathTester(pathModel);
        const auto &pathTree = pathModel->tree();
        const auto cell = [&](const QModelIndex &parent, int row, const QString &title) {
            return pathModel->index(row, pathTree.columnIndex(title), parent).data(TableTreeModel::RawValueRole);
        };
        QVERIFY(pathModel->rowCount() < int(path.nodes.size()) / 2); // CPU nodes grouped
        std::int64_t sum = 0;
        int groups = 0;
        for (int r = 0; r < pathModel->rowCount(); ++r) {
            sum += cell({}, r, gpu::column::kDuration).toLongLong() + cell({}, r, gpu::column::kWaitBefore).toLongLong();
            const auto group = pathModel->index(r, 0);
            if (pathModel->rowCount(group) > 1) {
                ++groups;
                QCOMPARE(cell({}, r, gpu::column::kKind).toString(), QStringLiteral("Op"));
                QCOMPARE(quint64(pathModel->rowCount(group)), cell({}, r, gpu::column::kNodes).toULongLong());
                std::int64_t inside = 0;
                for (int c = 0; c < pathModel->rowCount(group); ++c)
                    inside += cell(group, c, gpu::column::kDuration).toLongLong();
                QCOMPARE(inside, cell({}, r, gpu::column::kDuration).toLongLong());
            }
        }
        QCOMPARE(sum, path.lengthNs());
        QVERIFY(groups > 0);
        // GPU rows of 500 µs or more only, longest first in the view.
        page.pathKindChooser()->setCurrentIndex(page.pathKindChooser()->findData(analysis::kPathDevice));
        page.pathMinimum()->setValue(500);
        QVERIFY(pathModel->rowCount() > 0);
        for (int r = 0; r < pathModel->rowCount(); ++r) {
            QCOMPARE(cell({}, r, gpu::column::kKind).toString(), QStringLiteral("GPU"));
            QVERIFY(cell({}, r, gpu::column::kDuration).toLongLong() >= 500000);
        }
        auto *proxy = page.pathPane()->proxy();
        const int durationColumn = pathTree.columnIndex(gpu::column::kDuration);
        for (int r = 1; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->index(r - 1, durationColumn).data(TableTreeModel::RawValueRole).toLongLong() >=
                    proxy->index(r, durationColumn).data(TableTreeModel::RawValueRole).toLongLong());
        page.tabs()->setCurrentIndex(2);
        maybeGrab(page, QStringLiteral("gpu-critical-path-gpu-filter.png"));
        page.tabs()->setCurrentIndex(0);
        page.pathKindChooser()->setCurrentIndex(0);
        page.pathMinimum()->setValue(0);
    }

    void outliersGoToTheTimeline()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        GpuPage page(&workspace, &jobs);
        page.resize(1280, 720);
        page.show();
        QSignalSpy shown(&page, &GpuPage::gpuShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 20000);
        page.tabs()->setCurrentIndex(2);
        maybeGrab(page, QStringLiteral("gpu-critical-path-bert.png"));
        page.tabs()->setCurrentIndex(3);
        maybeGrab(page, QStringLiteral("gpu-sequences-bert.png"));
        std::size_t outliers = 0;
        for (const auto &l : page.data()->launches->launches)
            outliers += l.outlier ? 1 : 0;
        QSignalSpy jumps(&page, &GpuPage::timelineJumpRequested);
        page.showOutliersInTimeline();
        QCOMPARE(jumps.count(), outliers > 0 ? 1 : 0);
        if (outliers > 0) // each outlier's kernel and its call
            QCOMPARE(jumps.at(0).at(1).value<overview::TimelineJump>().events.size(), 2 * outliers);
    }

    // A trace that replays CUDA graphs: the CUDA graphs tab holds one row per graph with its
    // replays under it, as buildGraphReplays found them; the summary says replays are launches.
    // MTIA's streams and verdict name the MTIA, not a GPU.
    void otherAcceleratorsAreNamed()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        GpuPage page(&workspace, &jobs);
        page.resize(1500, 900);
        page.show();
        QSignalSpy shown(&page, &GpuPage::gpuShown);
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/mtia_inference_rank_0.json.gz"));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 60000);
        auto *streams = page.streamsPane();
        QCOMPARE(streams->model()->rowCount(), 12); // streams 101 to 112 of device 17
        for (int r = 0; r < streams->model()->rowCount(); ++r)
            QVERIFY2(
                cell(streams, r, gpu::column::kStreamName).toString().startsWith(QStringLiteral("MTIA 17 stream 1")),
                qPrintable(cell(streams, r, gpu::column::kStreamName).toString()));
        // 8.6 launches queued on average, the device empty with nothing queued 5% of its time.
        QVERIFY2(page.launchVerdict()->text().startsWith(QStringLiteral("MTIA-bound")),
                 qPrintable(page.launchVerdict()->text()));
    }

    void cudaGraphsTab()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        GpuPage page(&workspace, &jobs);
        page.resize(1500, 900);
        page.show();
        QSignalSpy shown(&page, &GpuPage::gpuShown);
        workspace.openTrace(kVllm);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 60000);
        const auto *data = page.data();
        QVERIFY(data);
        const auto graphs = analysis::buildGraphReplays(*data->index);
        QCOMPARE(data->graphs, graphs);
        QCOMPARE(graphs.replays.size(), std::size_t(650));
        auto *pane = page.graphsPane();
        QAbstractItemModelTester tester(pane->model());
        QCOMPARE(pane->model()->rowCount(), int(graphs.graphs.size()));
        std::uint64_t replays = 0;
        for (int r = 0; r < pane->model()->rowCount(); ++r) {
            const auto row = pane->model()->index(r, 0);
            QCOMPARE(quint64(pane->model()->rowCount(row)), cell(pane, r, gpu::column::kReplays).toULongLong());
            replays += cell(pane, r, gpu::column::kReplays).toULongLong();
        }
        QCOMPARE(replays, std::uint64_t(650));
        QVERIFY(page.graphsSummary()->text().contains(QStringLiteral("<b>650</b> replays")));
        QVERIFY(page.summary()->text().contains(QStringLiteral("650 of them CUDA graph replays")));
        // The path runs through stream 7's kernels: the GPU holds most of it.
        QVERIFY(double(data->path.deviceNs) > 0.95 * double(data->path.lengthNs()));
        page.tabs()->setCurrentIndex(page.tabs()->count() - 1);
        pane->view()->expand(pane->view()->model()->index(0, 0));
        maybeGrab(page, QStringLiteral("gpu-cuda-graphs.png"));
        page.tabs()->setCurrentIndex(0);
        maybeGrab(page, QStringLiteral("gpu-graph-launches.png"));
    }

    void cpuTraceSaysWhy()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        GpuPage page(&workspace, &jobs);
        QSignalSpy shown(&page, &GpuPage::gpuShown);
        workspace.openTrace(kCpu);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 20000);
        QVERIFY(page.showsNoGpu());
    }

    void thePageInTheWindow()
    {
        QCOMPARE(pageFromName(QStringLiteral("gpu")), std::optional<Page>(Page::Gpu));
        QCOMPARE(pageTitle(Page::Gpu), QStringLiteral("GPU"));
        QCOMPARE(kAllPages.at(8), Page::Gpu); // the ninth: Ctrl+9
        MainWindow window;
        auto *page = qobject_cast<GpuPage *>(window.pageWidget(Page::Gpu));
        QVERIFY(page);
        window.showPage(Page::Gpu);
        QCOMPARE(window.currentPage(), Page::Gpu);
        QVERIFY(page->emptyState()->isVisibleTo(page));
    }

    void overviewShowsKernelTypesAndIdle()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OverviewPage page(&workspace, &jobs);
        page.resize(1400, 1600);
        page.show();
        QSignalSpy shown(&page, &OverviewPage::overviewShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 20000);
        const auto *data = page.data();
        QVERIFY(data && page.gpuAnalyses()->isVisibleTo(&page));
        const auto types = analysis::buildKernelTypeBreakdown(*data->index);
        QVERIFY(types.rows.size() >= 3);
        QCOMPARE(page.kernelTypePlot()->barCount(), int(types.rows.size()));
        // The longest type on top, with its time, share and count.
        QVERIFY(page.kernelTypePlot()->barLabel(0).startsWith(
            QString::fromUtf8(analysis::kernelTypeLabel(types.rows[0].type).data())));
        QCOMPARE(page.kernelTypePlot()->plot()->plottableCount(), int(types.rows.size()));
        QVERIFY(page.idleTable()->topLevelItemCount() >= 1);
        QVERIFY2(page.idleNote()->text().contains(QStringLiteral("waited on")), qPrintable(page.idleNote()->text()));
        maybeGrab(page, QStringLiteral("overview-gpu.png"));

        // A CPU trace has no such row.
        QSignalSpy again(&page, &OverviewPage::overviewShown);
        workspace.openTrace(kCpu);
        QTRY_COMPARE_WITH_TIMEOUT(again.count(), 1, 20000);
        QVERIFY(!page.gpuAnalyses()->isVisibleTo(&page));
    }
};

QTEST_MAIN(TestGpuPage)
#include "tst_gpupage.moc"
