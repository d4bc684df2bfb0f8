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
};

QTEST_GUILESS_MAIN(TestSteps)
#include "tst_steps.moc"
