// Launch statistics: a hand-written trace whose delays, medians, outliers and queues were worked
// out by hand, and golden tables an independent Python computation wrote from the real traces
// (scripts/make-launch-fixtures.py).
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/launches.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <array>
#include <fstream>
#include <map>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

constexpr std::int64_t us = 1000; // the hand-written trace is in whole µs
using LaunchTimes = std::vector<std::array<int, 4>>; // call start, call end, kernel start, kernel end (µs)

// The GPU fixtures that have launch goldens.
const std::vector<std::string> &gpuFixtures()
{
    static const std::vector<std::string> names{"a100_alexnet", "h100_bert", "mi250_rocm", "kineto_unordered",
                                                "v100_resnet50"};
    return names;
}

LaunchGroup group(std::string name, std::int32_t device, std::int32_t stream, std::uint64_t count, std::int64_t median,
                  std::int64_t p90, std::int64_t max, std::int64_t total, std::int64_t callMean,
                  std::int64_t kernelMean, std::uint64_t outliers)
{
    return {std::move(name), device, stream, count, median, p90, max, total, callMean, kernelMean, outliers};
}

// 20,000 launches of one kernel with a 400-character name (templated CUDA kernels' names run
// to hundreds): a launch holds the trace's id of the name, so the statistics take about
// sizeof(Launch) and two queue points a launch, not another copy of the name each.
void checkLaunchesShareTheirKernelsName()
{
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
    QSKIP("measures the heap with glibc's mallinfo2");
#else
    constexpr int launches = 20000;
    const std::string name = "void gemm_kernel<" + std::string(374, 'T') + ">(float*)";
    QCOMPARE(name.size(), std::size_t(400));
    QTemporaryDir dir;
    const std::string file = dir.filePath("launches.json").toStdString();
    {
        std::ofstream out(file);
        out << "{\"traceEvents\": [\n";
        for (int i = 1; i <= launches; ++i)
            out << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" << i * 10
                << R"(,"dur":2,"args":{"correlation":)" << i << "}},\n"
                << R"({"ph":"X","cat":"kernel","name":")" << name << R"(","pid":0,"tid":7,"ts":)" << i * 10 + 3
                << R"(,"dur":5,"args":{"device":0,"stream":7,"correlation":)" << i << "}}"
                << (i < launches ? ",\n" : "\n");
        out << "]}\n";
    }
    auto loaded = trace::loadTrace(file);
    QVERIFY(loaded.ok());
    const auto index = buildTraceIndex(*loaded.value());
    const auto before = mallinfo2().uordblks;
    const auto stats = buildLaunchStats(*index);
    const auto grown = mallinfo2().uordblks - before;
    QCOMPARE(stats.launches.size(), std::size_t(launches));
    QCOMPARE(std::string(loaded.value()->string(stats.launches.back().kernelName)), name);
    // A launch, its two queue points (8 + 4 bytes each) and 64 bytes a launch to spare for
    // the groups and the vectors' slack: a copy of the name (400 bytes) a launch would not fit.
    const std::size_t bound = launches * (sizeof(Launch) + 2 * 12 + 64);
    QVERIFY2(grown < bound, qPrintable(QStringLiteral("%1 bytes for %2 launches, bound %3").arg(grown).arg(launches).arg(bound)));
#endif
}

} // namespace

