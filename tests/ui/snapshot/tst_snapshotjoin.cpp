// A snapshot joined with the trace of the same run in the main window (scripts/make-snapshots.py
// writes both): the trace's timeline gains the snapshot's memory as counter rows, a group's row
// names the ops that made it and Show in Timeline selects one there; another run's trace does not
// join and says why; closing the snapshot takes its rows away.
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include "../maybegrab.h"
#include "core/session/sessionfile.h"
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "ui/jobs/jobtracker.h"
#include "ui/session/sessioncontroller.h"
#include "ui/shell/mainwindow.h"
#include "ui/snapshot/snapshotpage.h"
#include "ui/snapshot/tracejoinbar.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/workspace.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace pyrometer;
using namespace pyrometer::ui;

Q_DECLARE_METATYPE(pyrometer::ui::JobOutcome)

namespace {

const QString kDir = QStringLiteral(PYROMETER_TEST_SNAPSHOTS_DIR);

QString fixture(const char *name)
{
    return kDir + QLatin1Char('/') + QLatin1String(name);
}

// The main window with the snapshot and a trace open, the snapshot shown.
struct Window {
    MainWindow window;
    SnapshotPage *page = nullptr;
    timeline::TimelinePage *timeline = nullptr;
    DocumentId trace = kNoDocument;

    Window()
    {
        window.setInteractive(false);
        window.resize(1400, 900);
        window.show();
        page = qobject_cast<SnapshotPage *>(window.pageWidget(Page::Snapshots));
        timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
    }
    bool open(const char *traceFile)
    {
        QSignalSpy shown(page, &SnapshotPage::instantShown);
        window.openPaths({fixture(traceFile)});
        if (!QTest::qWaitFor([&] { return window.workspace()->traceIdOf(fixture(traceFile)) != kNoDocument; }, 20000))
            return false;
        trace = window.workspace()->traceIdOf(fixture(traceFile));
        window.openPaths({fixture("basic_p4.pickle")});
        return QTest::qWaitFor([&] { return page->hasContent() && shown.count() >= 1; }, 20000);
    }
    bool join(std::optional<std::int64_t> offset = std::nullopt)
    {
        QSignalSpy joined(page, &SnapshotPage::joined);
        page->joinTrace(trace, offset);
        return joined.wait(20000) || joined.count() > 0;
    }
    // The names of the counters the timeline shows now for the trace (none before it is indexed):
    // what a join or a close changes arrives with a job, so callers wait for what they expect.
    QStringList counterNames()
    {
        window.showPage(Page::Timeline);
        if (timeline->currentTrace() != trace)
            timeline->showTrace(trace);
        QStringList names;
        const auto *index = timeline->view()->index();
        for (std::uint32_t c = 0; index && c < index->counterCount(); ++c)
            names << QString::fromStdString(index->counter(c).name);
        return names;
    }
};

// The replay position of the step's last allocation the trace saw: the step's activations and
// gradients are all live after it.
std::int64_t lastProfiledAllocation()
{
    std::ifstream in((kDir + QStringLiteral("/basic_trace.expected.json")).toStdString());
    const auto want = nlohmann::json::parse(in);
    const auto &last = want["allocations"].back();
    const auto s = snapshot::loadSnapshot(fixture("basic_p4.pickle").toStdString()).value();
    const auto devices = snapshot::replay(*s);
    const auto &d = devices[0];
    for (std::size_t p = 0; p < d.events.size(); ++p) {
        const auto e = d.events[p];
        if (s->events.action[e] == snapshot::Action::Alloc &&
            s->events.timeUs[e] == last["time_us"].get<std::int64_t>() &&
            s->events.addr[e] == last["address"].get<std::uint64_t>())
            return std::int64_t(p);
    }
    return -1;
}

} // namespace

