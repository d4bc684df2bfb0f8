// Traces side by side: two real ranks of one job, and a small trace with every kind of record.
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/trace/combine.h"
#include "core/trace/loader.h"
#endif
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "tracetestutil.h"
#endif

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace pyrometer;
using namespace pyrometer::trace;
using namespace pyrometer::trace::testing;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<const Trace> loadRank(int rank)
{
    const auto path = fs::path(PYROMETER_FIXTURES_DIR) / "traces" / "multirank"
                      / ("sampled_rank-" + std::to_string(rank) + ".json.gz");
    auto result = loadTrace(path);
    return result.ok() ? result.value() : nullptr;
}

std::string text(const Trace &trace, StringId id) { return std::string(trace.string(id)); }

// Every event of part (its tracks from trackBase on in combined) is there, shifted by offset,
// with the same name, category, nesting and args.
void compareEvents(const Trace &combined, const Trace &part, std::uint32_t trackBase, std::int64_t offset)
{
    for (const auto &from : part.tracks) {
        const auto &to = combined.track(TrackId(trackBase + from.id.value));
        QCOMPARE(to.id.value, trackBase + from.id.value);
        QCOMPARE(to.name, from.name);
        QCOMPARE(to.size(), from.size());
        QCOMPARE(to.laneCount, from.laneCount);
        for (std::uint32_t k = 0; k < from.size(); ++k) {
            const EventIndex e(k);
            QCOMPARE(to.start[k], from.start[k] + offset);
            QCOMPARE(to.duration[k], from.duration[k]);
            QCOMPARE(text(combined, to.eventName[k]), text(part, from.eventName[k]));
            QCOMPARE(text(combined, to.category[k]), text(part, from.category[k]));
            QCOMPARE(to.depth[k], from.depth[k]);
            QCOMPARE(to.lane[k], from.lane[k]);
            QCOMPARE(to.parent[k], from.parent[k]);
            const auto *fromArgs = part.eventArgs(from.id, e);
            const auto *toArgs = combined.eventArgs(to.id, e);
            QCOMPARE(toArgs == nullptr, fromArgs == nullptr);
            if (fromArgs) {
                QCOMPARE(toArgs->correlation, fromArgs->correlation);
                QCOMPARE(toArgs->externalId, fromArgs->externalId);
                QCOMPARE(toArgs->device, fromArgs->device);
                QCOMPARE(toArgs->stream, fromArgs->stream);
                QCOMPARE(text(combined, toArgs->inputDims), text(part, fromArgs->inputDims));
                QCOMPARE(text(combined, toArgs->inputTypes), text(part, fromArgs->inputTypes));
            }
            const auto *fromCollective = part.collective(from.id, e);
            const auto *toCollective = combined.collective(to.id, e);
            QCOMPARE(toCollective == nullptr, fromCollective == nullptr);
            if (fromCollective) {
                QCOMPARE(text(combined, toCollective->name), text(part, fromCollective->name));
                QCOMPARE(text(combined, toCollective->dtype), text(part, fromCollective->dtype));
                QCOMPARE(toCollective->inNelems, fromCollective->inNelems);
                QCOMPARE(toCollective->groupSize, fromCollective->groupSize);
            }
        }
    }
}

// A trace with a flow, a counter, [memory] instants and a global marker; the kernel's
// collective args make one entry of collectiveArgs.
const char *kSmall = R"({"distributedInfo": {"backend": "nccl", "rank": 2, "world_size": 4}, "traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
    {"ph": "M", "name": "process_labels", "pid": 0, "args": {"labels": "GPU 0"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "launch", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 20, "dur": 5,
     "args": {"Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024, "dtype": "Float",
              "Group size": 4, "stream": 7, "device": 0}},
    {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 11, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 20, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "f", "id": 99, "pid": 0, "tid": 7, "ts": 22, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12,
     "args": {"Total Reserved": 2048, "Total Allocated": 1024, "Bytes": 1024, "Addr": 64, "Device Id": 0, "Device Type": 1}},
    {"ph": "C", "name": "util", "pid": 1, "ts": 7, "args": {"gpu": 50.5}},
    {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 30}]})";

} // namespace

