// A scripted nn.TransformerEncoder (tests/fixtures/models/transformer_encoder.pt, made by
// make_transformer.py there): in inference each layer runs as one fused
// aten::_transformer_encoder_layer_fwd, whose MACs, calls and time must land on that layer.
#include "core/torch/flops.h"
#include "core/torch/layerprofile.h"

#include <QTest>

#include <algorithm>

using namespace pyrometer;
using namespace pyrometer::model;
using namespace pyrometer::torch;

namespace {

std::filesystem::path fixture(const char *name)
{
    return std::filesystem::path(PYROMETER_FIXTURES_DIR) / "models" / name;
}

std::vector<InputSpec> spec(const char *text)
{
    return parseInputSpecs(text).value();
}

template <typename Report>
const auto *row(const Report &report, const std::string &module)
{
    const auto it = std::find_if(report.rows.begin(), report.rows.end(), [&](const auto &r) { return r.module == module; });
    return it == report.rows.end() ? nullptr : &*it;
}

// The fixture's architecture: input 2x16x32, a 32 -> 64 projection, two encoder layers
// (d 64, 4 heads, feed-forward 128), a 64 -> 10 head.
constexpr double kBatch = 2, kTokens = 16, kIn = 32, kModel = 64, kFeedForward = 128, kClasses = 10;
const char *const kInput = "2x16x32";
const char *const kLayers[] = {"transformer_encoder.layers.0", "transformer_encoder.layers.1"};

// MACs of one encoder layer, per sequence: the Q, K and V projections, the scores QK^T, the
// scores times V, the output projection, the two feed-forward linears; times the batch.
double layerMacs()
{
    const double l = kTokens, d = kModel, ff = kFeedForward;
    return kBatch * (3 * l * d * d + l * l * d + l * l * d + l * d * d + 2 * l * d * ff);
}

double modelMacs()
{
    return 2 * layerMacs() + kBatch * kTokens * kIn * kModel + kBatch * kTokens * kModel * kClasses;
}

} // namespace

class TestFusedTransformer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void countsFusedEncoderLayers()
    {
        const auto report = countFlops(fixture("transformer_encoder.pt"), spec(kInput));
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        // Matrix products only: exact.
        QCOMPARE(report->totalMacs, modelMacs());
        QCOMPARE(report->rows.front().macs, modelMacs());
        for (const char *name : kLayers) {
            const auto *layer = row(report.value(), name);
            QVERIFY2(layer, name);
            QCOMPARE(layer->type, std::string("TransformerEncoderLayer"));
            QCOMPARE(layer->calls, 1);
            QCOMPARE(layer->macs, layerMacs());
            QCOMPARE(layer->selfMacs, layerMacs()); // the fused kernel runs the whole layer
            QCOMPARE(layer->outputShapes, (std::vector<std::vector<std::int64_t>>{{2, 16, 64}}));
        }
        QCOMPARE(row(report.value(), "transformer_encoder")->macs, 2 * layerMacs());
        QCOMPARE(row(report.value(), "input_proj")->macs, kBatch * kTokens * kIn * kModel);
        QCOMPARE(row(report.value(), "head")->macs, kBatch * kTokens * kModel * kClasses);
        // FLOPs: 2 per MAC plus biases, scaling, softmax, residual adds, layer norms and ReLU,
        // which add between 1% and 5% here.
        QVERIFY2(report->totalFlops > 2.01 * report->totalMacs && report->totalFlops < 2.1 * report->totalMacs,
                 qPrintable(QString("%1 FLOPs for %2 MACs").arg(report->totalFlops).arg(report->totalMacs)));
        const auto &uncounted = report->uncountedOps;
        QVERIFY(std::find(uncounted.begin(), uncounted.end(), "aten::_transformer_encoder_layer_fwd") == uncounted.end());
    }

    // In training the layers run their separate linear, bmm and softmax ops in their
    // submodules: the same MACs per layer as the fused kernel's.
    void fusedAndSeparateOpsCountAlike()
    {
        RunOptions options;
        options.inputs = spec(kInput);
        options.warmup = 1;
        options.iterations = 1;
        options.mode = RunMode::Train;
        ProgressReporter progress;
        const auto report = profileLayers(fixture("transformer_encoder.pt"), options, progress, StopToken());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->totalMacs, modelMacs());
        for (const char *name : kLayers) {
            const auto *layer = row(report.value(), name);
            QVERIFY2(layer, name);
            QCOMPARE(layer->calls, 1);
            QCOMPARE(layer->macs, layerMacs());
            QCOMPARE(row(report.value(), std::string(name) + ".linear1")->macs, kBatch * kTokens * kModel * kFeedForward);
        }
    }

    void profileChargesFusedLayers()
    {
        RunOptions options;
        options.inputs = spec(kInput);
        options.warmup = 2;
        options.iterations = 3;
        ProgressReporter progress;
        const auto report = profileLayers(fixture("transformer_encoder.pt"), options, progress, StopToken());
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->totalMacs, modelMacs());
        double layersMs = 0;
        for (const char *name : kLayers) {
            const auto *layer = row(report.value(), name);
            QVERIFY2(layer, name);
            QVERIFY(layer->calls >= 1);
            QVERIFY2(layer->selfMs > 0, name);
            QCOMPARE(layer->macs, layerMacs());
            QVERIFY(layer->gflopsPerSecond > 0);
            QVERIFY(layer->allocatedBytes > 0);
            layersMs += layer->totalMs;
        }
        // Two layers of ~1.1 MMACs each against two small linears: most of the forward.
        QVERIFY2(layersMs > 0.5 * report->forwardMs,
                 qPrintable(QString("layers %1 ms of a %2 ms forward").arg(layersMs).arg(report->forwardMs)));
        QVERIFY(row(report.value(), "transformer_encoder")->totalMs >= layersMs);
    }

    // A model without fused ops counts as before: a scripted Sequential of Linear(4, 3), ReLU,
    // Linear(3, 2), whose elements are its direct children.
    void modelWithoutFusedOpsUnchanged()
    {
        const auto report = countFlops(fixture("tiny_scripted.pt"), spec("1x4"));
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
        QCOMPARE(report->totalMacs, 4.0 * 3 + 3.0 * 2);
        QCOMPARE(report->totalFlops, 2 * (4.0 * 3 + 3.0 * 2) + 3 /* bias */ + 3 /* relu */ + 2 /* bias */);
        const double macs[] = {12, 0, 6};
        for (int i = 0; i < 3; ++i) {
            const auto *element = row(report.value(), std::to_string(i));
            QVERIFY(element);
            QCOMPARE(element->calls, 1);
            QCOMPARE(element->macs, macs[i]);
        }
        QCOMPARE(report->rows.front().calls, 1);
    }
};

QTEST_GUILESS_MAIN(TestFusedTransformer)
#include "tst_fusedtransformer.moc"