class TestLaunches : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    // 20,000 launches of one kernel with a 400-character name: see launchesShareTheirKernelsName.
    void launchesShareTheirKernelsName() { checkLaunchesShareTheirKernelsName(); }

    // tests/fixtures/analysis/launches_two_streams.json: nine launches on streams 7 and 8; a
    // kernel with correlation 0 and one without a call are left out.
    // Which case a trace is in, and how long the GPU sat idle with nothing queued, from two
    // hand-written loops on stream 7 (calls 1 call each, times in µs).
    void queueVerdict_data()
    {
        QTest::addColumn<LaunchTimes>("launches");
        QTest::addColumn<std::int64_t>("windowNs");
        QTest::addColumn<std::int64_t>("emptyNs");
        QTest::addColumn<std::int64_t>("depthNsSum");
        QTest::addColumn<int>("bound");
        // GPU-bound: four launches 1 µs apart, kernels of 10 µs back to back from 5 µs. Queue: 1
        // over [0,1), 2 over [1,2), 3 over [2,3), 4 over [3,15), 3, 2, 1 over the next 10 µs each;
        // never empty over 0-45. Depth 1 + 2 + 3 + 4x12 + 3x10 + 2x10 + 1x10 = 114 launch-µs,
        // mean 114 / 45 = 2.53 >= 2. Delays 4 + 13 + 22 + 31 = 70 µs: more than the 45 µs window.
        QTest::addRow("GPU-bound") << LaunchTimes{{0, 1, 5, 15}, {1, 2, 15, 25}, {2, 3, 25, 35}, {3, 4, 35, 45}}
                                   << std::int64_t(45 * us) << std::int64_t(0) << std::int64_t(114 * us)
                                   << int(LaunchBound::GpuBound);
        // CPU-bound: a 5 µs call every 20 µs, its 2 µs kernel 1 µs after the call. Queue 1 over
        // [0,8), [20,28), [40,48), empty over [8,20) and [28,40): 24 of 48 µs idle with nothing
        // queued (50%); depth 3 x 8 = 24 launch-µs over 24 µs queued, mean 1 < 2.
        QTest::addRow("CPU-bound") << LaunchTimes{{0, 5, 6, 8}, {20, 25, 26, 28}, {40, 45, 46, 48}}
                                   << std::int64_t(48 * us) << std::int64_t(24 * us) << std::int64_t(24 * us)
                                   << int(LaunchBound::CpuBound);
    }

    void queueVerdict()
    {
        QFETCH(LaunchTimes, launches);
        QFETCH(std::int64_t, windowNs);
        QFETCH(std::int64_t, emptyNs);
        QFETCH(std::int64_t, depthNsSum);
        QFETCH(int, bound);
        QTemporaryDir dir;
        const std::string file = dir.filePath("queue.json").toStdString();
        {
            std::ofstream out(file);
            out << "{\"traceEvents\": [\n";
            for (std::size_t i = 0; i < launches.size(); ++i) {
                const auto &[callStart, callEnd, kernelStart, kernelEnd] = launches[i];
                out << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" << callStart
                    << R"(,"dur":)" << callEnd - callStart << R"(,"args":{"correlation":)" << i + 1 << "}},\n"
                    << R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" << kernelStart << R"(,"dur":)"
                    << kernelEnd - kernelStart << R"(,"args":{"device":0,"stream":7,"correlation":)" << i + 1 << "}}"
                    << (i + 1 < launches.size() ? ",\n" : "\n");
            }
            out << "]}\n";
        }
        auto loaded = trace::loadTrace(file);
        QVERIFY(loaded.ok());
        const auto stats = buildLaunchStats(*buildTraceIndex(*loaded.value()));
        QCOMPARE(stats.launches.size(), launches.size());
        QCOMPARE(stats.queues.size(), std::size_t(1));
        const auto &q = stats.queues.front();
        QCOMPARE(q.windowNs, windowNs);
        QCOMPARE(q.emptyNs, emptyNs);
        QCOMPARE(q.depthNsSum, depthNsSum);
        QCOMPARE(int(stats.queue.bound), bound);
        QCOMPARE(stats.queue.emptyShare(), double(emptyNs) / double(windowNs));
        const auto text = QString::fromStdString(describeQueues(stats.queue));
        QVERIFY2(text.startsWith(bound == int(LaunchBound::GpuBound) ? QStringLiteral("GPU-bound") : QStringLiteral("CPU-bound")), qPrintable(text));
    }

    // The device's idle time is the union over its streams: a copy stream that runs two short
    // copies 40 µs apart beside the GPU-bound loop of queueVerdict (stream 7, queued over 0-45)
    // leaves the device busy throughout. Summed per stream it would read 38 of 87 µs idle.
    void idleIsOverTheDevicesStreams()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath("two.json").toStdString();
        {
            std::ofstream out(file);
            out << "{\"traceEvents\": [\n";
            const LaunchTimes loop{{0, 1, 5, 15}, {1, 2, 15, 25}, {2, 3, 25, 35}, {3, 4, 35, 45}};
            const LaunchTimes copies{{0, 1, 1, 2}, {40, 41, 41, 42}};
            int correlation = 1;
            for (const auto &[times, stream] : {std::pair{loop, 7}, std::pair{copies, 8}})
                for (const auto &[callStart, callEnd, kernelStart, kernelEnd] : times) {
                    out << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)"
                        << callStart << R"(,"dur":)" << callEnd - callStart << R"(,"args":{"correlation":)"
                        << correlation << "}},\n"
                        << R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":)" << stream << R"(,"ts":)"
                        << kernelStart << R"(,"dur":)" << kernelEnd - kernelStart << R"(,"args":{"device":0,"stream":)"
                        << stream << R"(,"correlation":)" << correlation << "}},\n";
                    ++correlation;
                }
            out << R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":1})"
                << "]}\n";
        }
        auto loaded = trace::loadTrace(file);
        QVERIFY(loaded.ok());
        const auto stats = buildLaunchStats(*buildTraceIndex(*loaded.value()));
        QCOMPARE(stats.queues.size(), std::size_t(2));
        QCOMPARE(stats.queues[1].emptyNs, std::int64_t(38 * us)); // the copy stream alone
        QCOMPARE(stats.queue.windowNs, std::int64_t(45 * us));
        QCOMPARE(stats.queue.emptyNs, std::int64_t(0));
        QCOMPARE(stats.queue.bound, LaunchBound::GpuBound);
    }

    void handWritten()
    {
        const auto loaded = loadFixture("launches_two_streams");
        QVERIFY(loaded.index);
        const auto stats = buildLaunchStats(*loaded.index);
        // Kernel start (µs) -> (name, stream, call start µs, delay ns).
        struct Expected {
            std::int64_t start;
            const char *name;
            std::int32_t stream;
            std::int64_t callStart;
            std::int64_t delay;
            bool outlier;
        };
        const Expected expected[] = {
            {10, "gemm", 7, 0, 5 * us, false},
            {21, "gemm", 8, 16, 1 * us, false},
            {30, "gemm", 7, 6, 20 * us, false},
            {32, "Memcpy HtoD (Pageable -> Device)", 8, 26, 2 * us, false},
            {40, "relu", 7, 11, 25 * us, false},
            {46, "relu", 7, 30, 14 * us, false},
            // Correlation 7 has three calls: the one that ended last before the kernel (40-42).
            {50, "gemm", 8, 40, 8 * us, false},
            // Clock skew: the call (another thread) starts after the kernel ended.
            {70, "relu", 8, 80, -13 * us, false},
            // 175 µs > 4 x the gemm median (8 µs), and 167 µs above it.
            {200, "gemm", 7, 21, 175 * us, true},
        };
        QCOMPARE(stats.launches.size(), std::size(expected));
        for (std::size_t i = 0; i < std::size(expected); ++i) {
            const auto &l = stats.launches[i];
            const auto &e = expected[i];
            QCOMPARE(l.kernelStartNs, e.start * us);
            QCOMPARE(std::string(loaded.trace->string(l.kernelName)), std::string(e.name));
            QCOMPARE(l.device, 0);
            QCOMPARE(l.stream, e.stream);
            QCOMPARE(l.callStartNs, e.callStart * us);
            QCOMPARE(l.delayNs, e.delay);
            QCOMPARE(l.outlier, e.outlier);
            QCOMPARE(l.delayNs, l.kernelStartNs - l.callStartNs - l.callNs);
        }
        QCOMPARE(stats.launches[6].correlation, std::int64_t(7));
        QCOMPARE(stats.launches[6].callNs, 2 * us);
        QCOMPARE(stats.launches[7].callNs, 3 * us);
        QCOMPARE(stats.launches[7].kernelNs, 5 * us);

        // gemm delays 1, 5, 8, 20, 175 µs; relu -13, 14, 25 µs; memcpy 2 µs.
        const std::vector<LaunchGroup> byKernel{
            group("gemm", -1, -1, 5, 8 * us, 175 * us, 175 * us, 209 * us, 3800, 11 * us, 1),
            group("relu", -1, -1, 3, 14 * us, 25 * us, 25 * us, 26 * us, 3 * us, 4666, 0),
            group("Memcpy HtoD (Pageable -> Device)", -1, -1, 1, 2 * us, 2 * us, 2 * us, 2 * us, 4 * us, 8 * us, 0),
        };
        QCOMPARE(stats.byKernel, byKernel);
        // Stream 7: 5, 14, 20, 25, 175 µs; stream 8: -13, 1, 2, 8 µs (median: the lower middle).
        const std::vector<LaunchGroup> byStream{
            group("cuda:0 stream 7", 0, 7, 5, 20 * us, 175 * us, 175 * us, 239 * us, 3800, 9800, 1),
            group("cuda:0 stream 8", 0, 8, 4, 1 * us, 8 * us, 8 * us, -2 * us, 3250, 7 * us, 0),
        };
        QCOMPARE(stats.byStream, byStream);

        // Stream 7: calls at 0, 6, 11, 21 and 30 µs; kernels end at 30, 40, 45, 50, 210. The call at
        // 30 and the kernel ending at 30 cancel out: the queue stays at 4.
        QCOMPARE(stats.queues.size(), std::size_t(2));
        const auto &q7 = stats.queues[0];
        QCOMPARE(q7.stream, 7);
        QCOMPARE(q7.timeNs,
                 (std::vector<std::int64_t>{0, 6 * us, 11 * us, 21 * us, 40 * us, 45 * us, 50 * us, 210 * us}));
        QCOMPARE(q7.length, (std::vector<std::int32_t>{1, 2, 3, 4, 3, 2, 1, 0}));
        QCOMPARE(q7.maxLength, 4);
        QCOMPARE(q7.maxAtNs, 21 * us);
        // Stream 8: calls at 16, 26, 40 (when the memcpy ends: no change); the skewed launch
        // counts from its kernel's start (70) to its end (75).
        const auto &q8 = stats.queues[1];
        QCOMPARE(q8.stream, 8);
        QCOMPARE(q8.timeNs, (std::vector<std::int64_t>{16 * us, 26 * us, 31 * us, 55 * us, 70 * us, 75 * us}));
        QCOMPARE(q8.length, (std::vector<std::int32_t>{1, 2, 1, 0, 1, 0}));
        QCOMPARE(q8.maxLength, 2);
        QCOMPARE(q8.maxAtNs, 26 * us);
        QCOMPARE(stats.maxQueueLength, 4);
    }

    // Only kernels that start in range; medians and outliers over those alone.
    void range()
    {
        const auto loaded = loadFixture("launches_two_streams");
        QVERIFY(loaded.index);
        const auto stats = buildLaunchStats(*loaded.index, TimeRange{40 * us, 100 * us});
        QCOMPARE(stats.launches.size(), std::size_t(4));
        QCOMPARE(stats.launches.front().kernelStartNs, 40 * us);
        QCOMPARE(stats.launches.back().kernelStartNs, 70 * us);
        const std::vector<LaunchGroup> byKernel{
            group("relu", -1, -1, 3, 14 * us, 25 * us, 25 * us, 26 * us, 3 * us, 4666, 0),
            group("gemm", -1, -1, 1, 8 * us, 8 * us, 8 * us, 8 * us, 2 * us, 5 * us, 0),
        };
        QCOMPARE(stats.byKernel, byKernel);
        QCOMPARE(stats.maxQueueLength, 2); // stream 7: the calls at 11 and 30 µs
    }

    // tests/fixtures/analysis/launches_reused_ids.json: correlation 5 is used twice. The pageable
    // copy runs inside its cudaMemcpyAsync (10-20 µs), so its call is the one that started last
    // before it, not the one that ended last (0-2 µs). Id 8's calls both start after the kernel
    // (clock skew): the first of them.
    void reusedIds()
    {
        const auto loaded = loadFixture("launches_reused_ids");
        QVERIFY(loaded.index);
        const auto stats = buildLaunchStats(*loaded.index);
        QCOMPARE(stats.launches.size(), std::size_t(3));
        QCOMPARE(stats.launches[0].callStartNs, 0 * us);
        QCOMPARE(stats.launches[0].delayNs, 2 * us);
        QCOMPARE(std::string(loaded.trace->string(stats.launches[1].kernelName)), std::string("Memcpy DtoH (Device -> Pageable)"));
        QCOMPARE(stats.launches[1].callStartNs, 10 * us);
        QCOMPARE(stats.launches[1].delayNs, -8 * us);
        QCOMPARE(stats.launches[2].callStartNs, 40 * us);
        QCOMPARE(stats.launches[2].delayNs, -11 * us);
        // The skewed launch is queued from its kernel's start, 30 µs.
        QCOMPARE(stats.queues.size(), std::size_t(1));
        QCOMPARE(stats.queues[0].timeNs, (std::vector<std::int64_t>{0, 6 * us, 10 * us, 17 * us, 30 * us, 32 * us}));
        QCOMPARE(stats.queues[0].length, (std::vector<std::int32_t>{1, 0, 1, 0, 1, 0}));
        QCOMPARE(stats.maxQueueLength, 1);
    }

    void callLookup()
    {
        const auto loaded = loadFixture("launches_two_streams");
        QVERIFY(loaded.index);
        const auto &trace = *loaded.trace;
        const auto calls = launchCalls(*loaded.index);
        QCOMPARE(calls.byTrack.size(), trace.tracks.size());
        std::size_t matched = 0;
        std::size_t unmatched = 0;
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &ti = loaded.index->tracks[t];
            for (std::uint32_t i = 0; i < trace.tracks[t].size(); ++i) {
                const auto call = calls.of(trace::TrackId(t), i);
                if (!isDeviceKind(ti.kind[i])) {
                    QVERIFY(!call.isValid());
                    continue;
                }
                call.isValid() ? ++matched : ++unmatched;
            }
        }
        QCOMPARE(matched, std::size_t(9));
        QCOMPARE(unmatched, std::size_t(2)); // correlation 0, and 99 without a call
    }

    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto &name : gpuFixtures())
            QTest::addRow("%s", name.c_str()) << QString::fromStdString(name);
    }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto stats = buildLaunchStats(*loaded.index);

        const auto expected = readCsv(goldenPath(name, ".launches.csv"));
        QVERIFY(expected.size() > 1);
        QCOMPARE(stats.byKernel.size(), expected.size() - 1);
        std::map<std::string, LaunchGroup> rows;
        for (const auto &g : stats.byKernel)
            rows[g.name] = g;
        std::uint64_t count = 0;
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto it = rows.find(e[0]);
            QVERIFY2(it != rows.end(), e[0].c_str());
            const auto &g = it->second;
            QCOMPARE(g.count, std::stoull(e[1]));
            QCOMPARE(g.delayMedianNs, std::stoll(e[2]));
            QCOMPARE(g.delayP90Ns, std::stoll(e[3]));
            QCOMPARE(g.delayMaxNs, std::stoll(e[4]));
            QCOMPARE(g.delayTotalNs, std::stoll(e[5]));
            QCOMPARE(g.callMeanNs, std::stoll(e[6]));
            QCOMPARE(g.kernelMeanNs, std::stoll(e[7]));
            QCOMPARE(g.outliers, std::stoull(e[8]));
            count += g.count;
        }
        // Every device event with a matching call is a launch, and only those.
        QCOMPARE(std::uint64_t(stats.launches.size()), count);
        for (std::size_t i = 1; i < stats.byKernel.size(); ++i)
            QVERIFY(stats.byKernel[i - 1].delayTotalNs >= stats.byKernel[i].delayTotalNs);

        const auto queues = readCsv(goldenPath(name, ".launchqueues.csv"));
        QCOMPARE(stats.byStream.size(), queues.size() - 1);
        QCOMPARE(stats.queues.size(), queues.size() - 1);
        std::int32_t maxQueue = 0;
        for (std::size_t r = 1; r < queues.size(); ++r) {
            const auto &e = queues[r];
            const auto &s = stats.byStream[r - 1];
            const auto &q = stats.queues[r - 1];
            QCOMPARE(s.device, std::stoi(e[0]));
            QCOMPARE(s.stream, std::stoi(e[1]));
            QCOMPARE(s.name, streamName(s.device, s.stream));
            QCOMPARE(s.count, std::stoull(e[2]));
            QCOMPARE(q.device, s.device);
            QCOMPARE(q.stream, s.stream);
            QCOMPARE(q.maxLength, std::stoi(e[3]));
            QCOMPARE(q.maxAtNs, std::stoll(e[4]));
            QCOMPARE(q.windowNs, std::stoll(e[5]));
            QCOMPARE(q.emptyNs, std::stoll(e[6]));
            QCOMPARE(q.depthNsSum, std::stoll(e[7]));
            QCOMPARE(q.length.back(), 0);
            maxQueue = std::max(maxQueue, q.maxLength);
        }
        QCOMPARE(stats.maxQueueLength, maxQueue);
        // Each device's idle time over the union of its streams.
        std::int64_t window = 0, empty = 0;
        const auto devices = readCsv(goldenPath(name, ".launchdevices.csv"));
        QVERIFY(devices.size() > 1);
        for (std::size_t r = 1; r < devices.size(); ++r) { // after the header
            window += std::stoll(devices[r][1]);
            empty += std::stoll(devices[r][2]);
        }
        QCOMPARE(stats.queue.windowNs, window);
        QCOMPARE(stats.queue.emptyNs, empty);
        // v100_resnet50.launchqueues.csv: one stream, 100913985000 launch-ns over 996637000 -
        // 363053000 = 633584000 ns queued: 159 launches deep while work is queued, but empty for
        // 363053000 / 996637000 = 36.4% of the window, above kHostBoundEmptyShare: the GPU waits
        // for the CPU (its DataLoader runs in the main process) that long, so the one verdict is
        // CPU-bound, and the sentence says the queue is deep when it holds work.
        if (name == "v100_resnet50") {
            QCOMPARE(stats.queue.bound, LaunchBound::CpuBound);
            const auto text = describeQueues(stats.queue);
            QVERIFY2(text.find("159.3 launches waited") != std::string::npos, text.c_str());
            QVERIFY2(text.find("for 36% of its time: then it waits for the CPU") != std::string::npos, text.c_str());
        }
    }

    // On every fixture: launches in kernel start order, each call a runtime event with the
    // kernel's correlation id; CPU traces have none.
    void invariants_data() { addFixtureRows(); }

    void invariants()
    {
        QFETCH(QString, fixture);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.index);
        const auto &trace = *loaded.trace;
        const auto stats = buildLaunchStats(*loaded.index);
        QCOMPARE(stats.launches.empty(), !loaded.index->hasDevice);
        std::uint64_t outliers = 0;
        for (std::size_t i = 0; i < stats.launches.size(); ++i) {
            const auto &l = stats.launches[i];
            if (i > 0)
                QVERIFY(stats.launches[i - 1].kernelStartNs <= l.kernelStartNs);
            QCOMPARE(loaded.index->track(l.call.track).kind[l.call.event.value], EventKind::Runtime);
            QVERIFY(isDeviceKind(loaded.index->track(l.kernel.track).kind[l.kernel.event.value]));
            QCOMPARE(trace.eventArgs(l.call.track, l.call.event)->correlation, l.correlation);
            QCOMPARE(trace.eventArgs(l.kernel.track, l.kernel.event)->correlation, l.correlation);
            QVERIFY(l.correlation > 0);
            outliers += l.outlier ? 1 : 0;
        }
        std::uint64_t kernelOutliers = 0;
        for (const auto &g : stats.byKernel)
            kernelOutliers += g.outliers;
        std::uint64_t streamOutliers = 0;
        for (const auto &g : stats.byStream)
            streamOutliers += g.outliers;
        QCOMPARE(kernelOutliers, outliers);
        QCOMPARE(streamOutliers, outliers);
    }

    void names()
    {
        QCOMPARE(streamName(0, 7), std::string("cuda:0 stream 7"));
        QCOMPARE(streamName(-1, 3), std::string("stream 3"));
    }
};

QTEST_GUILESS_MAIN(TestLaunches)
#include "tst_launches.moc"
