// The pure parts of sweeps and variants: knee detection on synthetic curves, variant names,
// byte sizes, batch substitution, per-layer deltas. No model, no libtorch run.
#include "core/model/knee.h"
#include "core/model/layerdelta.h"
#include "core/model/sweep.h"
#include "core/model/variant.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace pyrometer;
using namespace pyrometer::model;

Q_DECLARE_METATYPE(std::vector<pyrometer::model::ThroughputPoint>)

namespace {

std::vector<ThroughputPoint> curve(const std::function<double(double)> &throughput, int maxBatch = 256)
{
    std::vector<ThroughputPoint> points;
    for (int batch = 1; batch <= maxBatch; batch *= 2)
        points.push_back({batch, throughput(batch)});
    return points;
}

LayerRow layer(const char *module, const char *type, int depth, double totalMs)
{
    LayerRow row;
    row.module = module;
    row.type = type;
    row.depth = depth;
    row.totalMs = totalMs;
    return row;
}

} // namespace

class TestSweepParts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void knee_data()
    {
        QTest::addColumn<std::vector<ThroughputPoint>>("points");
        QTest::addColumn<qint64>("expected"); // -1: none
        // Flat: the first batch already gives all there is.
        QTest::addRow("flat") << curve([](double) { return 500.0; }) << qint64(1);
        // Linear (latency constant): every doubling doubles throughput, no knee.
        QTest::addRow("linear") << curve([](double b) { return 100.0 * b; }) << qint64(-1);
        // Saturating: T = 1000 b / (b + 8). Gains per doubling: 1->2 78%, ..., 32->64 11%, 64->128 5.9%.
        QTest::addRow("saturating") << curve([](double b) { return 1000.0 * b / (b + 8.0); }) << qint64(64);
        // Saturating with a 20% dip at 16 (noise): 8 -> 16 gains only 6.7%, yet 8 is no knee,
        // as 32 still gains 26% per doubling over 8.
        QTest::addRow("noisy") << curve([](double b) {
            const double noise = b == 16 ? 0.80 : (int(b) % 64 == 0 ? 1.01 : 0.99);
            return 1000.0 * b / (b + 8.0) * noise;
        }) << qint64(64);
        // Falls after a peak at 8 (cache spill): the knee is the peak.
        QTest::addRow("falls") << std::vector<ThroughputPoint>{{1, 100}, {2, 190},  {4, 360},
                                                               {8, 600}, {16, 580}, {32, 400}}
                               << qint64(8);
        // Uneven batches and unsorted input: gains are per doubling.
        QTest::addRow("uneven") << std::vector<ThroughputPoint>{{12, 1010}, {1, 100}, {3, 290}, {6, 560}, {24, 1020}}
                                << qint64(12);
        QTest::addRow("one point") << std::vector<ThroughputPoint>{{4, 100}} << qint64(-1);
        QTest::addRow("empty") << std::vector<ThroughputPoint>{} << qint64(-1);
    }
    void knee()
    {
        QFETCH(std::vector<ThroughputPoint>, points);
        QFETCH(qint64, expected);
        const auto knee = findKnee(points);
        QCOMPARE(knee.has_value(), expected >= 0);
        if (knee) {
            QCOMPARE(knee->batch, expected);
            QVERIFY(knee->gainPerDoubling < 0.10);
        }
    }

    void kneeThreshold()
    {
        const auto points = curve([](double b) { return 1000.0 * b / (b + 8.0); });
        // A stricter threshold waits longer, a looser one stops sooner; 2% is never reached
        // by 256 (128 -> 256 still gains 3%).
        QCOMPARE(findKnee(points, 0.04)->batch, std::int64_t(128));
        QCOMPARE(findKnee(points, 0.40)->batch, std::int64_t(8));
        QVERIFY(!findKnee(points, 0.02).has_value());
    }

    void kneeOnRandomNoise()
    {
        // A flat curve with +-4% noise never gains 10% per doubling: the knee is the first batch.
        std::mt19937 random(7);
        std::uniform_real_distribution<double> noise(0.96, 1.04);
        for (int trial = 0; trial < 20; ++trial) {
            const auto knee = findKnee(curve([&](double) { return 300.0 * noise(random); }));
            QVERIFY(knee.has_value());
            QCOMPARE(knee->batch, std::int64_t(1));
        }
    }

    void variants()
    {
        const auto parsed = parseVariants("baseline, frozen,channels_last,int8,bf16,threads=2,int8_static,frozen");
        QVERIFY(parsed.ok());
        QCOMPARE(parsed->size(), std::size_t(7));
        QCOMPARE(parsed.value()[5], (Variant{VariantKind::Threads, 2, {}}));
        QStringList names;
        for (const auto &variant : parsed.value())
            names << QString::fromStdString(variantName(variant));
        QCOMPARE(names.join(','), QStringLiteral("baseline,frozen,channels_last,int8,bf16,threads=2,int8_static"));
        QVERIFY(!parseVariants("fast").ok());
        QVERIFY(QString::fromStdString(parseVariants("fast").error().message).contains("unknown variant \"fast\""));
        QVERIFY(!parseVariants("threads=0").ok());
        QVERIFY(!parseVariants("threads=x").ok());
        QVERIFY(!parseVariants(" , ").ok());
        // int8 kinds on a named quantized engine: a variant of their own, named as written.
        const auto engines = parseVariants("int8,int8@qnnpack,int8_static@onednn,int8@qnnpack");
        QVERIFY(engines.ok());
        QCOMPARE(engines->size(), std::size_t(3));
        QCOMPARE(engines.value()[1].engine, std::string("qnnpack"));
        QCOMPARE(variantName(engines.value()[1]), std::string("int8@qnnpack"));
        QCOMPARE(variantName(engines.value()[2]), std::string("int8_static@onednn"));
        QVERIFY(QString::fromStdString(parseVariants("bf16@qnnpack").error().message)
                    .contains("only int8 and int8_static"));
        QVERIFY(QString::fromStdString(parseVariants("int8@tpu").error().message).contains("unknown quantized engine"));
    }

    void byteSizes()
    {
        QCOMPARE(parseByteSize("4GiB"), std::optional<std::int64_t>(4LL << 30));
        QCOMPARE(parseByteSize("512 MiB"), std::optional<std::int64_t>(512LL << 20));
        QCOMPARE(parseByteSize("2gb"), std::optional<std::int64_t>(2000000000));
        QCOMPARE(parseByteSize("1.5K"), std::optional<std::int64_t>(1536));
        QCOMPARE(parseByteSize("1000"), std::optional<std::int64_t>(1000));
        QVERIFY(!parseByteSize("lots").has_value());
        QVERIFY(!parseByteSize("4 parsecs").has_value());
        QVERIFY(!parseByteSize("0").has_value());
    }

    void batchSubstitution()
    {
        const auto inputs = parseInputSpecs("1x3x8x8,1x5:int64,7").value();
        const auto batched = withBatch(inputs, 16);
        QCOMPARE(formatInputSpecs(batched), std::string("16x3x8x8,16x5:int64,7"));
        QCOMPARE(formatInputSpecs(withBatch(parseInputSpecs("4x16:int64").value(), 2)), std::string("2x16:int64"));
        // Where B marks the batch, exactly the marked inputs are swept, even when another input's
        // first dimension happens to be 1 too; the result is concrete (no B left).
        const auto marked = withBatch(parseInputSpecs("Bx3x8x8,1x5:int64,Bx2", BatchDim::Swept).value(), 8);
        QCOMPARE(formatInputSpecs(marked), std::string("8x3x8x8,1x5:int64,8x2"));
        QVERIFY(std::none_of(marked.begin(), marked.end(), [](const InputSpec &input) { return input.sweptBatch; }));
    }

    void deltas()
    {
        std::vector<LayerRow> base{layer("", "Net", 0, 10.0), layer("conv", "Conv2d", 1, 6.0),
                                   layer("fc", "Linear", 1, 4.0)};
        std::vector<LayerRow> other{layer("", "Net", 0, 8.0), layer("conv", "Conv2d", 1, 3.0),
                                    layer("head", "Linear", 1, 1.0)};
        const auto rows = layerDeltas(base, other);
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[0].deltaMs, -2.0);
        QCOMPARE(rows[1].deltaPercent, std::optional<double>(-50.0));
        QVERIFY(rows[2].inBase && !rows[2].inOther);
        QCOMPARE(rows[2].deltaMs, -4.0);
        QCOMPARE(rows[2].deltaPercent, std::optional<double>(-100.0)); // gone: -100 %
        QCOMPARE(rows[3].module, std::string("head"));
        QVERIFY(!rows[3].inBase && rows[3].inOther);
        QVERIFY(!rows[3].deltaPercent); // new: no percentage of nothing
    }
};

QTEST_GUILESS_MAIN(TestSweepParts)
#include "tst_sweepparts.moc"
