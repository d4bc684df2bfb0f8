// The critical path of a step: small hand-written traces (tests/fixtures/analysis/
// criticalpath_*.json) whose paths and what-ifs were worked out by hand, invariants on every real
// fixture, and the window each path must cover (the step's start and the end of its last event,
// and the device events it launched) against goldens written by an independent Python script
// (scripts/make-criticalpath-fixtures.py).
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/criticalpath.h"
#include "core/analysis/criticalpathrows.h"
#endif

#include <QObject>

#include <set>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

constexpr std::int64_t kUs = 1000;

struct Expected {
    const char *name;
    PathNodeKind kind;
    std::int64_t startUs;
    std::int64_t durationUs;
    std::int64_t waitUs;
};

struct ExpectedWhatIf {
    const char *name;
    std::int64_t savedNs; // a node of d ns, halved, takes d - floor(d / 2)
};

Loaded small(const std::string &name)
{
    return loadFixture("criticalpath_" + name);
}

// The path of the first step of a hand-written trace.
CriticalPath firstStep(const Loaded &loaded, std::size_t whatIfs = 10)
{
    const auto steps = profilerSteps(*loaded.index);
    return steps.empty() ? CriticalPath{} : buildCriticalPath(*loaded.index, steps.front(), whatIfs);
}

const char *kindText(PathNodeKind kind)
{
    switch (kind) {
    case PathNodeKind::Cpu: return "cpu";
    case PathNodeKind::Launch: return "launch";
    case PathNodeKind::Sync: return "sync";
    case PathNodeKind::Device: return "device";
    }
    return "?";
}

QString describe(const CriticalPath &path)
{
    QString text;
    for (const auto &n : path.nodes)
        text += QString("\n  %1 %2 start %3 dur %4 wait %5")
                    .arg(QString::fromStdString(n.name), kindText(n.kind))
                    .arg(n.startNs)
                    .arg(n.durationNs)
                    .arg(n.waitBeforeNs);
    return text;
}

void comparePath(const CriticalPath &path, const std::vector<Expected> &expected)
{
    QVERIFY2(path.nodes.size() == expected.size(), qPrintable(describe(path)));
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto &n = path.nodes[i];
        const auto &e = expected[i];
        const auto where = QString("node %1 of%2").arg(i).arg(describe(path));
        QVERIFY2(n.name == e.name, qPrintable(where));
        QVERIFY2(n.kind == e.kind, qPrintable(where));
        QVERIFY2(n.startNs == e.startUs * kUs, qPrintable(where));
        QVERIFY2(n.durationNs == e.durationUs * kUs, qPrintable(where));
        QVERIFY2(n.waitBeforeNs == e.waitUs * kUs, qPrintable(where));
        QCOMPARE(n.sharePct, 100.0 * double(n.durationNs) / double(path.lengthNs()));
    }
}

void compareWhatIfs(const CriticalPath &path, const std::vector<ExpectedWhatIf> &expected)
{
    QCOMPARE(path.whatIfs.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto &w = path.whatIfs[i];
        QCOMPARE(w.name, std::string(expected[i].name));
        QCOMPARE(path.nodes[w.node].name, w.name);
        QCOMPARE(w.savedNs, expected[i].savedNs);
        QCOMPARE(w.savedPct, 100.0 * double(w.savedNs) / double(path.lengthNs()));
    }
}

