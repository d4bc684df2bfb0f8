// CUDA graphs and today's inference traces: the real vLLM trace that replays graphs, against
// goldens an independent Python computation wrote from its JSON
// (scripts/make-graph-fixtures.py), and hand-written traces (a capture, two streams joined by an
// event wait, logical lanes and a counter process) whose figures are worked out here.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/advice.h"
#include "core/analysis/criticalpath.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kernelsequences.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/launches.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

constexpr std::int64_t us = 1000;

std::filesystem::path vllmPath()
{
    return fixture2026("vllm_gb10_cudagraphs.pt.trace.json.gz");
}

nlohmann::json vllmGolden()
{
    std::ifstream in(goldenPath("vllm_gb10_cudagraphs", ".graphs.json"));
    return nlohmann::json::parse(in);
}

Loaded loadText(const QTemporaryDir &dir, const std::string &text)
{
    const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
    std::ofstream(path) << text;
    return loadTracePath(path);
}

// One process with a CPU thread (pid 1, tid 1) and a GPU (pid 0, streams as tids); times in µs.
std::string call(const std::string &name, int ts, int dur, int correlation)
{
    return R"({"ph": "X", "cat": "cuda_runtime", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
           std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"correlation": )" +
           std::to_string(correlation) + "}}";
}

std::string device(const std::string &cat, const std::string &name, int stream, int ts, int dur, int correlation,
                   int graphId = 0)
{
    return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": 0, "tid": )" +
           std::to_string(stream) + R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
           R"(, "args": {"device": 0, "stream": )" + std::to_string(stream) + R"(, "correlation": )" +
           std::to_string(correlation) + R"(, "graph id": )" + std::to_string(graphId) + "}}";
}

std::string traceOf(const std::vector<std::string> &events)
{
    std::string text = R"({"traceEvents": [)";
    for (std::size_t i = 0; i < events.size(); ++i)
        text += (i ? ",\n" : "\n") + events[i];
    return text + "\n]}";
}

} // namespace

class TestGraphReplays : public QObject {
    Q_OBJECT

private slots:
    // Launches count a replay once: per stream, eager launches plus replays, as the golden counts.
    void vllmReplaysAreOneLaunchEach()
    {
        const auto loaded = loadTracePath(vllmPath());
        QVERIFY(loaded.index);
        const auto golden = vllmGolden();
        const auto stats = buildLaunchStats(*loaded.index);
        std::map<std::string, std::uint64_t> perStream;
        for (const auto &g : stats.byStream)
            perStream[std::to_string(g.device) + ":" + std::to_string(g.stream)] = g.count;
        std::map<std::string, std::uint64_t> expected;
        for (const auto &[key, count] : golden["launches_per_stream"].items())
            expected[key] = count.get<std::uint64_t>();
        QCOMPARE(perStream, expected);
        const auto replays =
            std::count_if(stats.launches.begin(), stats.launches.end(), [](const Launch &l) { return l.isReplay(); });
        QCOMPARE(std::uint64_t(replays), golden["replays_per_stream"]["0:7"].get<std::uint64_t>());
        // Every replay's events together: as many as the graph events the golden found.
        std::uint64_t events = 0;
        for (const auto &l : stats.launches)
            events += l.graphEvents;
        QCOMPARE(events, golden["graph_events"].get<std::uint64_t>());
        // A replay groups under its graph's name, not its first kernel's.
        QVERIFY(std::any_of(stats.byKernel.begin(), stats.byKernel.end(),
                            [](const LaunchGroup &g) { return g.name.starts_with("graph "); }));

        const auto graphs = buildGraphReplays(*loaded.index);
        QCOMPARE(graphs.replays.size(), std::size_t(replays));
        QCOMPARE(graphs.graphEvents, golden["graph_events"].get<std::uint64_t>());
        QCOMPARE(graphs.eagerEvents, golden["eager_events"].get<std::uint64_t>());
        std::uint64_t perGraph = 0;
        for (const auto &g : graphs.graphs) {
            QVERIFY(g.graphId > 0);
            QCOMPARE(g.events, golden["graph_kernels"][std::to_string(g.graphId)].get<std::uint64_t>());
            perGraph += g.events;
        }
        QCOMPARE(perGraph, golden["graph_events"].get<std::uint64_t>());
        QVERIFY(graphs.captures.empty());
    }

