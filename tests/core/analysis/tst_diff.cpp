// Diff of two traces.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/diff.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#endif

#include <QObject>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

class TestDiff : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void sameTrace()
    {
        const auto loaded = loadFixture("a100_alexnet");
        QVERIFY(loaded.index);
        const auto diff = diffTraces(*loaded.index, *loaded.index);
        QVERIFY(!diff.rows.empty());
        for (const auto &row : diff.rows) {
            QCOMPARE(row.deltaNs(), std::int64_t(0));
            QCOMPARE(row.presence, Presence::Both);
        }
        QVERIFY(diff.total.baseNs > 0);
        QCOMPARE(diff.total.deltaPercent(), 0.0);
    }

    // Two different runs: totals are the ops self time plus kernel time; ops on one side only are marked.
    void twoRuns()
    {
        const auto base = loadFixture("a100_alexnet");
        const auto other = loadFixture("h100_bert");
        QVERIFY(base.index && other.index);
        const auto diff = diffTraces(*base.index, *other.index);
        const auto baseOps = buildOpTable(*base.index);
        const auto otherKernels = buildKernelTable(*other.index);
        QCOMPARE(diff.ops.baseNs, baseOps.selfSumNs);
        QCOMPARE(diff.kernels.otherNs, otherKernels.totalNs);
        QCOMPARE(diff.total.otherNs, diff.ops.otherNs + diff.kernels.otherNs);
        bool baseOnly = false;
        bool otherOnly = false;
        for (const auto &row : diff.rows) {
            baseOnly = baseOnly || (row.presence == Presence::BaseOnly && row.otherNs == 0 && row.baseNs >= 0);
            otherOnly = otherOnly || (row.presence == Presence::OtherOnly && row.baseNs == 0);
            if (row.kind == "op" && row.name == "aten::linear")
                QVERIFY(row.presence == Presence::Both);
        }
        QVERIFY(baseOnly);
        QVERIFY(otherOnly);
        for (std::size_t i = 1; i < diff.rows.size(); ++i)
            QVERIFY(std::llabs(diff.rows[i - 1].deltaNs()) >= std::llabs(diff.rows[i].deltaNs()));
        const double pct = 100.0 * double(diff.total.otherNs - diff.total.baseNs) / double(diff.total.baseNs);
        QCOMPARE(diff.total.deltaPercent(), pct);
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
