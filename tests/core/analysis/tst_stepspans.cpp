// Steps on the GPU's clock: device work belongs to the step that launched it, on a hand-written
// trace where the CPU runs one step ahead; every expected figure is worked out by hand below.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/criticalpath.h"
#include "core/analysis/distributed.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/steps.h"
#include "core/analysis/stepspans.h"
#include "core/analysis/utilization.h"
#include "core/trace/combine.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <fstream>
#include <map>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

constexpr std::int64_t us = 1000; // the trace is in whole µs

// tests/fixtures/analysis/steps_cpu_ahead.json, in µs:
//  CPU: ProfilerStep#0 0-10000, #1 10000-20000, #2 20000-30000; step N calls cudaLaunchKernel
//       (10 µs) at 10000N + 1000 (correlation 10N + 1) and at 10000N + 5000 (10N + 2).
//  stream 7: step N's kernels run one step later: a GEMM 10000(N+1) + 1000 to + 5000 and an
//       NCCL all-reduce 10000(N+1) + 6000 to + 9000;
//  stream 8: a memcpy 29500-30200 with no correlation id: it goes by time, to #2 (its start
//       is in #2's CPU span).
// So the GPU spans are #0 11000-19000, #1 21000-29000, #2 29500-39000, and the steps' spans
// (from the later of CPU start and the previous span's end to the later of CPU end and GPU
// end) 0-19000, 19000-29000, 29000-39000.
Loaded cpuAhead()
{
    return loadFixture("steps_cpu_ahead");
}

StreamIdle idleRow(std::string step, std::int32_t stream, std::int64_t span, std::int64_t busy, std::int64_t host,
                   std::int64_t kernel, std::int64_t other)
{
    return {std::move(step), 0, stream, span * us, busy * us, {host * us, kernel * us, other * us}};
}

} // namespace

class TestStepSpans : public QObject {
    Q_OBJECT

private slots:
    void spans()
    {
        const auto loaded = cpuAhead();
        QVERIFY(loaded.index);
        const auto s = buildStepSpans(*loaded.index);
        QCOMPARE(s.steps.size(), std::size_t(3));
        const std::int64_t cpu[3][2] = {{0, 10000}, {10000, 20000}, {20000, 30000}};
        const std::int64_t gpu[3][2] = {{11000, 19000}, {21000, 29000}, {29500, 39000}};
        const std::int64_t span[3][2] = {{0, 19000}, {19000, 29000}, {29000, 39000}};
        const std::uint64_t events[3] = {2, 2, 3};
        for (std::size_t i = 0; i < 3; ++i) {
            const auto &step = s.steps[i];
            QCOMPARE(step.name, "ProfilerStep#" + std::to_string(i));
            QCOMPARE(step.cpuStartNs, cpu[i][0] * us);
            QCOMPARE(step.cpuEndNs, cpu[i][1] * us);
            QCOMPARE(step.gpuStartNs, gpu[i][0] * us);
            QCOMPARE(step.gpuEndNs, gpu[i][1] * us);
            QCOMPARE(step.startNs, span[i][0] * us);
            QCOMPARE(step.endNs, span[i][1] * us);
            QCOMPARE(step.deviceEvents, events[i]);
        }
        QCOMPARE(s.byLaunch, std::uint64_t(6));
        QCOMPARE(s.byTime, std::uint64_t(1));
        QCOMPARE(stepAtCpuTime(s.steps, 10000 * us), 1);
        QCOMPARE(stepAtCpuTime(s.steps, 30000 * us), kNoStep);
    }

