// The Python engine (core/engine over resources/engine/pyrometer_engine/) in the release's own
// python3-torch: 1.13 on Debian 12, 2.6 on Debian 13. Models are made at test time by
// scripts/make-engine-models.py (the engine_test_models fixture); the factories are the committed
// Python files in tests/fixtures/engine.
#include "core/engine/engine.h"
#include "core/engine/pythonworker.h"
#include "core/model/layerroofline.h"
#include "core/trace/loader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <fstream>
#include <thread>

using namespace pyrometer;
using namespace pyrometer::engine;

namespace {

const std::string kPython = "/usr/bin/python3";

std::filesystem::path made(const char *name)
{
    return std::filesystem::path(PYROMETER_ENGINE_MODELS_DIR) / name;
}

std::string factory(const char *file, const char *function)
{
    return (std::filesystem::path(PYROMETER_FIXTURES_DIR) / "engine" / file).string() + ":" + function;
}

QJsonObject facts()
{
    QFile file(QStringLiteral(PYROMETER_ENGINE_MODELS_DIR "/facts.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

// torch 2.x writes .pt2 programs, TorchScript with scaled_dot_product_attention, and gives
// Python TorchScript's module hierarchy; 1.13 none of these.
bool torch2()
{
    return facts().value(QStringLiteral("torch")).toString().startsWith(QLatin1Char('2'));
}

bool madeModel(const char *name)
{
    return facts().value(QStringLiteral("made")).toArray().contains(QString::fromLatin1(name));
}

const Engine kPythonCpu{kPython, "cpu"};

std::vector<model::InputSpec> spec(const char *text)
{
    return model::parseInputSpecs(text).value();
}

const model::FlopsRow *row(const model::FlopsReport &report, const std::string &module)
{
    for (const auto &r : report.rows)
        if (r.module == module)
            return &r;
    return nullptr;
}

const model::LayerRow *row(const model::ProfileReport &report, const std::string &module)
{
    for (const auto &r : report.rows)
        if (r.module == module)
            return &r;
    return nullptr;
}

#ifndef Q_MOC_RUN
// What torch.profiler exports of one CUDA step of the worker (times in µs): module ranges, ops,
// the runtime calls that launch kernels (correlation ids) and the kernels on the GPU's stream. The
// conv launches a 400 µs kernel; the fc's addmm a 250 µs GEMM and a 50 µs reduction; a relu in
// the model itself a 30 µs kernel; the synchronize at the end launches nothing.
const char *const kWorkerCudaTrace = R"({"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
{"ph": "X", "cat": "user_annotation", "name": "pyrometer.module:TOP(Net)::forward", "pid": 1, "tid": 1, "ts": 5, "dur": 900},
{"ph": "X", "cat": "user_annotation", "name": "pyrometer.module:TOP(Net)::forward/conv(Conv2d)::forward", "pid": 1, "tid": 1, "ts": 10, "dur": 290},
{"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 20, "dur": 180, "args": {"Input Dims": [[1, 3, 8, 8]], "Input type": ["float"]}},
{"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 25, "dur": 170},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 10, "args": {"correlation": 1}},
{"ph": "X", "cat": "user_annotation", "name": "pyrometer.module:TOP(Net)::forward/fc(Linear)::forward", "pid": 1, "tid": 1, "ts": 310, "dur": 290},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 320, "dur": 180},
{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 330, "dur": 160},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 340, "dur": 10, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 360, "dur": 10, "args": {"correlation": 3}},
{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 610, "dur": 20},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 612, "dur": 5, "args": {"correlation": 4}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 700, "dur": 290, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "implicit_gemm", "pid": 0, "tid": 7, "ts": 45, "dur": 400, "args": {"correlation": 1, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7, "ts": 450, "dur": 250, "args": {"correlation": 2, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "splitk_reduce", "pid": 0, "tid": 7, "ts": 705, "dur": 50, "args": {"correlation": 3, "stream": 7}},
{"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 760, "dur": 30, "args": {"correlation": 4, "stream": 7}}
]})";
#endif

QString messageOf(const Error &error)
{
    return QString::fromStdString(error.message);
}

// The FLOPs rows two engines give for the same model, equal field by field; with bytes, the
// roofline's bytes too.
void compareRows(const model::FlopsReport &embedded, const model::FlopsReport &python, bool bytes = false)
{
    QCOMPARE(python.rows.size(), embedded.rows.size());
    for (std::size_t i = 0; i < embedded.rows.size(); ++i) {
        const auto &e = embedded.rows[i];
        const auto &p = python.rows[i];
        const QByteArray where = QByteArray::fromStdString("module '" + e.module + "'");
        QVERIFY2(p.module == e.module, where);
        QVERIFY2(p.type == e.type, where);
        QVERIFY2(p.calls == e.calls, where + " calls " + QByteArray::number(p.calls) + " vs " + QByteArray::number(e.calls));
        QVERIFY2(p.params == e.params, where);
        QVERIFY2(p.macs == e.macs, where + " macs " + QByteArray::number(p.macs) + " vs " + QByteArray::number(e.macs));
        QVERIFY2(p.flops == e.flops, where + " flops " + QByteArray::number(p.flops) + " vs " + QByteArray::number(e.flops));
        QVERIFY2(p.outputShapes == e.outputShapes, where);
        // The roofline's bytes: known in both (views and empty tensors move nothing), and equal
        // where both engines record the one same op (a convolution: its tensors at their element
        // sizes); elsewhere they may record different ops (a traced aten::linear, Python's t and addmm).
        if (!bytes)
            continue;
        QVERIFY2(p.bytes > 0 && e.bytes > 0, where + " bytes " + QByteArray::number(p.bytes) + " vs " + QByteArray::number(e.bytes));
        QVERIFY2(p.elementBytes == e.elementBytes, where);
        if (e.type == "Conv2d")
            QVERIFY2(p.bytes == e.bytes, where + " bytes " + QByteArray::number(p.bytes) + " vs " + QByteArray::number(e.bytes));
    }
    QCOMPARE(python.totalMacs, embedded.totalMacs);
    QCOMPARE(python.totalFlops, embedded.totalFlops);
}

} // namespace

class TestPythonEngine : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void choosesTheEngineByModel()
    {
        QVERIFY(needsPython("model.pt2"));
        QVERIFY(needsPython("model.py"));
        QVERIFY(needsPython("/a/b/model.py:build"));
        QVERIFY(!needsPython("model.pt"));
        QVERIFY(!isPython(resolveEngine({}, "model.pt")));
        QVERIFY(isPython(resolveEngine({}, "model.pt2")));
        QCOMPARE(resolveEngine({kPython, "cpu"}, "model.pt").python, kPython);
        QVERIFY(QString::fromStdString(embeddedEngineName()).startsWith(QStringLiteral("embedded libtorch ")));
    }

    void probesTheInterpreter()
    {
        const auto info = probePython(kPython, {});
        QVERIFY2(info.ok(), info.ok() ? "" : info.error().message.c_str());
        QVERIFY(!info->pythonVersion.empty());
        QCOMPARE(QString::fromStdString(info->torchVersion).left(3), facts().value(QStringLiteral("torch")).toString().left(3));
        QVERIFY(!info->devices.empty());
        QCOMPARE(info->devices.front(), std::string("cpu"));
        // The test machines have no GPU: the reason is given, for the dialog to grey CUDA out.
        QVERIFY(!info->cudaUnavailable.empty());
        QCOMPARE(info->exportSupported, torch2());
    }

    // The same model, built by a factory in Python and traced to TorchScript by the fixture
    // script, gives the same per-layer rows and FLOPs in both engines.
    void factoryMatchesTheEmbeddedEngine()
    {
        const auto embedded = countFlops({}, made("factory_cnn.pt"), {});
        QVERIFY2(embedded.ok(), embedded.ok() ? "" : embedded.error().message.c_str());
        QVERIFY(QString::fromStdString(embedded->engine).startsWith(QStringLiteral("embedded libtorch")));
        const auto python = countFlops(kPythonCpu, factory("factory_cnn.py", "build"), {});
        QVERIFY2(python.ok(), python.ok() ? "" : python.error().message.c_str());
        QVERIFY(QString::fromStdString(python->engine).startsWith(QStringLiteral("Python ")));
        QVERIFY(python->engine.find("· cpu") != std::string::npos);
        // The factory returns its example input: 2x3x32x32, as the TorchScript file records.
        QCOMPARE(model::formatInputSpecs(python->inputs), std::string("2x3x32x32"));
        QCOMPARE(python->params, std::uint64_t(facts().value(QStringLiteral("factory_cnn_params")).toInt()));
        compareRows(embedded.value(), python.value(), true);
        // The block's ReLU runs once per block, the stem's once: calls are told apart per module.
        QCOMPARE(row(python.value(), "blocks.0.relu")->calls, 1);
        QVERIFY(row(python.value(), "blocks.0.conv")->macs > 0);
    }

    // TorchScript through the Python engine: the same totals; per-layer rows where the torch
    // gives Python TorchScript's module hierarchy (torch 2 with Kineto), else the model's row.
    void torchScriptInThePythonEngine()
    {
        const auto embedded = countFlops({}, made("factory_cnn.pt"), {});
        const auto python = countFlops(kPythonCpu, made("factory_cnn.pt"), {});
        QVERIFY2(python.ok(), python.ok() ? "" : python.error().message.c_str());
        QCOMPARE(python->totalMacs, embedded->totalMacs);
        QCOMPARE(python->totalFlops, embedded->totalFlops);
        if (torch2()) {
            compareRows(embedded.value(), python.value());
        } else {
            QCOMPARE(row(python.value(), "")->macs, embedded->totalMacs);
            QCOMPARE(row(python.value(), "blocks.0.conv")->calls, 0);
            model::RunOptions options;
            options.warmup = 1;
            options.iterations = 1;
            ProgressReporter progress;
            const auto profile = profileLayers(kPythonCpu, made("factory_cnn.pt"), options, progress, {});
            QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
            QVERIFY2(profile->note.find("no module hierarchy for TorchScript") != std::string::npos, profile->note.c_str());
        }
    }

    void latencyAndProfileOfAFactory()
    {
        model::RunOptions options;
        options.warmup = 2;
        options.iterations = 7;
        ProgressReporter progress;
        const auto latency = measureLatency(kPythonCpu, factory("factory_cnn.py", "build"), options, progress, {});
        QVERIFY2(latency.ok(), latency.ok() ? "" : latency.error().message.c_str());
        QCOMPARE(latency->samplesMs.size(), std::size_t(7));
        QCOMPARE(latency->iterations, 7);
        QCOMPARE(latency->batchSize, std::int64_t(2));
        QVERIFY(latency->coldMs > 0);
        QVERIFY(latency->warm.min > 0 && latency->warm.min <= latency->warm.p50 && latency->warm.p50 <= latency->warm.max);
        QCOMPARE(latency->warm, model::latencyStats(latency->samplesMs));
        QVERIFY(std::abs(latency->throughputPerSecond - 2 * 1000.0 / latency->warm.mean) < 1e-6 * latency->throughputPerSecond);

        QTemporaryDir dir;
        const std::filesystem::path trace = dir.filePath(QStringLiteral("factory.pt.trace.json")).toStdString();
        options.iterations = 3;
        const auto profile = profileLayers(kPythonCpu, factory("factory_cnn.py", "build"), options, progress, {}, trace);
        QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
        QCOMPARE(profile->iterations, 3);
        QCOMPARE(profile->trace, trace);
        QVERIFY(profile->forwardMs > 0);
        // Every leaf that computes has its own time; the model's row covers the step.
        for (const char *leaf : {"stem", "blocks.0.conv", "blocks.1.bn", "pool", "fc"}) {
            const auto *r = row(profile.value(), leaf);
            QVERIFY2(r && r->calls == 1 && r->selfMs > 0, leaf);
        }
        QCOMPARE(row(profile.value(), "")->totalMs, profile->forwardMs);
        QVERIFY(row(profile.value(), "blocks")->totalMs >= row(profile.value(), "blocks.0")->totalMs);
        // On the CPU nothing is device time, and the layers know their dtype by name.
        QVERIFY(!profile->deviceTimes);
        QCOMPARE(row(profile.value(), "fc")->dtype, std::string("float"));
        // torch.profiler's own trace, with the three steps and the modules as ranges.
        const auto loaded = trace::loadTrace(trace);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
        std::ifstream text(trace);
        const std::string json((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
        QVERIFY(json.find("ProfilerStep#3") != std::string::npos);
        QVERIFY(json.find("pyrometer.module:TOP(FactoryCnn)::forward/blocks(Sequential)::forward") != std::string::npos);
    }

    // Each layer's device time is the kernels its ops launched (correlation ids of the worker's own
    // CUDA trace), not the CPU's time launching them; the layer roofline places that time.
    void deviceTimesPerLayerFromTheWorkersTrace()
    {
        QTemporaryDir dir;
        const auto tracePath = dir.filePath(QStringLiteral("cuda.json"));
        {
            QFile file(tracePath);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(kWorkerCudaTrace);
        }
        const auto worker = findWorker();
        QVERIFY2(worker.ok(), worker.ok() ? "" : worker.error().message.c_str());
        QProcess python;
        python.start(QString::fromStdString(kPython),
                     {QStringLiteral("-c"),
                      QStringLiteral(
                          "import json, sys; sys.path.insert(0, sys.argv[1]); import pyrometer_engine.profiling as e; "
                          "ops, memory = e.profiled_ops(json.load(open(sys.argv[2]))['traceEvents'], True); "
                          "print(json.dumps({'ops': ops, 'memory': memory, 'iterations': 1}))"),
                      QString::fromStdString(worker->parent_path().parent_path().string()), tracePath});
        QVERIFY(python.waitForFinished(60'000));
        QCOMPARE(python.exitCode(), 0);
        const auto events = recordedProfile(nlohmann::json::parse(python.readAllStandardOutput().toStdString()));
        const auto relu =
            std::find_if(events.ops.begin(), events.ops.end(), [](const auto &op) { return op.name == "aten::relu"; });
        QVERIFY(relu != events.ops.end());
        QCOMPARE(relu->deviceNs, std::int64_t(30'000));

        model::FlopsReport flops;
        for (const auto &[module, type] : {std::pair{"", "Net"}, {"conv", "Conv2d"}, {"fc", "Linear"}}) {
            model::FlopsRow layer;
            layer.module = module;
            layer.type = type;
            layer.depth = layer.module.empty() ? 0 : 1;
            layer.leaf = !layer.module.empty();
            layer.calls = 1;
            flops.rows.push_back(std::move(layer));
        }
        flops.rows[2].flops = 2e9;
        flops.rows[2].bytes = 4e6;
        flops.rows[2].dtype = "c10::Half";
        const auto report = model::summarizeProfile(flops, events);
        QVERIFY(report.deviceTimes);
        QCOMPARE(row(report, "conv")->deviceMs, 0.4);
        QCOMPARE(row(report, "fc")->deviceMs, 0.3); // the GEMM and its reduction
        QCOMPARE(row(report, "")->selfDeviceMs, 0.03);
        QCOMPARE(row(report, "")->deviceMs, 0.73);
        QCOMPARE(report.deviceForwardMs, 0.73);
        QCOMPARE(report.forwardMs, 1.0);                             // the synchronized step
        QVERIFY(std::abs(row(report, "fc")->totalMs - 0.18) < 1e-9); // the CPU's time in its ops

        // On a V100 the fp16 layer meets the FP16 matrix roof (it has no BF16 units), over its
        // kernels' 0.3 ms: 2 GFLOP / 0.3 ms = 6.67 TFLOP/s at 500 FLOP/byte, 5.3% of 125 TFLOP/s.
        const auto v100 = analysis::findDevice("Tesla V100-SXM2-32GB");
        QVERIFY(v100);
        const auto placed = model::layerRooflineRow(*row(report, "fc"), v100, report.deviceTimes);
        QCOMPARE(placed.timeNs, std::int64_t(300'000));
        QVERIFY(placed.roof);
        QCOMPARE(placed.roof->precision, analysis::Precision::FP16);
        QCOMPARE(placed.roof->peakFlops, 125e12);
        QCOMPARE(placed.bound, analysis::Bound::Compute);
        QVERIFY(std::abs(placed.percentOfRoof - 100 * (2e9 / 300e-6) / 125e12) < 1e-9);
        // Without device times the CPU's 0.18 ms would be placed.
        QCOMPARE(model::layerRooflineRow(*row(report, "fc"), v100, false).timeNs, std::int64_t(180'000));
    }

    // A TorchScript file neither engine loads (an op no torch has): each engine's reason once, in
    // torch's first lines, without the source dump under them.
    void neitherEngineLoadsItSaysSoOnce()
    {
        QTemporaryDir dir;
        const auto broken = dir.filePath(QStringLiteral("unknown_op.pt"));
        QProcess python;
        python.start(QString::fromStdString(kPython),
                     {QStringLiteral("-c"),
                      QStringLiteral("import sys, zipfile\n"
                                     "src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], 'w')\n"
                                     "for item in src.infolist():\n"
                                     "    data = src.read(item.filename)\n"
                                     "    if item.filename.endswith('modules/linear.py'):\n"
                                     "        data = data.replace(b'torch.linear(', b'torch.pyrometer_no_such_op(')\n"
                                     "    dst.writestr(item, data)\n"
                                     "dst.close()\n"),
                      QStringLiteral(PYROMETER_FIXTURES_DIR "/models/tiny_scripted.pt"), broken});
        QVERIFY(python.waitForFinished(60'000));
        QCOMPARE(python.exitCode(), 0);
        const auto opened = openModel(Engine{}, broken.toStdString(), kPython, {});
        QVERIFY(!opened.ok());
        const auto message = messageOf(opened.error());
        QVERIFY2(message.contains(QStringLiteral("neither engine loads it")), qPrintable(message));
        QCOMPARE(message.count(QStringLiteral("Unknown builtin op: aten::pyrometer_no_such_op")), 1);
        QVERIFY2(message.contains(QStringLiteral("the same error")), qPrintable(message));
        QVERIFY2(!message.contains(QStringLiteral("<--- HERE")) && message.count(QLatin1Char('\n')) == 1,
                 qPrintable(message));
    }

    // A variant's profile has its layers: channels_last runs a copy of the module and int8 one
    // with quantized Linears, whose calls are the layers' (not all on the model's row).
    void variantProfilesKeepTheirLayers()
    {
        model::RunOptions options;
        options.warmup = 1;
        options.iterations = 2;
        ProgressReporter progress;
        for (const char *name : {"channels_last", "int8"}) {
            const auto variant = model::parseVariants(name).value().front();
            const auto profile =
                profileVariant(kPythonCpu, factory("factory_cnn.py", "build"), variant, options, progress, {});
            QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
            for (const char *leaf : {"stem", "blocks.0.conv", "fc"}) {
                const auto *r = row(profile.value(), leaf);
                QVERIFY2(r && r->selfMs > 0, (std::string(name) + " " + leaf).c_str());
            }
            QVERIFY(row(profile.value(), "")->selfMs < row(profile.value(), "")->totalMs);
        }
    }

    // A factory that returns only its module opens (its inputs are asked for when it runs), and
    // running it without inputs says so.
    void moduleOnlyFactoryOpens()
    {
        const auto opened = openModel(kPythonCpu, factory("factory_cnn.py", "build_module_only"), {}, {});
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
        QVERIFY(opened->exampleInputs.empty());
        QCOMPARE(opened->info.parameters, std::uint64_t(5290));
        model::RunOptions options;
        options.warmup = 0;
        options.iterations = 1;
        ProgressReporter progress;
        const auto run =
            measureLatency(kPythonCpu, factory("factory_cnn.py", "build_module_only"), options, progress, {});
        QVERIFY(!run.ok());
        QVERIFY2(messageOf(run.error()).contains(QStringLiteral("no input shapes given")), run.error().message.c_str());
    }

    // A pickle that runs code when unpickled is never unpickled to find out what it is: the probe
    // reads with weights_only=True, refuses it and says how to load it knowingly.
    void aPickleOfCodeNeverRuns()
    {
        QTemporaryDir dir;
        const auto evil = dir.filePath(QStringLiteral("evil.pt"));
        const auto marker = dir.filePath(QStringLiteral("ran"));
        QProcess python;
        python.start(QString::fromStdString(kPython),
                     {QStringLiteral("-c"),
                      QStringLiteral("import os, sys, torch\n"
                                     "class Evil:\n"
                                     "    def __reduce__(self):\n"
                                     "        return (os.system, ('touch ' + sys.argv[2],))\n"
                                     "torch.save(Evil(), sys.argv[1])\n"),
                      evil, marker});
        QVERIFY(python.waitForFinished(60'000));
        QCOMPARE(python.exitCode(), 0);
        QVERIFY(!QFile::exists(marker));
        const auto opened = openModel(kPythonCpu, evil.toStdString(), {}, {});
        QVERIFY(!opened.ok());
        QVERIFY2(messageOf(opened.error()).contains(QStringLiteral("weights_only=True refuses it")),
                 opened.error().message.c_str());
        QVERIFY(!QFile::exists(marker)); // its code never ran
    }

    void refusesAStateDict()
    {
        const auto result = countFlops(kPythonCpu, std::filesystem::path(PYROMETER_FIXTURES_DIR) / "models/state_dict.pt", {});
        QVERIFY(!result.ok());
        QVERIFY2(messageOf(result.error()).contains(QStringLiteral("weights without a model")), result.error().message.c_str());
        QVERIFY(messageOf(result.error()).contains(QStringLiteral("model.py:build")));
    }

    void saysWhatAFactoryRaised()
    {
        const auto raised = countFlops(kPythonCpu, factory("broken_factories.py", "raises"), {});
        QVERIFY(!raised.ok());
        const auto message = messageOf(raised.error());
        QVERIFY2(message.contains(QStringLiteral("raises() raised KeyError")), qPrintable(message));
        // The traceback's last lines, with the line that failed.
        QVERIFY2(message.contains(QStringLiteral("config[\"width\"]")), qPrintable(message));
        QVERIFY(message.contains(QString::fromStdString(kPython)));

        const auto notModule = countFlops(kPythonCpu, factory("broken_factories.py", "not_a_module"), {});
        QVERIFY(!notModule.ok());
        QVERIFY2(messageOf(notModule.error()).contains(QStringLiteral("returned a dict, not an nn.Module")), notModule.error().message.c_str());

        const auto missing = countFlops(kPythonCpu, factory("broken_factories.py", "nowhere"), {});
        QVERIFY(!missing.ok());
        QVERIFY2(messageOf(missing.error()).contains(QStringLiteral("has no function nowhere")), missing.error().message.c_str());
    }

    void saysWhenInputsDoNotFit()
    {
        const auto noInputs = countFlops(kPythonCpu, factory("broken_factories.py", "linear"), {});
        QVERIFY(!noInputs.ok());
        QVERIFY2(messageOf(noInputs.error()).contains(QStringLiteral("no input shapes given")), noInputs.error().message.c_str());
        const auto wrong = countFlops(kPythonCpu, factory("broken_factories.py", "linear"), spec("3x5"));
        QVERIFY(!wrong.ok());
        QVERIFY2(messageOf(wrong.error()).contains(QStringLiteral("does not take inputs of shape 3x5")), wrong.error().message.c_str());
        const auto right = countFlops(kPythonCpu, factory("broken_factories.py", "linear"), spec("3x8"));
        QVERIFY2(right.ok(), right.ok() ? "" : right.error().message.c_str());
        // 3x8 through Linear(8, 16) and Linear(16, 4).
        QCOMPARE(right->totalMacs, 3.0 * 8 * 16 + 3.0 * 16 * 4);
    }

    void aCrashEndsTheWorkerOnly()
    {
        const auto crashed = countFlops(kPythonCpu, factory("broken_factories.py", "crashes"), {});
        QVERIFY(!crashed.ok());
        const auto message = messageOf(crashed.error());
        QVERIFY2(message.contains(QStringLiteral("was ended by SIGSEGV")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("torch ")), qPrintable(message)); // names the interpreter's torch
    }

    void cancelStopsAHangingModel()
    {
        const StopToken stop;
        std::thread canceller([stop] {
            std::this_thread::sleep_for(std::chrono::seconds(4));
            stop.requestStop();
        });
        model::RunOptions options;
        ProgressReporter progress;
        const auto started = std::chrono::steady_clock::now();
        const auto result = measureLatency(kPythonCpu, factory("broken_factories.py", "hangs"), options, progress, stop);
        canceller.join();
        QVERIFY(!result.ok());
        QVERIFY2(messageOf(result.error()).endsWith(QStringLiteral("cancelled")), result.error().message.c_str());
        // Interrupted, then terminated: well before the hang would end (it never does).
        QVERIFY(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
    }

    void saysWhenTheInterpreterCannot()
    {
        const auto missing = countFlops({"/nonexistent/bin/python3", "cpu"}, factory("factory_cnn.py", "build"), {});
        QVERIFY(!missing.ok());
        QVERIFY2(messageOf(missing.error()).contains(QStringLiteral("cannot start /nonexistent/bin/python3")), missing.error().message.c_str());

        // An interpreter without torch: Debian's python3 without its site packages.
        QTemporaryDir dir;
        const auto bare = dir.filePath(QStringLiteral("python-without-torch"));
        {
            QFile script(bare);
            QVERIFY(script.open(QIODevice::WriteOnly));
            script.write("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
            script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        }
        const auto noTorch = countFlops({bare.toStdString(), "cpu"}, factory("factory_cnn.py", "build"), {});
        QVERIFY(!noTorch.ok());
        QVERIFY2(messageOf(noTorch.error()).contains(QStringLiteral("needs torch")), noTorch.error().message.c_str());
        QVERIFY(messageOf(noTorch.error()).contains(QStringLiteral("cannot import torch")));

        // No GPU here: CUDA is refused, naming the torch.
        const auto cuda = countFlops({kPython, "cuda"}, factory("factory_cnn.py", "build"), {});
        QVERIFY(!cuda.ok());
        QVERIFY2(messageOf(cuda.error()).contains(QStringLiteral("has no CUDA device")), cuda.error().message.c_str());
    }

    void exportProgramsNeedTorch2()
    {
        if (torch2())
            QSKIP("torch 2.x loads .pt2 programs (exportResNet18 checks one)");
        const auto refused = countFlops(kPythonCpu, made("fake.pt2"), {});
        QVERIFY(!refused.ok());
        const auto message = messageOf(refused.error());
        QVERIFY2(message.contains(QStringLiteral("needs torch 2.1 or newer")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("this interpreter has torch 1.13")), qPrintable(message));
    }

    // torchvision's resnet18 through torch.export: a row per leaf module, named as in the model,
    // and torchvision's published 1.81 GMACs.
    void exportResNet18()
    {
        if (!madeModel("resnet18.pt2"))
            QSKIP("torch.export needs torch 2.1 (the Debian 13 stage runs this)");
        const auto opened = openModel({}, made("resnet18.pt2"));
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
        QVERIFY(isPython(opened->engine));
        QCOMPARE(opened->kind, std::string("export"));
        QCOMPARE(opened->exampleInputs, std::string("1x3x224x224"));
        QVERIFY2(opened->batchNote.find("fixed batch of 1") != std::string::npos, opened->batchNote.c_str());
        QCOMPARE(opened->info.parameters, std::uint64_t(facts().value(QStringLiteral("resnet18_params")).toInteger()));

        const auto flops = countFlops(kPythonCpu, made("resnet18.pt2"), {});
        QVERIFY2(flops.ok(), flops.ok() ? "" : flops.error().message.c_str());
        QCOMPARE(QString::number(flops->totalMacs / 1e9, 'f', 2), QStringLiteral("1.81"));
        QCOMPARE(flops->rows.front().type, std::string("ResNet"));
        int leaves = 0;
        for (const auto &r : flops->rows) {
            if (!r.leaf)
                continue;
            ++leaves;
            QVERIFY2(r.calls >= 1, r.module.c_str());
        }
        // conv1, bn1, relu, maxpool; 8 blocks of conv1, bn1, relu, conv2, bn2; 3 downsamples of
        // a conv and a bn; avgpool, fc.
        QCOMPARE(leaves, 4 + 8 * 5 + 3 * 2 + 2);
        const auto *conv = row(flops.value(), "layer1.0.conv1");
        QVERIFY(conv);
        QCOMPARE(conv->type, std::string("Conv2d"));
        QCOMPARE(conv->macs, 64.0 * 56 * 56 * 64 * 9); // output elements x input channels x kernel
        QVERIFY(row(flops.value(), "layer2.0.downsample.0"));
    }

    // On the CPU the Python engine has no allocator to read: peak memory is not measured, and no
    // batch is said to fit a budget it was never measured against.
    void sweepOnTheCpuSaysMemoryIsNotMeasured()
    {
        model::SweepOptions options;
        options.batches = {1, 2};
        options.warmup = 1;
        options.iterations = 2;
        options.memoryBudgetBytes = std::int64_t(1) << 30;
        ProgressReporter progress;
        const auto report = runSweep(kPythonCpu, factory("factory_cnn.py", "build"), options, {}, progress, {});
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->points.size(), std::size_t(2));
        QCOMPARE(report->memorySource, std::string());
        for (const auto &point : report->points) {
            QVERIFY(!point.memoryMeasured());
            QVERIFY(!point.fitsBudget);
            QVERIFY(point.latency.mean > 0);
        }
        QCOMPARE(report->summaries.front().largestFittingBatch, std::int64_t(0));
    }

    void sweepsWhatAnExportAllows()
    {
        if (!madeModel("resnet18.pt2"))
            QSKIP("torch.export needs torch 2.1 (the Debian 13 stage runs this)");
        model::SweepOptions options;
        options.batches = {1, 2};
        options.warmup = 1;
        options.iterations = 1;
        ProgressReporter progress;
        const auto fixed = runSweep(kPythonCpu, made("resnet18.pt2"), options, {}, progress, {});
        QVERIFY2(fixed.ok(), fixed.ok() ? "" : fixed.error().message.c_str());
        QCOMPARE(fixed->points.size(), std::size_t(1));
        QCOMPARE(fixed->points.front().batch, std::int64_t(1));
        QVERIFY2(fixed->summaries.front().note.find("fixed batch of 1") != std::string::npos, fixed->summaries.front().note.c_str());

        options.batches = {1, 2, 128};
        const auto dynamic = runSweep(kPythonCpu, made("resnet18_dynamic.pt2"), options, {}, progress, {});
        QVERIFY2(dynamic.ok(), dynamic.ok() ? "" : dynamic.error().message.c_str());
        QCOMPARE(dynamic->points.size(), std::size_t(2));
        QCOMPARE(dynamic->points[1].batch, std::int64_t(2));
        QVERIFY(dynamic->points[1].throughputPerSecond > 0);
        QVERIFY2(dynamic->summaries.front().note.find("batches 1 to 64") != std::string::npos, dynamic->summaries.front().note.c_str());
    }

    // Attention saved by torch 2: what libtorch 1.13 cannot load, profiled with calls and MACs.
    void attentionAndEncoderOfTorch2()
    {
        if (!madeModel("attention.pt"))
            QSKIP("scaled_dot_product_attention needs torch 2 (the Debian 13 stage runs this)");
        model::RunOptions options;
        options.warmup = 1;
        options.iterations = 2;
        ProgressReporter progress;
        const auto attention = profileLayers(kPythonCpu, made("attention.pt"), options, progress, {});
        QVERIFY2(attention.ok(), attention.ok() ? "" : attention.error().message.c_str());
        for (const char *layer : {"qkv", "proj", "norm"}) {
            const auto *r = row(attention.value(), layer);
            QVERIFY2(r && r->calls == 1 && r->selfMs > 0, layer);
        }
        // 2x16 tokens of 64 through qkv (64 -> 192) and proj (64 -> 64), and attention over 4 heads
        // of 16: QK^T and AV, 2 x 4 x 16 x 16 x 16 MACs each, in the model's own forward.
        QCOMPARE(row(attention.value(), "qkv")->macs, 32.0 * 64 * 192);
        QCOMPARE(row(attention.value(), "proj")->macs, 32.0 * 64 * 64);
        QCOMPARE(attention->totalMacs, 32.0 * 64 * 192 + 32.0 * 64 * 64 + 2 * (2.0 * 4 * 16 * 16 * 16));

        const auto encoder = countFlops(kPythonCpu, made("encoder.pt"), {});
        QVERIFY2(encoder.ok(), encoder.ok() ? "" : encoder.error().message.c_str());
        // Per layer: qkv 32x64x192, out 32x64x64, attention 2x(2x4x16x16x16), feed-forward
        // 32x64x128 twice.
        const double perLayer = 32.0 * 64 * 192 + 32.0 * 64 * 64 + 2 * (2.0 * 4 * 16 * 16 * 16) + 2 * (32.0 * 64 * 128);
        QCOMPARE(encoder->totalMacs, 2 * perLayer);
        QCOMPARE(row(encoder.value(), "layers.0")->calls, 1);
        QCOMPARE(row(encoder.value(), "layers.1")->macs, perLayer);
    }

    void variantsOfTodaysTorch()
    {
        model::CompareOptions options;
        options.variants = model::parseVariants("compile,bf16,int8,channels_last").value();
        options.warmup = 1;
        options.iterations = 3;
        ProgressReporter progress;
        std::vector<std::string> heard;
        const auto report =
            compareVariants(kPythonCpu, factory("factory_cnn.py", "build"), options,
                            [&](const model::VariantResult &row) { heard.push_back(row.name); }, progress, {});
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(heard, (std::vector<std::string>{"baseline", "compile", "bf16", "int8", "channels_last"}));
        QVERIFY(QString::fromStdString(report->engine).startsWith(QStringLiteral("Python ")));
        const auto &rows = report->rows;
        QVERIFY(rows[0].ok() && rows[0].latency.mean > 0 && rows[0].speedup == 1.0);
        // Tolerances: compile reorders float sums (1e-4); bf16 keeps 8 bits of mantissa (5%);
        // dynamic int8 on the one Linear (5%); channels_last reorders convolution sums (1e-5).
        const std::map<std::string, double> tolerance{{"compile", 1e-4}, {"bf16", 0.05}, {"int8", 0.05}, {"channels_last", 1e-5}};
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto &r = rows[i];
            if (r.name == "compile" && !torch2()) {
                QVERIFY2(r.error.find("torch 2.0 or newer") != std::string::npos, r.error.c_str());
                continue;
            }
            QVERIFY2(r.ok(), (r.name + ": " + r.error).c_str());
            QVERIFY2(r.relativeError && *r.relativeError < tolerance.at(r.name), r.name.c_str());
            QVERIFY(r.speedup > 0);
            // Its three timed runs, taken in turns with the baseline's, give the speedup an interval.
            QCOMPARE(r.latency.n, std::size_t(3));
            QVERIFY(r.speedupInterval);
            QCOMPARE(*r.speedupInterval, *ratioInterval(rows[0].latency.sample(), r.latency.sample()));
        }
        QVERIFY(rows[3].note.find("1 layer on dynamic int8") != std::string::npos);
        // Every variant keeps the layers: the baseline's MACs, as flops counts them.
        const auto flops = countFlops(kPythonCpu, factory("factory_cnn.py", "build"), {});
        for (const auto &r : rows)
            if (r.ok())
                QCOMPARE(*r.macs, flops->totalMacs);
        QCOMPARE(*rows[3].params, std::int64_t(5290 - 170)); // fc's weights and bias packed away as int8
    }
};

QTEST_GUILESS_MAIN(TestPythonEngine)
#include "tst_pythonengine.moc"
