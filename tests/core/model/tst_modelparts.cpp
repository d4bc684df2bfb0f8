// What both engines share and no model is needed for: input specs, FLOPs formulas checked
// against hand-computed layers, module paths, latency statistics, the trace writer.
#include "core/model/flops.h"
#include "core/model/inputspec.h"
#include "core/model/latency.h"
#include "core/model/modulepath.h"
#include "core/model/traceexport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <sstream>

Q_DECLARE_METATYPE(pyrometer::analysis::OpRecord)

using namespace pyrometer;
using namespace pyrometer::model;

namespace {

OpArg tensor(std::vector<std::int64_t> shape)
{
    OpArg arg;
    arg.kind = OpArg::Kind::Tensor;
    arg.values = std::move(shape);
    return arg;
}

OpArg ints(std::vector<std::int64_t> values)
{
    OpArg arg;
    arg.kind = OpArg::Kind::IntList;
    arg.values = std::move(values);
    return arg;
}

OpArg flag(bool value)
{
    OpArg arg;
    arg.kind = OpArg::Kind::Bool;
    arg.values = {value ? 1 : 0};
    return arg;
}

OpArg integer(std::int64_t value)
{
    OpArg arg;
    arg.kind = OpArg::Kind::Int;
    arg.values = {value};
    return arg;
}

// aten::_convolution as a traced Conv2d records it.
OpRecord conv(std::vector<std::int64_t> input, std::vector<std::int64_t> weight, bool bias, std::int64_t groups,
              std::vector<std::int64_t> output)
{
    OpRecord op;
    op.name = "aten::_convolution";
    op.args = {tensor(input), tensor(weight), bias ? tensor({weight[0]}) : OpArg{},
               ints({1, 1}),  ints({1, 1}),   ints({1, 1}),
               flag(false),   ints({0, 0}),   integer(groups)};
    op.outputShapes = {output};
    return op;
}

OpArg none()
{
    return OpArg{};
}

OpArg number(double value)
{
    OpArg arg;
    arg.kind = OpArg::Kind::Double;
    arg.number = value;
    return arg;
}

// A fused transformer layer's arguments, as native_functions.yaml (1.13) lists them, up to
// ffn_bias_2: src [B, L, E], E, heads, the weights of a layer with feed-forward F.
std::vector<OpArg> layerArgs(std::int64_t b, std::int64_t l, std::int64_t e, std::int64_t heads, std::int64_t f,
                             bool gelu)
{
    return {tensor({b, l, e}), integer(e),  integer(heads), tensor({3 * e, e}), tensor({3 * e}), tensor({e, e}),
            tensor({e}),       flag(gelu),  flag(false),    number(1e-5),       tensor({e}),     tensor({e}),
            tensor({e}),       tensor({e}), tensor({f, e}), tensor({f}),        tensor({e, f}),  tensor({e})};
}

// MACs of multi-head attention with L queries, S projected keys and T cached ones: projections,
// QK^T and AV over S + T keys, output projection.
double attentionMacs(double b, double l, double s, double t, double e)
{
    return b * (l * e * e + 2 * s * e * e + 2 * l * (s + t) * e + l * e * e);
}

} // namespace