    // A job's combined Timeline: two ranks side by side, rank 1 shifted by 3000 µs so that their
    // steps overlap. Each rank's device work belongs to its own rank's steps (rank 0's launch at
    // 5000 lies in rank 1's step #0 too), so each rank's steps are the single trace's, shifted.
    void stepsOfEachRankInACombinedTrace()
    {
        const auto single = cpuAhead();
        QVERIFY(single.index);
        const auto alone = buildStepSpans(*single.index);
        constexpr std::int64_t offset = 3000 * us;
        const auto combined = trace::combineTraces({{single.trace, 0, "rank 0"}, {single.trace, offset, "rank 1"}});
        QVERIFY(combined);
        const auto index = buildTraceIndex(*combined);
        const auto s = buildStepSpans(*index);
        QCOMPARE(s.steps.size(), std::size_t(6));
        std::map<std::uint32_t, std::vector<const StepSpan *>> byPart;
        for (const auto &step : s.steps)
            byPart[step.part].push_back(&step);
        QCOMPARE(byPart.size(), std::size_t(2));
        for (const auto &[part, steps] : byPart) {
            const std::int64_t shift = part == 0 ? 0 : offset;
            QCOMPARE(steps.size(), alone.steps.size());
            for (std::size_t i = 0; i < steps.size(); ++i) {
                const auto &expected = alone.steps[i];
                QCOMPARE(steps[i]->name, expected.name);
                QCOMPARE(steps[i]->deviceEvents, expected.deviceEvents);
                QCOMPARE(steps[i]->gpuStartNs, expected.gpuStartNs + shift);
                QCOMPARE(steps[i]->gpuEndNs, expected.gpuEndNs + shift);
                QCOMPARE(steps[i]->startNs, expected.startNs + shift);
                QCOMPARE(steps[i]->endNs, expected.endNs + shift);
                // Each rank's critical path is its own: the same length and kernels as alone.
                const auto path = buildCriticalPath(*index, *steps[i]);
                const auto own = buildCriticalPath(*single.index, expected);
                QCOMPARE(path.lengthNs(), own.lengthNs());
                QCOMPARE(path.deviceEvents, own.deviceEvents);
                QCOMPARE(path.deviceNs, own.deviceNs);
            }
        }
        QCOMPARE(s.byLaunch, 2 * alone.byLaunch);
        QCOMPARE(s.byTime, 2 * alone.byTime);
    }

    // Within each span, whatever ran then, by the TensorBoard plugin's priority:
    //  #0 0-19000: kernels 11000-15000 and 16000-19000 = 7000; calls 1000, 5000 and 15000 (10
    //     each, the one at 11000 is under a kernel) = 30; other 19000 - 7030 = 11970;
    //  #1 19000-29000: kernels 21000-25000, 26000-29000 = 7000; the call at 25000 = 10 (the one
    //     at 21000 is under a kernel); other 10000 - 7010 = 2990;
    //  #2 29000-39000: kernels 31000-35000, 36000-39000 = 7000; memcpy 700; other 2300.
    void breakdown()
    {
        const auto loaded = cpuAhead();
        QVERIFY(loaded.index);
        const auto b = buildStepBreakdown(*loaded.index);
        QCOMPARE(b.steps.size(), std::size_t(3));
        const std::int64_t kernel[3] = {7000, 7000, 7000};
        const std::int64_t memcpy[3] = {0, 0, 700};
        const std::int64_t runtime[3] = {30, 10, 0};
        const std::int64_t other[3] = {11970, 2990, 2300};
        const std::int64_t duration[3] = {19000, 10000, 10000};
        for (std::size_t i = 0; i < 3; ++i) {
            const auto &row = b.steps[i];
            QCOMPARE(row.durationNs, duration[i] * us);
            QCOMPARE(row.ns(StepCategory::Kernel), kernel[i] * us);
            QCOMPARE(row.ns(StepCategory::Memcpy), memcpy[i] * us);
            QCOMPARE(row.ns(StepCategory::Runtime), runtime[i] * us);
            QCOMPARE(row.ns(StepCategory::Other), other[i] * us);
            QCOMPARE(row.gpuBusyNs, (kernel[i] + memcpy[i]) * us);
            QCOMPARE(row.cpuEndNs - row.cpuStartNs, 10000 * us);
        }
        QCOMPARE(b.steps[0].gpuStartNs, 11000 * us);
        QCOMPARE(b.steps[2].gpuEndNs, 39000 * us);
        // Utilization over the steps: (3 x 7000 + 700) / 39000.
        const auto u = gpuUtilization(*loaded.index, b.steps);
        QCOMPARE(u.devices.size(), std::size_t(1));
        QCOMPARE(u.devices[0].busyNs, 21700 * us);
        QCOMPARE(u.devices[0].spanNs, 39000 * us);
    }