class TestSnapshotJoin : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<JobOutcome>(); }

    void joinsAndShowsTheOpInTheTimeline()
    {
        Window w;
        QVERIFY(w.open("basic_trace.json"));
        QCOMPARE(w.page->joinBar()->chosenTrace(), w.trace);
        QVERIFY(!w.page->madeByLabel()->isVisible()); // nothing joined yet
        QTRY_VERIFY_WITH_TIMEOUT(w.counterNames().contains(QStringLiteral("Memory allocated (device 0)")), 20000);
        QVERIFY(!w.counterNames().contains(QStringLiteral("Snapshot active (device 0)")));
        w.window.showPage(Page::Snapshots);
        QVERIFY(w.join());
        const auto *join = w.page->currentJoin();
        QVERIFY(join);
        QCOMPARE(join->matched, std::size_t(10));
        QVERIFY2(w.page->joinBar()->status()->text().contains(QStringLiteral("10 of the trace's 10")),
                 qPrintable(w.page->joinBar()->status()->text()));

        // The step's activations: the ops that made each group's memory.
        const auto position = lastProfiledAllocation();
        QVERIFY(position >= 0);
        QSignalSpy shown(w.page, &SnapshotPage::instantShown);
        QVERIFY(w.page->showInstant(QStringLiteral("#%1").arg(position)));
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, 10000);
        QVERIFY(w.page->madeByLabel()->isVisible());
        auto *table = w.page->groupsTable();
        QTreeWidgetItem *linear = nullptr;
        for (int i = 0; i < table->topLevelItemCount(); ++i) {
            table->setCurrentItem(table->topLevelItem(i));
            if (w.page->madeByLabel()->text().contains(QStringLiteral("aten::linear")))
                linear = table->topLevelItem(i);
        }
        QVERIFY(linear);
        table->setCurrentItem(linear);
        QVERIFY2(w.page->madeByLabel()->text().contains(QStringLiteral("in 3 blocks")),
                 qPrintable(w.page->madeByLabel()->text()));
        QVERIFY(w.page->madeByLabel()->toolTip().contains(QStringLiteral("ProfilerStep#1")));
        QVERIFY(w.page->showOpButton()->isEnabled());
        maybeGrab(w.window, QStringLiteral("snapshot-joined.png"));

        QTest::mouseClick(w.page->showOpButton(), Qt::LeftButton);
        QCOMPARE(w.window.currentPage(), Page::Timeline);
        QTRY_VERIFY_WITH_TIMEOUT(w.timeline->view()->currentHighlight().has_value(), 20000);
        const auto selected = *w.timeline->view()->currentHighlight();
        const auto &trace = *w.window.workspace()->trace(w.trace)->trace;
        QCOMPARE(trace.string(trace.track(selected.track).eventName[selected.event]), std::string_view("aten::linear"));
        QTRY_VERIFY_WITH_TIMEOUT(w.counterNames().contains(QStringLiteral("Snapshot active (device 0)")), 20000);
        const auto names = w.counterNames();
        QVERIFY(names.contains(QStringLiteral("Snapshot reserved (device 0)")));
        QVERIFY(names.contains(QStringLiteral("Memory allocated (device 0)"))); // the trace's own, beside it
        maybeGrab(w.window, QStringLiteral("snapshot-joined-timeline.png"));

        // Closed, the snapshot's rows go.
        w.window.showPage(Page::Snapshots);
        w.window.closeCurrent();
        QVERIFY(!w.page->hasContent());
        QTRY_VERIFY_WITH_TIMEOUT(!w.counterNames().contains(QStringLiteral("Snapshot active (device 0)")), 20000);
    }

    void anotherRunSaysWhy()
    {
        Window w;
        QVERIFY(w.open("unrelated_trace.json"));
        QVERIFY(w.join());
        QVERIFY(!w.page->currentJoin());
        QVERIFY2(w.page->joinBar()->status()->text().contains(QStringLiteral("same run")),
                 qPrintable(w.page->joinBar()->status()->text()));
        QVERIFY(!w.page->madeByLabel()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(w.counterNames().contains(QStringLiteral("Memory allocated (device 0)")), 20000);
        QVERIFY(!w.counterNames().contains(QStringLiteral("Snapshot active (device 0)")));
    }

    // A session keeps the open snapshots, the one shown and its instant.
    void aSessionReopensThem()
    {
        Window first;
        QVERIFY(first.open("basic_trace.json"));
        QSignalSpy shown(first.page, &SnapshotPage::instantShown);
        first.window.openPaths({fixture("oom.pickle")});
        QTRY_COMPARE_WITH_TIMEOUT(first.page->count(), 2, 20000);
        QVERIFY(first.page->showInstant(QStringLiteral("end")));
        const auto state = first.window.session()->capture();
        const auto &saved = state.pages["snapshots"];
        QCOMPARE(saved["files"].size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(saved["current"].get<std::string>()), fixture("oom.pickle"));

        Window second;
        second.window.session()->restore(state);
        QTRY_COMPARE_WITH_TIMEOUT(second.page->count(), 2, 20000);
        QCOMPARE(second.page->currentPath(), fixture("oom.pickle"));
        QCOMPARE(second.page->instant(), QStringLiteral("end"));
    }

    // With no trace open the bar says how to join one; a trace opened, the hint goes, and what a
    // join says is kept whatever opens or closes.
    void withNoTraceTheBarSaysHow()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        TraceJoinBar bar(&workspace);
        QVERIFY(!bar.joinButton()->isEnabled());
        QVERIFY2(bar.status()->text().contains(QStringLiteral("profile_memory=True")),
                 qPrintable(bar.status()->text()));
        bar.setStatus(QStringLiteral("Joining…"), false);
        QCOMPARE(bar.status()->text(), QStringLiteral("Joining…"));
        bar.setStatus(QString(), false);
        QVERIFY(bar.status()->text().contains(QStringLiteral("profile_memory=True")));

        Window w;
        QVERIFY(w.open("basic_trace.json"));
        QVERIFY(w.page->joinBar()->joinButton()->isEnabled());
        QVERIFY2(w.page->joinBar()->status()->text().isEmpty(), qPrintable(w.page->joinBar()->status()->text()));
    }

    void anOffsetTyped()
    {
        Window w;
        QVERIFY(w.open("basic_trace.json"));
        auto *bar = w.page->joinBar();
        // Not a number: said, and nothing joins.
        bar->offsetEdit()->setText(QStringLiteral("soon"));
        QTest::mouseClick(bar->joinButton(), Qt::LeftButton);
        QVERIFY(bar->status()->text().contains(QStringLiteral("\"soon\" is not one")));
        QVERIFY(!w.page->currentJoin());
        // The script's offset, typed: the same ten allocations.
        std::ifstream in((kDir + QStringLiteral("/basic_trace.expected.json")).toStdString());
        const auto offsetUs = nlohmann::json::parse(in)["offset_us"].get<std::int64_t>();
        const auto typed =
            QStringLiteral("-%1.%2").arg(-offsetUs / 1000000).arg(-offsetUs % 1000000, 6, 10, QLatin1Char('0'));
        bar->offsetEdit()->setText(typed);
        QSignalSpy joined(w.page, &SnapshotPage::joined);
        QTest::mouseClick(bar->joinButton(), Qt::LeftButton);
        QVERIFY(joined.wait(20000));
        QVERIFY(w.page->currentJoin());
        QVERIFY(w.page->currentJoin()->offsetFromUser);
        QCOMPARE(w.page->currentJoin()->offsetNs, offsetUs * 1000);
        QCOMPARE(w.page->currentJoin()->matched, std::size_t(10));
    }
};

QTEST_MAIN(TestSnapshotJoin)
#include "tst_snapshotjoin.moc"
