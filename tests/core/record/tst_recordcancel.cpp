// Cancelling a record, as the window's Cancel and the CLI's Ctrl+C do: the whole steps recorded
// are kept, a trace being written (the profiler's collection included) is waited for, and a
// second stop drops it. Real programs with Debian's python3-torch.
#include "recordtestutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <csignal>

using namespace pyrometer;
using namespace pyrometer::record;
using namespace pyrometer::record::testing;

namespace {

// A record cancelled once it has recorded steps, with a grace of 0.5 s for the interrupt.
Recorded cancelOnceRecorded(const RecordOptions &options, int steps)
{
    StopToken stop;
    return recordRun(
        options, stop,
        [&](const RecordProgress &progress) {
            if (progress.recorded >= steps)
                stop.requestStop();
        },
        StopPolicy{std::chrono::milliseconds(500), std::chrono::milliseconds(2000)});
}

// The record of slow_write.py: 3 steps asked, its collection (phase "stop") or export slowed.
RecordOptions slowWriteOptions(const QTemporaryDir &dir, const char *phase)
{
    auto options = optionsFor(dir, "slow_write.py");
    options.environment = {{"SLOW_PHASE", phase}, {"SLOW_SECONDS", "3"}};
    return options;
}

} // namespace

class TestRecordCancel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cancelMidRecordKeepsTheTrace();
    void cancelBeforeTheRecordKeepsNothing();
    void cancelWhileTheTraceIsWrittenWaitsForIt_data();
    void cancelWhileTheTraceIsWrittenWaitsForIt();
    void cancelMidRecordWaitsForASlowCollection();
    void aSecondStopDropsTheWrite();
};

void TestRecordCancel::cancelMidRecordKeepsTheTrace()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "slow_loop.py");
    options.skip = 0;
    options.warmup = 1;
    options.steps = 1000; // far more than the test waits for
    // A short grace for the interrupt: the host waits on while the launcher says it ends its
    // record and writes it, as a record of hundreds of steps takes seconds to write.
    const auto run = cancelOnceRecorded(options, 3);
    const auto &outcome = run.outcome;
    QVERIFY(outcome.exit.stopped);
    // Interrupted in the middle of its record: the launcher wrote what it had.
    QVERIFY2(outcome.failure == RecordFailure::None, outcome.message.c_str());
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    const auto trace = trace::loadTrace(outcome.traces.front());
    QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
    // Whole steps: the record ended at the end of the step in progress (not inside it, in the
    // program's sleep), each one in the trace.
    QVERIFY(outcome.recorded >= 3);
    QVERIFY(outcome.recorded < 1000);
    QCOMPARE(countSlices(*trace.value(), "ProfilerStep#"), outcome.recorded);
    QCOMPARE(countSlices(*trace.value(), "Optimizer.step#SGD.step"), outcome.recorded);
    QVERIFY(std::filesystem::is_regular_file(outcome.memoryFiles.front()));
    const auto summary = cancelSummary(outcome, options);
    const auto recorded = std::to_string(outcome.recorded);
    QCOMPARE(summary, options.script + ": cancelled after " + recorded + " of 1000 steps; the " + recorded +
                          " recorded are in " + outcome.traces.front().string());
}

void TestRecordCancel::cancelBeforeTheRecordKeepsNothing()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "slow_loop.py");
    options.skip = 1000;
    StopToken stop;
    const auto run = recordRun(options, stop, [&](const RecordProgress &progress) {
        if (progress.steps >= 2)
            stop.requestStop();
    });
    QCOMPARE(run.outcome.failure, RecordFailure::Cancelled);
    QVERIFY(run.outcome.traces.empty());
    QVERIFY(run.outcome.message.find("slow_loop.py: cancelled after") != std::string::npos);
    QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
}

void TestRecordCancel::cancelWhileTheTraceIsWrittenWaitsForIt_data()
{
    QTest::addColumn<QString>("phase");
    QTest::newRow("export") << QStringLiteral("export");
    QTest::newRow("collection") << QStringLiteral("stop");
}