class TestModelParts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesInputSpecs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<int>("inputs");
        QTest::addRow("image") << "1x3x224x224"
                               << "1x3x224x224" << 1;
        QTest::addRow("two with dtype") << "1x3x224x224,1x10:int64"
                                        << "1x3x224x224,1x10:int64" << 2;
        QTest::addRow("spaces and aliases") << " 2x8 : long , 4:half "
                                            << "2x8:int64,4:float16" << 2;
        QTest::addRow("explicit float") << "5x5:float32"
                                        << "5x5" << 1;
        QTest::addRow("scalar") << "scalar:int64"
                                << "scalar:int64" << 1;
    }
    void parsesInputSpecs()
    {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        QFETCH(int, inputs);
        const auto parsed = parseInputSpecs(text.toStdString());
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(int(parsed->size()), inputs);
        QCOMPARE(QString::fromStdString(formatInputSpecs(parsed.value())), canonical);
    }

    void refusesMalformedSpecs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::addRow("empty") << ""
                               << "empty input spec";
        QTest::addRow("letters") << "1xax3"
                                 << "\"a\" is not a dimension";
        QTest::addRow("zero") << "1x0x3"
                              << "must be positive";
        QTest::addRow("negative") << "1x-3"
                                  << "must be positive";
        QTest::addRow("dtype") << "1x3:complex"
                               << "unknown dtype \"complex\"";
        QTest::addRow("trailing x") << "1x3x"
                                    << "is not a dimension";
        QTest::addRow("empty second") << "1x3,"
                                      << "input 2";
    }
    void refusesMalformedSpecs()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        const auto parsed = parseInputSpecs(text.toStdString());
        QVERIFY(!parsed.ok());
        QVERIFY2(QString::fromStdString(parsed.error().message).contains(says), parsed.error().message.c_str());
    }

    void batchDimensionBOnlyWhereSwept()
    {
        // Refused by the commands that run one batch, with a message that says why.
        const auto fixed = parseInputSpecs("Bx3x224x224");
        QVERIFY(!fixed.ok());
        QVERIFY2(QString::fromStdString(fixed.error().message).contains("batch size a sweep varies"),
                 fixed.error().message.c_str());
        // Accepted where a batch is swept: marked, with 1 in its place, written back as B.
        const auto swept = parseInputSpecs("Bx3x224x224, bx10:int64, 5", BatchDim::Swept);
        QVERIFY2(swept.ok(), swept.ok() ? "" : swept.error().message.c_str());
        QCOMPARE(int(swept->size()), 3);
        QVERIFY(swept->at(0).sweptBatch && swept->at(1).sweptBatch && !swept->at(2).sweptBatch);
        QCOMPARE(swept->at(0).shape, (std::vector<std::int64_t>{1, 3, 224, 224}));
        QCOMPARE(formatInputSpecs(swept.value()), std::string("Bx3x224x224,Bx10:int64,5"));
        // Numbers keep working in a sweep; B anywhere but first is refused.
        QCOMPARE(formatInputSpecs(parseInputSpecs("1x3x224x224", BatchDim::Swept).value()), std::string("1x3x224x224"));
        const auto inner = parseInputSpecs("3xB", BatchDim::Swept);
        QVERIFY(!inner.ok());
        QVERIFY2(QString::fromStdString(inner.error().message).contains("only the first dimension"),
                 inner.error().message.c_str());
    }

    void batchSizeIsTheFirstDimension()
    {
        QCOMPARE(batchSizeOf(parseInputSpecs("8x3x32x32,8x4:int64").value()), std::int64_t(8));
        QCOMPARE(batchSizeOf({}), std::int64_t(1));
    }

    // MACs by formula: output elements x (Cin / groups) x kernel elements.
    void convolutionMacs_data()
    {
        QTest::addColumn<OpRecord>("op");
        QTest::addColumn<double>("macs");
        QTest::addColumn<double>("flops");
        QTest::addRow("3x3 with bias") << conv({1, 3, 32, 32}, {16, 3, 3, 3}, true, 1, {1, 16, 32, 32})
                                       << 16.0 * 32 * 32 * 3 * 9 << 2 * 16.0 * 32 * 32 * 3 * 9 + 16 * 32 * 32;
        QTest::addRow("depthwise stride 2") << conv({1, 16, 32, 32}, {16, 1, 3, 3}, false, 16, {1, 16, 16, 16})
                                            << 16.0 * 16 * 16 * 1 * 9 << 2 * 16.0 * 16 * 16 * 9;
        QTest::addRow("grouped 1x1, batch 4") << conv({4, 64, 7, 7}, {128, 16, 1, 1}, false, 4, {4, 128, 7, 7})
                                              << 4.0 * 128 * 49 * 16 << 2 * 4.0 * 128 * 49 * 16;
    }
    void convolutionMacs()
    {
        QFETCH(OpRecord, op);
        QFETCH(double, macs);
        QFETCH(double, flops);
        const auto cost = opCost(op);
        QVERIFY(cost.counted);
        QCOMPARE(cost.macs, macs);
        QCOMPARE(cost.flops, flops);
    }

    void matrixMacs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QList<QList<qint64>>>("shapes");
        QTest::addColumn<QList<qint64>>("output");
        QTest::addColumn<double>("macs");
        QTest::addRow("linear 3d") << "aten::linear" << QList<QList<qint64>>{{2, 16, 64}, {128, 64}, {128}}
                                   << QList<qint64>{2, 16, 128} << 2.0 * 16 * 64 * 128;
        QTest::addRow("matmul broadcast") << "aten::matmul" << QList<QList<qint64>>{{8, 4, 10, 32}, {32, 10}}
                                          << QList<qint64>{8, 4, 10, 10} << 8.0 * 4 * 10 * 32 * 10;
        QTest::addRow("bmm") << "aten::bmm" << QList<QList<qint64>>{{8, 16, 16}, {8, 16, 32}}
                             << QList<qint64>{8, 16, 32} << 8.0 * 16 * 16 * 32;
        QTest::addRow("addmm") << "aten::addmm" << QList<QList<qint64>>{{10}, {5, 32}, {32, 10}} << QList<qint64>{5, 10}
                               << 5.0 * 32 * 10;
        QTest::addRow("baddbmm") << "aten::baddbmm" << QList<QList<qint64>>{{8, 16, 16}, {8, 16, 4}, {8, 4, 16}}
                                 << QList<qint64>{8, 16, 16} << 8.0 * 16 * 4 * 16;
        QTest::addRow("sdpa") << "aten::scaled_dot_product_attention"
                              << QList<QList<qint64>>{{2, 4, 16, 8}, {2, 4, 16, 8}, {2, 4, 16, 8}}
                              << QList<qint64>{2, 4, 16, 8} << 2.0 * (2 * 4 * 16 * 16) * 8;
    }
    void matrixMacs()
    {
        QFETCH(QString, name);
        QFETCH(QList<QList<qint64>>, shapes);
        QFETCH(QList<qint64>, output);
        QFETCH(double, macs);
        OpRecord op;
        op.name = name.toStdString();
        for (const auto &shape : shapes)
            op.args.push_back(tensor(std::vector<std::int64_t>(shape.begin(), shape.end())));
        op.outputShapes = {std::vector<std::int64_t>(output.begin(), output.end())};
        const auto cost = opCost(op);
        QVERIFY(cost.counted);
        QCOMPARE(cost.macs, macs);
        QVERIFY(cost.flops >= 2 * macs);
    }

    void lstmMacs()
    {
        // One layer, batch_first, input 32, hidden 64, 7 steps, batch 2: per step
        // 4*64*32 (w_ih) + 4*64*64 (w_hh) MACs.
        OpRecord op;
        op.name = "aten::lstm";
        OpArg hx;
        hx.kind = OpArg::Kind::TensorList;
        hx.tensors = {{1, 2, 64}, {1, 2, 64}};
        OpArg params;
        params.kind = OpArg::Kind::TensorList;
        params.tensors = {{256, 32}, {256, 64}, {256}, {256}};
        op.args = {tensor({2, 7, 32}), hx,          params,    flag(true), integer(1), OpArg{},
                   flag(false),        flag(false), flag(true)};
        op.outputShapes = {{2, 7, 64}, {1, 2, 64}, {1, 2, 64}};
        const auto cost = opCost(op);
        QVERIFY(cost.counted);
        QCOMPARE(cost.macs, 7.0 * 2 * (256 * 32 + 256 * 64));
    }

    void quantizedRecurrentMacsMatchFloat()
    {
        // Two layers, bidirectional, not batch_first, input 32, hidden 64, 7 steps, batch 2. The
        // float op counts its weight lists; the int8 one (packed weights) must count the same
        // from the shapes alone.
        OpArg hx;
        hx.kind = OpArg::Kind::TensorList;
        hx.tensors = {{4, 2, 64}, {4, 2, 64}};
        OpArg weights;
        weights.kind = OpArg::Kind::TensorList;
        for (const std::int64_t in : {32, 32, 128, 128})
            for (const auto &shape : std::vector<std::vector<std::int64_t>>{{256, in}, {256, 64}, {256}, {256}})
                weights.tensors.push_back(shape);
        OpRecord lstm;
        lstm.name = "aten::lstm";
        lstm.args = {tensor({7, 2, 32}), hx,         weights,    flag(true), integer(2), OpArg{},
                     flag(false),        flag(true), flag(false)};
        lstm.outputShapes = {{7, 2, 128}, {4, 2, 64}, {4, 2, 64}};
        OpRecord quantized = lstm;
        quantized.name = "aten::quantized_lstm";
        quantized.args[2] = OpArg{OpArg::Kind::Other, {}, {}, 0};
        const auto floatCost = opCost(lstm);
        const auto int8Cost = opCost(quantized);
        QVERIFY(int8Cost.counted);
        QCOMPARE(floatCost.macs, 7.0 * 2 * 2 * (256 * (32 + 64) + 256 * (128 + 64)));
        QCOMPARE(int8Cost.macs, floatCost.macs);
        QCOMPARE(int8Cost.flops, floatCost.flops);

        // A quantized convolution's weight comes unpacked after its input, sometimes after an
        // extra tensor too (as int8 ResNet's downsample convolutions are recorded).
        OpRecord conv;
        conv.name = "quantized::conv2d";
        conv.args = {tensor({1, 128, 28, 28}), tensor({1, 64, 56, 56}), tensor({128, 64, 1, 1}),
                     OpArg{OpArg::Kind::Double, {}, {}, 0.1}, integer(0)};
        conv.outputShapes = {{1, 128, 28, 28}};
        QCOMPARE(opCost(conv).macs, 128.0 * 28 * 28 * 64);
        conv.args.erase(conv.args.begin());
        QCOMPARE(opCost(conv).macs, 128.0 * 28 * 28 * 64);

        OpRecord linear;
        linear.name = "quantized::linear_dynamic";
        linear.args = {tensor({4, 10, 256}), OpArg{OpArg::Kind::Other, {}, {}, 0}, flag(false)};
        linear.outputShapes = {{4, 10, 512}};
        QCOMPARE(opCost(linear).macs, 4.0 * 10 * 256 * 512);
    }

    // The fused kernels PyTorch runs transformer layers and multi-head attention through in
    // inference, counted from their arguments as the separate ops would be.
    void fusedTransformerMacs_data()
    {
        QTest::addColumn<OpRecord>("op");
        QTest::addColumn<double>("macs");
        QTest::addColumn<double>("elementwise"); // FLOPs beside 2 x MACs
        const double b = 2, l = 16, e = 64, f = 128, h = 4;
        const double tokens = b * l * e, hidden = b * l * f, scores = b * h * l * l;
        const double layer = attentionMacs(b, l, l, 0, e) + 2 * b * l * e * f;
        // Biases (q, k, v, out, feed-forward), scaling q, softmax, two residual adds and norms.
        const double layerElementwise = 3 * tokens + tokens + hidden + tokens + tokens + 5 * scores + 2 * 6 * tokens;
        OpRecord encoder;
        encoder.name = "aten::_transformer_encoder_layer_fwd";
        encoder.args = layerArgs(2, 16, 64, 4, 128, false);
        encoder.args.insert(encoder.args.end(), {none(), none()});
        encoder.outputShapes = {{2, 16, 64}};
        QTest::addRow("encoder layer, relu") << encoder << layer << layerElementwise + hidden;
        auto gelu = encoder;
        gelu.args[7] = flag(true);
        QTest::addRow("encoder layer, gelu") << gelu << layer << layerElementwise + 4 * hidden;
        // A scripted model's interpreter records a value of its caller first.
        auto scripted = encoder;
        scripted.args.insert(scripted.args.begin(), flag(false));
        QTest::addRow("encoder layer, scripted") << scripted << layer << layerElementwise + hidden;

        // Incremental decoding: 1 new token against 9 cached keys [B, heads, T, E / heads].
        OpRecord decoder;
        decoder.name = "aten::_transformer_decoder_only_layer_fwd";
        decoder.args = layerArgs(2, 1, 64, 4, 128, false);
        decoder.args.insert(decoder.args.end(), {none(), tensor({2, 4, 9, 16}), tensor({2, 4, 9, 16})});
        decoder.outputShapes = {{2, 1, 64}, {2, 4, 10, 16}, {2, 4, 10, 16}};
        const double step = b * 1 * e;
        QTest::addRow("decoder-only layer, cached keys")
            << decoder << attentionMacs(2, 1, 1, 9, 64) + 2 * 2 * 1 * 64 * 128
            << 3 * step + step + 2 * 128 + step + step + 5 * (b * h * 1 * 10) + 12 * step + 2 * 128;

        // Cross-attention: 16 queries, 24 keys.
        OpRecord attention;
        attention.name = "aten::_native_multi_head_attention";
        attention.args = {tensor({2, 16, 64}),
                          tensor({2, 24, 64}),
                          tensor({2, 24, 64}),
                          integer(64),
                          integer(4),
                          tensor({192, 64}),
                          tensor({192}),
                          tensor({64, 64}),
                          tensor({64}),
                          none(),
                          flag(true),
                          flag(true),
                          none()};
        attention.outputShapes = {{2, 16, 64}, {2, 16, 24}};
        QTest::addRow("multi-head attention, cross")
            << attention << attentionMacs(2, 16, 24, 0, 64)
            << tokens + 2 * (b * 24 * e) + tokens + tokens + 5 * (b * h * 16 * 24);

        OpRecord softmax;
        softmax.name = "aten::_masked_softmax";
        softmax.args = {tensor({2, 4, 16, 16}), tensor({2, 16}), integer(-1), integer(1)};
        softmax.outputShapes = {{2, 4, 16, 16}};
        QTest::addRow("masked softmax") << softmax << 0.0 << 5 * scores;
    }
    void fusedTransformerMacs()
    {
        QFETCH(OpRecord, op);
        QFETCH(double, macs);
        QFETCH(double, elementwise);
        const auto cost = opCost(op);
        QVERIFY(cost.counted);
        QCOMPARE(cost.macs, macs);
        QCOMPARE(cost.flops, 2 * macs + elementwise);
    }

    // TorchScript names the elements of a ModuleList a forward iterates as children of the
    // list's owner ("0" of the encoder); they resolve to the list's elements.
    void resolvesModulePaths()
    {
        const ModulePaths paths({{"", "Model"},
                                 {"encoder", "TransformerEncoder"},
                                 {"encoder.layers", "ModuleList"},
                                 {"encoder.layers.0", "TransformerEncoderLayer"},
                                 {"encoder.layers.0.linear1", "Linear"},
                                 {"encoder.layers.1", "TransformerEncoderLayer"},
                                 {"blocks", "Sequential"},
                                 {"blocks.0", "Linear"},
                                 {"twins", "Twins"},
                                 {"twins.a", "ModuleList"},
                                 {"twins.a.0", "Linear"},
                                 {"twins.b", "ModuleList"},
                                 {"twins.b.0", "Linear"}});
        const auto name = [&](std::vector<std::string> frames) { return paths.name(frames); };
        QCOMPARE(name({"TOP(Model)::forward", "encoder(TransformerEncoder)::forward",
                       "1(TransformerEncoderLayer)::forward"}),
                 std::string("encoder.layers.1"));
        QCOMPARE(name({"TOP(Model)::forward", "encoder(TransformerEncoder)::forward",
                       "0(TransformerEncoderLayer)::forward", "linear1(Linear)::forward"}),
                 std::string("encoder.layers.0.linear1"));
        // Exact names as they were; a module calling its own methods adds no level.
        QCOMPARE(name({"TOP(Model)::forward", "blocks(Sequential)::forward", "0(Linear)::forward"}),
                 std::string("blocks.0"));
        QCOMPARE(name({"TOP(Model)::forward", "SELF(Model)::helper", "encoder(TransformerEncoder)::forward"}),
                 std::string("encoder"));
        // Nor does a free function, or the fallback graph of the profiling executor.
        QCOMPARE(name({"TOP(Model)::forward", "CALL_FUNCTION::fallback_function()::fallback_function",
                       "encoder(TransformerEncoder)::forward", "0(TransformerEncoderLayer)::forward", "::relu"}),
                 std::string("encoder.layers.0"));
        QCOMPARE(name({"TOP(Model)::forward"}), std::string());
        // A type that does not match, or two lists with such an element: the joined name.
        QCOMPARE(name({"TOP(Model)::forward", "encoder(TransformerEncoder)::forward", "0(Linear)::forward"}),
                 std::string("encoder.0"));
        QCOMPARE(name({"TOP(Model)::forward", "twins(Twins)::forward", "0(Linear)::forward"}), std::string("twins.0"));
        const auto levels = paths.levels(
            {"TOP(Model)::forward", "encoder(TransformerEncoder)::forward", "0(TransformerEncoderLayer)::forward"});
        QCOMPARE(levels.size(), std::size_t(2));
        QCOMPARE(levels[1].frame, std::string("0(TransformerEncoderLayer)::forward"));
        // Without the model's modules, names are joined.
        QCOMPARE(ModulePaths().name({"TOP(Model)::forward", "encoder(TransformerEncoder)::forward",
                                     "0(TransformerEncoderLayer)::forward"}),
                 std::string("encoder.0"));
    }

    void elementwiseHasFlopsButNoMacs()
    {
        OpRecord op;
        op.name = "aten::add";
        op.args = {tensor({1, 64, 8, 8}), tensor({1, 64, 8, 8}), integer(1)};
        op.outputShapes = {{1, 64, 8, 8}};
        const auto cost = opCost(op);
        QCOMPARE(cost.macs, 0.0);
        QCOMPARE(cost.flops, 64.0 * 64);
        OpRecord view;
        view.name = "aten::view";
        QVERIFY(!opCost(view).counted);
    }

    void latencyStatistics()
    {
        std::vector<double> samples;
        for (int i = 1; i <= 100; ++i)
            samples.push_back(double(101 - i)); // 100..1, unsorted on purpose
        const auto stats = latencyStats(samples);
        QCOMPARE(stats.mean, 50.5);
        QCOMPARE(stats.min, 1.0);
        QCOMPARE(stats.max, 100.0);
        QCOMPARE(stats.p50, 50.5);
        QCOMPARE(stats.p90, 90.1);
        QCOMPARE(stats.p99, 99.01);
        QVERIFY(qAbs(stats.std - 29.011491975882016) < 1e-9);
    }

    void writesKinetoLikeChromeTrace()
    {
        RecordedProfile profile;
        ProfiledOp op;
        op.name = "aten::conv2d";
        op.startNs = 1712195495519689047;
        op.durationNs = 1500;
        op.threadId = 7;
        op.inputShapes = {{1, 3, 8, 8}, {4, 3, 3, 3}, {}};
        op.inputTypes = {"float", "float", ""};
        op.moduleFrames = {"TOP(Net)::forward", "conv(Conv2d)::forward"};
        profile.ops.push_back(op);
        profile.memory.push_back(MemoryEvent{1712195495519689500, 7, 1024, 4096, 0xabc, 0, -1});
        std::ostringstream out;
        writeChromeTrace(out, profile, "net \"quoted\".pt");
        QJsonParseError error;
        const auto document = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const auto events = document.object().value("traceEvents").toArray();
        const auto x = events.at(0).toObject();
        QCOMPARE(x.value("ph").toString(), QString("X"));
        QCOMPARE(x.value("cat").toString(), QString("cpu_op"));
        QCOMPARE(x.value("args").toObject().value("Input Dims").toArray().at(1).toArray().at(0).toInt(), 4);
        QCOMPARE(x.value("args").toObject().value("Module Hierarchy").toString(),
                 QString("TOP(Net)::forward.conv(Conv2d)::forward"));
        QVERIFY(out.str().find("\"ts\": 1712195495519689.047") != std::string::npos); // ns survive
        QVERIFY(out.str().find("\"dur\": 1.500") != std::string::npos);
        const auto memory = events.at(1).toObject();
        QCOMPARE(memory.value("name").toString(), QString("[memory]"));
        QCOMPARE(memory.value("ph").toString(), QString("i"));
        QCOMPARE(memory.value("s").toString(), QString("t"));
        const auto args = memory.value("args").toObject();
        QCOMPARE(args.value("Bytes").toInt(), 1024);
        QCOMPARE(args.value("Total Allocated").toInt(), 4096);
        QCOMPARE(args.value("Addr").toInt(), 0xabc);
        QVERIFY(args.contains("Device Type") && args.contains("Device Id"));
    }
};

QTEST_GUILESS_MAIN(TestModelParts)
#include "tst_modelparts.moc"