class TestCombine : public QObject {
    Q_OBJECT
private slots:
    void twoRealRanks()
    {
        const auto a = loadRank(0);
        const auto b = loadRank(1);
        QVERIFY(a && b);
        const std::int64_t offsetA = 1'500'000, offsetB = -2'250'125;
        const auto combined = combineTraces({{a, offsetA, "rank 0"}, {b, offsetB, "rank 1"}});
        QVERIFY(combined);
        const auto &c = *combined;

        QCOMPARE(c.info.eventCount, a->info.eventCount + b->info.eventCount);
        for (const auto &[ph, count] : c.info.phaseCounts) {
            const auto in = [&](const Trace &t) { return t.info.phaseCounts.contains(ph) ? t.info.phaseCounts.at(ph) : 0; };
            QCOMPARE(count, in(*a) + in(*b));
        }
        QCOMPARE(c.tracks.size(), a->tracks.size() + b->tracks.size());
        QCOMPARE(c.processes.size(), a->processes.size() + b->processes.size());
        QCOMPARE(c.info.trackCount, c.tracks.size());
        QCOMPARE(c.info.processCount, c.processes.size());
        QCOMPARE(c.sliceCount(), a->sliceCount() + b->sliceCount());
        QCOMPARE(c.info.file, a->info.file);
        QVERIFY(!c.info.distributed.present());
        QCOMPARE(c.info.spanStart, std::min(a->info.spanStart + offsetA, b->info.spanStart + offsetB));
        QCOMPARE(c.info.spanEnd, std::max(a->info.spanEnd + offsetA, b->info.spanEnd + offsetB));
        QCOMPARE(c.collectiveArgs.size(), a->collectiveArgs.size() + b->collectiveArgs.size());
        QVERIFY(std::is_sorted(c.collectiveArgs.begin(), c.collectiveArgs.end(),
                               [](const auto &x, const auto &y) { return x.first < y.first; }));

        compareEvents(c, *a, 0, offsetA);
        compareEvents(c, *b, static_cast<std::uint32_t>(a->tracks.size()), offsetB);

        // Processes: the parts in order, names and labels prefixed, pids unique, sort indices
        // increasing, tracks pointing back at their process.
        std::set<std::pair<std::int64_t, std::string>> pids;
        for (std::size_t i = 0; i < c.processes.size(); ++i) {
            const auto &p = c.processes[i];
            const bool first = i < a->processes.size();
            const auto &from = first ? a->processes[i] : b->processes[i - a->processes.size()];
            const std::string label = first ? "rank 0" : "rank 1";
            QCOMPARE(p.id.value, i);
            QCOMPARE(p.name, label + " \u00b7 " + from.name);
            QCOMPARE(p.label, from.label.empty() ? label : label + " \u00b7 " + from.label);
            QVERIFY(pids.insert({p.pid.number, text(c, p.pid.text)}).second);
            if (i > 0)
                QVERIFY(p.sortIndex > c.processes[i - 1].sortIndex);
            QCOMPARE(p.tracks.size(), from.tracks.size());
            for (std::size_t k = 0; k < p.tracks.size(); ++k) {
                QCOMPARE(p.tracks[k].value, from.tracks[k].value + (first ? 0 : a->tracks.size()));
                QCOMPARE(c.track(p.tracks[k]).process, p.id);
            }
        }
        QVERIFY(std::any_of(c.processes.begin(), c.processes.end(),
                            [](const Process &p) { return p.label == "rank 1 \u00b7 GPU 1" && p.name.starts_with("rank 1 \u00b7 pyper:trainer:0:1"); }));
    }

