// Idle causes per step and stream: hand-written traces whose gaps were classified by hand, and
// golden tables an independent Python computation wrote from the real traces
// (scripts/make-idle-fixtures.py).
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/idlecauses.h"
#endif

#include <QObject>

#include <map>
#include <tuple>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

constexpr std::int64_t us = 1000; // the hand-written traces are in whole µs

StreamIdle row(std::string step, std::int32_t stream, std::int64_t span, std::int64_t busy, std::int64_t host,
               std::int64_t kernel, std::int64_t other)
{
    return {std::move(step), 0, stream, span * us, busy * us, {host * us, kernel * us, other * us}};
}

// A gap as (stream, start µs, length µs, cause, name of the event that ends it or "").
using GapText = std::tuple<std::int32_t, std::int64_t, std::int64_t, IdleCause, std::string>;

std::vector<GapText> gapTexts(const trace::Trace &trace, const IdleBreakdown &b)
{
    std::vector<GapText> result;
    for (const auto &g : b.gaps) {
        std::string next;
        if (g.next.isValid())
            next = std::string(trace.string(trace.track(g.next.track).eventName[g.next.event.value]));
        result.emplace_back(g.stream, g.startNs / us, g.durationNs / us, g.cause, next);
    }
    return result;
}

} // namespace

