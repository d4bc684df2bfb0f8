// Session files: every field survives a write and a read, writes are atomic, and files that
// are gone are named.
#include <QtTest>

#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/session/sessionfile.h"
#include "core/util/atomicfile.h"
#endif

#include <QTemporaryDir>

using namespace pyrometer;

namespace {

std::filesystem::path inDir(const QTemporaryDir &dir, const char *name)
{
    return dir.filePath(QLatin1String(name)).toStdString();
}

// A state with every field set to something other than its default.
session::SessionState fullState(const QTemporaryDir &dir)
{
    session::SessionState state;
    state.traces = {inDir(dir, "a.pt.trace.json"), inDir(dir, "b.json.gz")};
    state.models = {inDir(dir, "model.pt")};
    state.jobs = {{{inDir(dir, "rank-0.json.gz"), inDir(dir, "rank-1.json.gz")}}, {{inDir(dir, "job2/r0.json")}}};
    state.currentTrace = state.traces[1];
    state.currentPage = "timeline";
    state.ranges = {{state.traces[0], 1712195495519689047, 1712195495519999000}, {state.traces[1], -5, 7}};
    state.bookmarks = {{state.traces[0], "slow step", 100, 2500}, {state.traces[1], "spike \xC2\xB5", 42, 42}};
    session::RunSummary run;
    run.model = state.models[0];
    run.inputs = "1x3x224x224,1x10:int64";
    run.mode = "train";
    run.threads = 4;
    run.warmup = 3;
    run.iterations = 20;
    run.coldMs = 81.5;
    run.meanMs = 4.25;
    run.stdMs = 0.125;
    run.p50Ms = 4.0;
    run.p90Ms = 5.5;
    run.p99Ms = 6.75;
    run.throughputPerSecond = 235.3;
    run.forwardMs = 4.5;
    run.peakMemoryBytes = 123456789;
    run.totalFlops = 3.6e9;
    run.tracePath = inDir(dir, "model-1.pt.trace.json");
    state.runs = {run};
    state.comparison = {{"baseline", state.traces[0]}, {"other", state.traces[1]}, {"threshold", 5}};
    state.pages = {{"flamegraph", {{"focus", "aten::conv2d"}}}};
    return state;
}

} // namespace

class TestSessionFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyFieldRoundTrips()
    {
        QTemporaryDir dir;
        const auto state = fullState(dir);
        const auto path = inDir(dir, "s.pyrometer");
        QVERIFY(session::writeSession(path, state).ok());
        const auto read = session::readSession(path);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QCOMPARE(read.value().traces, state.traces);
        QCOMPARE(read.value().models, state.models);
        QCOMPARE(read.value().jobs, state.jobs);
        QCOMPARE(read.value().ranges, state.ranges);
        QCOMPARE(read.value().bookmarks, state.bookmarks);
        QCOMPARE(read.value().runs, state.runs);
        QCOMPARE(read.value().comparison, state.comparison);
        QCOMPARE(read.value().pages, state.pages);
        QVERIFY(read.value() == state);
        // Nanoseconds beyond a double's precision survive.
        QCOMPARE(read.value().ranges[0].startNs, std::int64_t(1712195495519689047));
    }

    void olderFilesReadWithDefaults()
    {
        const auto state = session::fromJson(nlohmann::json{{"pyrometer_session", 1}, {"traces", {"/t.json"}}}, "old");
        QVERIFY(state.ok());
        QCOMPARE(state.value().traces, std::vector<std::string>{"/t.json"});
        QVERIFY(state.value().bookmarks.empty());
        QVERIFY(state.value().jobs.empty());
        QVERIFY(state.value().comparison.is_object());
    }

    void refusesWhatIsNotASession_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::addRow("not json") << "{\"pyrometer_session\": " << "invalid JSON";
        QTest::addRow("a trace") << "{\"traceEvents\": []}" << "not a Pyrometer session";
        QTest::addRow("newer") << "{\"pyrometer_session\": 99}" << "newer Pyrometer";
        QTest::addRow("bad field") << "{\"pyrometer_session\": 1, \"traces\": 5}" << "malformed session";
        // A float where an integer is read: cast beyond the integer's range, undefined (found by
        // tests/fuzz/fuzz_session.cpp).
        QTest::addRow("float warmup") << "{\"pyrometer_session\": 1, \"runs\": [{\"warmup\": 3.4e21}]}"
                                      << "malformed session: runs: warmup is 3.4e+21, not an integer";
        QTest::addRow("float range") << "{\"pyrometer_session\": 1, \"ranges\": [{\"startNs\": 1e300}]}"
                                     << "malformed session: ranges: startNs is 1e+300, not an integer";
    }
    void refusesWhatIsNotASession()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QTemporaryDir dir;
        const auto path = inDir(dir, "x.pyrometer");
        QVERIFY(writeFileAtomically(path, text.toStdString()).ok());
        const auto read = session::readSession(path);
        QVERIFY(!read.ok());
        const QString message = QString::fromStdString(read.error().message);
        QVERIFY2(message.contains(error), qPrintable(message));
        QVERIFY(message.startsWith(QString::fromStdString(path.string())));
    }

    void atomicWriteLeavesNoPartialFile()
    {
        QTemporaryDir dir;
        const auto path = inDir(dir, "s.pyrometer");
        auto state = fullState(dir);
        QVERIFY(session::writeSession(path, state).ok());
        const auto first = readWholeFile(path);
        QVERIFY(first.ok());

        // Replacing fails (the target is a directory now): the old file stays whole, and no
        // temporary file is left next to it.
        const auto blocked = inDir(dir, "blocked.pyrometer");
        std::filesystem::create_directory(blocked);
        std::filesystem::create_directory(blocked / "keep"); // a non-empty directory cannot be replaced
        const auto failed = session::writeSession(blocked, state);
        QVERIFY(!failed.ok());
        QVERIFY(QString::fromStdString(failed.error().message).contains(QStringLiteral("blocked.pyrometer")));
        QVERIFY(!session::writeSession(inDir(dir, "no/such/dir.pyrometer"), state).ok());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("s.pyrometer")});

        // A second write replaces the file whole.
        state.traces.pop_back();
        QVERIFY(session::writeSession(path, state).ok());
        QCOMPARE(session::readSession(path).value().traces.size(), std::size_t(1));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("s.pyrometer")});
    }

    void missingFilesAreNamed()
    {
        QTemporaryDir dir;
        auto state = fullState(dir);
        QFile present(QString::fromStdString(state.traces[0]));
        QVERIFY(present.open(QIODevice::WriteOnly));
        present.close();
        QFile model(QString::fromStdString(state.models[0]));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.close();
        QFile rank(QString::fromStdString(state.jobs[0].files[0]));
        QVERIFY(rank.open(QIODevice::WriteOnly));
        rank.close();
        QCOMPARE(session::missingFiles(state),
                 (std::vector<std::string>{state.traces[1], state.jobs[0].files[1], state.jobs[1].files[0]}));
    }

    void aJobAloneIsNotEmpty()
    {
        session::SessionState state;
        QVERIFY(state.isEmpty());
        state.jobs = {{{"/r0.json"}}};
        QVERIFY(!state.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSessionFile)
#include "tst_sessionfile.moc"