// What must hold of any path, whatever the trace.
void checkInvariants(const TraceIndex &index, const CriticalPath &path, std::size_t whatIfCount)
{
    const auto &trace = *index.trace;
    QVERIFY(path.endNs >= path.startNs);
    if (path.nodes.empty()) {
        QCOMPARE(path.graphNodes, std::size_t(0));
        return;
    }
    std::int64_t sum = 0;
    std::int64_t cpu = 0, device = 0, wait = 0;
    auto cursor = path.startNs;
    for (const auto &n : path.nodes) {
        QVERIFY(n.durationNs >= 0);
        QVERIFY(n.waitBeforeNs >= 0);
        // In order, back to back with the waits between: no two overlap.
        QCOMPARE(n.startNs, cursor + n.waitBeforeNs);
        cursor = n.startNs + n.durationNs;
        // Inside the step's window.
        QVERIFY(n.startNs >= path.startNs);
        QVERIFY(cursor <= path.endNs);
        sum += n.durationNs + n.waitBeforeNs;
        (n.kind == PathNodeKind::Device ? device : cpu) += n.durationNs;
        wait += n.waitBeforeNs;
        // Each node is a part of the event it names, and of the right kind.
        QVERIFY(n.event.isValid());
        const auto &track = trace.track(n.event.track);
        const auto kind = index.track(n.event.track).kind[n.event.event.value];
        const auto eventStart = track.start[n.event.event.value];
        const auto eventEnd = track.end(n.event.event);
        QVERIFY(n.startNs >= eventStart);
        const std::string eventName(trace.string(track.eventName[n.event.event.value]));
        // The step's own CPU time is time in no op.
        QCOMPARE(n.name,
                 n.kind == PathNodeKind::Cpu && eventName == path.step ? "outside ops (" + path.step + ")" : eventName);
        switch (n.kind) {
        case PathNodeKind::Device:
            QVERIFY(isDeviceKind(kind));
            QVERIFY(cursor <= eventEnd);
            break;
        case PathNodeKind::Cpu:
            QVERIFY(kind == EventKind::Op || kind == EventKind::Runtime);
            if (kind == EventKind::Op)
                QVERIFY(cursor <= eventEnd);
            break;
        case PathNodeKind::Launch: QCOMPARE(kind, EventKind::Runtime); break;
        case PathNodeKind::Sync: QVERIFY(kind == EventKind::Runtime || kind == EventKind::Sync); break;
        }
    }
    // The path ends at the step's last event and adds up to the step exactly.
    QCOMPARE(cursor, path.endNs);
    QCOMPARE(sum, path.lengthNs());
    QCOMPARE(path.cpuNs, cpu);
    QCOMPARE(path.deviceNs, device);
    QCOMPARE(path.waitNs, wait);
    QVERIFY(path.graphNodes >= path.deviceEvents);
    // What-ifs: sorted, each bounded by half its node, at most one per node.
    QVERIFY(path.whatIfs.size() <= whatIfCount);
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < path.whatIfs.size(); ++i) {
        const auto &w = path.whatIfs[i];
        QVERIFY(w.node < path.nodes.size());
        QVERIFY(seen.insert(w.node).second);
        QCOMPARE(w.name, path.nodes[w.node].name);
        QVERIFY(w.savedNs >= 0);
        QVERIFY2(w.savedNs <= path.nodes[w.node].durationNs / 2, w.name.c_str());
        if (i > 0)
            QVERIFY(path.whatIfs[i - 1].savedNs >= w.savedNs);
    }
}

} // namespace

