// A snapshot joined with the torch.profiler trace of the same run (scripts/make-snapshots.py writes
// both from one allocator simulation, the trace on a clock of its own): the clock offset found
// is the one the script used, every allocation the trace saw is matched to the op that made it,
// and the snapshot's memory on the trace's clock agrees with the trace's own figures.
#include <QTest>

#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "core/snapshot/tracejoin.h"
#include "core/trace/loader.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

using namespace pyrometer;
using namespace pyrometer::snapshot;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = PYROMETER_TEST_SNAPSHOTS_DIR;

std::shared_ptr<const Snapshot> loadPickle(const std::string &name)
{
    auto result = loadSnapshot(kDir / name);
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return result.value();
}

std::shared_ptr<const trace::Trace> loadJson(const std::string &name)
{
    auto result = trace::loadTrace(kDir / name);
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return result.value();
}

nlohmann::json expectedJoin()
{
    std::ifstream in(kDir / "basic_trace.expected.json");
    return nlohmann::json::parse(in);
}

// The replay position of the allocation at (time_us, address).
std::int64_t positionOf(const Snapshot &s, const DeviceReplay &d, std::int64_t timeUs, std::uint64_t address)
{
    for (std::size_t p = 0; p < d.events.size(); ++p) {
        const auto e = d.events[p];
        if (s.events.action[e] == Action::Alloc && s.events.timeUs[e] == timeUs && s.events.addr[e] == address)
            return std::int64_t(p);
    }
    return -1;
}

// A counter's value in force at time t.
double valueAt(const trace::CounterSeries &series, std::int64_t t)
{
    const auto it = std::upper_bound(series.time.begin(), series.time.end(), t);
    return it == series.time.begin() ? -1.0 : series.value[std::size_t(it - series.time.begin() - 1)];
}

} // namespace

