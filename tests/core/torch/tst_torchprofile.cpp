// core/torch on real TorchScript models, made at test time by scripts/make-test-models.py
// (the torch_make_test_models fixture) with random weights.
#include "core/model/traceexport.h"
#include "core/torch/flops.h"
#include "core/torch/layerprofile.h"
#include "core/torch/modelfile.h"
#include "core/torch/runner.h"
#include "core/torch/session.h"
#include "core/trace/loader.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace pyrometer;
using namespace pyrometer::model;
using namespace pyrometer::torch;

namespace {

std::filesystem::path testModel(const QString &name)
{
    return std::filesystem::path(PYROMETER_TEST_MODELS_DIR) / (name.toStdString() + ".pt");
}

std::filesystem::path badFixture(const char *name)
{
    return std::filesystem::path(PYROMETER_FIXTURES_DIR) / "models" / name;
}

// What PyTorch said about each model when the script made it.
QJsonObject facts(const QString &name)
{
    QFile file(QStringLiteral(PYROMETER_TEST_MODELS_DIR "/facts.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value(name).toObject();
}

const FlopsRow *row(const FlopsReport &report, const std::string &module)
{
    for (const auto &r : report.rows)
        if (r.module == module)
            return &r;
    return nullptr;
}

const LayerRow *row(const ProfileReport &report, const std::string &module)
{
    for (const auto &r : report.rows)
        if (r.module == module)
            return &r;
    return nullptr;
}

std::vector<InputSpec> spec(const char *text)
{
    return parseInputSpecs(text).value();
}

} // namespace

class TestTorchProfile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // torch.jit.trace of torch 2.x keeps the inputs it traced with in the archive: a model saved
    // without example_inputs.txt still says its inputs (two inputs, the second int64); torch
    // 1.13's trace kept none, and the model then says so by giving none.
    void tracedInputsAreRead()
    {
        const auto expected = facts("two_inputs_bare");
        QVERIFY2(!expected.isEmpty(), "facts.json has no two_inputs_bare: run scripts/make-test-models.py");
        const auto spec = recordedInputSpec(testModel("two_inputs_bare"));
        if (expected.value("keeps_traced_inputs").toBool())
            QCOMPARE(QString::fromStdString(spec), expected.value("input").toString());
        else
            QCOMPARE(QString::fromStdString(spec), QString());
        // The extra file wins where there is one.
        QCOMPARE(QString::fromStdString(recordedInputSpec(testModel("two_inputs"))), QStringLiteral("3x8,3x5:int64"));
    }

    // torchvision's published figures at 224x224 ("GFLOPS" there are MACs), within 3%;
    // parameter counts exact (torchvision's model cards, and PyTorch's count of this file).
    void matchesPublishedFigures_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("gmacs");
        QTest::addColumn<qint64>("params");
        QTest::addRow("resnet18") << "resnet18" << 1.81 << qint64(11689512);
        QTest::addRow("mobilenet_v2") << "mobilenet_v2" << 0.30 << qint64(3504872);
        QTest::addRow("resnet50") << "resnet50" << 4.09 << qint64(25557032);
    }
    void matchesPublishedFigures()
    {
        QFETCH(QString, name);
        QFETCH(double, gmacs);
        QFETCH(qint64, params);
        const auto report = countFlops(testModel(name), spec("1x3x224x224"));
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(qint64(report->params), params);
        QCOMPARE(qint64(report->params), qint64(facts(name).value("parameters").toInteger()));
        // torchvision publishes GMACs to two decimals: ours must round to the same figure.
        QVERIFY2(std::abs(report->totalMacs / 1e9 - gmacs) <= 0.005,
                 qPrintable(QString("%1 GMACs, published %2").arg(report->totalMacs / 1e9).arg(gmacs)));
        QVERIFY(report->totalFlops >= 2 * report->totalMacs);
        QCOMPARE(report->rows.front().macs, report->totalMacs);
    }

