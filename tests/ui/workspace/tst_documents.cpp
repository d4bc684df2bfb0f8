// Documents: one analysis index per open trace whatever the pages do, analyses shared through
// the document's cache, and closing a document (File → Close, the trace chooser, a session
// that replaces what is open) lets every page go of it.
// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QAction>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include "../maybegrab.h"
#include "core/analysis/traceindex.h"
#include "core/trace/trace.h"
#include "ui/compare/comparepage.h"
#include "ui/flamegraph/flamegraphpage.h"
#include "ui/gpu/gpupage.h"
#include "ui/jobs/jobtracker.h"
#include "ui/memory/memorypage.h"
#include "ui/overview/overviewpage.h"
#include "ui/report/reportexporter.h"
#include "ui/session/sessioncontroller.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/tracechooser.h"
#include "ui/tables/operatorspage.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/analyses.h"
#include "ui/workspace/workspace.h"

#include <memory>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces");
const QString kBert = kTraces + "/gaunernst_bert-small-uncased__1016001.json.gz";
const QString kBase = kTraces + "/diff_base.json";
const QString kOther = kTraces + "/diff_other.json";

bool waitIdle(MainWindow &window, int ms = 60'000)
{
    return QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, ms);
}

// Opens paths and waits until they are loaded and every page has shown what it computes.
bool open(MainWindow &window, const QStringList &paths)
{
    window.openPaths(paths);
    return waitIdle(window);
}

template <typename PageType>
PageType *page(MainWindow &window, Page which)
{
    return qobject_cast<PageType *>(window.pageWidget(which));
}

// Every page of the window over its current trace, and the Compare page's diff and a report.
void visitEveryPage(MainWindow &window, const QString &reportPath)
{
    for (const auto which : kAllPages) {
        window.showPage(which);
        QVERIFY(waitIdle(window));
    }
    auto *timeline = page<timeline::TimelinePage>(window, Page::Timeline);
    const auto &viewport = timeline->view()->viewport();
    timeline->view()->selectRange(viewport.startNs, viewport.startNs + (viewport.endNs() - viewport.startNs) / 2);
    QVERIFY(waitIdle(window));
    auto *compare = page<ComparePage>(window, Page::Compare);
    if (compare->diffTracesButton()->isEnabled()) {
        compare->diffTracesButton()->click();
        QVERIFY(waitIdle(window));
    }
    window.reports()->exportTo(reportPath, {});
    QVERIFY(waitIdle(window));
}

} // namespace

