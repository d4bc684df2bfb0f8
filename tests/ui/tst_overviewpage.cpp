// The Overview page: step bars, GPU utilization, top tables, memory peaks and advice on a GPU
// trace, the one-line notes of a CPU-only trace, and the jumps into the Timeline and
// Operators pages.
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMouseEvent>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QTreeView>
#include <QTreeWidget>

#include <qcustomplot.h>

#include "../core/analysis/analysistestutil.h"
#include "core/analysis/kerneltable.h"
#include "core/util/format.h"
#include "tests/ui/maybegrab.h"
#include "ui/jobs/jobtracker.h"
#include "ui/overview/overviewpage.h"
#include "ui/plots/stepbreakdownplot.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/preferences.h"
#include "ui/tables/operatorspage.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/timeline/kernelname.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/workspace.h"

#include <algorithm>

using namespace pyrometer;
using namespace pyrometer::ui;
using pyrometer::analysis::testing::goldenPath;
using pyrometer::analysis::testing::microsToNs;
using pyrometer::analysis::testing::readCsv;

namespace {

const QString kResnet = QStringLiteral(
    PYROMETER_FIXTURES_DIR "/traces/tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
const QString kCpu = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/debian_legacy_linear.json");

// The row of a golden CSV with the largest value in a column.
std::vector<std::string> largest(const std::string &fixture, const std::string &suffix, std::size_t column)
{
    auto rows = readCsv(goldenPath(fixture, suffix));
    rows.erase(rows.begin());
    return *std::max_element(rows.begin(), rows.end(), [&](const auto &a, const auto &b) {
        return microsToNs(a[column]) < microsToNs(b[column]);
    });
}

// Opens a trace in a shown page and waits for its figures.
bool openAndWait(OverviewPage &page, Workspace &workspace, const QString &path)
{
    page.resize(1300, 1200);
    page.show();
    QSignalSpy shown(&page, &OverviewPage::overviewShown);
    workspace.openTrace(path);
    return QTest::qWaitFor([&] { return shown.count() == 1; }, 20000);
}

// The headline's figures by caption: "steps" -> "2", "GPU 0 busy in steps" -> "12.3%".
QMap<QString, QString> headlineTiles(const QString &html)
{
    static const QRegularExpression tile(QStringLiteral("<span[^>]*>([^<]*)</span><br><span[^>]*>([^<]*)</span>"));
    QMap<QString, QString> tiles;
    for (auto it = tile.globalMatch(html); it.hasNext();) {
        const auto match = it.next();
        tiles.insert(match.captured(2), match.captured(1));
    }
    return tiles;
}

// The page's rule for percentages: one decimal under 10%.
QString percentText(double value)
{
    return QStringLiteral("%1%").arg(value, 0, 'f', value < 10 ? 1 : 0);
}

void click(QAbstractItemView *view, const QModelIndex &index)
{
    view->scrollTo(index);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
}

} // namespace

class TestOverviewPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The window's settings in a test folder, never the user's.
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_overviewpage"));
        QSettings().clear();
    }

    void gpuTraceShowsStepsTablesAndAdvice()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OverviewPage page(&workspace, &jobs);
        QVERIFY(openAndWait(page, workspace, kResnet));
        QVERIFY(page.hasContent());

        // One stacked bar per ProfilerStep; the layers of a bar add up to the step's duration
        // that the independent Python computation found.
        auto steps = readCsv(goldenPath("v100_resnet50", ".steps.csv"));
        steps.erase(steps.begin());
        auto *plot = page.stepPlot();
        QCOMPARE(plot->stepCount(), int(steps.size()));
        QVERIFY(plot->layers().size() >= 4); // kernel, memcpy, DataLoader, CPU exec at least
        for (std::size_t s = 0; s < steps.size(); ++s) {
            double sum = 0;
            for (auto *layer : plot->layers()) {
                QCOMPARE(layer->data()->size(), int(steps.size()));
                sum += (layer->data()->constBegin() + int(s))->value;
            }
            QVERIFY2(std::abs(sum - double(microsToNs(steps[s][1])) / 1e6) < 1e-6, steps[s][0].c_str());
            QVERIFY(plot->stepText(int(s)).contains(QString::fromStdString(steps[s][0])));
        }
        QVERIFY(plot->plot()->legend->itemCount() == int(plot->layers().size()));
        QVERIFY(plot->stepText(0).contains(QStringLiteral("DataLoader")));
        // Hovering a bar shows that step's values.
        auto *customPlot = plot->plot();
        customPlot->replot();
        const QPoint over(int(customPlot->xAxis->coordToPixel(2)), int(customPlot->yAxis->coordToPixel(20)));
        QMouseEvent move(QEvent::MouseMove, QPointF(over), QPointF(customPlot->mapToGlobal(over)), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(customPlot, &move);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY(QToolTip::text().contains(QString::fromStdString(steps[2][0])));

        // GPU utilization per device, as a bar.
        QVERIFY(page.utilizationBox()->isVisibleTo(&page));
        QVERIFY(!page.gpuNote()->text().contains(QStringLiteral("CPU-only")));
        QVERIFY(page.headline()->text().contains(QStringLiteral("busy")));

        // The top tables: ten rows each, led by the op with the most self time and the kernel
        // with the most total time in the golden tables.
        QCOMPARE(page.topOpsTable()->topLevelItemCount(), 10);
        QCOMPARE(page.topKernelsTable()->topLevelItemCount(), 10);
        QCOMPARE(page.topOpsTable()->topLevelItem(0)->text(0).toStdString(),
                 largest("v100_resnet50", ".ops.csv", 3)[0]);
        // The largest kernel by its own name, the signature as its tooltip, and the op that
        // launched it.
        const auto topKernel = largest("v100_resnet50", ".kernels.csv", 3)[1];
        auto *kernelRow = page.topKernelsTable()->topLevelItem(0);
        QVERIFY(kernelRow->text(0).startsWith(QString::fromStdString(timeline::kernelLabel(topKernel))));
        QCOMPARE(kernelRow->toolTip(0).toStdString(), topKernel);
        const auto fixture = analysis::testing::loadFixture("v100_resnet50");
        const auto core = analysis::buildKernelTable(*fixture.index, {});
        const auto coreRow = std::find_if(core.rows.begin(), core.rows.end(), [&](const auto &r) { return r.name == topKernel; });
        QVERIFY(coreRow != core.rows.end() && !coreRow->launchOp.empty());
        QCOMPARE(kernelRow->text(1).toStdString(), coreRow->launchOp);
        QVERIFY(page.topOpsTable()->topLevelItem(0)->text(1).contains(QStringLiteral("ms")));

        // Memory peaks per device, with units.
        const auto memory = readCsv(goldenPath("v100_resnet50", ".memory.csv"));
        QCOMPARE(page.data()->memory.devices.size(), memory.size() - 1);
        QVERIFY(page.memoryNote()->text().contains(QStringLiteral("MiB")));

        // Advice: the DataLoader rule fires on this trace; a click asks for its range in the
        // timeline.
        QVERIFY(!page.data()->advice.empty());
        const auto &advice = page.data()->advice;
        const auto dataloader =
            std::find_if(advice.begin(), advice.end(), [](const auto &f) { return f.rule == "dataloader"; });
        QVERIFY(dataloader != advice.end());
        QCOMPARE(page.adviceList()->count(), int(advice.size()));
        QSignalSpy jumps(&page, &OverviewPage::timelineJumpRequested);
        const int row = int(dataloader - advice.begin());
        click(page.adviceList(), page.adviceList()->model()->index(row, 0));
        QCOMPARE(jumps.count(), 1);
        QCOMPARE(jumps.at(0).at(0).toInt(), workspace.traces().begin()->first);
        const auto jump = jumps.at(0).at(1).value<overview::TimelineJump>();
        QCOMPARE(jump.startNs, dataloader->startNs);
        QCOMPARE(jump.endNs, dataloader->endNs);
        QVERIFY(jump.endNs > jump.startNs);

        // A top op's click names it for the Operators page.
        QSignalSpy ops(&page, &OverviewPage::operatorRequested);
        auto *table = page.topOpsTable();
        click(table, table->model()->index(2, 0));
        QCOMPARE(ops.count(), 1);
        QCOMPARE(ops.at(0).at(1).toString(), table->topLevelItem(2)->text(0));
        QCOMPARE(ops.at(0).at(2).toBool(), false);
        auto *kernels = page.topKernelsTable();
        click(kernels, kernels->model()->index(0, 0));
        QCOMPARE(ops.count(), 2);
        QCOMPARE(ops.at(1).at(2).toBool(), true);
        QCOMPARE(ops.at(1).at(1).toString().toStdString(), largest("v100_resnet50", ".kernels.csv", 3)[1]);
    }

    // Every headline figure and every step bar's layers against the independent goldens, for
    // every fixture trace.
    void headlineAndBarsMatchTheGoldens_data() { analysis::testing::addFixtureRows(); }
    void headlineAndBarsMatchTheGoldens()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        JobTracker jobs;
        Workspace workspace(&jobs);
        OverviewPage page(&workspace, &jobs);
        QVERIFY(openAndWait(page, workspace, QString::fromStdString(analysis::testing::fixturePath(name).string())));
        const auto tiles = headlineTiles(page.headline()->text());
        const QLocale locale;

        // Steps and the mean step.
        auto steps = readCsv(goldenPath(name, ".steps.csv"));
        steps.erase(steps.begin());
        if (steps.empty()) {
            QVERIFY(!tiles.contains(QStringLiteral("steps")));
            QCOMPARE(page.stepPlot()->stepCount(), 1); // the whole trace as one bar
        } else {
            QCOMPARE(tiles.value(QStringLiteral("steps")), locale.toString(qulonglong(steps.size())));
            if (name == "mi250_rocm") {
                // 49.073 us < 0.25 x 9288.291 us: the trace ends inside ProfilerStep#2, left out.
                const auto caption = QStringLiteral("mean of 1 steady step; 1 partial left out");
                QCOMPARE(tiles.value(caption), displayDuration(microsToNs(steps[0][1])));
            } else {
                // No other fixture has a partial or warm-up step.
                std::int64_t total = 0;
                for (const auto &step : steps)
                    total += microsToNs(step[1]);
                QCOMPARE(tiles.value(QStringLiteral("mean step")), displayDuration(total / std::int64_t(steps.size())));
            }
            // Each bar's layers are the step's categories.
            static const QMap<QString, int> column{{"Kernel", 2},  {"Memcpy", 3},     {"Memset", 4}, {"Runtime", 5},
                                                   {"DataLoader", 6}, {"CPU exec", 7}, {"Other", 8}};
            auto *plot = page.stepPlot();
            QCOMPARE(plot->stepCount(), int(steps.size()));
            int nonEmpty = 0;
            for (int c = 2; c <= 8; ++c)
                nonEmpty += std::any_of(steps.begin(), steps.end(), [&](const auto &step) { return microsToNs(step[std::size_t(c)]) > 0; });
            QCOMPARE(int(plot->layers().size()), nonEmpty);
            for (auto *layer : plot->layers()) {
                QVERIFY2(column.contains(layer->name()), qPrintable(layer->name()));
                for (std::size_t s = 0; s < steps.size(); ++s) {
                    const double expected = double(microsToNs(steps[s][std::size_t(column.value(layer->name()))])) / 1e6;
                    QVERIFY2(std::abs((layer->data()->constBegin() + int(s))->value - expected) < 1e-9,
                             qPrintable(layer->name() + " of " + QString::fromStdString(steps[s][0])));
                }
            }
        }

        // GPU busy per device: inside the steps over the step time, else over the span.
        auto busy = readCsv(goldenPath(name, ".utilization.csv"));
        busy.erase(busy.begin());
        int gpuTiles = 0;
        for (auto it = tiles.begin(); it != tiles.end(); ++it)
            gpuTiles += it.key().contains(QStringLiteral(" busy in ")) ? 1 : 0;
        QCOMPARE(gpuTiles, int(busy.size()));
        for (const auto &row : busy) {
            const bool overSteps = !row[2].empty();
            const double share = analysis::testing::goldenGpuShare(row, page.data()->trace->info.spanNanoseconds());
            const auto caption = QStringLiteral("GPU %1 busy in %2").arg(QString::fromStdString(row[0]), overSteps ? "steps" : "the trace");
            QCOMPARE(tiles.value(caption), percentText(100.0 * share));
        }
        if (!busy.empty())
            QVERIFY(page.gpuNote()->text().contains(busy.front()[2].empty() ? QStringLiteral("span") : QStringLiteral("step time")));

        // The peak of every device that is not the CPU.
        auto memory = readCsv(goldenPath(name, ".memory.csv"));
        memory.erase(memory.begin());
        for (const auto &row : memory)
            if (row[0] != "cpu")
                QCOMPARE(tiles.value("peak on " + QString::fromStdString(row[0])),
                         QString::fromStdString(formatBytes(std::uint64_t(std::stoll(row[1])))));

        // Findings: as many as the analysis found (the rules have their own golden tests).
        const auto findings = page.data()->advice.size();
        QCOMPARE(tiles.value(findings == 1 ? QStringLiteral("finding") : QStringLiteral("findings")), QString::number(findings));
    }

    // The utilization bar is never lower than its percentage, whatever the font.
    void utilizationTextFitsItsBar()
    {
        // Restored however the test ends.
        const QFont before = QApplication::font();
        const auto restore = qScopeGuard([&before] { QApplication::setFont(before); });
        QFont large = before;
        large.setPixelSize(28);
        QApplication::setFont(large);
        JobTracker jobs;
        Workspace workspace(&jobs);
        OverviewPage page(&workspace, &jobs);
        page.resize(1800, 1600); // room for every section at this font: nothing squeezed but the bar
        const bool opened = openAndWait(page, workspace, kResnet);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(opened);
        QList<QProgressBar *> bars;
        QTRY_VERIFY(!(bars = page.utilizationBox()->findChildren<QProgressBar *>()).isEmpty() &&
                    bars.front()->isVisible());
        for (auto *bar : bars) {
            QTRY_VERIFY2(
                bar->height() >= bar->fontMetrics().height() + 2,
                qPrintable(
                    QStringLiteral("%1 px for text of %2 px").arg(bar->height()).arg(bar->fontMetrics().height())));
            for (auto *label : page.utilizationBox()->findChildren<QLabel *>())
                QTRY_VERIFY2(label->height() >= label->fontMetrics().height(), qPrintable(label->text()));
        }
        maybeGrab(page, QStringLiteral("overview-large-font.png"));
    }

    void cpuTraceSaysSoInOneLine()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        OverviewPage page(&workspace, &jobs);
        QVERIFY(openAndWait(page, workspace, kCpu));
        QVERIFY(page.gpuNote()->text().startsWith(QStringLiteral("CPU-only trace")));
        QVERIFY(!page.utilizationBox()->isVisibleTo(&page));
        QVERIFY(page.kernelsNote()->isVisibleTo(&page));
        QVERIFY(page.kernelsNote()->text().startsWith(QStringLiteral("CPU-only trace")));
        QVERIFY(!page.topKernelsTable()->isVisibleTo(&page));
        QVERIFY(page.memoryNote()->text().contains(QStringLiteral("profile_memory=True")));
        QVERIFY(page.headline()->text().contains(QStringLiteral("CPU only")));
        QVERIFY(page.topOpsTable()->topLevelItemCount() > 0);
        QVERIFY(page.stepPlot()->stepCount() >= 1); // the whole trace as one bar
        for (auto *layer : page.stepPlot()->layers())
            QVERIFY(layer->name() != QStringLiteral("Kernel"));
    }

    // Traces of 2026: MTIA's device is named as such, and no CUDA-graph advice reaches it; the
    // MI300X run's host wait is its allocator, as the advice says; a front-end process with
    // Python frames only says so where its operators would be.
    void accelerators2026()
    {
        const auto path = [](const char *file) {
            return QStringLiteral(PYROMETER_FIXTURES_DIR "/traces2026/") + QLatin1String(file);
        };
        {
            JobTracker jobs;
            Workspace workspace(&jobs);
            OverviewPage page(&workspace, &jobs);
            QVERIFY(openAndWait(page, workspace, path("mtia_inference_rank_0.json.gz")));
            const auto tiles = headlineTiles(page.headline()->text());
            QVERIFY2(tiles.contains(QStringLiteral("MTIA 17 busy in the trace")), qPrintable(tiles.keys().join('|')));
            QCOMPARE(tiles.value(QStringLiteral("devices")), QStringLiteral("MTIA 17"));
            QVERIFY2(!page.idleNote()->text().contains(QStringLiteral("CUDA graphs")),
                     qPrintable(page.idleNote()->text()));
            QVERIFY(page.idleNote()->text().contains(QStringLiteral("MTIA 17 stream")));
            maybeGrab(page, QStringLiteral("overview-mtia"));
        }
        {
            JobTracker jobs;
            Workspace workspace(&jobs);
            OverviewPage page(&workspace, &jobs);
            QVERIFY(openAndWait(page, workspace, path("mi300x_ddp_resnet18.json.gz")));
            QVERIFY2(page.idleNote()->text().contains(QStringLiteral("allocation and free calls")),
                     qPrintable(page.idleNote()->text()));
            QCOMPARE(headlineTiles(page.headline()->text()).value(QStringLiteral("steps")), QStringLiteral("5"));
        }
        {
            JobTracker jobs;
            Workspace workspace(&jobs);
            OverviewPage page(&workspace, &jobs);
            QVERIFY(openAndWait(page, workspace, path("vllm_async_llm_cpu.pt.trace.json.gz")));
            QVERIFY(page.opsNote()->isVisibleTo(&page));
            QVERIFY(!page.topOpsTable()->isVisibleTo(&page));
            QVERIFY2(page.opsNote()->text().contains(QStringLiteral("Python frames only")),
                     qPrintable(page.opsNote()->text()));
            QVERIFY(headlineTiles(page.headline()->text()).value(QStringLiteral("devices")) ==
                    QStringLiteral("CPU only"));
        }
    }

    // A truncated file loaded in part says so in the headline, not only far below; the load
    // rate is the JSON's.
    void partialTraceSaysSoInTheHeadline()
    {
        QTemporaryDir dir;
        // The plain CPU fixture, cut in the middle of its events.
        QFile cpu(kCpu);
        QVERIFY(cpu.open(QIODevice::ReadOnly));
        const QByteArray text = cpu.readAll();
        const QString cut = dir.filePath(QStringLiteral("cut.json"));
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text.left(text.size() * 2 / 3));
        out.close();
        JobTracker jobs;
        Workspace workspace(&jobs);
        OverviewPage page(&workspace, &jobs);
        page.resize(1300, 1200);
        page.show();
        QSignalSpy shown(&page, &OverviewPage::overviewShown);
        workspace.openTrace(cut, /*partial=*/true);
        QVERIFY(QTest::qWaitFor([&] { return shown.count() == 1; }, 20000));
        const auto &info = workspace.traces().begin()->second->trace->info;
        QVERIFY(info.partial);
        const QString headline = page.headline()->text();
        QVERIFY2(headline.contains(QStringLiteral("Partial: the file is truncated")), qPrintable(headline));
        QVERIFY(headline.contains(QLocale().toString(qulonglong(info.eventCount)) + QStringLiteral(" events")));
        QVERIFY(headline.contains(QStringLiteral("span of the loaded part")));
        const QString summary = page.summaryHtml();
        QVERIFY2(summary.contains(QStringLiteral("%1 MB/s of JSON").arg(double(info.jsonBytes) / 1e6 / info.loadSeconds, 0, 'f', 0)),
                 qPrintable(summary));
    }

    void jumpsLandInTheTimelineAndOperatorsPages()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1400, 1000);
        window.show();
        auto *overview = qobject_cast<OverviewPage *>(window.pageWidget(Page::Overview));
        QSignalSpy shown(overview, &OverviewPage::overviewShown);
        window.openPaths({kResnet});
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->isIdle(), 20000);

        // A top op opens the Operators page with its row selected.
        auto *operators = qobject_cast<tables::OperatorsPage *>(window.pageWidget(Page::Operators));
        const QString name = overview->topOpsTable()->topLevelItem(1)->text(0);
        click(overview->topOpsTable(), overview->topOpsTable()->model()->index(1, 0));
        QCOMPARE(window.currentPage(), Page::Operators);
        QTRY_COMPARE_WITH_TIMEOUT(operators->currentPane(), operators->operatorsPane(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(
            operators->operatorsPane()->view()->currentIndex().data(tables::TableTreeModel::EventNameRole).toString(),
            name, 10000);

        // A finding opens the Timeline on its range.
        window.showPage(Page::Overview);
        const auto &advice = overview->data()->advice;
        QVERIFY(!advice.empty());
        click(overview->adviceList(), overview->adviceList()->model()->index(0, 0));
        QCOMPARE(window.currentPage(), Page::Timeline);
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QTRY_VERIFY_WITH_TIMEOUT(timeline->view()->index(), 10000);
        const auto jump = overview::jumpFor(advice.front(), *overview->data()->trace);
        const auto &viewport = timeline->view()->viewport();
        QTRY_VERIFY_WITH_TIMEOUT(viewport.startNs <= double(jump.startNs) &&
                                     viewport.startNs > double(jump.startNs) - double(jump.endNs - jump.startNs),
                                 10000);
        const double visibleEnd = viewport.startNs + viewport.nsPerPixel * viewport.width;
        QVERIFY(visibleEnd >= double(jump.endNs));
        QVERIFY(visibleEnd < double(jump.endNs) + double(jump.endNs - jump.startNs));
    }
};

QTEST_MAIN(TestOverviewPage)
#include "tst_overviewpage.moc"