    // The kernels' rows name the graphs that ran them; a replayed kernel's op is the replay.
    void vllmKernelRowsNameTheirGraphs()
    {
        const auto loaded = loadTracePath(vllmPath());
        QVERIFY(loaded.index);
        const auto golden = vllmGolden();
        const auto table = buildKernelTable(*loaded.index);
        std::set<std::int32_t> ids;
        for (const auto &row : table.rows) {
            ids.insert(row.graphIds.begin(), row.graphIds.end());
            if (row.graphCount == row.count && row.count > 0)
                QCOMPARE(row.launchOp, std::string(kGraphReplayOp));
        }
        const auto expected = golden["graph_ids"].get<std::set<std::int32_t>>();
        QCOMPARE(ids, expected);
        // The FP4 GEMM CUPTI wrote mangled (and cut short) reads as what it is.
        QCOMPARE(table.rows.front().name.substr(0, 5), std::string("_ZN7c"));
        QCOMPARE(shortKernelName(table.rows.front().name), std::string("device_kernel<GemmUniversal<…>>"));
    }

    // The copies on stream 13 wait on stream 7 through an event: the path runs through stream 7's
    // kernels, and its device time is the GPU's busy time (98% of the trace), not a few µs.
    void vllmCriticalPathFollowsTheEventWait()
    {
        const auto loaded = loadTracePath(vllmPath());
        QVERIFY(loaded.index);
        const auto golden = vllmGolden();
        const auto path = buildCriticalPath(*loaded.index, EventRef{}, 2);
        QCOMPARE(path.eventWaits, std::size_t(10));
        const auto busyNs = std::int64_t(golden["device_busy_us"].get<double>() * 1000.0);
        const auto spanNs = std::int64_t(golden["span_us"].get<double>() * 1000.0);
        QVERIFY2(path.deviceNs <= busyNs, std::to_string(path.deviceNs).c_str());
        QVERIFY2(double(path.deviceNs) >= 0.97 * double(busyNs), std::to_string(path.deviceNs).c_str());
        QVERIFY(double(path.deviceNs) / double(spanNs) > 0.95);
        QCOMPARE(path.cpuNs + path.deviceNs + path.waitNs, path.lengthNs());
    }

    // No "use CUDA graphs" to a run that replays them; a finding on the replays instead. The
    // sequences' rows never count a kernel twice.
    void vllmAdviceKnowsGraphs()
    {
        const auto loaded = loadTracePath(vllmPath());
        QVERIFY(loaded.index);
        const auto golden = vllmGolden();
        const auto findings = adviseTrace(*loaded.index);
        for (const auto &f : findings) {
            QVERIFY2(f.fix.find("reduce-overhead") == std::string::npos, f.rule.c_str());
            QVERIFY2(f.fix.find("capture the step with CUDA") == std::string::npos, f.rule.c_str());
        }
        const auto graphs =
            std::find_if(findings.begin(), findings.end(), [](const Finding &f) { return f.rule == "cuda_graphs"; });
        QVERIFY(graphs != findings.end());
        const auto tiny =
            std::find_if(findings.begin(), findings.end(), [](const Finding &f) { return f.rule == "tiny_kernels"; });
        if (tiny != findings.end()) // counts eager kernels only
            QVERIFY(tiny->evidence.front().value <= golden["eager_events"].get<double>());

        SequenceOptions options;
        options.top = 10;
        const auto sequences = findKernelSequences(*loaded.index, options);
        QVERIFY(!sequences.empty());
        std::int64_t total = 0;
        for (const auto &s : sequences)
            total += s.totalNs;
        QVERIFY2(double(total) <= golden["device_sum_us"].get<double>() * 1000.0, std::to_string(total).c_str());
        QVERIFY(std::any_of(sequences.begin(), sequences.end(),
                            [](const KernelSequence &s) { return s.replayedPct == 100.0; }));
    }

