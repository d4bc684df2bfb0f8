// Step breakdown (the TensorBoard plugin's priority rule) against golden tables an independent
// Python computation wrote.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/steps.h"
#endif

#include <QObject>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

class TestSteps : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto &name : fixtureNames())
            QTest::addRow("%s", name.c_str()) << QString::fromStdString(name);
    }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto breakdown = buildStepBreakdown(*loaded.index);
        const auto expected = readCsv(goldenPath(name, ".steps.csv"));
        QVERIFY(!expected.empty());
        QCOMPARE(breakdown.steps.size(), expected.size() - 1);
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto &step = breakdown.steps[r - 1];
            QCOMPARE(step.name, e[0]);
            QCOMPARE(step.durationNs, microsToNs(e[1]));
            std::int64_t sum = 0;
            for (std::size_t c = 0; c < kStepCategoryCount; ++c) {
                QVERIFY2(step.categoryNs[c] == microsToNs(e[2 + c]),
                         std::string(stepCategoryName(StepCategory(c))).c_str());
                sum += step.categoryNs[c];
            }
            QCOMPARE(sum, step.durationNs);
            // The GPU is busy exactly where a device category won: kernel, memcpy or memset.
            const auto busy = microsToNs(e[2]) + microsToNs(e[3]) + microsToNs(e[4]);
            QCOMPARE(step.gpuBusyNs, busy);
            if (breakdown.hasDevice)
                QCOMPARE(step.gpuUtilization, double(busy) / double(microsToNs(e[1])));
        }
    }

    void idleGaps()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.index);
        const auto breakdown = buildStepBreakdown(*loaded.index);
        QVERIFY(breakdown.hasDevice);
        for (const auto &step : breakdown.steps) {
            QVERIFY(!step.largestIdleGaps.empty());
            QVERIFY(step.largestIdleGaps.size() <= 3);
            for (std::size_t i = 1; i < step.largestIdleGaps.size(); ++i)
                QVERIFY(step.largestIdleGaps[i - 1].durationNs >= step.largestIdleGaps[i].durationNs);
            for (const auto &gap : step.largestIdleGaps) {
                QVERIFY(gap.startNs >= step.startNs);
                QVERIFY(gap.startNs + gap.durationNs <= step.startNs + step.durationNs);
            }
        }
        // A CPU-only trace has no GPU figures.
        const auto cpu = buildStepBreakdown(*loadFixture("torch_cpu_cnn").index);
        QCOMPARE(cpu.steps.size(), std::size_t(2));
        QVERIFY(cpu.steps[0].largestIdleGaps.empty());
        QCOMPARE(cpu.steps[0].gpuUtilization, 0.0);
    }

    void range()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.index);
        const auto all = buildStepBreakdown(*loaded.index);
        QVERIFY(all.steps.size() > 2);
        // Steps whose CPU annotation starts in range.
        const TimeRange range{all.steps[1].cpuStartNs, all.steps[2].cpuStartNs + 1};
        const auto some = buildStepBreakdown(*loaded.index, range);
        QCOMPARE(some.steps.size(), std::size_t(2));
        QCOMPARE(some.steps[0], all.steps[1]);
        const auto span =
            breakdownSpan(*loaded.index, all.steps[1].startNs, all.steps[1].startNs + all.steps[1].durationNs);
        QCOMPARE(span.categoryNs, all.steps[1].categoryNs);
    }

    void stepMeanKinds_data()
    {
        QTest::addColumn<std::vector<std::int64_t>>("durationsMs");
        QTest::addColumn<QString>("kinds"); // s steady, w warm-up, p partial
        QTest::addColumn<std::int64_t>("meanNs");
        QTest::addColumn<QString>("text");
        // 10 ms < 0.25 x 100 ms (median of 300, 200, 100 x 8) is partial; 300 > 1.5 x 100 (median
        // of 200, 100 x 8) and 200 > 1.5 x 100 (median of 100 x 8) warm up; 8 x 100 ms remain.
        QTest::addRow("warm-up and partial") << std::vector<std::int64_t>{300, 200, 100, 100, 100, 100, 100, 100, 100, 100, 10}
                                             << "wwssssssssp" << std::int64_t(100'000'000)
                                             << "mean 100 ms over 8 steady steps; 2 warm-up steps, 1 partial step left out";
        // The trace starts inside a step: 10 < 0.25 x 100. (100 + 100 + 100) / 3.
        QTest::addRow("partial first") << std::vector<std::int64_t>{10, 100, 100, 100} << "psss" << std::int64_t(100'000'000)
                                       << "mean 100 ms over 3 steady steps; 1 partial step left out";
        // 140 <= 1.5 x 100: not a warm-up; (140 + 100 + 100 + 100) / 4 = 110.
        QTest::addRow("mild first") << std::vector<std::int64_t>{140, 100, 100, 100} << "ssss" << std::int64_t(110'000'000)
                                    << "mean 110 ms over 4 steady steps";
        // A slow step in the middle is not a warm-up: (100 + 100 + 400 + 100) / 4 = 175.
        QTest::addRow("slow middle") << std::vector<std::int64_t>{100, 100, 400, 100} << "ssss" << std::int64_t(175'000'000)
                                     << "mean 175 ms over 4 steady steps";
        // Nothing to compare one step with.
        QTest::addRow("one step") << std::vector<std::int64_t>{5} << "s" << std::int64_t(5'000'000) << "mean 5.00 ms over 1 steady step";
    }

    void stepMeanKinds()
    {
        QFETCH(std::vector<std::int64_t>, durationsMs);
        QFETCH(QString, kinds);
        QFETCH(std::int64_t, meanNs);
        QFETCH(QString, text);
        std::vector<std::int64_t> ns;
        for (const auto ms : durationsMs)
            ns.push_back(ms * 1'000'000);
        const auto mean = stepMean(ns);
        QString got;
        for (const auto kind : mean.kinds)
            got += kind == StepKind::Steady ? u's' : kind == StepKind::WarmUp ? u'w' : u'p';
        QCOMPARE(got, kinds);
        QCOMPARE(mean.meanNs, meanNs);
        QCOMPARE(QString::fromStdString(describeStepMean(mean)), text);
    }

    void stepMeanFixtures()
    {
        // mi250_rocm.steps.csv: ProfilerStep#1 9288.291 us, ProfilerStep#2 49.073 us. The second is
        // the trace's end: 49.073 < 0.25 x 9288.291 = 2322.07, so the mean is the first step alone,
        // not (9288.291 + 49.073) / 2 = 4668.682 us.
        const auto mi250 = stepMean(buildStepBreakdown(*loadFixture("mi250_rocm").index));
        QCOMPARE(mi250.kinds, (std::vector<StepKind>{StepKind::Steady, StepKind::Partial}));
        QCOMPARE(mi250.meanNs, std::int64_t(9'288'291));
        QCOMPARE(QString::fromStdString(describeStepMean(mi250)), QStringLiteral("mean 9.29 ms over 1 steady step; 1 partial step left out"));
        // v100_resnet50.steps.csv: 187948, 175153, 179733, 174564, 182172, 165983 us. The first is
        // below 1.5 x 175153 (the median of the later five) and the last above 0.25 x 179733:
        // all steady, (187948 + 175153 + 179733 + 174564 + 182172 + 165983) / 6 = 1065553 / 6
        // = 177592.166 us.
        const auto v100 = stepMean(buildStepBreakdown(*loadFixture("v100_resnet50").index));
        QCOMPARE(v100.steady, std::size_t(6));
        QCOMPARE(v100.meanNs, std::int64_t(177'592'166));
    }
};

QTEST_GUILESS_MAIN(TestSteps)
#include "tst_steps.moc"
