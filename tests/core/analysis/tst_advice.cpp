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
        for (const auto &[name, fires] :
             {std::pair{"cudaDeviceSynchronize", true}, std::pair{"cudaGetDevice", false}}) {
            auto t = stepTrace(960);
            t.runtime(name, 800, 5);
            QTest::addRow("sync %s", name) << "sync" << fires << QString::fromStdString(t.text());
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
        QTest::addRow("v100_resnet50") << "v100_resnet50" << QStringList{"dataloader",   "fp32_math",        "gpu_idle",
                                                                         "memory_churn", "repeated_kernels", "sync",
                                                                         "tiny_kernels", "unfused_optimizer"};
        QTest::addRow("mi250_rocm") << "mi250_rocm" << QStringList{"gpu_idle"}; // its SGD runs _foreach_ ops
        // BERT's four layers launch the same 12 kernels with the GPU idle between them.
        QTest::addRow("h100_bert") << "h100_bert"
                                   << QStringList{"gpu_idle", "repeated_kernels", "sync", "tiny_kernels"};
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
};

QTEST_GUILESS_MAIN(TestAdvice)
#include "tst_advice.moc"