    // A capture records three launches that run nothing; the replay then runs three kernels:
    // graph 5, correlation 10, kernels at 100-110, 112-130 and 135-140 µs after a call that ended
    // at 60 µs. Span 40 µs, busy 33 µs, 7 µs idle inside, first-event delay 40 µs.
    void captureAndReplayByHand()
    {
        QTemporaryDir dir;
        const auto loaded = loadText(dir, traceOf({
                                              call("cudaStreamBeginCapture", 1, 2, 1),
                                              call("cudaLaunchKernel", 4, 3, 2),
                                              call("cudaLaunchKernel", 8, 3, 3),
                                              call("cudaLaunchKernel", 12, 3, 4),
                                              call("cudaStreamEndCapture", 16, 2, 5),
                                              call("cudaGraphInstantiate", 20, 10, 6),
                                              call("cudaGraphLaunch", 50, 10, 10),
                                              device("kernel", "k_a", 7, 100, 10, 10, 5),
                                              device("kernel", "k_b", 7, 112, 18, 10, 5),
                                              device("kernel", "k_c", 7, 135, 5, 10, 5),
                                          }));
        QVERIFY(loaded.index);
        const auto graphs = buildGraphReplays(*loaded.index);
        QCOMPARE(graphs.captures.size(), std::size_t(1));
        QCOMPARE(graphs.captures[0].startNs, 1 * us);
        QCOMPARE(graphs.captures[0].endNs, 18 * us);
        QCOMPARE(graphs.captures[0].calls, std::uint64_t(3));
        QCOMPARE(graphs.replays.size(), std::size_t(1));
        const auto &r = graphs.replays[0];
        QCOMPARE(r.graphId, 5);
        QCOMPARE(r.eventCount, 3u);
        QCOMPARE(r.spanNs(), 40 * us);
        QCOMPARE(r.busyNs, 33 * us);
        QCOMPARE(r.gapNs(), 7 * us);
        QCOMPARE(r.delayNs(), 40 * us);
        QCOMPARE(r.longestNs, 18 * us);
        QCOMPARE(graphs.graphs.size(), std::size_t(1));
        QCOMPARE(graphs.graphs[0].longestKernel, std::string("k_b"));
        QCOMPARE(graphs.graphs[0].delayMedianNs, 40 * us);

        const auto stats = buildLaunchStats(*loaded.index);
        QCOMPARE(stats.launches.size(), std::size_t(1));
        QCOMPARE(stats.launches[0].graphEvents, 3u);
        QCOMPARE(stats.launches[0].delayNs, 40 * us);
        QCOMPARE(stats.launches[0].kernelNs, 40 * us);
        QCOMPARE(stats.byKernel.front().name, std::string("graph 5"));
        // One replay queued: the queue never holds more than one launch.
        QCOMPARE(stats.maxQueueLength, 1);
    }

    // Stream 7 runs a 500 µs kernel (100-600); an event recorded after its launch and waited on
    // by stream 13 holds back a 10 µs copy (610-620) launched at 40-50 µs. The CPU then syncs
    // until 630. The path: launch, the kernel, the copy, the sync: 510 µs of device time. Without
    // the wait the copy would follow its own call and the path would miss the kernel.
    void eventWaitJoinsTwoStreams_data()
    {
        QTest::addColumn<bool>("explicitWait");
        QTest::newRow("record and wait calls") << false;
        QTest::newRow("cuda_sync naming the record") << true;
    }

    void eventWaitJoinsTwoStreams()
    {
        QFETCH(bool, explicitWait);
        std::vector<std::string> events{
            call("cudaLaunchKernel", 10, 5, 1),
            device("kernel", "big_gemm", 7, 100, 500, 1),
            call("cudaEventRecord", 20, 2, 2),
            call("cudaMemcpyAsync", 40, 10, 4),
            device("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 13, 610, 10, 4),
            call("cudaStreamSynchronize", 60, 570, 5),
        };
        if (explicitWait)
            events.push_back(
                R"({"ph": "X", "cat": "cuda_sync", "name": "Wait Event", "pid": 0, "tid": 13, "ts": 30, "dur": 0,
                "args": {"device": 0, "stream": 13, "correlation": 3, "wait_on_stream": 7,
                         "wait_on_cuda_event_record_corr_id": 2}})");
        else
            events.push_back(call("cudaStreamWaitEvent", 30, 2, 3));
        QTemporaryDir dir;
        const auto loaded = loadText(dir, traceOf(events));
        QVERIFY(loaded.index);
        if (explicitWait) {
            const auto &track = loaded.trace->tracks;
            const trace::ExtraArgs *extra = nullptr;
            for (std::uint32_t t = 0; t < track.size() && !extra; ++t)
                for (std::uint32_t i = 0; i < track[t].size() && !extra; ++i)
                    extra = loaded.trace->extra(trace::TrackId(t), trace::EventIndex(i));
            QVERIFY(extra);
            QCOMPARE(extra->waitOnCorrelation, std::int64_t(2));
            QCOMPARE(extra->waitOnStream, 7);
        }
        const auto path = buildCriticalPath(*loaded.index, EventRef{});
        QCOMPARE(path.eventWaits, std::size_t(1));
        QCOMPARE(path.deviceNs, 510 * us);
        QVERIFY(
            std::any_of(path.nodes.begin(), path.nodes.end(), [](const PathNode &n) { return n.name == "big_gemm"; }));
    }

