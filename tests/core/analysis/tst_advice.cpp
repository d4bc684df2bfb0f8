// Advice rules: each fires on a small trace that holds its evidence and stays silent on one
// that does not; on the real fixtures, the rules their content calls for.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/advice.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

// Events for a synthetic Kineto trace: pid 1 tid 1 is the CPU thread, pid 0 tid 7 a stream.
struct TraceText {
    std::string events;
    int correlation = 1;

    void add(const std::string &json) { events += (events.empty() ? "" : ",\n") + json; }
    void op(const std::string &name, double ts, double dur, const std::string &cat = "cpu_op")
    {
        add(R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
            R"(,"dur":)" + std::to_string(dur) + "}");
    }
    void runtime(const std::string &name, double ts, double dur)
    {
        add(R"({"ph":"X","cat":"cuda_runtime","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
            R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"correlation":)" + std::to_string(correlation) + "}}");
    }
    void kernel(const std::string &name, double ts, double dur)
    {
        add(R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" + std::to_string(ts) +
            R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"device":0,"stream":7,"correlation":)" +
            std::to_string(correlation++) + "}}");
    }
    void memory(double ts, long bytes)
    {
        add(R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
            R"(,"args":{"Device Type":0,"Device Id":-1,"Bytes":)" + std::to_string(bytes) + "}}");
    }
    std::string text() const { return "{\"traceEvents\":[\n" + events + "\n]}"; }
    // With top-level keys before the events, e.g. R"("torch_version":"1.13.1")".
    std::string text(const std::string &keys) const { return "{" + keys + ",\"traceEvents\":[\n" + events + "\n]}"; }
};

bool contains(const std::string &text, const QString &part)
{
    return text.find(part.toStdString()) != std::string::npos;
}

std::set<std::string> rulesOf(const std::string &text)
{
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
    std::ofstream(path) << text;
    auto loaded = trace::loadTrace(path);
    if (!loaded.ok()) {
        qWarning("%s", loaded.error().message.c_str());
        return {"(load failed)"};
    }
    const auto index = buildTraceIndex(*loaded.value());
    std::set<std::string> rules;
    for (const auto &finding : adviseTrace(*index)) {
        rules.insert(finding.rule);
        if (finding.fix.empty() || finding.evidence.empty() || finding.endNs < finding.startNs)
            rules.insert("(incomplete " + finding.rule + ")");
    }
    return rules;
}

// A step of 1000 µs with a kernel covering `busy` µs of it and a few ops.
TraceText stepTrace(double busy)
{
    TraceText t;
    t.op("ProfilerStep#1", 0, 1000, "user_annotation");
    t.op("aten::mul", 10, 100);
    t.op("aten::add", 200, 100);
    t.op("aten::relu", 400, 100);
    t.op("aten::sum", 600, 100);
    t.runtime("cudaLaunchKernel", 12, 5);
    t.kernel("elementwise_kernel", 0, busy);
    return t;
}

// Steps of 1000 us, step i with a kernel covering busy[i] us of it.
TraceText stepsTrace(const std::vector<double> &busy)
{
    TraceText t;
    for (std::size_t i = 0; i < busy.size(); ++i) {
        const double at = 1000.0 * double(i);
        t.op("ProfilerStep#" + std::to_string(i + 1), at, 1000, "user_annotation");
        t.op("aten::mul", at + 10, 100);
        t.runtime("cudaLaunchKernel", at + 12, 5);
        t.kernel("elementwise_kernel", at, busy[i]);
    }
    return t;
}

// The findings of a trace given as JSON text.
std::vector<Finding> findingsOf(const std::string &text)
{
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
    std::ofstream(path) << text;
    auto loaded = trace::loadTrace(path);
    if (!loaded.ok())
        return {};
    return adviseTrace(*buildTraceIndex(*loaded.value()));
}

const Finding *findRule(const std::vector<Finding> &findings, const std::string &rule)
{
    const auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding &f) { return f.rule == rule; });
    return it == findings.end() ? nullptr : &*it;
}

