// What the loader makes of small hand-written traces: one feature per test.
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/trace/eventjson.h"
#endif
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/trace/lanes.h"
#endif
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/trace/loader.h"
#endif
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "tracetestutil.h"
#endif

#include <QtTest>

using namespace pyrometer;
using namespace pyrometer::trace;
using namespace pyrometer::trace::testing;

namespace {

// Loads text from a file that lives as long as the test binary (lazy reads need the file).
std::shared_ptr<const Trace> load(const std::string &text, const std::string &name = "trace.json")
{
    static QTemporaryDir dir;
    static int serial = 0;
    auto result = loadTrace(writeFile(dir, std::to_string(++serial) + name, text));
    if (!result.ok()) {
        qWarning("%s", result.error().message.c_str());
        return nullptr;
    }
    return std::move(result).value();
}

} // namespace

class TestModel : public QObject {
    Q_OBJECT
private slots:
    void nanosecondPrecision()
    {
        const auto trace = load(R"({"traceEvents": [
            {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1712195495519689.047, "dur": 0.001}]})");
        QVERIFY(trace);
        const auto &track = trace->tracks.at(0);
        QCOMPARE(track.start[0], std::int64_t(1712195495519689047));
        QCOMPARE(track.duration[0], std::int64_t(1));
        QCOMPARE(trace->info.spanStart, std::int64_t(1712195495519689047));
        QCOMPARE(trace->info.spanEnd, std::int64_t(1712195495519689048));
    }

    void stringAndNumberIds()
    {
        const auto trace = load(R"([
            {"ph": "X", "name": "op", "pid": 25738, "tid": 25738, "ts": 1, "dur": 10},
            {"ph": "X", "name": "rt", "pid": 25738, "tid": "25738", "ts": 2, "dur": 1},
            {"ph": "X", "name": "k", "pid": 0, "tid": "stream 7", "ts": 3, "dur": 1},
            {"ph": "X", "name": "s", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1, "dur": 20}])");
        QVERIFY(trace);
        QCOMPARE(trace->info.trackCount, 3u); // "25738" and 25738 are one thread
        QCOMPARE(trace->info.processCount, 3u);
        QStringList names;
        for (const auto &track : trace->tracks)
            names << QString::fromStdString(track.name);
        QVERIFY(names.contains("Thread 25738"));
        QVERIFY(names.contains("stream 7"));
        QVERIFY(names.contains("PyTorch Profiler"));
        QStringList processes;
        for (const auto &process : trace->processes)
            processes << QString::fromStdString(process.name);
        QCOMPARE(processes, (QStringList{"Process 0", "Process 25738", "Spans"}));
        const auto [track, event] = findSlice(*trace, "rt");
        QCOMPARE(trace->track(track).depth[event.value], 1);
    }

    void metadataNamesAndOrders()
    {
        const auto trace = load(R"({"traceEvents": [
            {"ph": "X", "name": "k", "pid": 0, "tid": 7, "ts": 3, "dur": 1},
            {"ph": "X", "name": "op", "pid": 100, "tid": 100, "ts": 1, "dur": 10},
            {"name": "process_name", "ph": "M", "pid": 100, "tid": 0, "args": {"name": "python3"}},
            {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
            {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "python3"}},
            {"name": "process_sort_index", "ph": "M", "pid": 100, "tid": 0, "args": {"sort_index": -1}},
            {"name": "process_name", "ph": "M", "pid": 5, "tid": 0, "args": {"name": "unused GPU"}},
            {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7"}}]})");
        QVERIFY(trace);
        QCOMPARE(trace->processes.size(), 2u); // a process with no events is not shown
        QCOMPARE(trace->processes[0].name, std::string("python3"));
        QCOMPARE(trace->processes[1].name, std::string("python3 (GPU 0)"));
        QCOMPARE(trace->processes[1].label, std::string("GPU 0"));
        QCOMPARE(trace->track(trace->processes[1].tracks.at(0)).name, std::string("stream 7"));
        QCOMPARE(trace->info.phaseCounts.at("M"), 6u);
    }

    // Kineto labels the host pid "CPU" and pids 0..N-1 "GPU i": a host whose pid is 1 gets both
    // labels, in either order; it is the host, labelled "CPU".
    void hostPidAlsoLabelledGpu()
    {
        for (const bool cpuFirst : {true, false}) {
            const std::string cpu =
                R"({"name": "process_labels", "ph": "M", "pid": 1, "tid": 0, "args": {"labels": "CPU"}},)";
            const std::string gpu =
                R"({"name": "process_labels", "ph": "M", "pid": 1, "tid": 0, "args": {"labels": "GPU 1"}},)";
            const auto trace = load(R"({"traceEvents": [
            {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 1, "dur": 10},
            {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python3"}},)" +
                                    (cpuFirst ? cpu + gpu : gpu + cpu) + R"(
            {"name": "process_name", "ph": "M", "pid": 2, "tid": 0, "args": {"name": "python3"}}]})");
            QVERIFY(trace);
            QCOMPARE(trace->processes.size(), 1u);
            QCOMPARE(trace->processes[0].label, std::string("CPU"));
            QCOMPARE(trace->processes[0].name, std::string("python3 (CPU)"));
        }
    }

    void overlappingEventsGetLanes()
    {
        // Kernels on one stream that overlap without nesting, a nested pair, and a zero-length one.
        const auto trace = load(R"([
            {"ph": "X", "name": "k1", "pid": 0, "tid": 7, "ts": 0, "dur": 10},
            {"ph": "X", "name": "k2", "pid": 0, "tid": 7, "ts": 5, "dur": 10},
            {"ph": "X", "name": "k3", "pid": 0, "tid": 7, "ts": 6, "dur": 2},
            {"ph": "X", "name": "z", "pid": 0, "tid": 7, "ts": 20, "dur": 0},
            {"ph": "X", "name": "k4", "pid": 0, "tid": 7, "ts": 30, "dur": 1}])");
        QVERIFY(trace);
        const auto &track = trace->tracks.at(0);
        QCOMPARE(track.size(), 5u);
        QCOMPARE(track.laneCount, 2);
        auto at = [&](const char *name) { return findSlice(*trace, name).second.value; };
        QCOMPARE(track.lane[at("k1")], 0);
        QCOMPARE(track.lane[at("k2")], 1);
        QCOMPARE(track.lane[at("k3")], 0); // nests in k1 (lowest lane that contains it)
        QCOMPARE(track.depth[at("k3")], 1);
        QCOMPARE(track.parent[at("k3")], EventIndex(at("k1")));
        QCOMPARE(track.duration[at("z")], 0);
        QCOMPARE(track.lane[at("k4")], 0);
    }

    void sortsOutOfOrderEvents()
    {
        Track track;
        for (const auto &[start, duration] : std::vector<std::pair<int, int>>{{5, 1}, {0, 10}, {0, 20}, {3, 0}}) {
            track.start.push_back(start);
            track.duration.push_back(duration);
            track.eventName.push_back(StringId(static_cast<std::uint32_t>(track.start.size())));
            track.category.emplace_back();
            track.kind.push_back(SliceKind::Complete);
            track.args.push_back(Track::kNoArgs);
            track.sourceOffset.push_back(0);
        }
        sortAndNest(track);
        QCOMPARE(track.start, (std::vector<std::int64_t>{0, 0, 3, 5}));
        QCOMPARE(track.duration, (std::vector<std::int64_t>{20, 10, 0, 1}));
        QCOMPARE(track.depth, (std::vector<std::uint16_t>{0, 1, 2, 2}));
        QCOMPARE(track.laneCount, 1);
    }

    void beginEndPairs()
    {
        const auto trace = load(R"([
            {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 0},
            {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 1},
            {"ph": "E", "pid": 1, "tid": 1, "ts": 2},
            {"ph": "E", "pid": 1, "tid": 1, "ts": 10},
            {"ph": "B", "name": "open", "pid": 1, "tid": 1, "ts": 11},
            {"ph": "E", "pid": 1, "tid": 2, "ts": 12}])");
        QVERIFY(trace);
        const auto &track = trace->tracks.at(0);
        auto at = [&](const char *name) { return findSlice(*trace, name).second.value; };
        QCOMPARE(track.duration[at("outer")], 10000);
        QCOMPARE(track.duration[at("inner")], 1000);
        QCOMPARE(track.depth[at("inner")], 1);
        QCOMPARE(track.kind[at("open")], SliceKind::Unfinished);
        QCOMPARE(trace->info.warningCount, 2u); // the unmatched E and the unfinished B
        QCOMPARE(trace->info.phaseCounts.at("B"), 3u);
        QCOMPARE(trace->info.phaseCounts.at("E"), 3u);
    }

    void flowsPairByCategoryAndId()
    {
        const auto trace = load(R"({"traceEvents": [
            {"ph": "X", "cat": "cuda_runtime", "name": "launch", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
            {"ph": "X", "cat": "kernel", "name": "kern", "pid": 0, "tid": 7, "ts": 20, "dur": 5},
            {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 20, "cat": "ac2g", "name": "ac2g", "bp": "e"},
            {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 11, "cat": "ac2g", "name": "ac2g"},
            {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 12, "cat": "other", "name": "x"},
            {"ph": "f", "id": 99, "pid": 0, "tid": 7, "ts": 22, "cat": "ac2g", "name": "ac2g", "bp": "e"},
            {"ph": "s", "id": "str", "pid": 1, "tid": 1, "ts": 13, "cat": "async", "name": "launch"},
            {"ph": "t", "id": "str", "pid": 1, "tid": 1, "ts": 14, "cat": "async", "name": "launch"},
            {"ph": "f", "id": "str", "pid": 0, "tid": 7, "ts": 21, "cat": "async", "name": "launch"}]})");
        QVERIFY(trace);
        std::size_t matched = 0, unmatchedEnds = 0, unmatchedStarts = 0;
        for (const auto &flow : trace->flows) {
            matched += flow.from.track.isValid() && flow.to.track.isValid();
            unmatchedEnds += !flow.from.track.isValid();
            unmatchedStarts += !flow.to.track.isValid();
        }
        QCOMPARE(matched, 3u); // ac2g 1, and the async chain s->t->f as two steps
        QCOMPARE(unmatchedEnds, 1u);
        QCOMPARE(unmatchedStarts, 1u);
        const auto &first = *std::find_if(trace->flows.begin(), trace->flows.end(), [&](const Flow &f) {
            return trace->string(f.category) == "ac2g" && f.id == 1;
        });
        QCOMPARE(trace->string(trace->track(first.from.track).eventName[first.from.event.value]), "launch");
        QCOMPARE(trace->string(trace->track(first.to.track).eventName[first.to.event.value]), "kern");
    }

    void globalInstantsDoNotStretchSpan()
    {
        const auto trace = load(R"({"traceEvents": [
            {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 100, "dur": 10},
            {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", "tid": "T", "ts": 1},
            {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 99999}]})");
        QVERIFY(trace);
        QCOMPARE(trace->info.spanStart, 100000);
        QCOMPARE(trace->info.spanEnd, 110000);
        QCOMPARE(trace->markers.size(), 2u);
        QCOMPARE(trace->info.trackCount, 1u);
    }

    void noMetadataAtAll()
    {
        const auto trace = load(R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1}]})");
        QVERIFY(trace);
        QCOMPARE(trace->tracks.at(0).name, std::string("Thread 0"));
        QCOMPARE(trace->processes.at(0).name, std::string("Process 0"));
    }

    void keysAroundTheArray()
    {
        // (A plain literal: moc misreads this text as a raw string.)
        const auto trace = load("{\"metadata\": {\"traceEvents\": 1, \"x\": [{\"a\": \"]}\"}]}, \"schemaVersion\": 1,"
                                "\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1}],"
                                "\"deviceProperties\": [{\"id\": 0}], \"traceName\": \"t.json\"}");
        QVERIFY(trace);
        QCOMPARE(trace->info.eventCount, 1u);
    }

    void argsAndMemory()
    {
        const auto trace = load(R"({"traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2,
             "args": {"correlation": 8218, "External id": 9, "device": 0, "stream": 7, "grid": [564, 1, 1]}},
            {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
             "args": {"Input Dims": [[2, 3],
                                     [2, 3]], "Input type": ["float", "float"]}},
            {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5,
             "args": {"Total Reserved": 2048, "Total Allocated": 1024, "Bytes": 1024, "Addr": 128184607182336,
                      "Device Id": 0, "Device Type": 1}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 6,
             "args": {"Bytes": -1024, "Device Id": 0, "Device Type": 1}},
            {"ph": "C", "name": "util", "pid": 1, "ts": 7, "args": {"gpu": 50.5}}]})");
        QVERIFY(trace);
        const auto [kernelTrack, kernel] = findSlice(*trace, "k");
        const auto *args = trace->eventArgs(kernelTrack, kernel);
        QVERIFY(args);
        QCOMPARE(args->correlation, 8218);
        QCOMPARE(args->externalId, 9);
        QCOMPARE(args->stream, 7);
        QCOMPARE(args->device, 0);
        const auto [opTrack, op] = findSlice(*trace, "aten::add");
        QCOMPARE(trace->string(trace->eventArgs(opTrack, op)->inputDims), "[[2,3],[2,3]]");
        QCOMPARE(trace->memory.size(), 2u);
        QCOMPARE(trace->memory.totalAllocated[0], 1024);
        QCOMPARE(trace->memory.totalAllocated[1], -1);
        QCOMPARE(trace->memory.address[0], 128184607182336u);
        bool sawCounter = false;
        for (const auto &series : trace->counters) {
            if (series.name == "util.gpu") {
                sawCounter = true;
                QCOMPARE(series.value, std::vector<double>{50.5});
            }
        }
        QVERIFY(sawCounter);
        // One curve each for allocated and reserved memory on the device: the second event has
        // no totals, so allocated falls back to the running sum and reserved skips it.
        const auto curve = [&](std::string_view name) -> const CounterSeries * {
            for (const auto &series : trace->counters) {
                if (series.name == name)
                    return &series;
            }
            return nullptr;
        };
        const auto *allocated = curve("Memory allocated (device 0)");
        const auto *reserved = curve("Memory reserved (device 0)");
        QVERIFY(allocated && reserved);
        QCOMPARE(allocated->value, (std::vector<double>{1024, 0}));
        QCOMPARE(reserved->value, std::vector<double>{2048});
        QCOMPARE(reserved->time, std::vector<std::int64_t>{5000});

        // The full args are re-read lazily from the file.
        const auto json = readEventJson(*trace, kernelTrack, kernel);
        QVERIFY2(json.ok(), json.ok() ? "" : json.error().message.c_str());
        QVERIFY(json.value().starts_with("{\"ph\": \"X\", \"cat\": \"kernel\""));
        QVERIFY(json.value().ends_with("}}"));
        QVERIFY(json.value().find("\"grid\": [564, 1, 1]") != std::string::npos);
    }

    void gzipAndLazyArgs()
    {
        const std::string text = R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1, "args": {"x": "y"}}])";
        QTemporaryDir dir;
        const auto path = writeFile(dir, "t.json.gz", gzipText(text));
        const auto result = loadTrace(path);
        QVERIFY(result.ok());
        const auto &trace = *result.value();
        QVERIFY(trace.gzipped);
        QCOMPARE(trace.info.jsonBytes, text.size());
        const auto json = readEventJson(trace, TrackId(0), EventIndex(0));
        QVERIFY(json.ok());
        QCOMPARE(json.value(), text.substr(1, text.size() - 2));
    }

    void largeFileCrossesChunks()
    {
        // More than one 16 MB chunk, with strings that look like event boundaries.
        std::string text = R"({"traceEvents": [)";
        std::size_t count = 0;
        while (text.size() < 40u << 20) {
            text += R"({"ph": "X", "name": "op}, {", "pid": 1, "tid": 1, "ts": )" + std::to_string(count)
                + R"(, "dur": 1, "args": {"a": [{"b": 1}, {"c": 2}]}},)";
            ++count;
        }
        text += R"({"ph": "X", "name": "last", "ts": 1, "dur": 1}]})";
        const auto trace = load(text);
        QVERIFY(trace);
        QCOMPARE(trace->info.eventCount, count + 1);
        QCOMPARE(trace->info.warningCount, 0u);
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