    // Per stream over each span; a gap's cause comes from the event that ends it:
    //  #0 stream 7: 0-11000 the GEMM launched at 1000, after the gap began (host wait 11000);
    //     15000-16000 the all-reduce launched at 5000 (kernel wait 1000); busy 7000;
    //  #1 stream 7: 19000-21000 and 25000-26000, both launched before (kernel wait 3000);
    //  #2 stream 7: 29000-31000 and 35000-36000 (kernel wait 3000);
    //  #2 stream 8: 29000-29500 before the memcpy, which has no call, and 30200-39000 (other
    //     500 + 8800 = 9300); busy 700.
    void idle()
    {
        const auto loaded = cpuAhead();
        QVERIFY(loaded.index);
        const auto b = buildIdleBreakdown(*loaded.index);
        const std::vector<StreamIdle> rows{
            idleRow("ProfilerStep#0", 7, 19000, 7000, 11000, 1000, 0),
            idleRow("ProfilerStep#1", 7, 10000, 7000, 0, 3000, 0),
            idleRow("ProfilerStep#2", 7, 10000, 7000, 0, 3000, 0),
            idleRow("ProfilerStep#2", 8, 10000, 700, 0, 0, 9300),
        };
        QCOMPARE(b.streams, rows);
        const std::array<std::int64_t, kIdleCauseCount> total{11000 * us, 7000 * us, 9300 * us};
        QCOMPARE(b.totalNs, total);
    }

    // Each step's own kernels: a GEMM of 4000 and an all-reduce of 3000; #2 also the memcpy.
    void kernelTypes()
    {
        const auto loaded = cpuAhead();
        QVERIFY(loaded.index);
        const auto s = buildStepSpans(*loaded.index);
        const auto first = buildKernelTypeBreakdown(*loaded.index, s, 0);
        QCOMPARE(first.rows.size(), std::size_t(2));
        QCOMPARE(first.rows[0].type, KernelType::Gemm);
        QCOMPARE(first.rows[0].totalNs, 4000 * us);
        QCOMPARE(first.rows[1].type, KernelType::Communication);
        QCOMPARE(first.rows[1].totalNs, 3000 * us);
        const auto last = buildKernelTypeBreakdown(*loaded.index, s, 2);
        QCOMPARE(last.totalNs, 7700 * us);
        QCOMPARE(last.rows.back().type, KernelType::Memory);
        QCOMPARE(last.rows.back().calls, std::uint64_t(1));
    }

    // Per-step computation and communication are the step's own kernels (4000 and 3000 each);
    // the window runs from the first step's start to the last one's GPU end, 0-39000: compute
    // 3 x 4000, communication 3 x 3000, memory 700, idle 39000 - 21700 = 17300.
    void rankSteps()
    {
        const auto loaded = cpuAhead();
        QVERIFY(loaded.index);
        const auto f = rankFigures(*loaded.index);
        QCOMPARE(f.steps.size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i) {
            const auto &step = f.steps[i];
            QCOMPARE(step.startNs, std::int64_t(i) * 10000 * us);
            QCOMPARE(step.durationNs, 10000 * us);
            QCOMPARE(step.computeNs, 4000 * us);
            QCOMPARE(step.communicationNs, 3000 * us);
        }
        QCOMPARE(f.steps[0].gpuStartNs, 11000 * us);
        QCOMPARE(f.steps[0].gpuEndNs, 19000 * us);
        QCOMPARE(f.windowStartNs, 0);
        QCOMPARE(f.windowEndNs, 39000 * us);
        QCOMPARE(f.computeNs, 12000 * us);
        QCOMPARE(f.communicationNs, 9000 * us);
        QCOMPARE(f.memoryNs, 700 * us);
        QCOMPARE(f.idleNs, 17300 * us);
        QCOMPARE(f.stepTimeUs, 10000.0);
    }