double evidence(const Finding &finding, const std::string &name)
{
    for (const auto &e : finding.evidence)
        if (e.name == name)
            return e.value;
    return -1;
}

} // namespace

class TestAdvice : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void rules_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<bool>("fires");
        QTest::addColumn<QString>("trace");

        QTest::addRow("baseline: nothing") << "" << false << QString::fromStdString(stepTrace(960).text());
        for (const auto &[dur, fires] : {std::pair{100.0, true}, std::pair{20.0, false}}) {
            auto t = stepTrace(500); // the kernel leaves 900..1000 to the DataLoader
            t.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 900, dur);
            QTest::addRow("dataloader %g us", dur) << "dataloader" << fires << QString::fromStdString(t.text());
        }
        // Blocking calls count against the step's time: 50 of 1000 µs is worth a finding, 5 µs
        // (0.5%) is not, and a call that does not block never is.
        for (const auto &[name, dur, fires] :
             {std::tuple{"cudaDeviceSynchronize", 50.0, true}, std::tuple{"cudaDeviceSynchronize", 5.0, false},
              std::tuple{"hipMemcpyWithStream", 50.0, true}, std::tuple{"cudaGetDevice", 50.0, false}}) {
            auto t = stepTrace(960);
            t.runtime(name, 800, dur);
            QTest::addRow("sync %s %g us", name, dur) << "sync" << fires << QString::fromStdString(t.text());
        }
        for (const auto &[count, fires] : {std::pair{20, true}, std::pair{2, false}}) {
            auto t = stepTrace(500);
            for (int i = 0; i < count; ++i)
                t.runtime(i % 2 ? "cudaFree" : "cudaMalloc", 520 + 20.0 * i, 15);
            QTest::addRow("allocator %d calls", count) << "allocator" << fires << QString::fromStdString(t.text());
        }
        QTest::addRow("gpu idle 50 pct") << "gpu_idle" << true << QString::fromStdString(stepTrace(500).text());
        QTest::addRow("gpu idle 4 pct") << "gpu_idle" << false << QString::fromStdString(stepTrace(960).text());
        for (const auto &[dur, fires] : {std::pair{5.0, true}, std::pair{20.0, false}}) {
            TraceText t;
            for (int i = 0; i < 60; ++i) {
                t.runtime("cudaLaunchKernel", i * 30.0, 2);
                t.kernel("vectorized_elementwise_kernel", i * 30.0 + 3, dur);
            }
            QTest::addRow("tiny kernels %g us", dur) << "tiny_kernels" << fires << QString::fromStdString(t.text());
        }
        for (const auto &[name, fires] :
             {std::pair{"sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nchwkcrs_nchw", true},
              std::pair{"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc", false}}) {
            auto t = stepTrace(100);
            t.kernel(name, 200, 700);
            QTest::addRow("layout %s", name) << "channels_last" << fires << QString::fromStdString(t.text());
        }
        for (const auto &[name, fires] :
             {std::pair{"ampere_sgemm_128x64_nn", true}, std::pair{"ampere_fp16_s16816gemm_fp16_128x128_nn", false}}) {
            auto t = stepTrace(100);
            t.kernel(name, 200, 700);
            QTest::addRow("precision %s", name) << "fp32_math" << fires << QString::fromStdString(t.text());
        }
        for (const auto &[dur, fires] : {std::pair{500.0, true}, std::pair{50.0, false}}) {
            TraceText t;
            t.op("aten::conv2d", 0, dur);
            t.op("aten::add", 1000, 100);
            t.op("aten::mul", 2000, 100);
            t.op("aten::relu", 3000, 100);
            QTest::addRow("dominant op %g us", dur) << "dominant_op" << fires << QString::fromStdString(t.text());
        }
        for (const auto &[count, fires] : {std::pair{1200, true}, std::pair{10, false}}) {
            auto t = stepTrace(960);
            for (int i = 0; i < count; ++i)
                t.memory(1 + i * 0.5, i % 2 ? -512 : 512);
            QTest::addRow("churn %d", count) << "memory_churn" << fires << QString::fromStdString(t.text());
        }
        // Three kernels that repeat: launched 10 us apart they leave the GPU idle between them,
        // back to back they do not.
        for (const auto &[spacing, fires] : {std::pair{10.0, true}, std::pair{0.0, false}}) {
            TraceText t;
            double at = 0;
            for (int i = 0; i < 5; ++i) {
                for (const char *name : {"gemm_kernel", "bias_add_kernel", "gelu_kernel"}) {
                    t.runtime("cudaLaunchKernel", at, 1);
                    t.kernel(name, at + 2, 20);
                    at += 22 + spacing;
                }
            }
            QTest::addRow("repeated kernels %g us apart", spacing)
                << "repeated_kernels" << fires << QString::fromStdString(t.text());
        }
        for (const auto &[child, fires] : {std::pair{"aten::add_", true}, std::pair{"aten::_foreach_add_", false}}) {
            auto t = stepTrace(960);
            t.op("Optimizer.step#SGD.step", 800, 100, "user_annotation");
            t.op(child, 810, 50);
            QTest::addRow("optimizer %s", child) << "unfused_optimizer" << fires << QString::fromStdString(t.text());
        }
    }

    void rules()
    {
        QFETCH(QString, rule);
        QFETCH(bool, fires);
        QFETCH(QString, trace);
        const auto found = rulesOf(trace.toStdString());
        for (const auto &r : found)
            QVERIFY2(r.find("(") == std::string::npos, r.c_str());
        if (rule.isEmpty()) {
            QVERIFY2(found.empty(), found.empty() ? "" : found.begin()->c_str());
            return;
        }
        QCOMPARE(found.count(rule.toStdString()) == 1, fires);
    }

    // One slow step among busy ones is not a pattern; most steps idle is, and the sentence
    // counts them.
    void gpuIdleNeedsMostSteps()
    {
        for (const auto &finding : findingsOf(stepsTrace({988, 988, 500, 988, 988}).text()))
            QVERIFY2(finding.rule != "gpu_idle", finding.detail.c_str());
        const auto findings = findingsOf(stepsTrace({500, 600, 988, 700, 988}).text());
        const auto idle =
            std::find_if(findings.begin(), findings.end(), [](const Finding &f) { return f.rule == "gpu_idle"; });
        QVERIFY(idle != findings.end());
        // Idle: 500 + 400 + 12 + 300 + 12 = 1224 of 5000 us; three steps over 10%.
        QCOMPARE(
            QString::fromStdString(idle->detail),
            QStringLiteral(
                "The GPU runs nothing for 24.5% of the step time; 3 of 5 steps idle for more than 10.0% of theirs"));
        QCOMPARE(idle->startNs, std::int64_t(0));
        QCOMPARE(idle->endNs, std::int64_t(4'000'000));
    }

    void fixtures_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QStringList>("expected");
        QTest::addRow("torch_cpu_cnn") << "torch_cpu_cnn" << QStringList{};
        QTest::addRow("cpu_gloo") << "cpu_gloo" << QStringList{"dominant_op"};
        // Its syncs (12 cudaStreamSynchronize, 0.55 ms, and a 16.2 ms cudaDeviceSynchronize) are
        // 1.6% of its 1,049 ms of steps: the DataLoader's 33% is what to fix, not them.
        QTest::addRow("v100_resnet50") << "v100_resnet50"
                                       << QStringList{"dataloader",       "fp32_math",        "gpu_idle",
                                                      "memory_churn",     "repeated_kernels", "tiny_kernels",
                                                      "unfused_optimizer"};
        // Its SGD runs _foreach_ ops. Leaving the ProfilerStep annotations' 8.0 ms out, the first
        // aten::add_ (a 6.5 ms hipLaunchKernel: the kernel's first load) is 77% of the ops' time.
        QTest::addRow("mi250_rocm") << "mi250_rocm" << QStringList{"dominant_op", "gpu_idle"};
        // BERT's four layers launch the same 12 kernels with the GPU idle between them; its one
        // item() and two synchronize() calls are 61 µs of 8.3 ms of steps.
        QTest::addRow("h100_bert") << "h100_bert" << QStringList{"gpu_idle", "repeated_kernels", "tiny_kernels"};
    }

    void fixtures()
    {
        QFETCH(QString, fixture);
        QFETCH(QStringList, expected);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.index);
        QStringList actual;
        for (const auto &finding : adviseTrace(*loaded.index))
            actual << QString::fromStdString(finding.rule);
        actual.sort();
        expected.sort();
        if (actual != expected)
            qWarning("%s", qPrintable(actual.join(' ')));
        QCOMPARE(actual, expected);
    }

    // The precision fix follows the GPU's compute capability: a V100 (7.0) has fp16 tensor
    // cores but no bf16 or TF32; an A100 (8.0) has both.
    void precisionFollowsTheDevice_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("suggested");
        QTest::addColumn<QStringList>("absent");
        const QStringList ampere{"torch.bfloat16", "set_float32_matmul_precision", "allow_tf32"};
        QTest::addRow("v100") << "v100_resnet50" << "dtype=torch.float16" << ampere;
        QTest::addRow("a100") << "a100_alexnet" << "dtype=torch.bfloat16" << QStringList{};
        QTest::addRow("a100 tf32") << "a100_alexnet" << "torch.set_float32_matmul_precision(\"high\")"
                                   << QStringList{};
    }

    void precisionFollowsTheDevice()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, suggested);
        QFETCH(QStringList, absent);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.index);
        const auto findings = adviseTrace(*loaded.index);
        const auto precision =
            std::find_if(findings.begin(), findings.end(), [](const Finding &f) { return f.rule == "fp32_math"; });
        QVERIFY(precision != findings.end());
        QVERIFY2(contains(precision->fix, suggested), precision->fix.c_str());
        for (const auto &finding : findings)
            for (const auto &word : absent)
                QVERIFY2(!contains(finding.fix, word), finding.fix.c_str());
    }

    // The optimizer fix keeps the optimizer's class and names only what the run's torch has
    // on its device; a trace that does not name its torch gets the versions spelt out.
    void optimizerFixFollowsTorch_data()
    {
        QTest::addColumn<QString>("keys");
        QTest::addColumn<bool>("gpu");
        QTest::addColumn<QString>("fix");
        QTest::addRow("cpu torch 1.13") << R"("torch_version":"1.13.1")" << false
                                        << "Use the foreach implementation: torch.optim.Adam(params, foreach=True).";
        QTest::addRow("cpu torch 2.4") << R"("torch_version":"2.4.0+cpu")" << false
                                       << "Use the fused or foreach implementation: torch.optim.Adam(params, "
                                          "fused=True) (or foreach=True), or compile the optimizer step with "
                                          "torch.compile.";
        QTest::addRow("cpu torch 2.3") << R"("metadata":{"torch_env_info":{"torch_version":"2.3.1"}})" << false
                                       << "Use the foreach implementation: torch.optim.Adam(params, foreach=True), or "
                                          "compile the optimizer step with torch.compile.";
        QTest::addRow("gpu torch 2.0") << R"("pytorch_version":"2.0.1")" << true
                                       << "Use the fused or foreach implementation: torch.optim.Adam(params, "
                                          "fused=True) (or foreach=True), or compile the optimizer step with "
                                          "torch.compile.";
        QTest::addRow("cpu torch unknown")
            << R"("schemaVersion":1)" << false
            << "Use the foreach implementation: torch.optim.Adam(params, foreach=True) (torch >= 1.12); on torch >= "
               "2.4 for a CPU run torch.optim.Adam(params, fused=True) is faster still, or compile the optimizer step "
               "with torch.compile (torch >= 2.0).";
    }

    void optimizerFixFollowsTorch()
    {
        QFETCH(QString, keys);
        QFETCH(bool, gpu);
        QFETCH(QString, fix);
        TraceText t;
        t.op("ProfilerStep#1", 0, 1000, "user_annotation");
        t.op("aten::mul", 10, 500);
        t.op("Optimizer.step#Adam.step", 800, 100, "user_annotation");
        t.op("aten::add_", 810, 50);
        if (gpu)
            t.kernel("vectorized_elementwise_kernel", 100, 800);
        const auto findings = findingsOf(t.text(keys.toStdString()));
        const auto optimizer = std::find_if(findings.begin(), findings.end(),
                                            [](const Finding &f) { return f.rule == "unfused_optimizer"; });
        QVERIFY(optimizer != findings.end());
        QCOMPARE(QString::fromStdString(optimizer->fix), fix);
    }

    void dominantOpGivesItsFirstCalls()
    {
        const auto loaded = loadFixture("cpu_gloo");
        QVERIFY(loaded.index);
        const auto findings = adviseTrace(*loaded.index);
        const auto it =
            std::find_if(findings.begin(), findings.end(), [](const Finding &f) { return f.rule == "dominant_op"; });
        QVERIFY(it != findings.end());
        // gloo:all_reduce is called 10 times (the golden ops table): its first 5, in time order.
        QCOMPARE(it->events.size(), std::size_t(5));
        std::int64_t last = std::numeric_limits<std::int64_t>::min();
        for (const auto &e : it->events) {
            const auto &track = loaded.trace->track(e.track);
            QCOMPARE(loaded.trace->string(track.eventName[e.event.value]), std::string_view("gloo:all_reduce"));
            QVERIFY(track.start[e.event.value] > last);
            last = track.start[e.event.value];
        }
    }

    // ResNet-18 DDP on an MI300X: hipFree takes 3.35 s of the 3.39 s trace. The allocator rule
    // says so with the calls' figures (summed by a script over the JSON: 1,460 hipMalloc and one
    // hipHostMalloc, 1,360 hipFree of 3,346,152.15 µs), and the idle GPU is blamed on it rather
    // than on data loading.
    void allocatorBoundRun()
    {
        const auto loaded = loadTracePath(fixture2026("mi300x_ddp_resnet18.json.gz"));
        QVERIFY(loaded.index);
        const auto findings = adviseTrace(*loaded.index);
        const auto allocator = findRule(findings, "allocator");
        QVERIFY(allocator);
        QCOMPARE(evidence(*allocator, "allocations"), 1461.0);
        QCOMPARE(evidence(*allocator, "frees"), 1360.0);
        QVERIFY(std::abs(evidence(*allocator, "free_us") - 3346152.15) < 1.0);
        QVERIFY2(allocator->fix.find("PYTORCH_HIP_ALLOC_CONF=expandable_segments:True") != std::string::npos,
                 allocator->fix.c_str());
        QVERIFY(allocator->fix.find("empty_cache()") != std::string::npos);
        const auto idle = findRule(findings, "gpu_idle");
        QVERIFY(idle);
        QVERIFY2(idle->fix.find("num_workers") == std::string::npos, idle->fix.c_str());
        QVERIFY2(idle->fix.find("allocator") != std::string::npos, idle->fix.c_str());
        // Six small syncs (287 µs of 3.39 s) are not a finding.
        QVERIFY(!findRule(findings, "sync"));
    }

    // xDiT on an MI300X: one hipMemcpyWithStream blocks for 42.09 ms (the JSON's longest); the
    // dominant-op rule judges ops, not the compiled region around them.
    void blockingCopyAndCompiledRegion()
    {
        const auto loaded = loadTracePath(fixture2026("xdit_sd35_mi300x_compile.json.gz"));
        QVERIFY(loaded.index);
        const auto findings = adviseTrace(*loaded.index);
        const auto sync = findRule(findings, "sync");
        QVERIFY(sync);
        QVERIFY(std::abs(evidence(*sync, "longest_sync_us") - 42089.555) < 0.01);
        QVERIFY2(sync->detail.find("hipMemcpyWithStream") != std::string::npos, sync->detail.c_str());
        for (const auto &finding : findings) {
            QVERIFY2(finding.detail.find("CompiledFxGraph") == std::string::npos, finding.detail.c_str());
            // Compiled already: CUDA graphs through torch.compile's mode, not "use torch.compile".
            QVERIFY2(finding.fix.find("CUDA graphs / torch.compile") == std::string::npos, finding.fix.c_str());
        }
        const auto repeated = findRule(findings, "repeated_kernels");
        QVERIFY(repeated);
        QVERIFY2(repeated->fix.starts_with("The run is compiled already"), repeated->fix.c_str());
    }

    // vLLM on a GB10: execute_context_… is an annotation; the op under it is named instead.
    void dominantOpIsAnOp()
    {
        const auto loaded = loadTracePath(fixture2026("vllm_gb10_cudagraphs.pt.trace.json.gz"));
        QVERIFY(loaded.index);
        const auto findings = adviseTrace(*loaded.index);
        const auto dominant = findRule(findings, "dominant_op");
        QVERIFY(dominant);
        QVERIFY2(dominant->detail.starts_with("vllm::gdn_attention_core "), dominant->detail.c_str());
    }

    // A run whose launches queue deep behind running kernels is GPU-bound: its tiny kernels
    // cost no launch time, and no rule says "launch-bound" beside the launch verdict.
    void tinyKernelsFollowTheLaunchVerdict()
    {
        TraceText t;
        for (int i = 0; i < 60; ++i) {
            t.runtime("cudaLaunchKernel", i * 2.0, 1);
            t.kernel("vectorized_elementwise_kernel", 200 + i * 5.0, 5);
        }
        QVERIFY(!rulesOf(t.text()).count("tiny_kernels"));
    }

    // torchrec's CombinedOptimizer holding Adam is one optimizer step of 300 µs, not three, and
    // the fix names torch.optim.Adam, which exists, not a CombinedOptimizer class.
    void nestedOptimizerStepsCountOnce()
    {
        TraceText t;
        t.op("ProfilerStep#1", 0, 1000, "user_annotation");
        t.op("Optimizer.step#CombinedOptimizer.step", 600, 300, "user_annotation");
        t.op("Optimizer.step#KeyedOptimizer.step", 610, 280, "user_annotation");
        t.op("Optimizer.step#Adam.step", 620, 260, "user_annotation");
        t.op("aten::add_", 630, 50);
        const auto findings = findingsOf(t.text());
        const auto optimizer = findRule(findings, "unfused_optimizer");
        QVERIFY(optimizer);
        QCOMPARE(evidence(*optimizer, "optimizer_steps"), 1.0);
        QCOMPARE(evidence(*optimizer, "optimizer_us"), 300.0);
        QVERIFY2(optimizer->fix.find("torch.optim.Adam(params") != std::string::npos, optimizer->fix.c_str());
        QVERIFY2(optimizer->fix.find("CombinedOptimizer") == std::string::npos, optimizer->fix.c_str());
    }

    // MTIA: the 113 synchronizeStream calls and 75 item() block a thread for 314.55 ms of the
    // 459.67 ms trace (a script's union over the host's calls); the fixes name no CUDA graphs.
    void mtiaSyncAndFixes()
    {
        const auto loaded = loadTracePath(fixture2026("mtia_inference_rank_0.json.gz"));
        QVERIFY(loaded.index);
        const auto findings = adviseTrace(*loaded.index);
        const auto sync = findRule(findings, "sync");
        QVERIFY(sync);
        QCOMPARE(evidence(*sync, "syncs"), 188.0);
        QVERIFY(std::abs(evidence(*sync, "sync_us") - 314554.85) < 1.0);
        QVERIFY2(sync->detail.find("wait for the MTIA") != std::string::npos, sync->detail.c_str());
        for (const auto &finding : findings)
            QVERIFY2(finding.fix.find("CUDA graph") == std::string::npos, finding.fix.c_str());
    }
};

QTEST_GUILESS_MAIN(TestAdvice)
#include "tst_advice.moc"