    // Newer torch: a graph's kernels on logical lanes (stream 100000 + N) and a process of GPU
    // counters. Lanes are named as lanes; the counters are counter series of that process.
    void logicalLanesAndCounters()
    {
        QTemporaryDir dir;
        const auto loaded =
            loadText(dir, traceOf({
                              R"({"ph": "M", "name": "process_name", "pid": 9, "args": {"name": "GPU 0 Counters"}})",
                              R"({"ph": "C", "name": "SM active", "pid": 9, "ts": 100, "args": {"value": 0.5}})",
                              R"({"ph": "C", "name": "SM active", "pid": 9, "ts": 150, "args": {"value": 0.75}})",
                              R"({"ph": "C", "name": "DRAM bandwidth", "pid": 9, "ts": 100, "args": {"GB/s": 1200}})",
                              call("cudaGraphLaunch", 50, 10, 10),
                              device("kernel", "k_a", 100002, 100, 10, 10, 3),
                              device("kernel", "k_b", 100002, 115, 10, 10, 3),
                          }));
        QVERIFY(loaded.index);
        QCOMPARE(streamName(0, 100002), std::string("cuda:0 lane 2"));
        QCOMPARE(streamName(0, 7), std::string("cuda:0 stream 7"));
        const auto stats = buildLaunchStats(*loaded.index);
        QCOMPARE(stats.byStream.size(), std::size_t(1));
        QCOMPARE(stats.byStream[0].name, std::string("cuda:0 lane 2"));
        QCOMPARE(stats.byStream[0].count, std::uint64_t(1));
        QCOMPARE(stats.launches[0].kernelNs, 25 * us);
        std::map<std::string, std::vector<double>> counters;
        for (const auto &c : loaded.trace->counters) {
            QCOMPARE(loaded.trace->process(c.process).name.substr(0, 14), std::string("GPU 0 Counters"));
            counters[c.name] = c.value;
        }
        // A series is named "name.key" where its key is not its name.
        QCOMPARE(counters["SM active.value"], (std::vector<double>{0.5, 0.75}));
        QCOMPARE(counters["DRAM bandwidth.GB/s"], (std::vector<double>{1200}));
    }

    // Readable names: demangled, return type and parameters gone, deep templates collapsed.
    void kernelNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("shortName");
        QTest::newRow("torch elementwise")
            << "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> "
               ">(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)"
            << "vectorized_elementwise_kernel<4, FillFunctor<…>, array<…>>";
        QTest::newRow("mangled") << "_ZN7cutlass13device_kernelIN4cute6kernelEEEvNT_6ParamsE"
                                 << "device_kernel<kernel>";
        QTest::newRow("anonymous namespace") << "void (anonymous namespace)::softmax_warp_forward<float, float, float, "
                                                "5, false>(float*, float const*, int)"
                                             << "softmax_warp_forward<float, float, float, 5, false>";
        QTest::newRow("copy") << "Memcpy HtoD (Pinned -> Device)"
                              << "Memcpy HtoD (Pinned -> Device)";
        QTest::newRow("triton") << "triton_poi_fused_0"
                                << "triton_poi_fused_0";
    }

    void kernelNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, shortName);
        QCOMPARE(QString::fromStdString(shortKernelName(name.toStdString())), shortName);
        QCOMPARE(demangledKernelName("_ZN7cutlass13device_kernelIN4cute6kernelEEEvNT_6ParamsE"),
                 std::string("void cutlass::device_kernel<cute::kernel>(cute::kernel::Params)"));
    }

    // torch.compile's Triton ops carry their kernel's provenance: 26 kernels on the xDiT trace,
    // each row with the backend, hash and source file of the op that launched it.
    void tritonProvenance()
    {
        const auto loaded = loadTracePath(fixture2026("xdit_sd35_mi300x_compile.json.gz"));
        QVERIFY(loaded.index);
        const auto table = buildKernelTable(*loaded.index);
        std::set<std::string> hashes;
        for (const auto &row : table.rows) {
            if (row.hash.empty())
                continue;
            QCOMPARE(row.backend, std::string("triton"));
            QVERIFY2(row.file.find(row.hash) != std::string::npos, row.file.c_str());
            QVERIFY(row.file.starts_with("/tmp/torchinductor_root/"));
            hashes.insert(row.hash);
        }
        QCOMPARE(hashes.size(), std::size_t(26));
    }
};

QTEST_GUILESS_MAIN(TestGraphReplays)
#include "tst_graphreplays.moc"
