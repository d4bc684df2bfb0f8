// The Distributed page over a job opened in the window: the two real ranks of a 128-rank NCCL
// job (bars, heat map, collectives, the combined trace in the Timeline, a cell shown there,
// closing), bad inputs that name their file and lose nothing, and a generated 8-rank job whose
// rank 5 is slow.
// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDate>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolButton>
#include <QTest>
#include <QUrl>
#include <qcustomplot.h>

#include "../maybegrab.h"
#include "core/analysis/optable.h"
#include "core/analysis/stepmeasures.h"
#include "core/report/jobreport.h"
#include "core/summary/jobsource.h"
#include "core/summary/summaryfile.h"
#include "core/trace/trace.h"
#include "ui/distributed/distributedpage.h"
#include "ui/distributed/rankbars.h"
#include "ui/distributed/stepheatmap.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"
#include "ui/tables/operatorspage.h"
#include "ui/tables/tablebuild.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/jobload.h"
#include "ui/workspace/workspace.h"

#include <cmath>

using namespace pyrometer;
using namespace pyrometer::ui;
using distributed::DistributedPage;

namespace {

const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces");
const QString kMultirank = kTraces + QStringLiteral("/multirank");
const QString kJob8 = QStringLiteral(PYROMETER_TEST_JOBS_DIR "/job8");
const QString kOtherTrace = kTraces + QStringLiteral("/debian_legacy_linear.json");

bool waitIdle(MainWindow &window)
{
    return QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 120'000);
}

DistributedPage *pageOf(MainWindow &window)
{
    return qobject_cast<DistributedPage *>(window.pageWidget(Page::Distributed));
}

timeline::TimelinePage *timelineOf(MainWindow &window)
{
    return qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
}

std::shared_ptr<const JobDocument> onlyJob(MainWindow &window)
{
    const auto ids = window.workspace()->jobDocuments();
    return ids.size() == 1 ? window.workspace()->jobDocument(ids.front()) : nullptr;
}

// Opens path as a job in the window, shown at a screenshot's size, and waits until it is loaded:
// its document, or null when anything failed.
std::shared_ptr<const JobDocument> openShownJob(MainWindow &window, const QString &path)
{
    window.resize(1280, 800);
    window.show();
    window.openJob({path});
    if (!waitIdle(window) || window.failureCount() > 0)
        return nullptr;
    return onlyJob(window);
}

// The 8-rank job's summaries merged into dir/job.json, as pyrometer-cli merge writes them; with
// moved, each rank names a trace file that is not on this machine.
QString mergedJob8(const QTemporaryDir &dir, bool moved)
{
    summary::JobSummary job;
    for (int r = 0; r < 8; ++r) {
        auto rank = summary::summariseTraceFile(QString("%1/rank-%2.json.gz").arg(kJob8).arg(r).toStdString());
        if (!rank.ok())
            return {};
        if (moved)
            rank.value().figures.file = "/cluster/scratch/job8/rank-" + std::to_string(r) + ".json.gz";
        job.ranks.push_back(std::move(rank).value());
    }
    const QString path = dir.filePath(moved ? "moved.json" : "job.json");
    return summary::writeJobSummary(path.toStdString(), job).ok() ? path : QString();
}

} // namespace

class TestDistributedPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_distributedpage"));
    }

    void init() { QSettings().clear(); }

    void emptyStateSaysHowToOpenAJob()
    {
        MainWindow window;
        auto *page = pageOf(window);
        QVERIFY(!page->hasContent());
        QVERIFY(page->emptyState()->isVisibleTo(page));
        QVERIFY(page->emptyState()->hint().contains(QStringLiteral("Open job")));
        QCOMPARE(pageFromName(QStringLiteral("distributed")), std::optional<Page>(Page::Distributed));
    }

    void twoRealRanks()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openJob({kMultirank});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(window.currentPage(), Page::Distributed);
        const auto job = onlyJob(window);
        QVERIFY(job);
        const auto &figures = job->figures;
        QCOMPARE(figures.ranks.size(), std::size_t(2));
        QCOMPARE(figures.ranks[0].rank, 0);
        QCOMPARE(figures.ranks[1].rank, 1);
        QCOMPARE(job->files.size(), 2);

        auto *page = pageOf(window);
        QVERIFY(page->hasContent());
        QCOMPARE(page->currentJob(), job->id);
        QVERIFY(page->summary()->text().contains(QStringLiteral("2 ranks")));
        QVERIFY(page->summary()->text().contains(QStringLiteral("world of 128")));
        // The finding is the job's own sentences, as the CLI prints them.
        for (const auto &sentence : report::stragglerSentences(figures))
            QVERIFY(page->finding()->text().contains(QString::fromStdString(sentence).toHtmlEscaped()));

        // One stacked bar per rank, its parts the rank's partition of the window.
        QCOMPARE(page->bars()->barCount(), 2);
        for (std::size_t p = 0; p < distributed::RankBars::kParts; ++p) {
            const auto *layer = page->bars()->layers()[p];
            for (int i = 0; i < 2; ++i)
                QCOMPARE(layer->data()->at(i)->value,
                         double(distributed::rankParts(figures.ranks[std::size_t(i)])[p]) / 1e6);
        }
        QVERIFY(page->bars()->rankText(1).contains(QStringLiteral("rank 1")));

        // Ranks × steps: 2 × 2 cells, each the step's duration in ms when coloured by step time.
        auto *heat = page->heatMap();
        QCOMPARE(heat->rankCount(), 2);
        QCOMPARE(heat->stepCount(), 2);
        QCOMPARE(heat->map()->data()->keySize(), 2);
        QCOMPARE(heat->map()->data()->valueSize(), 2);
        QCOMPARE(heat->measure(), analysis::mostVaryingMeasure(figures));
        heat->setMeasure(analysis::StepMeasure::StepTime);
        for (std::size_t r = 0; r < 2; ++r) {
            QCOMPARE(figures.ranks[r].steps.size(), std::size_t(2));
            for (std::size_t s = 0; s < 2; ++s)
                QCOMPARE(heat->cellMs(r, s), double(figures.ranks[r].steps[s].durationNs) / 1e6);
        }
        QCOMPARE(heat->scale()->axis()->label(), QStringLiteral("step time (ms)"));
        // The step axis says the ProfilerStep numbers the tooltips name.
        for (std::size_t s = 0; s < 2; ++s) {
            const auto &name = figures.ranks[0].steps[s].name;
            QCOMPARE(heat->stepLabel(s), QString::number(analysis::profilerStepNumber(name)));
            QVERIFY(heat->cellText(0, s).contains(QString::fromStdString(name)));
        }
        const auto ticker = heat->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().value(0.0), heat->stepLabel(0));
        QVERIFY(heat->stepLabel(0) != QStringLiteral("0"));

        // The collectives table holds the job's rows; one rank shows that rank's.
        QAbstractItemModelTester collectivesTester(page->collectivesModel(),
                                                   QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester collectivesProxyTester(page->collectivesTable()->model(),
                                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester ranksTester(page->ranksModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(!figures.collectives.empty());
        QVERIFY(page->collectivesModel()->rows() == figures.collectives);
        QCOMPARE(page->collectivesTable()->model()->rowCount(), int(figures.collectives.size()));
        page->collectivesRankChooser()->setCurrentIndex(page->collectivesRankChooser()->findData(1));
        QVERIFY(!page->collectivesModel()->rows().empty());
        QVERIFY(page->collectivesModel()->rows() == distributed::collectiveRows(figures, 1));
        for (const auto &row : page->collectivesModel()->rows())
            QCOMPARE(row.rank, 1);
        page->collectivesRankChooser()->setCurrentIndex(0);
        QVERIFY(page->collectivesModel()->rows() == figures.collectives);
        // Sorting by total time, largest first, follows the numbers, not the text.
        page->collectivesTable()->sortByColumn(7, Qt::DescendingOrder);
        const auto *sorted = page->collectivesTable()->model();
        for (int row = 1; row < sorted->rowCount(); ++row)
            QVERIFY(sorted->index(row - 1, 7).data(distributed::CollectivesModel::SortRole).toDouble() >=
                    sorted->index(row, 7).data(distributed::CollectivesModel::SortRole).toDouble());
        QCOMPARE(page->ranksModel()->rowCount(), 2);

        // The combined trace is open, one process group per rank.
        QVERIFY(job->timelineTrace != kNoDocument);
        const auto combined = window.workspace()->trace(job->timelineTrace);
        QVERIFY(combined);
        QCOMPARE(combined->job, job->id);
        QVERIFY(combined->fileName().startsWith(QStringLiteral("job: 2 ranks")));
        bool rank0 = false, rank1 = false;
        for (const auto &process : combined->trace->processes) {
            const auto name = QString::fromStdString(process.name);
            QVERIFY2(name.startsWith(QStringLiteral("rank 0")) || name.startsWith(QStringLiteral("rank 1")),
                     qPrintable(name));
            rank0 = rank0 || name.startsWith(QStringLiteral("rank 0"));
            rank1 = rank1 || name.startsWith(QStringLiteral("rank 1"));
        }
        QVERIFY(rank0 && rank1);
        window.showPage(Page::Distributed);
        QApplication::processEvents();
        maybeGrab(window, QStringLiteral("distributed-2ranks.png"));
        page->tables()->setCurrentIndex(1);
        QApplication::processEvents();
        maybeGrab(window, QStringLiteral("distributed-collectives.png"));
        page->tables()->setCurrentIndex(0);

        // A click on rank 1's second step shows that step, on the job's clock, in the Timeline.
        auto *timeline = timelineOf(window);
        QTest::mouseClick(heat->plot(), Qt::LeftButton, {}, heat->cellCenter(1, 1));
        QCOMPARE(window.currentPage(), Page::Timeline);
        QVERIFY(waitIdle(window));
        QTRY_COMPARE_WITH_TIMEOUT(timeline->currentTrace(), job->timelineTrace, 10'000);
        const auto &step = figures.ranks[1].steps[1];
        const double start = double(step.startNs + figures.clockOffsetNs[1]);
        const double end = start + double(step.durationNs);
        QTRY_VERIFY_WITH_TIMEOUT(timeline->view()->selectedRange().has_value(), 10'000);
        QCOMPARE(timeline->view()->selectedRange()->first, start);
        QCOMPARE(timeline->view()->selectedRange()->second, end);
        const auto &viewport = timeline->view()->viewport();
        QVERIFY(viewport.startNs <= start && viewport.endNs() >= end);
        QVERIFY(viewport.endNs() - viewport.startNs < 2 * (end - start));
        maybeGrab(window, QStringLiteral("timeline-job.png"));

        // A ranks-table row activated: that rank's first step.
        window.showPage(Page::Distributed);
        auto *ranksView = page->ranksTable();
        ranksView->sortByColumn(0, Qt::DescendingOrder); // rank 1 on top: the proxy's row is not the rank's index
        const QModelIndex rank1Row = ranksView->model()->index(0, 2);
        QCOMPARE(ranksView->model()->index(0, 0).data().toInt(), 1);
        Q_EMIT ranksView->activated(rank1Row);
        QCOMPARE(window.currentPage(), Page::Timeline);
        const double first = double(figures.ranks[1].steps[0].startNs + figures.clockOffsetNs[1]);
        QTRY_VERIFY_WITH_TIMEOUT(timeline->view()->selectedRange() && timeline->view()->selectedRange()->first == first,
                                 10'000);
        QCOMPARE(timeline->view()->selectedRange()->second, first + double(figures.ranks[1].steps[0].durationNs));

        // Closing the job closes its combined trace; the page empties.
        window.workspace()->closeJob(job->id);
        QVERIFY(!window.workspace()->trace(job->timelineTrace));
        QVERIFY(window.workspace()->traces().empty());
        QVERIFY(window.workspace()->jobDocuments().empty());
        QVERIFY(!page->hasContent());
        QVERIFY(waitIdle(window));
    }

    void closeOnThePageClosesTheJob()
    {
        MainWindow window;
        window.openJob({kMultirank + "/sampled_rank-0.json.gz", kMultirank + "/sampled_rank-1.json.gz"});
        QVERIFY(waitIdle(window));
        const auto job = onlyJob(window);
        QVERIFY(job);
        QCOMPARE(job->files.size(), 2);
        // The same files as a folder again: the job open already, shown, not a second one.
        window.showPage(Page::Overview);
        window.openJob({kMultirank});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->jobDocuments().size(), std::size_t(1));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QCOMPARE(window.currentPage(), Page::Distributed);
        QCOMPARE(pageOf(window)->currentJob(), job->id);
        QVERIFY(window.closeAction()->isEnabled());
        window.closeCurrent();
        QVERIFY(window.workspace()->jobDocuments().empty());
        QVERIFY(window.workspace()->traces().empty());
    }

    void closingTheCombinedTraceKeepsTheJob()
    {
        MainWindow window;
        window.openJob({kMultirank});
        QVERIFY(waitIdle(window));
        auto job = onlyJob(window);
        QVERIFY(job);
        const DocumentId combined = job->timelineTrace;
        QVERIFY(combined != kNoDocument);
        window.workspace()->closeTrace(combined);
        job = onlyJob(window);
        QVERIFY(job);
        QCOMPARE(job->timelineTrace, kNoDocument);
        // Its step can no more be shown: said in the status bar, the page stays.
        window.showPage(Page::Distributed);
        pageOf(window)->requestStep(0, 0);
        QCOMPARE(window.currentPage(), Page::Distributed);
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("not loaded")));
    }

    void badInputNamesItsFileAndKeepsWhatIsOpen_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addRow("missing") << "missing";
        QTest::addRow("not a trace") << "not a trace";
        QTest::addRow("truncated gzip") << "truncated";
    }
    // A missing file fails the job; a rank that does not load among others that do is named
    // among the job's problems on the page, and the job is the other ranks.
    void badInputNamesItsFileAndKeepsWhatIsOpen()
    {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        QString bad = dir.filePath(QStringLiteral("rank-1.json"));
        if (kind == QStringLiteral("not a trace")) {
            QFile file(bad);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("{\"hello\": \"this is no trace\"}");
        } else if (kind == QStringLiteral("truncated")) {
            bad = dir.filePath(QStringLiteral("rank-1.json.gz"));
            QFile source(kMultirank + "/sampled_rank-1.json.gz");
            QVERIFY(source.open(QIODevice::ReadOnly));
            QFile file(bad);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(source.readAll().left(int(source.size() / 2)));
        }
        MainWindow window;
        window.openPaths({kOtherTrace});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        window.openJob({kMultirank + "/sampled_rank-0.json.gz", bad});
        QVERIFY(waitIdle(window));
        if (kind != QStringLiteral("missing")) {
            const auto job = onlyJob(window);
            QVERIFY(job);
            QCOMPARE(job->figures.ranks.size(), std::size_t(1));
            QCOMPARE(job->figures.failedRanks.size(), std::size_t(1));
            QVERIFY2(pageOf(window)->finding()->text().contains(QFileInfo(bad).fileName()),
                     qPrintable(pageOf(window)->finding()->text()));
            return;
        }
        QVERIFY(window.failureCount() > 0);
        const QString messages = window.banner()->messages().join(QStringLiteral("\n"));
        QVERIFY2(messages.contains(QFileInfo(bad).fileName()), qPrintable(messages));
        QVERIFY(window.workspace()->jobDocuments().empty());
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QCOMPARE(window.workspace()->traces().begin()->second->path, kOtherTrace);
        QVERIFY(!pageOf(window)->hasContent());
    }

    void eightRanksNameTheSlowOne()
    {
        if (!QFileInfo::exists(kJob8))
            QSKIP("the rank_jobs fixture has not made job8");
        MainWindow window;
        const auto job = openShownJob(window, kJob8);
        QVERIFY(job);
        QCOMPARE(job->figures.ranks.size(), std::size_t(8));
        QCOMPARE(job->figures.stragglers.size(), std::size_t(1));
        QCOMPARE(job->figures.stragglers.front().rank, 5);
        auto *page = pageOf(window);
        QVERIFY2(page->finding()->text().contains(QStringLiteral("rank 5")), qPrintable(page->finding()->text()));
        QCOMPARE(page->bars()->barCount(), 8);
        QCOMPARE(page->heatMap()->rankCount(), 8);
        // Every rank's step takes the same time; what the slow rank spends it on differs. The
        // map opens on the measure that differs most, and each measure puts rank 5 apart.
        auto *heat = page->heatMap();
        QVERIFY(heat->measure() != analysis::StepMeasure::StepTime);
        QCOMPARE(heat->measureChooser()->currentData().toInt(), int(heat->measure()));
        const auto chooseMeasure = [heat](analysis::StepMeasure measure) {
            heat->measureChooser()->setCurrentIndex(heat->measureChooser()->findData(int(measure)));
            Q_EMIT heat->measureChooser()->activated(heat->measureChooser()->currentIndex());
            QCOMPARE(heat->measure(), measure);
            QVERIFY(heat->scale()->axis()->label().startsWith(QString::fromUtf8(analysis::stepMeasureName(measure).data())));
        };
        chooseMeasure(analysis::StepMeasure::Wait);
        for (int s = 0; s < heat->stepCount(); ++s) {
            for (std::size_t r = 0; r < 8; ++r) {
                if (r != 5)
                    QVERIFY2(heat->cellMs(r, s) > heat->cellMs(5, s), qPrintable(QStringLiteral("rank %1 step %2").arg(r).arg(s)));
            }
        }
        QVERIFY(heat->cellText(5, 0).contains(QStringLiteral("<b>wait ")));
        maybeGrab(*heat, QStringLiteral("heatmap-job8-wait.png"));
        chooseMeasure(analysis::StepMeasure::Compute);
        for (int s = 0; s < heat->stepCount(); ++s) {
            for (std::size_t r = 0; r < 8; ++r) {
                if (r != 5)
                    QVERIFY(heat->cellMs(r, s) < heat->cellMs(5, s));
            }
        }
        maybeGrab(*heat, QStringLiteral("heatmap-job8-compute.png"));
        // The straggler's row, and only it, is highlighted.
        auto *ranks = page->ranksTable()->model();
        for (int row = 0; row < ranks->rowCount(); ++row) {
            const bool slow = ranks->index(row, 0).data().toInt() == 5;
            QCOMPARE(ranks->index(row, 0).data(Qt::BackgroundRole).isValid(), slow);
        }
        // Eight ranks: all of them in the Timeline.
        QCOMPARE(job->timelineRanks.size(), std::size_t(8));
        QVERIFY(job->timelineReason.contains(QStringLiteral("all 8 ranks")));
        window.showPage(Page::Distributed);
        QApplication::processEvents();
        maybeGrab(window, QStringLiteral("distributed-job8.png"));

        // File → Export report on this page writes the job's report, beside the job's folder.
        QVERIFY(window.defaultReportPath(QDate(2026, 1, 2)).endsWith(QStringLiteral("/job8-report-2026-01-02.html")));
        QTemporaryDir dir;
        const QString report = dir.filePath(QStringLiteral("job.html"));
        QVERIFY(window.exportReportTo(report) != 0);
        QVERIFY(waitIdle(window));
        QFile written(report);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(written.readAll());
        QVERIFY2(html.contains(QStringLiteral("Straggler: rank 5")), qPrintable(html.left(2000)));
        QCOMPARE(window.failureCount(), 0);
        // On another page the report is the traces': not refused, and the job's page is left alone.
        window.showPage(Page::Overview);
        QVERIFY(window.exportReportTo(dir.filePath(QStringLiteral("traces.html"))) != 0);
        QVERIFY(waitIdle(window));
        QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("traces.html"))));
    }

    // A folder of one job's rank traces, opened as any folder (command line, File → Open trace
    // folder), is that job on the Distributed page, not eight traces; each trace only when
    // asked (File → Open trace folder as traces). Traces that are not ranks stay traces.
    void aFolderOfRanksOpensAsTheJob()
    {
        if (!QFileInfo::exists(kJob8))
            QSKIP("the rank_jobs fixture has not made job8");
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 800);
        window.show();
        window.openPaths({kJob8});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        const auto job = onlyJob(window);
        QVERIFY(job);
        QCOMPARE(job->figures.ranks.size(), std::size_t(8));
        QCOMPARE(window.currentPage(), Page::Distributed);
        // The job's combined trace is the only trace.
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QCOMPARE(window.workspace()->traces().begin()->second->job, job->id);
        QApplication::processEvents();
        maybeGrab(window, QStringLiteral("distributed-job8-folder.png"));

        MainWindow each;
        each.setInteractive(false);
        each.workspace()->open(kJob8, /*folderAsTraces=*/true);
        QVERIFY(waitIdle(each));
        QCOMPARE(each.workspace()->traces().size(), std::size_t(8));
        QVERIFY(each.workspace()->jobDocuments().empty());

        QTemporaryDir dir;
        for (const char *name : {"debian_legacy_linear.json", "diff_base.json"})
            QVERIFY(QFile::copy(kTraces + "/" + name, dir.filePath(QString::fromLatin1(name))));
        MainWindow unrelated;
        unrelated.setInteractive(false);
        unrelated.openPaths({dir.path()});
        QVERIFY(waitIdle(unrelated));
        QCOMPARE(unrelated.failureCount(), 0);
        QCOMPARE(unrelated.workspace()->traces().size(), std::size_t(2));
        QVERIFY(unrelated.workspace()->jobDocuments().empty());
    }

    // 64 ranks: the Timeline holds 8 of them, the straggler among them; a cell of a rank left
    // out says so in the status bar and stays on the page.
    void aRankOutsideTheTimelineIsSaid()
    {
        const QString job64 = QStringLiteral(PYROMETER_TEST_JOBS_DIR "/job64");
        if (!QFileInfo::exists(job64))
            QSKIP("the rank_jobs fixture has not made job64");
        MainWindow window;
        const auto job = openShownJob(window, job64);
        QVERIFY(job);
        QCOMPARE(job->figures.ranks.size(), std::size_t(64));
        QCOMPARE(job->timelineRanks.size(), std::size_t(8));
        const auto combined = window.workspace()->trace(job->timelineTrace);
        QVERIFY(combined);
        QVERIFY2(combined->fileName().startsWith(QStringLiteral("job: 8 of 64 ranks (rank-0.json.gz")),
                 qPrintable(combined->fileName()));
        bool straggler = false;
        for (const auto &process : combined->trace->processes)
            straggler = straggler || QString::fromStdString(process.name).startsWith(QStringLiteral("rank 17 "));
        QVERIFY(straggler);
        auto *page = pageOf(window);
        QVERIFY(page->finding()->text().contains(QStringLiteral("rank 17")));
        QVERIFY(job->timelineReason.contains(QStringLiteral("8 of the 64 ranks")));
        QCOMPARE(page->bars()->barCount(), 64);
        QVERIFY(page->bars()->tickStep() > 1);
        QCOMPARE(job->figures.ranks[40].rank, 40);
        QCOMPARE(job->timelinePosition(40), -1);
        window.showPage(Page::Distributed);
        QTest::mouseClick(page->heatMap()->plot(), Qt::LeftButton, {}, page->heatMap()->cellCenter(40, 0));
        QCOMPARE(window.currentPage(), Page::Distributed);
        QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("rank 40 is not in the Timeline")),
                 qPrintable(window.statusBar()->currentMessage()));
        // The straggler's cell is there.
        QTest::mouseClick(page->heatMap()->plot(), Qt::LeftButton, {}, page->heatMap()->cellCenter(17, 0));
        QCOMPARE(window.currentPage(), Page::Timeline);
        QVERIFY(waitIdle(window));
        // The Timeline scrolled to rank 17's rows: its step annotation is selected and on screen.
        auto *view = timelineOf(window)->view();
        QTRY_VERIFY_WITH_TIMEOUT(view->selectedEvent().has_value(), 10'000);
        const auto &track = combined->trace->track(view->selectedEvent()->track);
        QVERIFY(QString::fromStdString(combined->trace->process(track.process).name)
                    .startsWith(QStringLiteral("rank 17 ")));
        QCOMPARE(std::string(combined->trace->string(track.eventName[view->selectedEvent()->event])),
                 job->figures.ranks[17].steps[0].name);
        const auto selected = *view->selectedEvent();
        const int layoutRow =
            view->layout().sliceRowToLayout[view->index()->rowOf(selected.track, trace::EventIndex(selected.event))];
        QVERIFY(layoutRow >= 0);
        const int y = view->layout().rows[std::size_t(layoutRow)].y;
        QVERIFY(view->viewport().scrollY > 0);
        QVERIFY2(y >= view->viewport().scrollY && y < view->viewport().scrollY + view->viewport().height,
                 qPrintable(QStringLiteral("row at %1, scrolled to %2").arg(y).arg(view->viewport().scrollY)));
        // Its GPU streams are on screen with it: the rank's rows start at the top, GPU first.
        const auto [first, last] =
            view->layout().rowsIn(view->viewport().scrollY, view->viewport().scrollY + view->viewport().height);
        QVERIFY(first < last);
        const auto &top = view->layout().rows[std::size_t(first)];
        QVERIFY(QString::fromStdString(combined->trace->processes[top.process].name).startsWith(QStringLiteral("rank 17 ")));
        bool gpuShown = false;
        for (int r = first; r < last; ++r) {
            const auto &row = view->layout().rows[std::size_t(r)];
            if (row.kind != timeline::RowKind::Slices)
                continue;
            const auto trackId = view->index()->rows[row.ref].trackId;
            gpuShown = gpuShown ||
                       (view->index()->analysis->track(trackId).hasDevice &&
                        QString::fromStdString(combined->trace->process(combined->trace->track(trackId).process).name)
                            .startsWith(QStringLiteral("rank 17 ")));
        }
        QVERIFY(gpuShown);
        // The range's tables are rank 17's alone (the cell selected its step): its events only,
        // and a link sums the 8 ranks in the Timeline.
        auto *details = timelineOf(window)->details();
        QTRY_VERIFY_WITH_TIMEOUT(details->toPlainText().contains(QStringLiteral("These tables are rank 17's alone")),
                                 10'000);
        const auto [rangeStart, rangeEnd] = *view->selectedRange();
        const auto eventsIn = [&](bool rank17Only) {
            std::uint64_t events = 0;
            for (const auto &t : combined->trace->tracks) {
                const auto &process = combined->trace->process(t.process);
                if (rank17Only && !QString::fromStdString(process.name).startsWith(QStringLiteral("rank 17 ")))
                    continue;
                const auto [from, to] = combined->trace->startRange(t.id, std::int64_t(rangeStart), std::int64_t(rangeEnd));
                events += to.value - from.value;
            }
            return QStringLiteral("; %1 events start in it").arg(events);
        };
        QVERIFY(eventsIn(true) != eventsIn(false));
        QVERIFY2(details->toPlainText().contains(eventsIn(true)), qPrintable(details->toPlainText()));
        maybeGrab(window, QStringLiteral("distributed-job64-timeline.png"));
        // Range in Operators keeps the rank: its operators alone, as the core table counts them.
        QVERIFY(timelineOf(window)->openRangeButton()->isEnabled());
        timelineOf(window)->openRangeButton()->click();
        QCOMPARE(window.currentPage(), Page::Operators);
        auto *operators = qobject_cast<tables::OperatorsPage *>(window.pageWidget(Page::Operators));
        QVERIFY(operators);
        QTRY_VERIFY2_WITH_TIMEOUT(operators->rangeLabel()->text().contains(QStringLiteral("of rank 17 alone")),
                                  qPrintable(operators->rangeLabel()->text()), 10'000);
        const auto [processes, scope] = timelineOf(window)->rangeScope();
        QCOMPARE(scope, QStringLiteral("rank 17"));
        analysis::OpTableOptions rankOps;
        rankOps.range = {std::int64_t(rangeStart), std::int64_t(rangeEnd)};
        rankOps.processes = processes;
        const auto expected = analysis::buildOpTable(*combined->index, rankOps);
        analysis::OpTableOptions allOps;
        allOps.range = rankOps.range;
        QVERIFY(analysis::buildOpTable(*combined->index, allOps).rows.size() > 0);
        std::uint64_t expectedCalls = 0, allCalls = 0;
        for (const auto &row : expected.rows)
            expectedCalls += row.calls;
        for (const auto &row : analysis::buildOpTable(*combined->index, allOps).rows)
            allCalls += row.calls;
        const auto *opModel = operators->operatorsPane()->model();
        const int callsColumn = opModel->tree().columnIndex(tables::column::kCalls);
        const auto shownCalls = [&] {
            std::uint64_t sum = 0;
            for (int r = 0; r < opModel->rowCount(); ++r)
                sum += opModel->index(r, std::max(callsColumn, 0)).data(tables::TableTreeModel::RawValueRole).toULongLong();
            return sum;
        };
        QTRY_COMPARE_WITH_TIMEOUT(shownCalls(), expectedCalls, 10'000);
        const auto calls = shownCalls();
        QVERIFY(calls < allCalls);
        maybeGrab(window, QStringLiteral("distributed-range-operators.png"));
        window.showPage(Page::Timeline);
        Q_EMIT details->anchorClicked(QUrl(QStringLiteral("part:all")));
        QTRY_VERIFY_WITH_TIMEOUT(details->toPlainText().contains(QStringLiteral("These tables sum the 8 ranks")), 10'000);
        QVERIFY2(details->toPlainText().contains(eventsIn(false)), qPrintable(details->toPlainText()));
    }

    // A merged job opened as a file (as Open or a drop does): the Distributed page with the
    // figures of its traces, and its ranks in the Timeline from the files the summaries name.
    void mergedSummariesOpenAsTheJob()
    {
        QTemporaryDir dir;
        const QString merged = mergedJob8(dir, false);
        QVERIFY(!merged.isEmpty());
        MainWindow traces;
        const auto fromTraces = openShownJob(traces, kJob8);
        QVERIFY(fromTraces);

        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openPaths({merged});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(window.currentPage(), Page::Distributed);
        const auto job = onlyJob(window);
        QVERIFY(job);
        // The same figures; its ranks also carry the size and CRC-32 of the traces summarised.
        auto figures = job->figures;
        for (auto &rank : figures.ranks) {
            QVERIFY(rank.summarisedBytes > 0);
            rank.summarisedBytes = 0;
            rank.summarisedCrc32 = 0;
        }
        QVERIFY(figures == fromTraces->figures);
        QCOMPARE(job->files, QStringList{merged});
        QCOMPARE(job->timelineRanks.size(), std::size_t(8));
        QVERIFY(job->timelineTrace != kNoDocument);
        QVERIFY(pageOf(window)->finding()->text().contains(QStringLiteral("rank 5")));

        // A rank's whole trace, from its summary's file: a trace of its own.
        std::unique_ptr<QMenu> menu(pageOf(window)->rankMenu(5, nullptr));
        QCOMPARE(menu->actions().size(), 2);
        QVERIFY(menu->actions().at(0)->isEnabled());
        auto *open = menu->actions().at(1);
        QVERIFY(open->isEnabled());
        QVERIFY(open->text().contains(QStringLiteral("rank 5")));
        const auto before = window.workspace()->traces().size();
        open->trigger();
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(window.workspace()->traces().size(), before + 1);
        const auto opened = window.workspace()->trace(window.workspace()->newestTrace());
        QVERIFY(opened && opened->path.endsWith(QStringLiteral("/rank-5.json.gz")));
        QCOMPARE(opened->job, kNoDocument);
    }

    // Summaries made on a cluster name traces that are not here: the figures are all there, the
    // Timeline holds no rank and the page says why; nothing fails.
    void summariesOfTracesNotHereShowTheFigures()
    {
        QTemporaryDir dir;
        const QString moved = mergedJob8(dir, true);
        QVERIFY(!moved.isEmpty());
        MainWindow window;
        const auto job = openShownJob(window, moved);
        QVERIFY(job);
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(job->figures.ranks.size(), std::size_t(8));
        QCOMPARE(job->figures.stragglers.front().rank, 5);
        QVERIFY(job->timelineRanks.empty());
        QCOMPARE(job->timelineTrace, kNoDocument);
        QVERIFY2(job->timelineReason.contains(QStringLiteral("no rank's trace file can be read from here")),
                 qPrintable(job->timelineReason));
        auto *page = pageOf(window);
        QCOMPARE(page->bars()->barCount(), 8);
        QVERIFY(page->finding()->text().contains(QStringLiteral("rank 5")));
        window.showPage(Page::Distributed);
        QApplication::processEvents();
        maybeGrab(window, QStringLiteral("distributed-summaries.png"));
        std::unique_ptr<QMenu> menu(page->rankMenu(2, nullptr));
        QVERIFY(!menu->actions().at(0)->isEnabled()); // not in the Timeline
        QVERIFY(!menu->actions().at(1)->isEnabled());
        QVERIFY(menu->actions().at(1)->text().contains(QStringLiteral("not on this machine")));
        QCOMPARE(menu->actions().at(1)->toolTip(), QStringLiteral("/cluster/scratch/job8/rank-2.json.gz"));
        maybeGrab(*menu, QStringLiteral("distributed-rank-menu.png"));
    }
};

QTEST_MAIN(TestDistributedPage)
#include "tst_distributedpage.moc"