    // A step's critical path covers the step's span, on the GPU's clock: #1 runs from 19000
    // (where #0's work ended; its CPU start, 10000, overlaps #0's kernels) to 29000, where its
    // own kernels (launched at 11000 and 15000, run 21000-25000 and 26000-29000) end; so its
    // length is the step's 10000, never its CPU start to its GPU end (19000), and no node lies
    // outside the span nor is one of #2's kernels (which end at 39000).
    void criticalPathCoversTheStepsSpan()
    {
        const auto loaded = cpuAhead();
        QVERIFY(loaded.index);
        const auto s = buildStepSpans(*loaded.index);
        for (std::size_t i = 0; i < s.steps.size(); ++i) {
            const auto &step = s.steps[i];
            const auto path = buildCriticalPath(*loaded.index, step.event);
            QCOMPARE(path.startNs, step.startNs);
            QCOMPARE(path.endNs, step.endNs);
            QCOMPARE(path.lengthNs(), step.durationNs());
            std::int64_t sum = 0;
            for (const auto &n : path.nodes) {
                QVERIFY(n.startNs >= step.startNs);
                QVERIFY(n.startNs + n.durationNs <= step.endNs);
                sum += n.waitBeforeNs + n.durationNs;
                QVERIFY(n.sharePct <= 100.0);
            }
            QCOMPARE(sum, step.durationNs());
            QCOMPARE(path.deviceEvents, std::size_t(2));
        }
        const auto path = buildCriticalPath(*loaded.index, s.steps[1].event);
        QCOMPARE(path.startNs, 19000 * us);
        QCOMPARE(path.endNs, 29000 * us);
        // From 19000: the second launch's kernel waits behind the first until 26000.
        QCOMPARE(path.nodes.back().name, std::string("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
        QCOMPARE(path.nodes.back().durationNs, 3000 * us);
        QCOMPARE(path.deviceNs, 7000 * us);
    }

    // No ProfilerStep: the five Optimizer.step#SGD.step annotations of the MI300X run end its
    // iterations. Their ends, after the trace's first event, by a script over the JSON (ms):
    // 118.311, 233.954, 1248.660, 2317.027, 3393.106; the first step starts with the trace.
    void optimizerStepsWithoutProfilerStep()
    {
        auto loaded = trace::loadTrace(std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces2026" /
                                       "mi300x_ddp_resnet18.json.gz");
        QVERIFY(loaded.ok());
        const auto index = buildTraceIndex(*loaded.value());
        const auto spans = buildStepSpans(*index);
        QCOMPARE(int(spans.rule), int(StepRule::OptimizerStep));
        QCOMPARE(spans.ruleExample, std::string("Optimizer.step#SGD.step"));
        QCOMPARE(spans.steps.size(), std::size_t(5));
        const double endsMs[] = {118.31128784179687, 233.9538330078125, 1248.6596970214844, 2317.026823974609,
                                 3393.106421875};
        const auto t0 = loaded.value()->info.spanStart;
        QCOMPARE(spans.steps[0].cpuStartNs, t0);
        for (std::size_t k = 0; k < 5; ++k) {
            QVERIFY2(std::abs(double(spans.steps[k].cpuEndNs - t0) / 1e6 - endsMs[k]) < 0.001,
                     std::to_string(spans.steps[k].cpuEndNs - t0).c_str());
            if (k > 0)
                QCOMPARE(spans.steps[k].cpuStartNs, spans.steps[k - 1].cpuEndNs);
            QCOMPARE(spans.steps[k].name, "Optimizer.step#SGD.step #" + std::to_string(k + 1));
        }
        const auto breakdown = buildStepBreakdown(*index);
        QCOMPARE(breakdown.steps.size(), std::size_t(5));
        QCOMPARE(int(breakdown.rule), int(StepRule::OptimizerStep));
    }

    // Without ProfilerStep or optimizer: a top-level annotation called one after another over
    // most of the trace is the step; called concurrently (a server's requests) it is not.
    void repeatedAnnotationSteps()
    {
        const auto steps = [](bool overlap) {
            std::string events;
            for (int k = 0; k < 4; ++k) {
                const int start = k * 1000 + (overlap && k == 2 ? -500 : 0);
                events += R"({"ph":"X","cat":"user_annotation","name":"generate","pid":1,"tid":)" +
                          std::to_string(overlap && k == 2 ? 2 : 1) + R"(,"ts":)" + std::to_string(start) +
                          R"(,"dur":900},)";
                events += R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" +
                          std::to_string(k * 1000 + 100) + R"(,"dur":500},)";
            }
            events += R"({"ph":"X","cat":"user_annotation","name":"log","pid":1,"tid":1,"ts":3950,"dur":10},)";
            events += R"({"ph":"X","cat":"user_annotation","name":"log","pid":1,"tid":1,"ts":3970,"dur":10},)";
            events += R"({"ph":"X","cat":"user_annotation","name":"log","pid":1,"tid":1,"ts":3990,"dur":10})";
            QTemporaryDir dir;
            const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
            std::ofstream(path) << "{\"traceEvents\":[" << events << "]}";
            auto loaded = trace::loadTrace(path);
            return loaded.ok() ? buildStepSpans(*buildTraceIndex(*loaded.value())) : StepSpans{};
        };
        const auto sequential = steps(false);
        QCOMPARE(int(sequential.rule), int(StepRule::RepeatedAnnotation));
        QCOMPARE(sequential.steps.size(), std::size_t(4));
        QCOMPARE(sequential.steps[1].name, std::string("generate #2"));
        QCOMPARE(sequential.steps[1].cpuStartNs, std::int64_t(1000 * us));
        QCOMPARE(sequential.steps[1].cpuEndNs, std::int64_t(1900 * us));
        const auto concurrent = steps(true);
        QCOMPARE(int(concurrent.rule), int(StepRule::None));
        QVERIFY(concurrent.steps.empty());
    }

    // A kernel launched before the profiler started (its correlation id's call is not in the
    // trace) runs at 10-500 µs, inside step 1's span: it is none of step 1's work. Step 1's own
    // kernel, launched at 550 µs, runs 600-700 µs: 100 µs of kernel time, not 590.
    void kernelsLaunchedBeforeTheWindow()
    {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
        std::ofstream(path) << R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":540,"dur":20},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":550,"dur":5,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"before","pid":0,"tid":7,"ts":10,"dur":490,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"own","pid":0,"tid":7,"ts":600,"dur":100,"args":{"device":0,"stream":7,"correlation":2}}]})";
        auto loaded = trace::loadTrace(path);
        QVERIFY(loaded.ok());
        const auto index = buildTraceIndex(*loaded.value());
        const auto spans = buildStepSpans(*index);
        QCOMPARE(spans.steps.size(), std::size_t(1));
        QCOMPARE(spans.steps[0].deviceEvents, std::uint64_t(1));
        QCOMPARE(spans.steps[0].gpuStartNs, std::int64_t(600 * us));
        const auto breakdown = buildStepBreakdown(*index);
        QCOMPARE(breakdown.steps.size(), std::size_t(1));
        QCOMPARE(breakdown.steps[0].ns(StepCategory::Kernel), std::int64_t(100 * us));
        QCOMPARE(breakdown.steps[0].gpuBusyNs, std::int64_t(100 * us));
    }
};

QTEST_GUILESS_MAIN(TestStepSpans)
#include "tst_stepspans.moc"