    void flowsCountersMemoryMarkers()
    {
        const auto loaded = loadText(kSmall);
        QVERIFY(loaded.ok());
        const auto small = loaded.value();
        QCOMPARE(small->flows.size(), 2u);
        QCOMPARE(small->collectiveArgs.size(), 1u);
        const std::int64_t offset = 7'000'000;
        const auto combined = combineTraces({{small, 0, "a"}, {small, offset, "b"}});
        QVERIFY(combined);
        const auto &c = *combined;
        const auto base = static_cast<std::uint32_t>(small->tracks.size());
        compareEvents(c, *small, base, offset);

        QCOMPARE(c.flows.size(), 4u);
        for (std::size_t i = 0; i < small->flows.size(); ++i) {
            const auto &from = small->flows[i];
            const auto &to = c.flows[small->flows.size() + i];
            QCOMPARE(to.id, from.id);
            QCOMPARE(text(c, to.category), text(*small, from.category));
            QCOMPARE(to.from.track.isValid(), from.from.track.isValid());
            if (from.from.track.isValid()) {
                QCOMPARE(to.from.track.value, from.from.track.value + base);
                QCOMPARE(to.from.time, from.from.time + offset);
                QCOMPARE(to.from.event, from.from.event);
            }
            QVERIFY(from.to.track.isValid());
            QCOMPARE(to.to.track.value, from.to.track.value + base);
            QCOMPARE(to.to.time, from.to.time + offset);
            QCOMPARE(text(c, c.track(to.to.track).eventName[to.to.event.value]), "ncclKernel_AllReduce");
        }

        QCOMPARE(c.counters.size(), 2 * small->counters.size());
        for (std::size_t i = 0; i < small->counters.size(); ++i) {
            const auto &from = small->counters[i];
            const auto &to = c.counters[small->counters.size() + i];
            QCOMPARE(to.name, from.name);
            QCOMPARE(to.value, from.value);
            QCOMPARE(to.time.size(), from.time.size());
            QCOMPARE(to.time.front(), from.time.front() + offset);
            QCOMPARE(to.process.value, from.process.value + small->processes.size());
        }

        QCOMPARE(c.memory.size(), 2 * small->memory.size());
        const auto m = small->memory.size();
        QCOMPARE(c.memory.time[m], small->memory.time[0] + offset);
        QCOMPARE(c.memory.track[m].value, small->memory.track[0].value + base);
        QCOMPARE(c.memory.bytes[m], 1024);
        QCOMPARE(c.memory.totalReserved[m], 2048);
        QCOMPARE(c.memory.address[m], 64u);

        QCOMPARE(c.markers.size(), 2u);
        QCOMPARE(c.markers[1].time, small->markers[0].time + offset);
        QCOMPARE(text(c, c.markers[1].name), "Record Window End");

        QCOMPARE(c.collectiveArgs.size(), 2u);
        QCOMPARE(c.collectiveArgs[1].first, small->collectiveArgs[0].first + small->args.size());
        QCOMPARE(text(c, c.collectiveArgs[1].second.name), "allreduce");
        QCOMPARE(c.collectiveArgs[1].second.inNelems, 1024);

        // The two copies of one pid stay apart.
        QVERIFY(!(c.processes[0].pid == c.processes[small->processes.size()].pid));
        QCOMPARE(c.info.spanStart, small->info.spanStart);
        QCOMPARE(c.info.spanEnd, small->info.spanEnd + offset);
        QCOMPARE(c.info.warningCount, 2 * small->info.warningCount);
    }

    void emptyOrStopped()
    {
        QVERIFY(!combineTraces({}));
        const auto loaded = loadText(kSmall);
        QVERIFY(loaded.ok());
        StopToken stop;
        QVERIFY(combineTraces({{loaded.value(), 0, "a"}}, &stop));
        stop.requestStop();
        QVERIFY(!combineTraces({{loaded.value(), 0, "a"}}, &stop));
    }
};

QTEST_GUILESS_MAIN(TestCombine)
#include "tst_combine.moc"