class TestCriticalPath : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    // (a) Kernels are short and launched back to back: the path is the CPU thread, split at
    // each call and each op boundary; the Python frame around the ops is no node, and time in
    // no op under the step is "outside ops".
    void cpuBound()
    {
        const auto loaded = small("cpu");
        QVERIFY(loaded.index);
        const auto steps = profilerSteps(*loaded.index);
        QCOMPARE(steps.size(), std::size_t(2));
        const auto path = buildCriticalPath(*loaded.index, steps[0], 3);
        QCOMPARE(path.step, std::string("ProfilerStep#1"));
        QCOMPARE(path.startNs, 1000 * kUs);
        QCOMPARE(path.endNs, 1100 * kUs);
        comparePath(path, {{"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1000, 10, 0},
                           {"aten::linear", PathNodeKind::Cpu, 1010, 10, 0},
                           {"cudaLaunchKernel", PathNodeKind::Launch, 1020, 10, 0},
                           {"aten::linear", PathNodeKind::Cpu, 1030, 20, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1050, 5, 0},
                           {"aten::relu", PathNodeKind::Cpu, 1055, 5, 0},
                           {"cudaLaunchKernel", PathNodeKind::Launch, 1060, 10, 0},
                           {"aten::relu", PathNodeKind::Cpu, 1070, 20, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1090, 10, 0}});
        QCOMPARE(path.cpuNs, 100 * kUs);
        QCOMPARE(path.deviceNs, 0);
        QCOMPARE(path.waitNs, 0);
        QCOMPARE(path.deviceEvents, std::size_t(2)); // not the next step's kernel
        // Everything after a halved stretch moves up: each saves half of itself.
        compareWhatIfs(
            path, {{"aten::linear", 10 * kUs}, {"aten::relu", 10 * kUs}, {"outside ops (ProfilerStep#1)", 5 * kUs}});
        QCOMPARE(path.whatIfs[0].node, std::size_t(3));
        QCOMPARE(path.whatIfs[1].node, std::size_t(7));
        QCOMPARE(path.whatIfs[2].node, std::size_t(0));

        // The second step's kernel ends after the step's CPU end: the path reaches it.
        const auto second = buildCriticalPath(*loaded.index, steps[1]);
        QCOMPARE(second.endNs, 1170 * kUs);
        comparePath(second, {{"outside ops (ProfilerStep#2)", PathNodeKind::Cpu, 1100, 10, 0},
                             {"aten::add", PathNodeKind::Cpu, 1110, 10, 0},
                             {"cudaLaunchKernel", PathNodeKind::Launch, 1120, 5, 0},
                             {"add_kernel", PathNodeKind::Device, 1130, 40, 5}});
    }

    // The rows a table shows: consecutive CPU nodes under one top-level op are a group named
    // after it (its durations and waits summed), device nodes and time in no op stand alone;
    // filters keep a group while a node or its sums pass, orders put the longest first.
    void rows()
    {
        const auto loaded = small("cpu");
        QVERIFY(loaded.index);
        const auto steps = profilerSteps(*loaded.index);
        const auto path = buildCriticalPath(*loaded.index, steps[0], 10);
        const auto rows = buildPathRows(*loaded.index, path);
        QCOMPARE(rows.size(), std::size_t(5));
        const std::vector<std::string> names = {"outside ops (ProfilerStep#1)", "aten::linear",
                                                "outside ops (ProfilerStep#1)", "aten::relu",
                                                "outside ops (ProfilerStep#1)"};
        const std::vector<std::int64_t> durations = {10, 40, 5, 35, 10};
        const std::vector<std::size_t> counts = {1, 3, 1, 3, 1};
        std::int64_t sum = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].name, names[i]);
            QCOMPARE(rows[i].durationNs, durations[i] * kUs);
            QCOMPARE(rows[i].nodeCount, counts[i]);
            QCOMPARE(rows[i].group, counts[i] > 1);
            QCOMPARE(rows[i].nodes.size(), counts[i]);
            sum += rows[i].durationNs + rows[i].waitBeforeNs;
        }
        QCOMPARE(sum, path.lengthNs());
        QCOMPARE(rows[1].nodes, (std::vector<std::size_t>{1, 2, 3}));
        QCOMPARE(rows[1].sharePct, 40.0);
        QCOMPARE(rows[1].savedNs, std::int64_t(-1)); // a group has no what-if of its own
        QCOMPARE(rows[0].savedNs, 5 * kUs);          // a lone node keeps its own

        // The longest first, cut to two: the two ops.
        PathRowOptions longest;
        longest.order = PathOrder::Duration;
        longest.top = 2;
        const auto top = buildPathRows(*loaded.index, path, longest);
        QCOMPARE(top.size(), std::size_t(2));
        QCOMPARE(top[0].name, std::string("aten::linear"));
        QCOMPARE(top[1].name, std::string("aten::relu"));

        // Launches only: the groups that hold one, showing only it.
        PathRowOptions launches;
        launches.kinds = kPathLaunch;
        const auto launchRows = buildPathRows(*loaded.index, path, launches);
        QCOMPARE(launchRows.size(), std::size_t(2));
        QCOMPARE(launchRows[0].nodes, (std::vector<std::size_t>{2}));
        QCOMPARE(path.nodes[launchRows[1].nodes[0]].name, std::string("cudaLaunchKernel"));

        // 25 µs or more: no node is, but two groups' sums are.
        PathRowOptions longer;
        longer.minNs = 25 * kUs;
        const auto sums = buildPathRows(*loaded.index, path, longer);
        QCOMPARE(sums.size(), std::size_t(2));
        QVERIFY(sums[0].nodes.empty() && sums[1].nodes.empty());
        QCOMPARE(sums[0].nodeCount, std::size_t(3));

        // Waits: the second step's kernel waited 5 µs on its launch; nothing else waited.
        const auto second = buildCriticalPath(*loaded.index, steps[1]);
        PathRowOptions waits;
        waits.kinds = kPathWait;
        const auto waited = buildPathRows(*loaded.index, second, waits);
        QCOMPARE(waited.size(), std::size_t(1));
        QCOMPARE(waited[0].name, std::string("add_kernel"));
        QCOMPARE(waited[0].kind, PathNodeKind::Device);
        QCOMPARE(waited[0].waitBeforeNs, 5 * kUs);
    }

    // (b) One long kernel and a cudaDeviceSynchronize: launch, kernel, then the sync's time
    // after the kernel ended (its cuda_sync record on the GPU row is no node).
    void gpuBound()
    {
        const auto path = firstStep(small("gpu"));
        QCOMPARE(path.endNs, 1201 * kUs);
        comparePath(path, {{"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1000, 5, 0},
                           {"aten::mm", PathNodeKind::Cpu, 1005, 5, 0},
                           {"cudaLaunchKernel", PathNodeKind::Launch, 1010, 10, 0},
                           {"gemm", PathNodeKind::Device, 1025, 150, 5},
                           {"cudaDeviceSynchronize", PathNodeKind::Sync, 1175, 16, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1191, 10, 0}});
        QCOMPARE(path.cpuNs, 46 * kUs);
        QCOMPARE(path.deviceNs, 150 * kUs);
        QCOMPARE(path.waitNs, 5 * kUs);
        QCOMPARE(path.deviceEvents, std::size_t(1));
        // Halving the kernel moves the sync and what follows 75 us earlier; the sync's own 16 us
        // after the kernel become 8.
        compareWhatIfs(path, {{"gemm", 75 * kUs},
                              {"cudaDeviceSynchronize", 8 * kUs},
                              {"cudaLaunchKernel", 5 * kUs},
                              {"outside ops (ProfilerStep#1)", 5 * kUs},
                              {"outside ops (ProfilerStep#1)", 2500},
                              {"aten::mm", 2500}});
    }

    // (c) Two kernels on two streams: the sync waits for the one that ends last.
    void twoStreams()
    {
        const auto path = firstStep(small("streams"));
        QCOMPARE(path.endNs, 1230 * kUs);
        comparePath(path, {{"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1000, 5, 0},
                           {"cudaLaunchKernel", PathNodeKind::Launch, 1005, 5, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1010, 5, 0},
                           {"cudaLaunchKernel", PathNodeKind::Launch, 1015, 5, 0},
                           {"kernel_b", PathNodeKind::Device, 1022, 200, 2},
                           {"cudaDeviceSynchronize", PathNodeKind::Sync, 1222, 3, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1225, 5, 0}});
        QCOMPARE(path.deviceEvents, std::size_t(2));
        QCOMPARE(path.whatIfs.front().name, std::string("kernel_b"));
        QCOMPARE(path.whatIfs.front().savedNs, 100 * kUs);
    }

    // (d) Halving the kernel saves less than half of it: the sync cannot return before it began
    // (1090, after the CPU's 10 + 80 us) plus its own 10 us, so the step ends at 1110, not 1080.
    void whatIfTakeover()
    {
        const auto path = firstStep(small("takeover"));
        QCOMPARE(path.endNs, 1130 * kUs);
        comparePath(path, {{"cudaLaunchKernel", PathNodeKind::Launch, 1000, 10, 0},
                           {"long_kernel", PathNodeKind::Device, 1010, 100, 0},
                           {"cudaStreamSynchronize", PathNodeKind::Sync, 1110, 10, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1120, 10, 0}});
        compareWhatIfs(path, {{"long_kernel", 20 * kUs},
                              {"cudaLaunchKernel", 5 * kUs},
                              {"cudaStreamSynchronize", 5 * kUs},
                              {"outside ops (ProfilerStep#1)", 5 * kUs}});
        QVERIFY(path.whatIfs[0].savedNs < path.nodes[1].durationNs / 2);
    }

    // A fwdbwd flow from the forward op to the backward thread: the path goes from the op's end
    // to the thread's first node, not from aten::view, which ended later.
    void flowAcrossThreads()
    {
        const auto path = firstStep(small("flow"));
        QCOMPARE(path.endNs, 1150 * kUs);
        comparePath(path, {{"aten::mul", PathNodeKind::Cpu, 1000, 20, 0},
                           {"MulBackward0", PathNodeKind::Cpu, 1030, 5, 10},
                           {"cudaLaunchKernel", PathNodeKind::Launch, 1035, 10, 0},
                           {"mul_backward_kernel", PathNodeKind::Device, 1050, 100, 5}});
    }

    // The same trace without the flow: the backward thread follows the node that ended last
    // before it began on another thread (else the path would begin with a 30 us wait there).
    void forkWithoutFlow()
    {
        const auto path = firstStep(small("fork"));
        QCOMPARE(path.endNs, 1150 * kUs);
        comparePath(path, {{"aten::mul", PathNodeKind::Cpu, 1000, 20, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1020, 2, 0},
                           {"aten::view", PathNodeKind::Cpu, 1022, 4, 0},
                           {"MulBackward0", PathNodeKind::Cpu, 1030, 5, 4},
                           {"cudaLaunchKernel", PathNodeKind::Launch, 1035, 10, 0},
                           {"mul_backward_kernel", PathNodeKind::Device, 1050, 100, 5}});
    }

    // A kernel that began before its launch call returned (only the call's part before it is on
    // the path), then a synchronous cudaMemcpy whose copy follows the kernel on the stream.
    void kernelBeforeLaunchReturns()
    {
        const auto path = firstStep(small("memcpy"));
        QCOMPARE(path.endNs, 1100 * kUs);
        comparePath(path, {{"cudaLaunchKernel", PathNodeKind::Launch, 1000, 5, 0},
                           {"producer", PathNodeKind::Device, 1005, 40, 0},
                           {"Memcpy DtoH (Device -> Pageable)", PathNodeKind::Device, 1045, 35, 0},
                           {"cudaMemcpy", PathNodeKind::Sync, 1080, 10, 0},
                           {"outside ops (ProfilerStep#1)", PathNodeKind::Cpu, 1090, 10, 0}});
        // The copy starts when the kernel ends, so a faster kernel saves all of its half; a
        // faster launch call saves nothing (the kernel was already running).
        compareWhatIfs(path, {{"producer", 20 * kUs},
                              {"Memcpy DtoH (Device -> Pageable)", 17500},
                              {"cudaMemcpy", 5 * kUs},
                              {"outside ops (ProfilerStep#1)", 5 * kUs},
                              {"cudaLaunchKernel", 0}});
    }

    // Without a step: the whole trace, both steps of (a) and the second step's late kernel.
    void wholeTrace()
    {
        const auto loaded = small("cpu");
        const auto path = buildCriticalPath(*loaded.index, EventRef{});
        QCOMPARE(path.step, std::string("trace"));
        QCOMPARE(path.startNs, 1000 * kUs);
        QCOMPARE(path.endNs, 1170 * kUs);
        QCOMPARE(path.deviceEvents, std::size_t(3));
        QCOMPARE(path.nodes.size(), std::size_t(13));
        QCOMPARE(path.nodes[9].name, std::string("ProfilerStep#2"));
        QCOMPARE(path.nodes.back().name, std::string("add_kernel"));
        QCOMPARE(path.waitNs, 5 * kUs);
        checkInvariants(*loaded.index, path, 10);
    }

    void stopped()
    {
        const auto loaded = small("gpu");
        StopToken stop;
        stop.requestStop();
        QCOMPARE(buildCriticalPath(*loaded.index, profilerSteps(*loaded.index).front(), 10, &stop), CriticalPath{});
    }

    void invariants_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto &name : fixtureNames())
            QTest::addRow("%s", name.c_str()) << QString::fromStdString(name);
        for (const auto *name : {"cpu", "gpu", "streams", "takeover", "flow", "fork", "memcpy"})
            QTest::addRow("criticalpath_%s", name) << QString("criticalpath_%1").arg(name);
    }

    void invariants()
    {
        QFETCH(QString, fixture);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.index);
        auto steps = profilerSteps(*loaded.index);
        steps.push_back(EventRef{}); // and the whole trace
        for (const auto &step : steps) {
            for (const std::size_t count : {std::size_t(0), std::size_t(3), std::size_t(10)}) {
                const auto path = buildCriticalPath(*loaded.index, step, count);
                checkInvariants(*loaded.index, path, count);
                if (QTest::currentTestFailed()) {
                    qWarning("%s %s", fixture.toUtf8().constData(), path.step.c_str());
                    return;
                }
                if (step.isValid()) {
                    const auto &track = loaded.trace->track(step.track);
                    QVERIFY(path.endNs >= track.end(step.event));
                }
            }
        }
        // Each step's path is its span on the GPU's clock, whichever way it is asked for.
        for (const auto &span : buildStepSpans(*loaded.index).steps) {
            const auto path = buildCriticalPath(*loaded.index, span, 3);
            QCOMPARE(path.startNs, span.startNs);
            QCOMPARE(path.endNs, span.endNs);
            QCOMPARE(path, buildCriticalPath(*loaded.index, span.event, 3));
        }
    }

    // The window each path covers against the goldens: every ProfilerStep in time order, its
    // start, the end of its last event and the device events it launched; for the whole trace,
    // the end of its last event and every device event.
    void golden_data() { addFixtureRows(); }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto expected = readCsv(goldenPath(name, ".criticalpath.csv"));
        QVERIFY(expected.size() >= 2);
        QCOMPARE(expected.back()[0], std::string("trace"));
        const auto steps = profilerSteps(*loaded.index);
        QCOMPARE(steps.size(), expected.size() - 2);
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &row = expected[r];
            const bool whole = r == expected.size() - 1;
            const auto path = buildCriticalPath(*loaded.index, whole ? EventRef{} : steps[r - 1], 0);
            QCOMPARE(path.step, row[0]);
            if (!whole)
                QCOMPARE(path.startNs, microsToNs(row[1]));
            QCOMPARE(path.endNs, microsToNs(row[2]));
            QCOMPARE(path.deviceEvents, std::size_t(std::stoul(row[3])));
            QCOMPARE(path.nodes.back().startNs + path.nodes.back().durationNs, path.endNs);
        }
    }

    // The whole trace's graph holds every step's events and more: a path over all of it.
    void wholeTraceHoldsMoreThanAStep()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.index);
        const auto steps = profilerSteps(*loaded.index);
        QVERIFY(!steps.empty());
        std::size_t nodes = 0;
        for (const auto &step : steps)
            nodes += buildCriticalPath(*loaded.index, step).graphNodes;
        const auto whole = buildCriticalPath(*loaded.index, EventRef{});
        QVERIFY(whole.graphNodes > nodes / steps.size());
        QCOMPARE(whole.step, std::string("trace"));
        QVERIFY(!whole.nodes.empty());
    }

    // MTIA's host waits in synchronizeStream (lower case, unlike CUDA's calls): a sync, so the
    // device work it waits for is on the path, not 0 µs of it.
    void mtiaSyncsJoinTheDevice()
    {
        const auto loaded = loadTracePath(fixture2026("mtia_inference_rank_0.json.gz"));
        QVERIFY(loaded.index);
        const auto path = buildCriticalPath(*loaded.index, EventRef{}, 0);
        QVERIFY2(path.deviceNs > 0, std::to_string(path.deviceNs).c_str());
        QCOMPARE(path.lengthNs(), loaded.trace->info.spanEnd - loaded.trace->info.spanStart);
    }
};

QTEST_GUILESS_MAIN(TestCriticalPath)
#include "tst_criticalpath.moc"