class TestTraceJoin : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void findsTheOffsetAndTheOps()
    {
        const auto s = loadPickle("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto t = loadJson("basic_trace.json");
        const auto want = expectedJoin();
        const auto &d = devices[want["device"].get<std::size_t>()];
        const auto join = joinTrace(*s, d, *t);
        QVERIFY2(join.joined, join.message.c_str());
        QVERIFY(!join.offsetFromUser);
        QCOMPARE(join.offsetNs, want["offset_us"].get<std::int64_t>() * 1000);
        const auto &allocations = want["allocations"];
        QCOMPARE(join.traceAllocations, allocations.size());
        QCOMPARE(join.matched, allocations.size());
        QVERIFY2(join.message.find("10 of the trace's 10") != std::string::npos, join.message.c_str());
        for (const auto &a : allocations) {
            const auto position =
                positionOf(*s, d, a["time_us"].get<std::int64_t>(), a["address"].get<std::uint64_t>());
            QVERIFY(position >= 0);
            const auto op = allocationOp(*t, join, position);
            QVERIFY(op.has_value());
            const auto name = a["op"].get<std::string>();
            QCOMPARE(op->name, name);
            QCOMPARE(op->path, "ProfilerStep#1 › " + name + " › aten::empty");
        }
    }

    // The trace's step repeats the steps before and after it, at the same addresses: only the
    // microseconds tell which one it is.
    void theSameAddressesInOtherStepsAreNotTaken()
    {
        const auto s = loadPickle("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto want = expectedJoin();
        const auto &d = devices[0];
        const auto first = want["allocations"][0]["address"].get<std::uint64_t>();
        std::size_t reuses = 0;
        for (const auto e : d.events)
            reuses += s->events.action[e] == Action::Alloc && s->events.addr[e] == first;
        QVERIFY(reuses >= 3);
        const auto t = loadJson("basic_trace.json");
        const auto join = joinTrace(*s, d, *t);
        QCOMPARE(join.matched, std::size_t(10));
        std::size_t seen = 0;
        for (const auto &a : want["allocations"]) {
            const auto position =
                positionOf(*s, d, a["time_us"].get<std::int64_t>(), a["address"].get<std::uint64_t>());
            const auto m = join.memoryEventOf(position);
            QVERIFY(m.has_value());
            QCOMPARE(t->memory.address[*m], a["address"].get<std::uint64_t>());
            QCOMPARE(s->events.timeUs[d.events[std::size_t(position)]] * 1000 + join.offsetNs, t->memory.time[*m]);
            ++seen;
        }
        QCOMPARE(seen, join.matched);
    }

    // Just after the step's last allocation, its activations and gradients are live: each group
    // is made by the op the trace shows around its allocations.
    void theOpsOfALiveGroup()
    {
        const auto s = loadPickle("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto &d = devices[0];
        const auto t = loadJson("basic_trace.json");
        const auto join = joinTrace(*s, d, *t);
        const auto want = expectedJoin();
        const auto &allocations = want["allocations"];
        const auto &last = allocations.back();
        const auto at = positionOf(*s, d, last["time_us"].get<std::int64_t>(), last["address"].get<std::uint64_t>());
        const auto live = liveAt(*s, d, at);
        std::map<std::string, std::size_t> blocksOf; // per op, the step's allocations live then
        for (const auto &a : allocations)
            ++blocksOf[a["op"].get<std::string>()];
        auto byStack = opsByGroup(*s, d, live, GroupBy::Stack, *t, join);
        for (const auto &a : allocations) {
            const auto position =
                positionOf(*s, d, a["time_us"].get<std::int64_t>(), a["address"].get<std::uint64_t>());
            const auto block =
                std::find_if(live.begin(), live.end(), [&](const LiveBlock &b) { return b.position == position; });
            QVERIFY(block != live.end());
            const auto &ops = byStack[groupKey(*s, d, *block, GroupBy::Stack)];
            QVERIFY(!ops.empty());
            const auto op = a["op"].get<std::string>();
            const auto mine = std::find_if(ops.begin(), ops.end(), [&](const GroupOp &g) { return g.name == op; });
            QVERIFY2(mine != ops.end(), op.c_str());
            QVERIFY(mine->blocks >= 1 && mine->blocks <= blocksOf[op]);
            QVERIFY(mine->bytes >= block->size);
            QCOMPARE(std::string(t->string(t->track(mine->track).eventName[mine->event.value])), op);
        }
        // Grouped by annotation, the mlp activations carry user_metadata "step1".
        auto byAnnotation = opsByGroup(*s, d, live, GroupBy::Annotation, *t, join);
        const auto &ops = byAnnotation["step1"];
        QCOMPARE(ops.size(), std::size_t(1));
        QCOMPARE(ops[0].name, std::string("aten::linear"));
        QCOMPARE(ops[0].blocks, std::size_t(3));
    }

    void anotherRunDoesNotJoin()
    {
        const auto s = loadPickle("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto join = joinTrace(*s, devices[0], *loadJson("unrelated_trace.json"));
        QVERIFY(!join.joined);
        QCOMPARE(join.matched, std::size_t(0));
        QVERIFY2(join.message.find("same run") != std::string::npos, join.message.c_str());
        QVERIFY(snapshotCounters(*s, devices[0], *loadJson("unrelated_trace.json"), join).empty());
    }

    void anOffsetTheUserSets()
    {
        const auto s = loadPickle("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto t = loadJson("basic_trace.json");
        const auto offset = expectedJoin()["offset_us"].get<std::int64_t>() * 1000;
        const auto right = joinTrace(*s, devices[0], *t, offset);
        QVERIFY(right.joined && right.offsetFromUser);
        QCOMPARE(right.matched, std::size_t(10));
        QVERIFY2(right.message.find("offset set") != std::string::npos, right.message.c_str());
        // A second off: nothing lines up, but the user's offset stands.
        const auto off = joinTrace(*s, devices[0], *t, offset + 1'000'000'000);
        QVERIFY(off.joined);
        QCOMPARE(off.matched, std::size_t(0));
        QVERIFY(!allocationOp(*t, off, 0).has_value());
    }

    void offsetsAsTyped()
    {
        QCOMPARE(parseOffsetSeconds("-1699999995.999998"), std::optional<std::int64_t>(-1699999995999998000));
        QCOMPARE(parseOffsetSeconds(" 12 "), std::optional<std::int64_t>(12'000'000'000));
        QCOMPARE(parseOffsetSeconds("+0.5"), std::optional<std::int64_t>(500'000'000));
        QCOMPARE(parseOffsetSeconds("3.000000001"), std::optional<std::int64_t>(3'000'000'001));
        QCOMPARE(parseOffsetSeconds("-4611686017.999"), std::optional<std::int64_t>(-4611686017999000000));
        for (const char *bad : {"", "-", "abc", "1e9", "1.2.3", ".5", "1.0000000001", "12345678901", "1 2", "9999999999",
                                "4611686018"})
            QVERIFY2(!parseOffsetSeconds(bad), bad);
    }

    void whatCannotJoin()
    {
        const auto t = loadJson("basic_trace.json");
        const auto legacy = loadPickle("legacy.pickle");
        const auto legacyJoin = joinTrace(*legacy, replay(*legacy)[0], *t);
        QVERIFY(!legacyJoin.joined);
        QVERIFY2(legacyJoin.message.find("time_us") != std::string::npos, legacyJoin.message.c_str());
        // The trace profiled device 0 only.
        const auto s = loadPickle("basic_p4.pickle");
        const auto second = joinTrace(*s, replay(*s)[1], *t);
        QVERIFY(!second.joined);
        QVERIFY2(second.message.find("no [memory] events of device 1") != std::string::npos, second.message.c_str());
    }

    // On the trace's clock, the snapshot's active memory after each allocation the trace saw is
    // the Total Allocated the profiler reported with it.
    void countersAgreeWithTheTrace()
    {
        const auto s = loadPickle("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto t = loadJson("basic_trace.json");
        const auto join = joinTrace(*s, devices[0], *t);
        const auto counters = snapshotCounters(*s, devices[0], *t, join);
        QCOMPARE(counters.size(), std::size_t(2));
        QCOMPARE(counters[0].name, std::string("Snapshot active (device 0)"));
        QCOMPARE(counters[1].name, std::string("Snapshot reserved (device 0)"));
        for (const auto &c : counters) {
            QCOMPARE(c.time.front(), t->info.spanStart);
            QVERIFY(c.time.back() <= t->info.spanEnd);
            QVERIFY(std::is_sorted(c.time.begin(), c.time.end()));
            QCOMPARE(c.time.size(), c.value.size());
            QCOMPARE(c.process, t->track(t->memory.track[0]).process);
        }
        QVERIFY(counters[0].time.size() > 10);
        for (const auto &m : join.matches) {
            QCOMPARE(valueAt(counters[0], t->memory.time[m.memoryEvent]),
                     double(t->memory.totalAllocated[m.memoryEvent]));
            QCOMPARE(valueAt(counters[1], t->memory.time[m.memoryEvent]),
                     double(t->memory.totalReserved[m.memoryEvent]));
        }
    }
};

QTEST_GUILESS_MAIN(TestTraceJoin)
#include "tst_tracejoin.moc"
