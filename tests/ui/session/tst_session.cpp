// Sessions in the window: save one and open it in a new window (every field), a session whose
// file is gone, bookmarks, and the crash-recovery offer after an unclean exit.
#include "ui/jobs/jobtracker.h"
#include "ui/model/modelpage.h"
#include "ui/flamegraph/flamegraphpage.h"
#include "ui/model/latencyhistogram.h"
#include "ui/model/layertreemodel.h"
#include "ui/model/modelstate.h"
#include "ui/model/profileresultsview.h"
#include "ui/model/sweepview.h"
#include "ui/session/bookmarklist.h"
#include "ui/session/bookmarkmenu.h"
#include "ui/session/sessioncontroller.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"
#include "ui/shell/tracechooser.h"
#include "ui/tables/operatorspage.h"
#include "ui/timeline/timelinepage.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/workspace.h"

#include "core/trace/trace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QStatusBar>
#include <QTabWidget>
#include <qcustomplot.h>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces");
const QString kTraceA = kTraces + QStringLiteral("/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
const QString kTraceB = kTraces + QStringLiteral("/debian_legacy_linear.json");
const QString kModel = QStringLiteral(PYROMETER_FIXTURES_DIR "/models/tiny_scripted.pt");

bool waitIdle(MainWindow &window)
{
    return QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 60'000);
}

timeline::TimelinePage *timelineOf(MainWindow &window)
{
    return qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
}

ModelPage *modelOf(MainWindow &window)
{
    return qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
}

// The id of the open trace read from path, or kNoDocument.
int traceIndex(MainWindow &window, const QString &path)
{
    for (const auto &[id, document] : window.workspace()->traces()) {
        if (document->path == path)
            return id;
    }
    return kNoDocument;
}

// Shows the trace at path in the timeline and waits until it is indexed.
bool showTrace(MainWindow &window, const QString &path)
{
    auto *timeline = timelineOf(window);
    const int index = traceIndex(window, path);
    if (index < 0)
        return false;
    timeline->chooseTrace(index);
    return QTest::qWaitFor([&] {
        return window.jobs()->isIdle() && timeline->view()->index() &&
               timeline->view()->index()->trace == window.workspace()->trace(index)->trace;
    }, 30'000);
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_session"));
    }

    void init() { QSettings().clear(); }

    // A CUDA profile's device times, the layers' dtypes, the cache roof and the timed runs' count
    // survive a session.
    void profileRunKeepsDeviceFigures()
    {
        ProfileRun run;
        run.latency.warm = model::latencyStats({4.0, 5.0, 6.0});
        run.profile.deviceTimes = true;
        run.profile.forwardMs = 1.0;
        run.profile.deviceForwardMs = 0.73;
        model::LayerRow layer;
        layer.module = "fc";
        layer.dtype = "c10::Half";
        layer.selfDeviceMs = 0.3;
        layer.deviceMs = 0.3;
        run.profile.rows = {layer};
        run.roof = analysis::customDevice("cpu", 1e12, 1e11);
        run.roof->cacheBandwidth = 5e11;
        run.roof->cacheName = "cache";
        const auto back = profileRunFromJson(nlohmann::json::parse(profileRunToJson(run).dump()));
        QVERIFY(back);
        QVERIFY(back->profile.deviceTimes);
        QCOMPARE(back->profile.deviceForwardMs, 0.73);
        QCOMPARE(back->profile.rows.front(), run.profile.rows.front());
        QCOMPARE(back->roof, run.roof);
        QCOMPARE(back->latency.warm.n, std::size_t(3));
    }

    // The restored trace's range survives either load order: the shown trace loading last, or
    // loading first and being switched away from and back to when a much larger one arrives
    // (which re-indexes it and clears its range). The large trace takes a hundred times longer
    // to load than the small one to load and index, which fixes the order.
    void rangeSurvivesEitherLoadOrder_data()
    {
        QTest::addColumn<bool>("shownFirst");
        QTest::newRow("shown trace loads last") << false;
        QTest::newRow("shown trace loads first") << true;
    }
    void rangeSurvivesEitherLoadOrder()
    {
        QFETCH(bool, shownFirst);
        QTemporaryDir dir;
        // A large trace: 300,000 events.
        const QString large = dir.filePath(QStringLiteral("large.json"));
        {
            QFile out(large);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(R"({"traceEvents": [)");
            for (int i = 0; i < 300'000; ++i)
                out.write(QStringLiteral(R"({"ph": "X", "cat": "cpu_op", "name": "aten::op", "pid": 1, "tid": 2, "ts": %1, "dur": 5},)")
                              .arg(i * 10)
                              .toUtf8());
            out.write(R"({"ph": "i", "name": "end", "ts": 1}]})");
        }
        const QString shown = shownFirst ? kTraceB : large;
        session::SessionState state;
        state.traces = {kTraceB.toStdString(), large.toStdString()};
        state.currentTrace = shown.toStdString();
        state.currentPage = "timeline";
        MainWindow probe;
        probe.setInteractive(false);
        probe.openPaths({shown});
        QVERIFY(waitIdle(probe));
        const auto start = probe.workspace()->traces().begin()->second->trace->info.spanStart;
        state.ranges.push_back({shown.toStdString(), start + 1'000, start + 2'000});
        const QString file = dir.filePath(QStringLiteral("order.pyrometer"));
        QVERIFY(session::writeSession(file.toStdString(), state).ok());

        MainWindow restored;
        restored.setInteractive(false);
        QVERIFY(restored.session()->open(file));
        QVERIFY(waitIdle(restored));
        QVERIFY(QTest::qWaitFor([&] { return restored.jobs()->isIdle() && timelineOf(restored)->view()->selectedRange(); }, 30'000));
        QCOMPARE(restored.workspace()->traces().size(), std::size_t(2));
        QCOMPARE(timelineOf(restored)->currentTrace(), traceIndex(restored, shown));
        const auto range = timelineOf(restored)->view()->selectedRange();
        QVERIFY(range);
        QCOMPARE(std::int64_t(range->first), start + 1'000);
        QCOMPARE(std::int64_t(range->second), start + 2'000);
    }

    void saveAndOpenRoundTripsEveryField()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("work.pyrometer"));
        session::SessionState saved;
        {
            MainWindow window;
            window.setInteractive(false);
            window.openPaths({kTraceA, kTraceB, kModel});
            QVERIFY(waitIdle(window));
            QCOMPARE(window.failureCount(), 0);

            // A range and two bookmarks in trace A, a range in trace B, which stays shown.
            QVERIFY(showTrace(window, kTraceA));
            auto *view = timelineOf(window)->view();
            const auto span = window.workspace()->trace(traceIndex(window, kTraceA))->trace->info;
            const double rangeStart = double(span.spanStart) + 1000;
            const double rangeEnd = double(span.spanStart) + 250'000;
            view->selectRange(rangeStart, rangeEnd);
            QVERIFY(window.bookmarkMenu()->addBookmark(QStringLiteral("first range")));
            view->setVisibleRange(double(span.spanStart), double(span.spanEnd));
            view->selectRange(rangeStart, rangeStart); // an empty range: a position bookmark
            QVERIFY(window.bookmarkMenu()->addBookmark(QStringLiteral("middle")));
            view->selectRange(rangeStart, rangeEnd);
            QVERIFY(showTrace(window, kTraceB));
            const auto spanB = window.workspace()->trace(traceIndex(window, kTraceB))->trace->info;
            timelineOf(window)->view()->selectRange(double(spanB.spanStart), double(spanB.spanStart) + 500);
            QCOMPARE(window.bookmarks()->bookmarks().size(), std::size_t(2));
            QVERIFY(window.bookmarks()->bookmarks()[0].endNs > window.bookmarks()->bookmarks()[0].startNs);
            QVERIFY(window.bookmarks()->bookmarks()[1].isPosition());
            // Trace B's timeline draws none of trace A's bookmarks; back on A, both are drawn.
            QVERIFY(timelineOf(window)->view()->markers().empty());
            QVERIFY(showTrace(window, kTraceA));
            const auto markers = timelineOf(window)->view()->markers();
            QCOMPARE(markers.size(), std::size_t(2));
            QCOMPARE(markers[0].name, QStringLiteral("first range"));
            QCOMPARE(markers[0].startNs, double(std::int64_t(rangeStart)));
            QCOMPARE(markers[1].startNs, markers[1].endNs);
            if (const auto shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
                QImage shot(timelineOf(window)->view()->size(), QImage::Format_RGB32);
                timelineOf(window)->view()->render(&shot);
                shot.save(QDir(shots).filePath(QStringLiteral("pyrometer-timeline-bookmarks.png")));
            }
            window.bookmarks()->removeAt(1);
            QCOMPARE(timelineOf(window)->view()->markers().size(), std::size_t(1));
            QVERIFY(showTrace(window, kTraceB));

            // A model run, so that its summary is kept.
            modelOf(window)->setRunDefaults(1, 3);
            modelOf(window)->inputsEdit()->setText(QStringLiteral("2x4"));
            modelOf(window)->runProfile();
            QVERIFY(waitIdle(window));
            QVERIFY(modelOf(window)->results()->run());

            // A later page's state and the comparison setup travel with the session.
            window.session()->addPageState(QStringLiteral("flamegraph"), [] { return nlohmann::json{{"focus", "aten::mm"}}; },
                                           [](const nlohmann::json &) {});
            window.session()->setComparisonState([] { return nlohmann::json{{"baseline", "a"}}; }, [](const nlohmann::json &) {});
            window.showPage(Page::Operators);

            QVERIFY(window.session()->save(file));
            saved = window.session()->capture();
        }
        QCOMPARE(saved.traces.size(), std::size_t(2));
        QCOMPARE(saved.models, std::vector<std::string>{kModel.toStdString()});
        QCOMPARE(saved.currentTrace, kTraceB.toStdString());
        QCOMPARE(saved.currentPage, std::string("operators"));
        QCOMPARE(saved.ranges.size(), std::size_t(2));
        QCOMPARE(saved.runs.size(), std::size_t(1));
        QCOMPARE(saved.runs[0].iterations, 3);
        QVERIFY(saved.runs[0].meanMs > 0);
        QVERIFY(saved.pages["flamegraph"]["focus"] == "aten::mm");
        QVERIFY(saved.comparison["baseline"] == "a");
        // The file on disk holds the same state.
        const auto onDisk = session::readSession(file.toStdString());
        QVERIFY(onDisk.ok());
        QVERIFY(onDisk.value() == saved);

        MainWindow restored;
        restored.setInteractive(false);
        nlohmann::json restoredFlame, restoredComparison;
        restored.session()->addPageState(QStringLiteral("flamegraph"), [] { return nlohmann::json{}; },
                                         [&](const nlohmann::json &state) { restoredFlame = state; });
        restored.session()->setComparisonState([&] { return restoredComparison; },
                                               [&](const nlohmann::json &state) { restoredComparison = state; });
        QVERIFY(restored.session()->open(file));
        QVERIFY(waitIdle(restored));
        QVERIFY(QTest::qWaitFor([&] { return restored.jobs()->isIdle() && timelineOf(restored)->view()->selectedRange(); }, 30'000));
        QCOMPARE(restored.failureCount(), 0);
        QCOMPARE(restored.workspace()->traces().size(), std::size_t(2));
        QCOMPARE(restored.workspace()->models().size(), std::size_t(1));
        QCOMPARE(restored.currentPage(), Page::Operators);
        QCOMPARE(restored.bookmarks()->bookmarks(), saved.bookmarks);
        QVERIFY(restoredFlame["focus"] == "aten::mm");
        QVERIFY(restoredComparison["baseline"] == "a");
        // The timeline shows trace B with its range again.
        QCOMPARE(timelineOf(restored)->currentTrace(), traceIndex(restored, kTraceB));
        const auto range = timelineOf(restored)->view()->selectedRange();
        QVERIFY(range);
        const auto savedB = std::find_if(saved.ranges.begin(), saved.ranges.end(),
                                         [](const auto &r) { return r.trace == kTraceB.toStdString(); });
        QCOMPARE(std::int64_t(range->first), savedB->startNs);
        QCOMPARE(std::int64_t(range->second), savedB->endNs);
        // The model page shows the saved run again, and says it was measured before.
        QVERIFY(modelOf(restored)->results()->run());
        QCOMPARE(modelOf(restored)->results()->run()->latency.iterations, 3);
        const auto labels = modelOf(restored)->findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel *label) {
            return label->text().contains(QStringLiteral("Measured before the session was saved"));
        }));
        // Saving the restored window gives the same session.
        const auto again = restored.session()->capture();
        QCOMPARE(again.traces.size(), saved.traces.size());
        QCOMPARE(again.runs, saved.runs);
        QCOMPARE(again.bookmarks, saved.bookmarks);
        QCOMPARE(again.ranges.size(), saved.ranges.size());
    }

    // What every page showed comes back in a fresh window that had the session's model open
    // already: the Model page's form, profile (histogram and layers) and sweep (settings,
    // points, summary), the trace every per-trace page shows, the Operators and Flame graph
    // settings, the page; nothing is listed twice and no restore job reports a cancel.
    void sessionRestoresEveryPage()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("pages.pyrometer"));
        nlohmann::json savedProfile, savedSweep;
        QString savedSummary, savedGrouping, savedMode;
        {
            MainWindow window;
            window.setInteractive(false);
            window.openPaths({kTraceA, kTraceB, kModel});
            QVERIFY(waitIdle(window));
            auto *model = modelOf(window);
            model->setRunDefaults(1, 4);
            model->inputsEdit()->setText(QStringLiteral("2x4"));
            model->threadsSpin()->setValue(1);
            model->runProfile();
            QVERIFY(waitIdle(window));
            QVERIFY(model->results()->run());
            auto *sweep = model->sweepView();
            sweep->batchesEdit()->setText(QStringLiteral("1,2"));
            sweep->variantsEdit()->setText(QStringLiteral("baseline,frozen"));
            sweep->budgetEdit()->setText(QStringLiteral("512MiB"));
            sweep->iterationsSpin()->setValue(2);
            sweep->runSweep();
            QVERIFY(waitIdle(window));
            QVERIFY(sweep->report());
            QCOMPARE(sweep->pointsModel()->rowCount(), 4);
            model->resultTabs()->setCurrentWidget(sweep);

            auto *operators = qobject_cast<tables::OperatorsPage *>(window.pageWidget(Page::Operators));
            operators->groupingChooser()->setCurrentIndex(operators->groupingChooser()->count() - 1);
            operators->filterBox()->setText(QStringLiteral("aten::"));
            auto *flame = qobject_cast<flamegraph::FlameGraphPage *>(window.pageWidget(Page::FlameGraph));
            flame->modeChooser()->setCurrentIndex(flame->modeChooser()->count() - 1);
            flame->pythonToggle()->setChecked(!flame->pythonToggle()->isChecked());
            // Trace A, opened first, is the one shown; trace B was the newest.
            window.workspace()->selectTrace(traceIndex(window, kTraceA));
            QVERIFY(showTrace(window, kTraceA));
            window.showPage(Page::Model);

            QVERIFY(window.session()->save(file));
            savedProfile = profileRunToJson(*model->results()->run());
            savedSweep = sweep->saveState();
            savedSummary = sweep->summaryLabel()->text();
            savedGrouping = operators->groupingChooser()->currentText();
            savedMode = flame->modeChooser()->currentText();
        }
        QVERIFY(!savedSummary.isEmpty());

        MainWindow restored;
        restored.setInteractive(false);
        restored.openPaths({kModel}); // open before the session: not listed twice
        QVERIFY(waitIdle(restored));
        QStringList statusMessages;
        connect(restored.statusBar(), &QStatusBar::messageChanged, this, [&](const QString &m) { statusMessages << m; });
        QList<JobOutcome> outcomes;
        connect(restored.jobs(), &JobTracker::finished, this,
                [&](JobTracker::JobId, const QString &, JobOutcome outcome, const QString &) { outcomes << outcome; });
        QVERIFY(restored.session()->open(file));
        QVERIFY(waitIdle(restored));
        QVERIFY(QTest::qWaitFor([&] { return restored.jobs()->isIdle(); }, 30'000));
        QCOMPARE(restored.failureCount(), 0);
        QCOMPARE(restored.workspace()->models().size(), std::size_t(1));
        QCOMPARE(restored.workspace()->traces().size(), std::size_t(2));
        QVERIFY(!outcomes.contains(JobOutcome::Cancelled));
        for (const auto &message : statusMessages)
            QVERIFY2(!message.contains(QStringLiteral("cancelled")), qPrintable(message));
        QCOMPARE(restored.currentPage(), Page::Model);

        // The Model page: the form, the whole profile, the histogram and the layers.
        auto *model = modelOf(restored);
        QCOMPARE(model->inputsEdit()->text(), QStringLiteral("2x4"));
        QCOMPARE(model->iterationsSpin()->value(), 4);
        QCOMPARE(model->warmupSpin()->value(), 1);
        QCOMPARE(model->threadsSpin()->value(), 1);
        QVERIFY(model->results()->run());
        QVERIFY(profileRunToJson(*model->results()->run()) == savedProfile);
        QCOMPARE(model->results()->run()->latency.samplesMs.size(), std::size_t(4));
        QVERIFY(model->results()->histogram()->bars()->data()->size() > 0);
        QVERIFY(model->results()->layerModel()->rowCount() > 0);
        // The roof the layers were placed under (this CPU's, measured) comes back with the run.
        QVERIFY(model->results()->run()->roof);
        QVERIFY(model->results()->run()->roof->measured);
        QVERIFY(model->results()->layerModel()->roof() == model->results()->run()->roof);
        // The Sweep tab: settings, points, summary, and it is the tab shown.
        auto *sweep = model->sweepView();
        QCOMPARE(model->resultTabs()->currentWidget(), static_cast<QWidget *>(sweep));
        QCOMPARE(sweep->variantsEdit()->text(), QStringLiteral("baseline,frozen"));
        QCOMPARE(sweep->budgetEdit()->text(), QStringLiteral("512MiB"));
        QCOMPARE(sweep->batchesEdit()->text(), QStringLiteral("1,2"));
        QCOMPARE(sweep->iterationsSpin()->value(), 2);
        QCOMPARE(sweep->pointsModel()->rowCount(), 4);
        QVERIFY(sweep->saveState() == savedSweep);
        QCOMPARE(sweep->summaryLabel()->text(), savedSummary);

        // Every page that shows one trace shows trace A.
        for (const Page page : {Page::Overview, Page::Timeline, Page::Operators, Page::FlameGraph, Page::Memory}) {
            const auto *chooser = restored.pageWidget(page)->findChild<TraceChooser *>();
            QVERIFY(chooser);
            QCOMPARE(chooser->currentData().toInt(), traceIndex(restored, kTraceA));
        }
        auto *operators = qobject_cast<tables::OperatorsPage *>(restored.pageWidget(Page::Operators));
        QCOMPARE(operators->groupingChooser()->currentText(), savedGrouping);
        QCOMPARE(operators->filterBox()->text(), QStringLiteral("aten::"));
        auto *flame = qobject_cast<flamegraph::FlameGraphPage *>(restored.pageWidget(Page::FlameGraph));
        QCOMPARE(flame->modeChooser()->currentText(), savedMode);

        if (const auto shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
            restored.resize(1400, 900);
            restored.show();
            model->resultTabs()->setCurrentWidget(model->results());
            restored.grab().save(QDir(shots).filePath(QStringLiteral("pyrometer-session-model-profile.png")));
            model->resultTabs()->setCurrentWidget(sweep);
            restored.grab().save(QDir(shots).filePath(QStringLiteral("pyrometer-session-model-sweep.png")));
        }
        // Saving the restored window writes the same pages again.
        const auto again = restored.session()->capture();
        const auto first = session::readSession(file.toStdString());
        QVERIFY(first.ok());
        QVERIFY(again.pages["model"] == first.value().pages["model"]);
        QVERIFY(again.pages["operators"] == first.value().pages["operators"]);
        QVERIFY(again.pages["flamegraph"] == first.value().pages["flamegraph"]);
        QCOMPARE(again.currentTrace, first.value().currentTrace);
    }

    void bookmarkTakesTheTimelineThere()
    {
        MainWindow window;
        window.setInteractive(false);
        window.openPaths({kTraceA});
        QVERIFY(waitIdle(window));
        QVERIFY(showTrace(window, kTraceA));
        auto *view = timelineOf(window)->view();
        const auto &info = window.workspace()->traces().begin()->second->trace->info;
        session::Bookmark bookmark{kTraceA.toStdString(), "b", info.spanStart + 10'000, info.spanStart + 20'000};
        window.bookmarks()->add(bookmark);
        // The menu lists it after "Add bookmark".
        const auto actions = window.bookmarkMenu()->actions();
        QVERIFY(std::any_of(actions.begin(), actions.end(), [](QAction *a) { return a->text().startsWith(QLatin1String("b  (")); }));
        view->fitAll();
        window.bookmarkMenu()->goTo(0);
        QCOMPARE(window.currentPage(), Page::Timeline);
        QVERIFY(view->viewport().startNs <= double(bookmark.startNs));
        QVERIFY(view->viewport().endNs() >= double(bookmark.endNs));
        QVERIFY(view->viewport().endNs() - view->viewport().startNs < 2 * 10'000);
        QCOMPARE(view->selectedRange()->first, double(bookmark.startNs));
    }

    void missingFileIsReportedAndTheRestOpens()
    {
        QTemporaryDir dir;
        const QString gone = dir.filePath(QStringLiteral("gone.pt.trace.json"));
        session::SessionState state;
        state.traces = {gone.toStdString(), kTraceB.toStdString()};
        state.models = {kModel.toStdString()};
        const QString file = dir.filePath(QStringLiteral("s.pyrometer"));
        QVERIFY(session::writeSession(file.toStdString(), state).ok());

        MainWindow window;
        window.setInteractive(false);
        QSignalSpy missing(window.session(), &SessionController::filesMissing);
        QVERIFY(window.session()->open(file));
        QVERIFY(waitIdle(window));
        QCOMPARE(missing.size(), 1);
        QCOMPARE(missing.front().front().toStringList(), QStringList{gone});
        QVERIFY(window.banner()->messages().join(' ').contains(gone));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QCOMPARE(window.workspace()->traces().begin()->second->path, kTraceB);
        QCOMPARE(window.workspace()->models().size(), std::size_t(1));
    }

    // A session written before pages kept their state has only the run's summary: the Model
    // page says what it measured.
    void sessionWithOnlyARunSummaryShowsIt()
    {
        QTemporaryDir dir;
        session::SessionState state;
        state.models = {kModel.toStdString()};
        session::RunSummary run;
        run.model = kModel.toStdString();
        run.inputs = "2x4";
        run.mode = "inference";
        run.iterations = 7;
        run.meanMs = 1.25;
        state.runs = {run};
        const QString file = dir.filePath(QStringLiteral("old.pyrometer"));
        QVERIFY(session::writeSession(file.toStdString(), state).ok());
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(window.session()->open(file));
        QVERIFY(waitIdle(window));
        QVERIFY(!modelOf(window)->results()->run());
        const auto labels = modelOf(window)->findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel *label) {
            return label->text().contains(QStringLiteral("Last run")) && label->text().contains(QStringLiteral("1.250 ms"));
        }));
    }

    void traceOpenedAfterARestoreIsShown()
    {
        QTemporaryDir dir;
        session::SessionState state;
        state.traces = {kTraceA.toStdString()};
        state.currentTrace = state.traces[0];
        const QString file = dir.filePath(QStringLiteral("s.pyrometer"));
        QVERIFY(session::writeSession(file.toStdString(), state).ok());
        MainWindow window;
        window.setInteractive(false);
        QVERIFY(window.session()->open(file));
        QVERIFY(waitIdle(window));
        QCOMPARE(timelineOf(window)->currentTrace(), traceIndex(window, kTraceA));
        // The session is restored: a trace the user opens now is the one shown.
        window.openPaths({kTraceB});
        QVERIFY(waitIdle(window));
        QCOMPARE(timelineOf(window)->currentTrace(), traceIndex(window, kTraceB));
    }

    void unreadableSessionIsAnError()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("bad.pyrometer"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("{\"traceEvents\": []}");
        out.close();
        MainWindow window;
        QVERIFY(!window.session()->open(file));
        QCOMPARE(window.failureCount(), 1);
        QVERIFY(window.banner()->messages().value(0).startsWith(file));
        QVERIFY(!window.session()->save(dir.filePath(QStringLiteral("no/such/dir/x.pyrometer"))));
        QCOMPARE(window.failureCount(), 2);
    }

    void crashedRunIsOfferedForRestore()
    {
        const QString sessions = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/sessions");
        QDir(sessions).removeRecursively();
        QVERIFY(QDir().mkpath(sessions));
        // What a run that crashed leaves: its marker and its autosave. No process has pid 2^22+1.
        const qint64 deadPid = (1 << 22) + 1;
        session::SessionState crashed;
        crashed.traces = {kTraceB.toStdString()};
        QVERIFY(session::writeSession((sessions + QStringLiteral("/autosave-%1.pyrometer").arg(deadPid)).toStdString(), crashed).ok());
        QFile marker(sessions + QStringLiteral("/running-%1").arg(deadPid));
        QVERIFY(marker.open(QIODevice::WriteOnly));
        marker.close();

        {
            MainWindow window;
            window.setInteractive(false);
            window.enableCrashRecovery();
            QVERIFY(window.banner()->isVisibleTo(&window));
            const auto buttons = window.banner()->actionButtons();
            QCOMPARE(buttons.size(), 1);
            QCOMPARE(buttons.front()->text(), QStringLiteral("Restore"));
            // This run has its own marker; the crashed run's files were moved aside.
            QVERIFY(QFile::exists(window.session()->markerPath()));
            QVERIFY(!QFile::exists(marker.fileName()));
            buttons.front()->click();
            QVERIFY(waitIdle(window));
            QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
            QCOMPARE(window.workspace()->traces().begin()->second->path, kTraceB);

            // The autosave follows changes.
            window.session()->autosaveNow();
            window.session()->waitForAutosave();
            const auto autosaved = session::readSession(window.session()->autosavePath().toStdString());
            QVERIFY(autosaved.ok());
            QCOMPARE(autosaved.value().traces, crashed.traces);
            const QString ownMarker = window.session()->markerPath();
            const QString ownAutosave = window.session()->autosavePath();
            QVERIFY(QFile::exists(ownAutosave));
            window.close(); // a clean exit removes the marker and the autosave
            QVERIFY(!QFile::exists(ownMarker));
            QVERIFY(!QFile::exists(ownAutosave));
        }
        QCOMPARE(QDir(sessions).entryList({QStringLiteral("running-*"), QStringLiteral("autosave-*")}, QDir::Files), QStringList{});

        // After a clean exit nothing is offered.
        MainWindow next;
        next.enableCrashRecovery();
        QVERIFY(next.banner()->actionButtons().isEmpty());
        next.close();
    }
    // A job is saved as its rank files, not as its combined trace, and a session reopens it as
    // a job; a job whose rank is gone names the file and opens the rest.
    void jobsRoundTrip()
    {
        const QString ranks = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/multirank");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("job.pyrometer"));
        QStringList files;
        {
            MainWindow window;
            window.setInteractive(false);
            window.openPaths({kTraceB});
            window.openJob({ranks});
            QVERIFY(waitIdle(window));
            QCOMPARE(window.failureCount(), 0);
            const auto ids = window.workspace()->jobDocuments();
            QCOMPARE(ids.size(), std::size_t(1));
            files = window.workspace()->jobDocument(ids.front())->files;
            QCOMPARE(window.workspace()->traces().size(), std::size_t(2)); // trace B and the job's ranks
            const auto state = window.session()->capture();
            QCOMPARE(state.traces, std::vector<std::string>{kTraceB.toStdString()});
            QCOMPARE(state.jobs.size(), std::size_t(1));
            QCOMPARE(state.jobs[0].files.size(), std::size_t(2));
            QVERIFY(window.session()->save(file));
        }
        MainWindow restored;
        restored.setInteractive(false);
        QVERIFY(restored.session()->open(file));
        QVERIFY(waitIdle(restored));
        QCOMPARE(restored.failureCount(), 0);
        const auto ids = restored.workspace()->jobDocuments();
        QCOMPARE(ids.size(), std::size_t(1));
        const auto job = restored.workspace()->jobDocument(ids.front());
        QCOMPARE(job->files, files);
        QCOMPARE(job->figures.ranks.size(), std::size_t(2));
        QVERIFY(restored.workspace()->trace(job->timelineTrace));
        QCOMPARE(restored.workspace()->traces().size(), std::size_t(2));
        // Opening it again adds nothing.
        QVERIFY(restored.session()->open(file));
        QVERIFY(waitIdle(restored));
        QCOMPARE(restored.workspace()->jobDocuments().size(), std::size_t(1));

        // A rank file gone: named, and the job is not opened without it.
        auto state = restored.session()->capture();
        const QString copy = dir.filePath(QStringLiteral("rank-9.json.gz"));
        QVERIFY(QFile::copy(files.front(), copy));
        state.jobs[0].files.push_back(copy.toStdString());
        QVERIFY(QFile::remove(copy));
        MainWindow partial;
        partial.setInteractive(false);
        QSignalSpy missing(partial.session(), &SessionController::filesMissing);
        partial.session()->restore(state);
        QVERIFY(waitIdle(partial));
        QCOMPARE(missing.size(), 1);
        QVERIFY(missing.front().front().toStringList().contains(copy));
        QVERIFY(partial.workspace()->jobDocuments().empty());
        QCOMPARE(partial.workspace()->traces().size(), std::size_t(1));
    }
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
