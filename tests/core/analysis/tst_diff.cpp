// Diff of two traces.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/diff.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/trace/loader.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <fstream>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

// A CPU trace of ProfilerSteps one after another, lasting the given µs.
Loaded stepsTrace(const QTemporaryDir &dir, const std::string &name, const std::vector<int> &stepsUs)
{
    std::string text = R"({"traceEvents": [)";
    int at = 0;
    for (std::size_t k = 0; k < stepsUs.size(); ++k) {
        text += (k ? "," : "") + std::string(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)") +
                std::to_string(k) + R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(at) + R"(, "dur": )" +
                std::to_string(stepsUs[k]) + "}";
        at += stepsUs[k];
    }
    const auto path = std::filesystem::path(dir.path().toStdString()) / name;
    std::ofstream(path) << text << "]}";
    auto trace = trace::loadTrace(path);
    if (!trace.ok())
        return {};
    return {trace.value(), buildTraceIndex(*trace.value())};
}

} // namespace

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

    // A hand-built pair (tests/fixtures/traces/diff_{base,other}.json) whose deltas were
    // worked out by hand: ops by self time, kernels by total time.
    void handBuiltPair()
    {
        const auto load = [](const char *file) {
            auto trace = trace::loadTrace(std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces" / file);
            return trace.ok() ? trace.value() : nullptr;
        };
        const auto baseTrace = load("diff_base.json");
        const auto otherTrace = load("diff_other.json");
        QVERIFY(baseTrace && otherTrace);
        const auto base = buildTraceIndex(*baseTrace);
        const auto other = buildTraceIndex(*otherTrace);
        const auto diff = diffTraces(*base, *other);
        struct Expected {
            const char *kind;
            const char *name;
            std::int64_t baseUs, otherUs;
            std::optional<double> percent;
            Presence presence;
            std::uint64_t baseCalls, otherCalls;
        };
        const Expected expected[] = {
            {"op", "aten::convolution", 80, 50, -37.5, Presence::Both, 1, 1},
            {"op", "aten::conv2d", 20, 10, -50.0, Presence::Both, 1, 1},        // 100 - 80 child, 60 - 50
            {"op", "aten::relu", 50, 40, -20.0, Presence::Both, 2, 1},          // two calls, 30 + 20
            {"op", "aten::gone", 10, 0, -100.0, Presence::BaseOnly, 1, 0},
            {"op", "aten::added", 0, 25, std::nullopt, Presence::OtherOnly, 0, 1}, // new: no percentage
            {"kernel", "kernel_a", 50, 30, -40.0, Presence::Both, 1, 1},
            {"kernel", "kernel_b", 20, 20, 0.0, Presence::Both, 1, 1},
            {"kernel", "kernel_c", 0, 10, std::nullopt, Presence::OtherOnly, 0, 1},
        };
        QCOMPARE(diff.rows.size(), std::size(expected));
        for (const auto &e : expected) {
            const auto row = std::find_if(diff.rows.begin(), diff.rows.end(),
                                          [&](const DiffRow &r) { return r.kind == e.kind && r.name == e.name; });
            QVERIFY2(row != diff.rows.end(), e.name);
            QCOMPARE(row->baseNs, e.baseUs * 1000);
            QCOMPARE(row->otherNs, e.otherUs * 1000);
            QCOMPARE(row->deltaPercent(), e.percent);
            QCOMPARE(row->presence, e.presence);
            QCOMPARE(row->baseCalls, e.baseCalls);
            QCOMPARE(row->otherCalls, e.otherCalls);
        }
        // Largest change first.
        QCOMPARE(diff.rows.front().name, std::string("aten::convolution"));
        QCOMPARE(diff.rows[1].name, std::string("aten::added"));
        // Totals: ops 160 -> 125 us, kernels 70 -> 60 us, together 230 -> 185 us (-19.565 %).
        QCOMPARE(diff.ops.baseNs, std::int64_t(160'000));
        QCOMPARE(diff.ops.otherNs, std::int64_t(125'000));
        QCOMPARE(diff.kernels.baseNs, std::int64_t(70'000));
        QCOMPARE(diff.kernels.otherNs, std::int64_t(60'000));
        QCOMPARE(diff.total.baseNs, std::int64_t(230'000));
        QCOMPARE(diff.total.otherNs, std::int64_t(185'000));
        QVERIFY(std::abs(diff.total.deltaPercent() - (-45.0 / 230.0 * 100.0)) < 1e-12);
    }

    // Steps that repeat tell a difference from their noise: 10.0 ± 0.32 ms against 10.1 ± 0.32 ms
    // over five steps each is a ratio of 1.01 whose 95% interval (0.965 to 1.057) holds 1; 13.0 ms
    // steps are beyond it.
    void stepsWithTheirNoise()
    {
        QTemporaryDir dir;
        const auto base = stepsTrace(dir, "base.json", {10000, 10400, 9600, 10200, 9800});
        const auto same = stepsTrace(dir, "same.json", {10100, 10500, 9700, 10300, 9900});
        const auto slower = stepsTrace(dir, "slower.json", {13000, 13200, 12800, 13100, 12900});
        QVERIFY(base.index && same.index && slower.index);
        const auto close = diffTraces(*base.index, *same.index);
        QVERIFY(close.steps);
        QCOMPARE(close.steps->base.n, std::size_t(5));
        QCOMPARE(close.steps->base.mean, 10.0);
        QVERIFY(std::abs(close.steps->base.std - std::sqrt(0.1)) < 1e-12);
        QVERIFY(std::abs(close.steps->ratioOfMeans() - 1.01) < 1e-12);
        QVERIFY(close.steps->ratio);
        QVERIFY(std::abs(close.steps->ratio->low - 0.965) < 1e-3 && std::abs(close.steps->ratio->high - 1.057) < 1e-3);
        QVERIFY(withinNoise(close.steps->ratio));
        const auto far = diffTraces(*base.index, *slower.index);
        QVERIFY(far.steps && far.steps->ratio && far.steps->ratio->low > 1.2);
        QVERIFY(!withinNoise(far.steps->ratio));
        // A trace without steps (the hand-built pair's) has nothing to say.
        const auto none = trace::loadTrace(std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces" / "diff_base.json");
        QVERIFY(none.ok());
        QVERIFY(!diffTraces(*buildTraceIndex(*none.value()), *base.index).steps);
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