class TestIdleCauses : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    // tests/fixtures/analysis/idlecauses_one_step.json: ProfilerStep#1 runs 100-200 µs on the
    // CPU; it launched b, c, d and e, and f (no call) starts in its CPU span, so f, ending at
    // 210, is its last device work: the step's span is 100-210 µs (stepspans.h).
    //  stream 7: a 90-110 (reaches in), b 130-150 launched at 125 (after the gap began: host
    //            wait), c 145-160 (overlaps b), d 175-185 launched at 140 (before the gap at 160:
    //            kernel wait), then nothing until the step ends at 210 (other, 25);
    //  stream 8: e 120-170 launched at 100, the step's start (host wait), f 180-210 with no
    //            call (other), g after the step;
    //  stream 9: only a kernel before the step: no row.
    // Busy: stream 7 10 + 30 + 10 = 50, stream 8 50 + 30 = 80; each row adds up to 110.
    void oneStep()
    {
        const auto loaded = loadFixture("idlecauses_one_step");
        QVERIFY(loaded.index);
        const auto b = buildIdleBreakdown(*loaded.index);
        const std::vector<StreamIdle> rows{
            row("ProfilerStep#1", 7, 110, 50, 20, 15, 25),
            row("ProfilerStep#1", 8, 110, 80, 20, 0, 10),
        };
        QCOMPARE(b.streams, rows);
        const std::vector<GapText> gaps{
            {8, 100, 20, IdleCause::HostWait, "e"},   {7, 110, 20, IdleCause::HostWait, "b"},
            {7, 160, 15, IdleCause::KernelWait, "d"}, {8, 170, 10, IdleCause::Other, "f"},
            {7, 185, 25, IdleCause::Other, ""},
        };
        QCOMPARE(gapTexts(*loaded.trace, b), gaps);
        for (const auto &g : b.gaps)
            QCOMPARE(g.step, std::string("ProfilerStep#1"));
        const std::array<std::int64_t, kIdleCauseCount> total{40 * us, 15 * us, 35 * us};
        QCOMPARE(b.totalNs, total);
    }

    // Steps that start in range count whole; a trace with steps but none in range has no rows.
    void stepRange()
    {
        const auto loaded = loadFixture("idlecauses_one_step");
        QVERIFY(loaded.index);
        const auto all = buildIdleBreakdown(*loaded.index);
        QCOMPARE(buildIdleBreakdown(*loaded.index, TimeRange{100 * us, 100 * us + 1}), all);
        const auto none = buildIdleBreakdown(*loaded.index, TimeRange{0, 100 * us});
        QVERIFY(none.streams.empty());
        QVERIFY(none.gaps.empty());
        QCOMPARE(none.totalNs, (std::array<std::int64_t, kIdleCauseCount>{}));
    }

    // tests/fixtures/analysis/launches_two_streams.json has no steps: the span of its device
    // events, 10-210 µs, is the window.
    //  stream 7: 10-45 (three kernels back to back), 46-50 launched at 30 (kernel wait), 200-210
    //            launched at 21 (kernel wait);
    //  stream 8: 21-31 launched at 16 (host wait from 10), memcpy 32-40 launched at 26 (kernel
    //            wait), 50-55 launched at 40 (host wait from 40), 60-65 correlation 0 (other),
    //            70-75 launched at 80 (host wait), 90-95 no call (other), then other to 210.
    void noSteps()
    {
        const auto loaded = loadFixture("launches_two_streams");
        QVERIFY(loaded.index);
        const auto b = buildIdleBreakdown(*loaded.index);
        const std::vector<StreamIdle> rows{
            row("", 7, 200, 49, 0, 151, 0),
            row("", 8, 200, 38, 26, 1, 135),
        };
        QCOMPARE(b.streams, rows);
        QCOMPARE(b.gaps.size(), std::size_t(9));
        QCOMPARE(b.gaps.front().startNs, 10 * us);
        QCOMPARE(b.gaps.front().stream, 8);
        QCOMPARE(b.gaps.back().startNs, 95 * us);
        QCOMPARE(b.gaps.back().durationNs, 115 * us);

        // The range 40-100 µs: stream 7's gap from 50 µs now runs to the window's end (other).
        const auto some = buildIdleBreakdown(*loaded.index, TimeRange{40 * us, 100 * us});
        const std::vector<StreamIdle> someRows{
            row("", 7, 60, 9, 0, 1, 50),
            row("", 8, 60, 20, 15, 0, 25),
        };
        QCOMPARE(some.streams, someRows);
        // A range beyond the device events has no window at all.
        QVERIFY(buildIdleBreakdown(*loaded.index, TimeRange{300 * us, 400 * us}).streams.empty());
    }

    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto *name : {"a100_alexnet", "h100_bert", "mi250_rocm", "kineto_unordered", "v100_resnet50"})
            QTest::addRow("%s", name) << QString(name);
    }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto b = buildIdleBreakdown(*loaded.index);
        const auto expected = readCsv(goldenPath(name, ".idle.csv"));
        QVERIFY(expected.size() > 1);
        QCOMPARE(b.streams.size(), expected.size() - 1);
        std::map<std::tuple<std::string, std::int32_t, std::int32_t>, std::size_t> gapCount;
        for (const auto &g : b.gaps)
            ++gapCount[{g.step, g.device, g.stream}];
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto &s = b.streams[r - 1];
            QCOMPARE(s.step, e[0]);
            QCOMPARE(s.device, std::stoi(e[1]));
            QCOMPARE(s.stream, std::stoi(e[2]));
            QCOMPARE(s.spanNs, std::stoll(e[3]));
            QCOMPARE(s.busyNs, std::stoll(e[4]));
            QCOMPARE(s.ns(IdleCause::HostWait), std::stoll(e[5]));
            QCOMPARE(s.ns(IdleCause::KernelWait), std::stoll(e[6]));
            QCOMPARE(s.ns(IdleCause::Other), std::stoll(e[7]));
            const auto gaps = gapCount[{s.step, s.device, s.stream}];
            QCOMPARE(gaps, std::size_t(std::stoull(e[8])));
        }
    }

    // On every fixture: busy + idle = span in every row, the gaps add up to the rows, the totals
    // to the gaps; gaps in time order, at least 1 ns, "other" wherever nothing ends them.
    void invariants_data() { addFixtureRows(); }

    void invariants()
    {
        QFETCH(QString, fixture);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.index);
        const auto b = buildIdleBreakdown(*loaded.index);
        QCOMPARE(b.streams.empty(), !loaded.index->hasDevice);
        std::map<std::tuple<std::string, std::int32_t, std::int32_t>, std::array<std::int64_t, kIdleCauseCount>>
            fromRows;
        for (const auto &s : b.streams) {
            QCOMPARE(s.busyNs + s.idleNs[0] + s.idleNs[1] + s.idleNs[2], s.spanNs);
            QVERIFY(s.busyNs > 0);
            fromRows[{s.step, s.device, s.stream}] = s.idleNs;
        }
        std::map<std::tuple<std::string, std::int32_t, std::int32_t>, std::array<std::int64_t, kIdleCauseCount>>
            fromGaps;
        std::array<std::int64_t, kIdleCauseCount> total{};
        for (std::size_t i = 0; i < b.gaps.size(); ++i) {
            const auto &g = b.gaps[i];
            QVERIFY(g.durationNs >= 1);
            if (i > 0)
                QVERIFY(b.gaps[i - 1].startNs <= g.startNs);
            if (!g.next.isValid())
                QCOMPARE(g.cause, IdleCause::Other);
            else
                QVERIFY(isDeviceKind(loaded.index->track(g.next.track).kind[g.next.event.value]));
            fromGaps[{g.step, g.device, g.stream}][static_cast<std::size_t>(g.cause)] += g.durationNs;
            total[static_cast<std::size_t>(g.cause)] += g.durationNs;
        }
        for (const auto &[key, idle] : fromGaps)
            QCOMPARE(fromRows.at(key), idle);
        QCOMPARE(b.totalNs, total);
    }

    void causeNames()
    {
        QCOMPARE(idleCauseName(IdleCause::HostWait), std::string_view("host_wait"));
        QCOMPARE(idleCauseName(IdleCause::KernelWait), std::string_view("kernel_wait"));
        QCOMPARE(idleCauseName(IdleCause::Other), std::string_view("other"));
        QCOMPARE(idleCauseLabel(IdleCause::HostWait), std::string_view("Host wait"));
        QCOMPARE(idleCauseLabel(IdleCause::KernelWait), std::string_view("Kernel wait"));
        QCOMPARE(idleCauseLabel(IdleCause::Other), std::string_view("Other"));
    }

    // A side stream with 7 µs of work and 990 µs of kernel wait beside a 98%-busy stream whose
    // 20 µs idle is host wait: summed, kernel wait wins; weighted by work (7/987 and 980/987),
    // host wait does: 20 x 980/987 = 19.86 µs against 990 x 7/987 = 7.02 µs.
    void verdictWeighsStreamsByWork()
    {
        const std::vector<StreamIdle> streams{
            {"", 0, 7, 1000'000, 980'000, {20'000, 0, 0}},
            {"", 0, 13, 1000'000, 7'000, {3'000, 990'000, 0}},
        };
        const auto weighted = workWeightedIdle(streams);
        QVERIFY(std::abs(weighted[0] - (20'000.0 * 980 / 987 + 3'000.0 * 7 / 987)) < 1e-6);
        QVERIFY(std::abs(weighted[1] - 990'000.0 * 7 / 987) < 1e-6);
        QCOMPARE(dominantIdleCause(streams), int(IdleCause::HostWait));
        QCOMPARE(dominantIdleCause({}), -1);
    }
};

QTEST_GUILESS_MAIN(TestIdleCauses)
#include "tst_idlecauses.moc"