    void resnetLayersAreAttributedByName()
    {
        const auto report = countFlops(testModel("resnet18"), spec("1x3x224x224"));
        QVERIFY(report.ok());
        // layer1.0.conv1: 64->64, 3x3, 56x56 output.
        const auto *conv = row(report.value(), "layer1.0.conv1");
        QVERIFY(conv);
        QCOMPARE(conv->type, std::string("Conv2d"));
        QCOMPARE(conv->macs, 64.0 * 56 * 56 * 64 * 9);
        QCOMPARE(conv->params, std::uint64_t(64 * 64 * 9));
        QCOMPARE(conv->outputShapes, (std::vector<std::vector<std::int64_t>>{{1, 64, 56, 56}}));
        // The block's residual add is its own op; the block's total holds its convs.
        const auto *block = row(report.value(), "layer1.0");
        QVERIFY(block && !block->leaf);
        QVERIFY(block->selfFlops > 0);
        QVERIFY(block->macs >= 2 * conv->macs);
        const auto *fc = row(report.value(), "fc");
        QVERIFY(fc);
        QCOMPARE(fc->macs, 512.0 * 1000);
    }

    void smallCnnByHand()
    {
        const auto report = countFlops(testModel("small_cnn"), {}); // the recorded 1x3x32x32
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->inputs, spec("1x3x32x32"));
        QCOMPARE(row(report.value(), "conv1")->macs, 16.0 * 32 * 32 * 3 * 9);
        QCOMPARE(row(report.value(), "dw")->macs, 16.0 * 16 * 16 * 1 * 9); // depthwise, stride 2
        QCOMPARE(row(report.value(), "pw")->macs, 32.0 * 16 * 16 * 16);
        QCOMPARE(row(report.value(), "fc")->macs, 32.0 * 10);
        QCOMPARE(row(report.value(), "bn1")->macs, 0.0);
        QVERIFY(row(report.value(), "bn1")->flops > 0);
        QCOMPARE(row(report.value(), "relu")->calls, 2); // one module, called twice
        QCOMPARE(row(report.value(), "pool")->outputShapes, (std::vector<std::vector<std::int64_t>>{{1, 32, 8, 8}}));
        QCOMPARE(report->params, std::uint64_t(facts("small_cnn").value("parameters").toInteger()));
    }

    void recurrentAndAttention()
    {
        const auto rnn = countFlops(testModel("recurrent"), {});
        QVERIFY2(rnn.ok(), rnn.ok() ? "" : rnn.error().message.c_str());
        // LSTM 32->64, 2 layers; GRU 64->48; 7 steps, batch 2.
        QCOMPARE(row(rnn.value(), "lstm")->macs, 7.0 * 2 * ((256 * 32 + 256 * 64) + (256 * 64 + 256 * 64)));
        QCOMPARE(row(rnn.value(), "gru")->macs, 7.0 * 2 * (144 * 64 + 144 * 48));

        const auto encoder = countFlops(testModel("encoder"), {});
        QVERIFY2(encoder.ok(), encoder.ok() ? "" : encoder.error().message.c_str());
        // Per layer: in-projection 32 tokens x 64 x 192, QK^T and AV (2 batches x 4 heads x
        // 16x16x16 each), out-projection 32 x 64 x 64, feed-forward 32 x 64 x 128 twice. The
        // traced layers run as separate ops; each is recorded as "0", "1" of the encoder and
        // resolved to its row in encoder.layers, which sum into "encoder".
        const double layer = 32.0 * 64 * 192 + 2 * (2 * 4 * 16 * 16 * 16) + 32.0 * 64 * 64 + 2 * (32.0 * 64 * 128);
        const auto *stack = row(encoder.value(), "encoder");
        QVERIFY(stack);
        QCOMPARE(stack->macs, 2 * layer);
        QCOMPARE(row(encoder.value(), "encoder.layers.1")->macs, layer);
        QCOMPARE(row(encoder.value(), "encoder.layers.1")->calls, 1);
        QCOMPARE(row(encoder.value(), "head")->macs, 2.0 * 64 * 2);
    }

    void profilesLayers()
    {
        RunOptions options;
        options.warmup = 2;
        options.iterations = 3;
        ProgressReporter progress;
        const auto report = profileLayers(testModel("small_cnn"), options, progress, StopToken());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->iterations, 3);
        QVERIFY(report->forwardMs > 0);
        QVERIFY(report->peakMemoryBytes >= 16 * 32 * 32 * 4); // at least conv1's output
        // libtorch 2.x's profiling executor fuses the eval-mode batch norm with the ReLU after it
        // (NNC, on the CPU too) into one "fused_batch_norm_relu" op that runs in the model's own
        // frame: bn1 then has no op of its own and relu only its second call. libtorch 1.13 runs
        // each as its own module. Both are what the model really ran.
        bool fusedBatchNorm = false;
        for (const auto &op : report->events.ops)
            fusedBatchNorm = fusedBatchNorm || (op.name.rfind("fused_", 0) == 0 && op.name.find("batch_norm") != std::string::npos);
        QCOMPARE(fusedBatchNorm, !torch::torchVersion().starts_with("1."));
        for (const char *name : {"conv1", "bn1", "relu", "dw", "pw", "pool", "gap", "fc"}) {
            const auto *layer = row(report.value(), name);
            QVERIFY2(layer, name);
            if (fusedBatchNorm && std::string_view(name) == "bn1") {
                QCOMPARE(layer->calls, 0);
                continue;
            }
            QVERIFY2(layer->selfMs > 0, name);
            QVERIFY(layer->totalMs <= report->forwardMs);
        }
        const auto *conv = row(report.value(), "conv1");
        QCOMPARE(conv->macs, 16.0 * 32 * 32 * 3 * 9);
        QVERIFY(conv->gflopsPerSecond > 0);
        QVERIFY(conv->allocatedBytes >= 16 * 32 * 32 * 4);
        QCOMPARE(report->rows.front().totalMs, report->forwardMs);
        QCOMPARE(report->rows.front().percent, 100.0);
        // Raw events: aten ops with shapes and module hierarchy, memory events.
        bool sawConv = false;
        for (const auto &op : report->events.ops)
            if (op.name == "aten::_convolution" && !op.moduleFrames.empty() && op.moduleFrames.back().rfind("conv1(Conv2d)", 0) == 0)
                sawConv = !op.inputShapes.empty() && op.inputShapes.front() == std::vector<std::int64_t>{1, 3, 32, 32};
        QVERIFY(sawConv);
        QVERIFY(!report->events.memory.empty());

        // The exported trace loads with the trace loader, events and all.
        const auto file = std::filesystem::path(PYROMETER_BINARY_DIR) / "tst_torchprofile_trace.json";
        QVERIFY(writeChromeTrace(file, report->events, "small_cnn.pt").ok());
        const auto loaded = trace::loadTrace(file);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
        QCOMPARE(loaded.value()->info.eventCount, report->events.ops.size() + report->events.memory.size() +
                                                      2 /* process and thread names */);
    }

    // Profiled in slices of five runs, the steps still count on: ProfilerStep#1 to #7, once each.
    void profiledStepsAreNumberedOnce()
    {
        RunOptions options;
        options.warmup = 0;
        options.iterations = 7;
        options.threads = 1;
        ProgressReporter progress;
        const auto report = profileLayers(testModel("small_cnn"), options, progress, StopToken());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        std::vector<std::string> steps;
        for (const auto &op : report->events.ops)
            if (op.name.rfind("ProfilerStep#", 0) == 0)
                steps.push_back(op.name);
        std::vector<std::string> expected;
        for (int i = 1; i <= 7; ++i)
            expected.push_back("ProfilerStep#" + std::to_string(i));
        QCOMPARE(steps, expected);
    }

    void measuresLatency_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addRow("inference") << int(RunMode::Inference);
        QTest::addRow("train") << int(RunMode::Train);
    }
    void measuresLatency()
    {
        QFETCH(int, mode);
        RunOptions options;
        options.inputs = spec("4x3x32x32");
        options.warmup = 2;
        options.iterations = 5;
        options.threads = 1;
        options.mode = RunMode(mode);
        ProgressReporter progress;
        const auto report = measureLatency(testModel("small_cnn"), options, progress, StopToken());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->samplesMs.size(), std::size_t(5));
        QCOMPARE(report->threads, 1);
        QCOMPARE(report->batchSize, std::int64_t(4));
        QVERIFY(report->coldMs > 0 && report->warm.min > 0);
        QVERIFY(report->warm.min <= report->warm.p50 && report->warm.p50 <= report->warm.p99);
        QVERIFY(qAbs(report->throughputPerSecond - 4000.0 / report->warm.mean) < 1e-6);
    }

    void sessionRestoresTheThreadCount()
    {
        // A run at another thread count leaves the process's count as it found it.
        auto before = ModelSession::open(testModel("small_cnn"), spec("1x3x32x32"));
        QVERIFY(before.ok());
        const int threads = before.value()->threads();
        {
            auto one =
                ModelSession::open(testModel("small_cnn"), spec("1x3x32x32"), RunMode::Inference, threads == 1 ? 2 : 1);
            QVERIFY(one.ok());
            QCOMPARE(one.value()->threads(), threads == 1 ? 2 : 1);
        }
        QCOMPARE(before.value()->threads(), threads);
    }

    void cancels()
    {
        const StopToken stop;
        stop.requestStop();
        ProgressReporter progress;
        const auto latency = measureLatency(testModel("small_cnn"), RunOptions{}, progress, stop);
        QVERIFY(!latency.ok());
        QVERIFY(QString::fromStdString(latency.error().message).endsWith("cancelled"));
        const auto profile = profileLayers(testModel("small_cnn"), RunOptions{}, progress, stop);
        QVERIFY(!profile.ok());
        QVERIFY(QString::fromStdString(profile.error().message).endsWith("cancelled"));
    }

    void severalInputsOfSeveralDtypes()
    {
        const auto recorded = ModelSession::open(testModel("two_inputs"), {});
        QVERIFY2(recorded.ok(), recorded.ok() ? "" : recorded.error().message.c_str());
        QCOMPARE(recorded.value()->inputs(), spec("3x8,3x5:int64"));
        QVERIFY(!recorded.value()->run());
        const auto given = ModelSession::open(testModel("two_inputs"), spec("6x8,6x2:int64"));
        QVERIFY(given.ok());
        QVERIFY(!given.value()->run());
    }

    // Bad input: one line that names the file and says what is wrong.
    void refusesBadInput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("inputs");
        QTest::addColumn<QString>("says");
        QTest::addRow("wrong channels") << QString::fromStdString(testModel("small_cnn").string()) << "1x1x32x32"
                                        << "to have 3 channels";
        QTest::addRow("wrong features") << QString::fromStdString(testModel("two_inputs").string()) << "3x7,3x5:int64"
                                        << "cannot be multiplied";
        QTest::addRow("too few inputs") << QString::fromStdString(testModel("two_inputs").string()) << "3x8"
                                        << "1 input given";
        QTest::addRow("float ids") << QString::fromStdString(testModel("two_inputs").string()) << "3x8,3x5"
                                   << "Long";
        QTest::addRow("state_dict") << QString::fromStdString(badFixture("state_dict.pt").string()) << "1x4" << "torch.jit.trace";
        QTest::addRow("missing") << QString::fromStdString(badFixture("no_such.pt").string()) << "1x4" << "no such file";
    }
    void refusesBadInput()
    {
        QFETCH(QString, file);
        QFETCH(QString, inputs);
        QFETCH(QString, says);
        ProgressReporter progress;
        RunOptions options;
        options.inputs = spec(inputs.toUtf8().constData());
        options.warmup = 0;
        options.iterations = 1;
        const auto report = measureLatency(file.toStdString(), options, progress, StopToken());
        QVERIFY(!report.ok());
        const auto message = QString::fromStdString(report.error().message);
        QVERIFY2(message.startsWith(file + ": "), qPrintable(message));
        QVERIFY2(message.contains(says), qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
        QVERIFY2(!message.contains("frame #"), qPrintable(message));
        const auto flops = countFlops(file.toStdString(), options.inputs);
        QVERIFY(!flops.ok());
        QVERIFY2(QString::fromStdString(flops.error().message).startsWith(file + ": "), flops.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTorchProfile)
#include "tst_torchprofile.moc"
