// The operator table: key_averages() of a trace python3-torch recorded, and golden tables an
// independent Python computation wrote for every real fixture (scripts/make-analysis-fixtures.py).
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/optable.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <cmath>
#include <fstream>
#include <map>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

OpTableOptions options(OpGrouping grouping = OpGrouping::Name, OpSort sort = OpSort::Self, std::size_t top = 0,
                       TimeRange range = {})
{
    OpTableOptions o;
    o.grouping = grouping;
    o.sort = sort;
    o.top = top;
    o.range = range;
    return o;
}

std::map<std::string, OpRow> byName(const OpTable &table)
{
    std::map<std::string, OpRow> rows;
    for (const auto &row : table.rows)
        rows[row.name] = row;
    return rows;
}

} // namespace

class TestOpTable : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void matchesKeyAverages()
    {
        const auto loaded = loadFixture("torch_cpu_cnn");
        QVERIFY(loaded.index);
        const auto rows = byName(buildOpTable(*loaded.index));
        const auto expected = readCsv(goldenPath("torch_cpu_cnn", ".key_averages.csv"));
        QVERIFY(expected.size() > 20);
        QCOMPARE(expected[0], (std::vector<std::string>{"name", "calls", "total_us", "self_us"}));
        QCOMPARE(rows.size(), expected.size() - 1);
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto it = rows.find(e[0]);
            QVERIFY2(it != rows.end(), e[0].c_str());
            const auto &row = it->second;
            QCOMPARE(row.calls, std::stoull(e[1]));
            // key_averages sums the same µs the legacy exporter writes: equal within rounding.
            QVERIFY2(std::abs(static_cast<double>(row.totalNs) / 1000.0 - std::stod(e[2])) < 0.0015, e[0].c_str());
            QVERIFY2(std::abs(static_cast<double>(row.selfNs) / 1000.0 - std::stod(e[3])) < 0.0015, e[0].c_str());
        }
    }

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
        const auto table = buildOpTable(*loaded.index);
        const auto rows = byName(table);
        const auto expected = readCsv(goldenPath(name, ".ops.csv"));
        QVERIFY(expected.size() > 1);
        QCOMPARE(rows.size(), expected.size() - 1);
        std::int64_t selfSum = 0;
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto it = rows.find(e[0]);
            QVERIFY2(it != rows.end(), e[0].c_str());
            const auto &row = it->second;
            QCOMPARE(row.calls, std::stoull(e[1]));
            QCOMPARE(row.totalNs, microsToNs(e[2]));
            QCOMPARE(row.selfNs, microsToNs(e[3]));
            QCOMPARE(row.minNs, microsToNs(e[4]));
            QCOMPARE(row.maxNs, microsToNs(e[5]));
            QCOMPARE(row.deviceSelfNs, microsToNs(e[6]));
            QCOMPARE(row.deviceTotalNs, microsToNs(e[7]));
            selfSum += row.selfNs;
        }
        QCOMPARE(table.selfSumNs, selfSum);
        for (std::size_t i = 1; i < table.rows.size(); ++i)
            QVERIFY(table.rows[i - 1].selfNs >= table.rows[i].selfNs);
    }

    // A range's table is clipped to it: outer (0-1000 µs) holds inner (100-900 µs), which holds
    // later (300-350 µs). Over 200-400 µs: outer 200 µs total, 0 self; inner 200 total, 150 self;
    // later 50 and 50, its one call; outer and inner began before the range: no calls there.
    void rangesClipTheirOps()
    {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
        std::ofstream(path) << R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":0,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":100,"dur":800},
{"ph":"X","cat":"cpu_op","name":"later","pid":1,"tid":1,"ts":300,"dur":50},
{"ph":"X","cat":"cpu_op","name":"after","pid":1,"tid":1,"ts":1100,"dur":50}]})";
        auto loaded = trace::loadTrace(path);
        QVERIFY(loaded.ok());
        const auto index = buildTraceIndex(*loaded.value());
        constexpr std::int64_t us = 1000;
        const auto rows =
            byName(buildOpTable(*index, options(OpGrouping::Name, OpSort::Self, 0, {200 * us, 400 * us})));
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows.at("outer").totalNs, 200 * us);
        QCOMPARE(rows.at("outer").selfNs, 0 * us);
        QCOMPARE(rows.at("outer").calls, std::uint64_t(0));
        QCOMPARE(rows.at("inner").totalNs, 200 * us);
        QCOMPARE(rows.at("inner").selfNs, 150 * us);
        QCOMPARE(rows.at("later").totalNs, 50 * us);
        QCOMPARE(rows.at("later").selfNs, 50 * us);
        QCOMPARE(rows.at("later").calls, std::uint64_t(1));
    }

    // Adjacent ranges add up to the whole: each call is counted once, by its start, and each
    // op's time by the part of it inside each range.
    void rangesAddUp_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addRow("a100") << "a100_alexnet";
        QTest::addRow("resnet50") << "v100_resnet50";
    }

    void rangesAddUp()
    {
        QFETCH(QString, fixture);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.index);
        const auto &info = loaded.trace->info;
        const auto middle = info.spanStart + (info.spanEnd - info.spanStart) / 3;
        const auto whole = byName(buildOpTable(*loaded.index));
        const auto left =
            byName(buildOpTable(*loaded.index, options(OpGrouping::Name, OpSort::Self, 0, {info.spanStart, middle})));
        const auto right =
            byName(buildOpTable(*loaded.index, options(OpGrouping::Name, OpSort::Self, 0, {middle, info.spanEnd + 1})));
        QVERIFY(!left.empty());
        QVERIFY(!right.empty());
        for (const auto &[name, row] : whole) {
            const auto l = left.count(name) ? left.at(name) : OpRow{};
            const auto r = right.count(name) ? right.at(name) : OpRow{};
            QCOMPARE(l.calls + r.calls, row.calls);
            QCOMPARE(l.totalNs + r.totalNs, row.totalNs);
            QCOMPARE(l.selfNs + r.selfNs, row.selfNs);
            QCOMPARE(l.deviceSelfNs + r.deviceSelfNs, row.deviceSelfNs);
            QVERIFY(l.deviceTotalNs + r.deviceTotalNs <= row.deviceTotalNs);
        }
    }

    // Tables of each process alone add up to the table of all (a job's rank counts its own):
    // an op by its thread's process, device time by its launching op's.
    void processesAddUp_data() { rangesAddUp_data(); }

    void processesAddUp()
    {
        QFETCH(QString, fixture);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.index);
        const auto processes = loaded.trace->processes.size();
        QVERIFY(processes > 1);
        const auto whole = byName(buildOpTable(*loaded.index));
        std::map<std::string, OpRow> sum;
        std::size_t withOps = 0;
        for (std::size_t p = 0; p < processes; ++p) {
            OpTableOptions one;
            one.processes.included.assign(processes, false);
            one.processes.included[p] = true;
            const auto table = byName(buildOpTable(*loaded.index, one));
            withOps += table.empty() ? 0 : 1;
            for (const auto &[name, row] : table) {
                auto &into = sum[name];
                into.calls += row.calls;
                into.totalNs += row.totalNs;
                into.selfNs += row.selfNs;
                into.deviceSelfNs += row.deviceSelfNs;
            }
        }
        QVERIFY(withOps >= 1 && withOps < processes); // the GPU's processes hold no ops
        QCOMPARE(sum.size(), whole.size());
        for (const auto &[name, row] : whole) {
            QCOMPARE(sum[name].calls, row.calls);
            QCOMPARE(sum[name].totalNs, row.totalNs);
            QCOMPARE(sum[name].selfNs, row.selfNs);
            QCOMPARE(sum[name].deviceSelfNs, row.deviceSelfNs);
        }
    }

    void groupings_data()
    {
        QTest::addColumn<int>("grouping");
        QTest::addColumn<bool>("qualified"); // the bert trace records shapes, modules and stacks
        QTest::addRow("shape") << int(OpGrouping::Shape) << true;
        QTest::addRow("module") << int(OpGrouping::Module) << true;
        QTest::addRow("stack") << int(OpGrouping::Stack) << true;
    }

    void groupings()
    {
        QFETCH(int, grouping);
        QFETCH(bool, qualified);
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto byNameTable = buildOpTable(*loaded.index);
        const auto grouped = buildOpTable(*loaded.index, options(static_cast<OpGrouping>(grouping)));
        QVERIFY(grouped.rows.size() > byNameTable.rows.size());
        std::map<std::string, std::pair<std::uint64_t, std::int64_t>> sums;
        bool anyGroup = false;
        for (const auto &row : grouped.rows) {
            sums[row.name].first += row.calls;
            sums[row.name].second += row.selfNs;
            anyGroup = anyGroup || !row.group.empty();
        }
        QCOMPARE(anyGroup, qualified);
        for (const auto &row : byNameTable.rows) {
            QCOMPARE(sums[row.name].first, row.calls);
            QCOMPARE(sums[row.name].second, row.selfNs);
        }
    }

    void topAndSort()
    {
        const auto loaded = loadFixture("a100_alexnet");
        QVERIFY(loaded.index);
        const auto all = buildOpTable(*loaded.index, options(OpGrouping::Name, OpSort::Calls));
        const auto top = buildOpTable(*loaded.index, options(OpGrouping::Name, OpSort::Calls, 3));
        QCOMPARE(top.rows.size(), std::size_t(3));
        QCOMPARE(top.rows[0], all.rows[0]);
        QVERIFY(all.rows[0].calls >= all.rows[1].calls);
        QCOMPARE(top.selfSumNs, all.selfSumNs);
    }

    void cancelled()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.trace);
        StopToken stop;
        stop.requestStop();
        QVERIFY(!buildTraceIndex(*loaded.trace, &stop));
        QVERIFY(buildOpTable(*loaded.index, {}, &stop).rows.empty());
    }

    void parseRange_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addRow("both") << "10:20.5" << true << qint64(10000) << qint64(20500);
        QTest::addRow("open end") << "10:" << true << qint64(10000) << qint64(TimeRange::all().end);
        QTest::addRow("reversed") << "20:10" << false << qint64(0) << qint64(0);
        QTest::addRow("no colon") << "20" << false << qint64(0) << qint64(0);
        QTest::addRow("junk") << "a:b" << false << qint64(0) << qint64(0);
    }

    void parseRange()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        const auto range = parseTimeRange(text.toStdString());
        QCOMPARE(range.has_value(), valid);
        if (valid) {
            QCOMPARE(range->start, start);
            QCOMPARE(range->end, end);
        }
    }
};

QTEST_GUILESS_MAIN(TestOpTable)
#include "tst_optable.moc"