class TestDocuments : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<JobOutcome>(); }

    void cacheComputesEachKeyOnce()
    {
        AnalysisCache cache;
        int computed = 0;
        const StopToken stop;
        const auto twice = [&](int key) {
            return cache.get<int>(key, stop, [&] {
                ++computed;
                return key * 2;
            });
        };
        const auto first = twice(3);
        QCOMPARE(*first, 6);
        QCOMPARE(twice(3).get(), first.get()); // the same result, shared
        QCOMPARE(computed, 1);
        QCOMPARE(*twice(4), 8);
        QCOMPARE(computed, 2);
        // The same key for another kind of result is another entry.
        QCOMPARE(*cache.get<double>(3, stop, [] { return 1.5; }), 1.5);
        QCOMPARE(cache.size(), std::size_t(3));

        // A result computed while being stopped may be partial: not kept.
        const StopToken stopped;
        stopped.requestStop();
        QVERIFY(!cache.get<int>(5, stopped, [] { return 10; }));
        QVERIFY(!cache.get<int>(6, stop, [] { return std::shared_ptr<const int>(); }));
        QCOMPARE(cache.size(), std::size_t(3));

        // The newest entries are kept; the least recently used goes first.
        for (int key = 100; key < 100 + int(AnalysisCache::kCapacity); ++key)
            twice(key);
        QCOMPARE(cache.size(), AnalysisCache::kCapacity);
        computed = 0;
        twice(100 + int(AnalysisCache::kCapacity) - 1);
        QCOMPARE(computed, 0);
        twice(3);
        QCOMPARE(computed, 1); // evicted, computed again
    }

    void analysesAreSharedBetweenPages()
    {
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(open(window, {kBert}));
        const auto document = window.workspace()->traces().begin()->second;
        window.showPage(Page::Operators);
        QVERIFY(waitIdle(window));
        // The Memory page asks for the per-op memory table the Operators page computed.
        const auto before = document->analyses.size();
        const auto table = analyses::opMemoryTable(*document, {}, StopToken());
        QCOMPARE(document->analyses.size(), before);
        window.showPage(Page::Memory);
        QVERIFY(waitIdle(window));
        QCOMPARE(analyses::opMemoryTable(*document, {}, StopToken()).get(), table.get());
    }

    void oneIndexPerTraceWhateverPagesAreVisited()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.setInteractive(false);
        const auto before = analysis::traceIndexBuildCount();
        QVERIFY(open(window, {kBase, kOther}));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(2));
        QCOMPARE(analysis::traceIndexBuildCount() - before, std::uint64_t(2));
        visitEveryPage(window, dir.filePath("report.html"));
        // The other trace on every per-trace page too.
        window.workspace()->selectTrace(window.workspace()->traces().begin()->first);
        visitEveryPage(window, dir.filePath("report2.html"));
        QVERIFY(QFileInfo::exists(dir.filePath("report2.html")));
        QCOMPARE(analysis::traceIndexBuildCount() - before, std::uint64_t(2));
        QCOMPARE(window.failureCount(), 0);
    }

    void closingLetsEveryPageGo()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(open(window, {kBert}));
        std::weak_ptr<const trace::Trace> trace = window.workspace()->traces().begin()->second->trace;
        std::weak_ptr<const analysis::TraceIndex> index = window.workspace()->traces().begin()->second->index;
        visitEveryPage(window, dir.filePath("report.html"));
        QVERIFY(!trace.expired());

        QSignalSpy outcomes(window.jobs(), &JobTracker::finished);
        // Pages start their jobs again; File → Close while they run, from the Flame graph page.
        window.showPage(Page::Timeline);
        window.showPage(Page::FlameGraph);
        QVERIFY(window.closeAction()->isEnabled());
        QVERIFY(window.closeAction()->text().contains("gaunernst_bert"));
        window.closeAction()->trigger();
        QVERIFY(window.workspace()->traces().empty());
        QVERIFY(waitIdle(window));
        QCoreApplication::processEvents();
        for (const auto &outcome : outcomes)
            QVERIFY(outcome.at(2).value<JobOutcome>() != JobOutcome::Failed &&
                    outcome.at(2).value<JobOutcome>() != JobOutcome::Cancelled);
        // Nothing holds the trace or its index any more: its memory is returned.
        QVERIFY(trace.expired());
        QVERIFY(index.expired());
        QVERIFY(!page<timeline::TimelinePage>(window, Page::Timeline)->hasContent());
        QVERIFY(!page<flamegraph::FlameGraphPage>(window, Page::FlameGraph)->hasContent());
        QVERIFY(!page<tables::OperatorsPage>(window, Page::Operators)->hasContent());
        QVERIFY(!page<MemoryPage>(window, Page::Memory)->hasContent());
        QVERIFY(!page<OverviewPage>(window, Page::Overview)->hasContent());
        QCOMPARE(page<tables::OperatorsPage>(window, Page::Operators)->traceChooser()->count(), 0);
        QVERIFY(!window.closeAction()->isEnabled());
        QCOMPARE(window.failureCount(), 0);
        window.resize(1400, 900);
        window.show();
        QTest::qWait(100);
        maybeGrab(window, "closed-everything.png");
    }

    // Close all (Ctrl+Shift+W) with two traces open, the newer one shown with a range: closing it
    // first sends the Timeline to the older one, which closes before its index is built. The page
    // then draws what a window with nothing open draws, and offers no range.
    void closingAllLeavesNoTimelineBehind()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1400, 900);
        auto *timeline = page<timeline::TimelinePage>(window, Page::Timeline);
        window.showPage(Page::Timeline);
        window.show();
        QTest::qWait(50);
        const QImage nothingOpen = timeline->grab().toImage();

        QVERIFY(open(window, {kBase}));
        QVERIFY(open(window, {kOther}));
        window.showPage(Page::Timeline);
        QVERIFY(waitIdle(window));
        const auto &viewport = timeline->view()->viewport();
        timeline->view()->selectRange(viewport.startNs, viewport.startNs + (viewport.endNs() - viewport.startNs) / 2);
        QVERIFY(waitIdle(window));
        QVERIFY(timeline->openRangeButton()->isEnabled());

        QAction *action = nullptr;
        for (auto *candidate : window.findChildren<QAction *>())
            if (candidate->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W))
                action = candidate;
        QVERIFY(action);
        action->trigger();
        QVERIFY(waitIdle(window));
        QCoreApplication::processEvents();
        QVERIFY(window.workspace()->traces().empty());
        QVERIFY(!timeline->hasContent());
        QVERIFY(!timeline->view()->index());
        QVERIFY(!timeline->openRangeButton()->isEnabled());
        QCOMPARE(timeline->currentTrace(), kNoDocument);
        QTest::qWait(50);
        const QImage afterClose = timeline->grab().toImage();
        maybeGrab(window, "closed-all.png");
        QCOMPARE(afterClose.size(), nothingOpen.size());
        QVERIFY2(afterClose == nothingOpen, "the Timeline after Close all differs from the Timeline with nothing open");
    }

    // Keys: Esc in the Timeline's search gives the keys back to the timeline; Ctrl+Tab and
    // Ctrl+Shift+Tab switch a page's sub-tabs wherever the focus is on the page.
    void keysReachTheViews()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1400, 900);
        QVERIFY(open(window, {kBert}));
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.showPage(Page::Timeline);
        QVERIFY(waitIdle(window));
        auto *timeline = page<timeline::TimelinePage>(window, Page::Timeline);
        timeline->searchBox()->setFocus();
        QTRY_VERIFY(timeline->searchBox()->hasFocus());
        QTest::keyClicks(timeline->searchBox(), QStringLiteral("gemm"));
        QTest::keyClick(timeline->searchBox(), Qt::Key_Escape);
        QTRY_VERIFY(timeline->view()->hasFocus());
        QCOMPARE(timeline->searchBox()->text(), QStringLiteral("gemm"));

        window.showPage(Page::Gpu);
        QVERIFY(waitIdle(window));
        auto *gpu = page<gpu::GpuPage>(window, Page::Gpu);
        const int count = gpu->tabs()->count();
        QVERIFY(count >= 3);
        // From the trace chooser above the tabs, and from a table inside one.
        auto *chooser = gpu->findChild<TraceChooser *>();
        QVERIFY(chooser);
        chooser->setFocus();
        QTRY_VERIFY(chooser->hasFocus());
        const int first = gpu->tabs()->currentIndex();
        QTest::keyClick(chooser, Qt::Key_Tab, Qt::ControlModifier);
        QCOMPARE(gpu->tabs()->currentIndex(), (first + 1) % count);
        QTest::keyClick(chooser, Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(gpu->tabs()->currentIndex(), first);
        auto *table = gpu->tabs()->currentWidget()->findChild<QTreeView *>();
        QVERIFY(table);
        table->setFocus();
        QTRY_VERIFY(table->hasFocus());
        QTest::keyClick(table, Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(gpu->tabs()->currentIndex(), (first + count - 1) % count);
    }

    void closingOneTraceMovesThePagesToAnother()
    {
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(open(window, {kBase}));
        QVERIFY(open(window, {kOther}));
        const auto base = window.workspace()->traceIdOf(kBase);
        const auto other = window.workspace()->traceIdOf(kOther);
        auto *timeline = page<timeline::TimelinePage>(window, Page::Timeline);
        auto *operators = page<tables::OperatorsPage>(window, Page::Operators);
        window.showPage(Page::Timeline);
        QVERIFY(waitIdle(window));
        QCOMPARE(timeline->currentTrace(), other);
        // The chooser's context menu and File → Close reach the same place.
        window.workspace()->closeTrace(other);
        QVERIFY(waitIdle(window));
        window.resize(1400, 900);
        window.show();
        QTest::qWait(100);
        maybeGrab(window, "closed-one-of-two.png");
        QCOMPARE(timeline->currentTrace(), base);
        QVERIFY(timeline->view()->index());
        QCOMPARE(timeline->view()->index()->trace.get(), window.workspace()->trace(base)->trace.get());
        QCOMPARE(operators->currentTrace(), base);
        QCOMPARE(page<flamegraph::FlameGraphPage>(window, Page::FlameGraph)->currentTrace(), base);
        QCOMPARE(page<MemoryPage>(window, Page::Memory)->currentTrace(), base);
        QCOMPARE(page<OverviewPage>(window, Page::Overview)->currentTrace(), base);
        QCOMPARE(page<ComparePage>(window, Page::Compare)->baseTraceCombo()->count(), 1);
        QVERIFY(!page<ComparePage>(window, Page::Compare)->diffTracesButton()->isEnabled());
        // An id is never given again: a page that remembers a closed one finds nothing.
        QVERIFY(open(window, {kOther}));
        QVERIFY(window.workspace()->traceIdOf(kOther) != other);
        QVERIFY(!window.workspace()->trace(other));
    }

    void sessionReplacesOrAddsToWhatIsOpen()
    {
        QTemporaryDir dir;
        const QString session = dir.filePath("other.pyrometer");
        {
            MainWindow saving;
            saving.setInteractive(false);
            QVERIFY(open(saving, {kOther}));
            QVERIFY(saving.session()->save(session));
        }
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(open(window, {kBase}));
        QVERIFY(window.session()->open(session, SessionController::OpenMode::Add));
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(2));

        QVERIFY(open(window, {kBert}));
        std::weak_ptr<const trace::Trace> bert = window.workspace()->trace(window.workspace()->traceIdOf(kBert))->trace;
        QVERIFY(window.session()->open(session, SessionController::OpenMode::Replace));
        QVERIFY(waitIdle(window));
        QCoreApplication::processEvents();
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QCOMPARE(window.workspace()->traces().begin()->second->path, kOther);
        QVERIFY(bert.expired());
        // A session that cannot be read replaces nothing.
        QVERIFY(!window.session()->open(dir.filePath("missing.pyrometer"), SessionController::OpenMode::Replace));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
    }
};

QTEST_MAIN(TestDocuments)
#include "tst_documents.moc"
