// Module table, per-op memory and GPU utilization against golden files that an independent
// Python computation over the JSON wrote (scripts/make-overview-fixtures.py).
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/moduletable.h"
#include "core/analysis/opmemory.h"
#include "core/analysis/steps.h"
#include "core/analysis/utilization.h"
#endif

#include <QObject>

#include <limits>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

class TestOverviewAnalyses : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void modules_data() { fixtures(); }
    void modules()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto table = buildModuleTable(*loaded.index);
        const auto expected = readCsv(goldenPath(name, ".modules.csv"));
        QVERIFY(!expected.empty());
        QCOMPARE(table.rows.size(), expected.size() - 1);
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &row = table.rows[r - 1];
            const auto &e = expected[r];
            QCOMPARE(row.path, e[0]);
            QCOMPARE(row.calls, std::stoull(e[1]));
            QCOMPARE(row.totalNs, microsToNs(e[2]));
            QCOMPARE(row.selfNs, microsToNs(e[3]));
            QCOMPARE(row.deviceTotalNs, microsToNs(e[4]));
            QCOMPARE(row.deviceSelfNs, microsToNs(e[5]));
            // The tree: a row's parent is the row of its path's prefix, and comes first.
            const auto slash = row.path.rfind('/');
            if (slash == std::string::npos) {
                QCOMPARE(row.parent, -1);
                QCOMPARE(row.name, row.path);
            } else {
                QVERIFY(row.parent >= 0 && std::size_t(row.parent) < r - 1);
                QCOMPARE(table.rows[std::size_t(row.parent)].path, row.path.substr(0, slash));
                QCOMPARE(row.name, row.path.substr(slash + 1));
            }
        }
    }

    void moduleRange()
    {
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto all = buildModuleTable(*loaded.index);
        QVERIFY(all.rows.size() > 20);
        // A range starting after the outermost module's start drops it: its children become
        // tops with no parent time subtracted from them.
        const auto &trace = *loaded.trace;
        const TimeRange range{trace.info.spanStart + (trace.info.spanEnd - trace.info.spanStart) / 2,
                              trace.info.spanEnd};
        const auto part = buildModuleTable(*loaded.index, range);
        QVERIFY(!part.rows.empty());
        QVERIFY(part.rows.size() < all.rows.size());
        for (const auto &row : part.rows)
            QVERIFY(row.totalNs >= row.selfNs && row.selfNs >= 0);
    }

    void opMemory_data() { fixtures(); }
    void opMemory()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto table = buildOpMemoryTable(*loaded.index);
        const auto expected = readCsv(goldenPath(name, ".opmemory.csv"));
        QVERIFY(!expected.empty());
        QCOMPARE(table.rows.size(), expected.size() - 1);
        std::map<std::pair<std::string, std::string>, OpMemoryRow> byKey;
        for (const auto &row : table.rows)
            byKey[{row.device, row.name}] = row;
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto it = byKey.find({e[0], e[1]});
            QVERIFY2(it != byKey.end(), (e[0] + " " + e[1]).c_str());
            const auto &row = it->second;
            QCOMPARE(row.allocations, std::stoull(e[2]));
            QCOMPARE(row.frees, std::stoull(e[3]));
            QCOMPARE(row.allocatedBytes, std::stoll(e[4]));
            QCOMPARE(row.freedBytes, std::stoll(e[5]));
            QCOMPARE(row.peakBytes, std::stoll(e[6]));
        }
        for (std::size_t i = 1; i < table.rows.size(); ++i)
            QVERIFY(table.rows[i - 1].allocatedBytes >= table.rows[i].allocatedBytes);
    }

    void opMemoryFlags()
    {
        // 2022+ traces carry Addr, so the peak contribution is known; 2021 ones do not.
        const auto h100 = buildOpMemoryTable(*loadFixture("h100_bert").index);
        QVERIFY(h100.hasAddresses);
        std::int64_t held = 0;
        for (const auto &row : h100.rows)
            held += row.device == "cuda:0" ? row.peakBytes : 0;
        QVERIFY(held > 0);
        const auto v100 = buildOpMemoryTable(*loadFixture("v100_resnet50").index);
        QVERIFY(!v100.rows.empty());
        QVERIFY(!v100.hasAddresses);
        for (const auto &row : v100.rows)
            QCOMPARE(row.peakBytes, std::int64_t(0));
    }

    void utilization_data() { fixtures(); }
    void utilization()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        constexpr auto kWide = std::numeric_limits<std::int64_t>::max() / 4;
        const auto busy = deviceUtilization(*loaded.index, -kWide, kWide);
        const auto expected = readCsv(goldenPath(name, ".utilization.csv"));
        QCOMPARE(busy.size(), expected.size() - 1);
        for (std::size_t r = 1; r < expected.size(); ++r) {
            QCOMPARE(busy[r - 1].device, std::stoi(expected[r][0]));
            QCOMPARE(busy[r - 1].busyNs, microsToNs(expected[r][1]));
        }
        // Clipping: two halves of the trace add up to the whole, and nothing exceeds its span.
        if (busy.empty())
            return;
        const auto &info = loaded.trace->info;
        const auto middle = info.spanStart + info.spanNanoseconds() / 2;
        const auto first = deviceUtilization(*loaded.index, info.spanStart, middle);
        const auto second = deviceUtilization(*loaded.index, middle, info.spanEnd);
        std::int64_t sum = 0;
        for (const auto &part : {first, second}) {
            for (const auto &d : part) {
                QVERIFY(d.busyNs <= d.spanNs);
                QVERIFY(d.utilization() >= 0.0 && d.utilization() <= 1.0);
                sum += d.busyNs;
            }
        }
        std::int64_t whole = 0;
        for (const auto &d : busy)
            whole += d.busyNs;
        QCOMPARE(sum, whole);
    }

    // The figure every view shows: busy inside the steps over the summed step time, or over
    // the span when there are no steps, against the independent computation.
    void gpuUtilizationOverSteps_data() { fixtures(); }
    void gpuUtilizationOverSteps()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto steps = buildStepBreakdown(*loaded.index).steps;
        const auto gpu = gpuUtilization(*loaded.index, steps);
        const auto expected = readCsv(goldenPath(name, ".utilization.csv"));
        QCOMPARE(gpu.devices.size(), expected.size() - 1);
        QCOMPARE(gpu.steps, steps.size());
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto &d = gpu.devices[r - 1];
            QCOMPARE(d.device, std::stoi(e[0]));
            QCOMPARE(gpu.overSteps, !e[2].empty());
            if (gpu.overSteps) {
                QCOMPARE(d.busyNs, microsToNs(e[2]));
                QCOMPARE(d.spanNs, microsToNs(e[3]));
            } else {
                QCOMPARE(d.busyNs, microsToNs(e[1]));
                QCOMPARE(d.spanNs, loaded.trace->info.spanNanoseconds());
            }
        }
    }

    void gpuUtilizationCountsOverlappingWindowsOnce()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.index);
        const auto &info = loaded.trace->info;
        const auto third = info.spanNanoseconds() / 3;
        const auto a = info.spanStart, b = a + third, c = b + third;
        // [a, c) given as two overlapping windows in reverse order equals [a, c) given once.
        const auto once = deviceUtilization(*loaded.index, a, c);
        const auto twice = deviceUtilization(*loaded.index, {{b - 1000, c}, {a, b + 1000}});
        QCOMPARE(twice, once);
        // Two disjoint windows add up.
        const auto first = deviceUtilization(*loaded.index, a, b);
        const auto second = deviceUtilization(*loaded.index, c, info.spanEnd);
        const auto both = deviceUtilization(*loaded.index, {{c, info.spanEnd}, {a, b}});
        QCOMPARE(both.size(), std::size_t(1));
        QCOMPARE(both[0].busyNs, first[0].busyNs + second[0].busyNs);
        QCOMPARE(both[0].spanNs, first[0].spanNs + second[0].spanNs);
    }

private:
    static void fixtures() { addFixtureRows(); }
};

QTEST_GUILESS_MAIN(TestOverviewAnalyses)
#include "tst_overviewanalyses.moc"
