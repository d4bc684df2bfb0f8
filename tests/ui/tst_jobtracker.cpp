#include "ui/jobs/jobstatuswidget.h"
#include "ui/jobs/jobtracker.h"

#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

#include <atomic>
#include <stdexcept>
#include <thread>

using namespace pyrometer;
using namespace pyrometer::ui;

Q_DECLARE_METATYPE(pyrometer::ui::JobOutcome)

namespace {

// Work that runs until stopped (or 10 s), reporting progress, and says how it ended.
Result<int> spinUntilStopped(ProgressReporter &progress, const StopToken &stop)
{
    for (int i = 0; i < 10'000; ++i) {
        if (stop.stopRequested())
            return Error{"spin: cancelled"};
        progress.report(std::uint64_t(i), 20'000);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return 1;
}

} // namespace

class TestJobTracker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<JobOutcome>(); }

    void deliversResultOnTheGuiThread()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        QSignalSpy idle(&tracker, &JobTracker::becameIdle);
        int received = 0;
        QThread *receivedOn = nullptr;
        tracker.run<int>(
            "add", {}, [](ProgressReporter &, const StopToken &) { return Result<int>(40 + 2); }, this,
            [&](int value) {
                received = value;
                receivedOn = QThread::currentThread();
            });
        QVERIFY(!tracker.isIdle());
        QTRY_COMPARE_WITH_TIMEOUT(idle.size(), 1, 5000);
        QCOMPARE(received, 42);
        QCOMPARE(receivedOn, QThread::currentThread());
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(2).value<JobOutcome>(), JobOutcome::Succeeded);
        QVERIFY(finished.at(0).at(3).toString().isEmpty());
    }

    void endsAreNeverAnnouncedInsideRun()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        const auto id = tracker.run<int>(
            "instant", {}, [](ProgressReporter &, const StopToken &) { return Result<int>(Error{"bad spec"}); }, this,
            [](int) {});
        QThread::msleep(50); // the work is long done: its end still waits for the event loop
        QCOMPARE(finished.size(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
        QCOMPARE(finished.at(0).at(0).value<JobTracker::JobId>(), id);
    }

    void reportsFailuresWithTheirMessage()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        bool delivered = false;
        tracker.run<int>(
            "Loading bad.json", {},
            [](ProgressReporter &, const StopToken &) { return Result<int>(Error{"bad.json: not JSON at byte 0"}); },
            this, [&](int) { delivered = true; });
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
        QCOMPARE(finished.at(0).at(1).toString(), QString("Loading bad.json"));
        QCOMPARE(finished.at(0).at(2).value<JobOutcome>(), JobOutcome::Failed);
        QCOMPARE(finished.at(0).at(3).toString(), QString("bad.json: not JSON at byte 0"));
        QVERIFY(!delivered);
    }

    // Work that throws (nlohmann's type_error on a worker's wrong-typed field, a bad_alloc) fails
    // its job with the exception's words; the tracker and the window go on.
    void anExceptionIsTheJobsError()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        tracker.run<int>(
            "Profiling m.pt", {},
            [](ProgressReporter &, const StopToken &) -> Result<int> { throw std::runtime_error("type must be number, but is string"); },
            this, [](int) {});
        tracker.run<int>(
            "Sweeping m.pt", {}, [](ProgressReporter &, const StopToken &) -> Result<int> { throw 42; }, this, [](int) {});
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 5000);
        QStringList messages;
        for (const auto &signal : finished) {
            QCOMPARE(signal.at(2).value<JobOutcome>(), JobOutcome::Failed);
            messages << signal.at(3).toString();
        }
        messages.sort();
        QCOMPARE(messages, QStringList({"Profiling m.pt: type must be number, but is string",
                                        "Sweeping m.pt: failed with an exception of no known type"}));
        QVERIFY(tracker.isIdle());
    }

    void cancelStopsTheWorkQuickly()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        QSignalSpy progress(&tracker, &JobTracker::progressChanged);
        bool delivered = false;
        const auto id = tracker.run<int>("spin", {}, spinUntilStopped, this, [&](int) { delivered = true; });
        QTRY_VERIFY_WITH_TIMEOUT(progress.size() > 0, 5000);
        tracker.cancel(id);
        // The work spins until it is told to stop: finishing at all is the outcome.
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(finished.at(0).at(2).value<JobOutcome>(), JobOutcome::Cancelled);
        QVERIFY(finished.at(0).at(3).toString().isEmpty()); // a cancel is not an error to show
        QVERIFY(!delivered);
    }

    // Cancel stops what runs, not what waits for a worker: the waiting job runs next.
    void cancelRunningSparesWaitingJobs()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        std::atomic<int> started{0};
        const auto spin = [&started](ProgressReporter &progress, const StopToken &stop) {
            ++started;
            return spinUntilStopped(progress, stop);
        };
        for (int i = 0; i < tracker.workerCount(); ++i)
            tracker.run<int>("spin", {}, spin, this, [](int) {});
        QTRY_COMPARE_WITH_TIMEOUT(started.load(), tracker.workerCount(), 5000); // every worker is busy
        bool queuedDelivered = false;
        const auto queued = tracker.run<int>(
            "queued", {}, [](ProgressReporter &, const StopToken &) { return Result<int>(7); }, this,
            [&](int) { queuedDelivered = true; });
        tracker.cancelRunning();
        QTRY_VERIFY_WITH_TIMEOUT(tracker.isIdle(), 30000);
        QVERIFY(queuedDelivered);
        QCOMPARE(finished.size(), tracker.workerCount() + 1);
        for (const auto &args : finished) {
            const auto id = args.at(0).value<JobTracker::JobId>();
            QCOMPARE(args.at(2).value<JobOutcome>(), id == queued ? JobOutcome::Succeeded : JobOutcome::Cancelled);
        }
    }

    void newerJobWithSameKeySupersedesOlder()
    {
        JobTracker tracker;
        QSignalSpy idle(&tracker, &JobTracker::becameIdle);
        QSignalSpy finished(&tracker, &JobTracker::finished);
        QList<int> delivered;
        const auto old = tracker.run<int>("old", "table", spinUntilStopped, this, [&](int v) { delivered.append(v); });
        const auto newer = tracker.run<int>(
            "new", "table", [](ProgressReporter &, const StopToken &) { return Result<int>(2); }, this,
            [&](int v) { delivered.append(v); });
        QTRY_COMPARE_WITH_TIMEOUT(idle.size(), 1, 5000);
        QCOMPARE(delivered, QList<int>{2});
        // The replaced job is superseded, not cancelled: nobody asked to stop it.
        QCOMPARE(finished.size(), 2);
        for (const auto &args : finished) {
            const auto id = args.at(0).value<JobTracker::JobId>();
            QCOMPARE(args.at(2).value<JobOutcome>(), id == old ? JobOutcome::Superseded : JobOutcome::Succeeded);
            QVERIFY(id == old || id == newer);
        }
    }

    void dropsResultWhenContextIsGone()
    {
        JobTracker tracker;
        QSignalSpy idle(&tracker, &JobTracker::becameIdle);
        bool delivered = false;
        auto *context = new QObject;
        std::atomic<bool> release{false};
        tracker.run<int>(
            "slow", {},
            [&release](ProgressReporter &, const StopToken &) {
                while (!release)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return Result<int>(1);
            },
            context, [&](int) { delivered = true; });
        delete context;
        release = true;
        QTRY_COMPARE_WITH_TIMEOUT(idle.size(), 1, 5000);
        QVERIFY(!delivered);
    }

    void statusWidgetShowsRunningJobsAndCancels()
    {
        JobTracker tracker;
        JobStatusWidget status(&tracker);
        QVERIFY(status.isHidden());
        QSignalSpy finished(&tracker, &JobTracker::finished);
        tracker.run<int>("Loading big.json", {}, spinUntilStopped, this, [](int) {});
        tracker.run<int>("Loading model.pt", {}, spinUntilStopped, this, [](int) {});
        QVERIFY(!status.isHidden());
        QCOMPARE(status.text(), QString("Loading big.json (+1 more)"));
        QTRY_VERIFY_WITH_TIMEOUT(status.progressBar()->maximum() == 1000 && status.progressBar()->value() > 0, 5000);
        status.cancelButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 5000);
        QVERIFY(status.isHidden());
    }
};

QTEST_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