// All steps recorded, the trace being written (3 s, far past the interrupt's grace of 0.5 s):
// the cancel waits for the write, and the whole record is kept.
void TestRecordCancel::cancelWhileTheTraceIsWrittenWaitsForIt()
{
    QFETCH(QString, phase);
    QTemporaryDir dir;
    auto options = slowWriteOptions(dir, phase.toUtf8().constData());
    options.keepRunning = true; // the program goes on after the record: only the cancel ends it
    StopToken stop;
    const auto run = recordRun(
        options, stop,
        [&](const RecordProgress &progress) {
            if (progress.writing)
                stop.requestStop();
        },
        StopPolicy{std::chrono::milliseconds(500), std::chrono::milliseconds(2000)});
    const auto &outcome = run.outcome;
    QVERIFY(outcome.exit.stopped);
    QVERIFY2(outcome.failure == RecordFailure::None, outcome.message.c_str());
    QVERIFY(!outcome.droppedWrite);
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    QCOMPARE(outcome.recorded, 3);
    QCOMPARE(profilerStepsIn(outcome.traces.front()), 3);
    // The stop came while the trace was written, and was waited out.
    QVERIFY(std::any_of(run.progress.begin(), run.progress.end(),
                        [](const RecordProgress &progress) { return progress.writing && progress.stopping; }));
    QCOMPARE(cancelSummary(outcome, options),
             options.script + ": cancelled after its record was complete; the 3 steps recorded are in " +
                 outcome.traces.front().string());
}

// A cancel mid-record whose collection outlasts the launcher's wait for the step in progress (2 s)
// and the host's grace: the record is written with the whole steps it had.
void TestRecordCancel::cancelMidRecordWaitsForASlowCollection()
{
    QTemporaryDir dir;
    auto options = slowWriteOptions(dir, "stop");
    options.steps = 1000;
    const auto run = cancelOnceRecorded(options, 3);
    const auto &outcome = run.outcome;
    QVERIFY(outcome.exit.stopped);
    QVERIFY2(outcome.failure == RecordFailure::None, outcome.message.c_str());
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    QVERIFY(outcome.recorded >= 3 && outcome.recorded < 1000);
    QCOMPARE(profilerStepsIn(outcome.traces.front()), outcome.recorded);
}

// A second stop while the trace is written gives the write up at once: nothing is kept, no
// partial file is left, and the outcome says so.
void TestRecordCancel::aSecondStopDropsTheWrite()
{
    QTemporaryDir dir;
    auto options = slowWriteOptions(dir, "export");
    options.environment.back().second = "30"; // a write the test never waits for
    StopToken stop;
    bool abandon = false;
    RecordCallbacks callbacks;
    callbacks.abandoned = [&] { return abandon; };
    callbacks.onProgress = [&](const RecordProgress &progress) {
        if (progress.writing && !stop.stopRequested())
            stop.requestStop();
        else if (progress.writing && progress.stopping)
            abandon = true;
    };
    auto result = recordProgram(options, callbacks, stop,
                                StopPolicy{std::chrono::milliseconds(500), std::chrono::milliseconds(2000)});
    QVERIFY2(result, result ? "" : result.error().message.c_str());
    const auto &outcome = result.value();
    QCOMPARE(outcome.exit.signal, SIGTERM); // ended by the drop, not by a write that finished
    QCOMPARE(outcome.failure, RecordFailure::Dropped);
    QVERIFY(outcome.droppedWrite);
    QVERIFY(outcome.traces.empty());
    QVERIFY2(outcome.message.find(
                 "slow_write.py: cancelled while the trace of its 3 recorded steps was written, and the write "
                 "was dropped; nothing was kept") != std::string::npos,
             outcome.message.c_str());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList());
}

QTEST_GUILESS_MAIN(TestRecordCancel)
#include "tst_recordcancel.moc"
