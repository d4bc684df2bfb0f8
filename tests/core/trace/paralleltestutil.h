#pragma once

// Helpers of tst_parallel: a text dump of a whole Trace, and texts that put many kinds of
// events across chunk boundaries.
#include "core/trace/loader.h"
#include "tracetestutil.h"

#include <filesystem>
#include <sstream>
#include <vector>
#include <string>

namespace pyrometer::trace::testing {
namespace fs = std::filesystem;


inline fs::path fixture(const std::string &name)
{
    return fs::path(PYROMETER_FIXTURES_DIR) / "traces" / name;
}

// A text dump of everything the model holds, with strings by text (pools differ in order).
inline std::string dump(const Trace &t)
{
    std::ostringstream out;
    auto s = [&](StringId id) { return std::string(id.isValid() ? t.string(id) : "<none>"); };
    auto entity = [&](const EntityId &e) { return e.isText() ? "'" + s(e.text) + "'" : std::to_string(e.number); };
    const auto &info = t.info;
    out << "events " << info.eventCount << " processes " << info.processCount << " tracks " << info.trackCount
        << " span " << info.spanStart << ".." << info.spanEnd << " partial " << info.partial << " warnings "
        << info.warningCount << "\n";
    for (const auto &[ph, count] : info.phaseCounts)
        out << "ph '" << ph << "' " << count << "\n";
    for (const auto &warning : info.warnings)
        out << "warning " << warning << "\n";
    for (const auto &p : t.processes) {
        out << "process " << p.id.value << " " << entity(p.pid) << " '" << p.name << "' '" << p.label << "' "
            << p.sortIndex << " tracks";
        for (const auto track : p.tracks)
            out << " " << track.value;
        out << "\n";
    }
    for (const auto &track : t.tracks) {
        out << "track " << track.id.value << " process " << track.process.value << " " << entity(track.tid) << " '"
            << track.name << "' " << track.sortIndex << " lanes " << track.laneCount << "\n";
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            out << " " << track.start[i] << "+" << track.duration[i] << " " << s(track.eventName[i]) << " "
                << s(track.category[i]) << " k" << int(track.kind[i]) << " l" << track.lane[i] << " d"
                << track.depth[i] << " p" << track.parent[i].value << " @" << track.sourceOffset[i];
            if (const auto *args = t.eventArgs(track.id, EventIndex(i)))
                out << " args " << args->correlation << " " << args->externalId << " " << args->device << " "
                    << args->stream << " " << s(args->inputDims) << " " << s(args->inputTypes);
            out << "\n";
        }
    }
    for (const auto &c : t.counters) {
        out << "counter " << c.process.value << " '" << c.name << "'";
        for (std::size_t i = 0; i < c.time.size(); ++i)
            out << " " << c.time[i] << "=" << c.value[i];
        out << "\n";
    }
    const auto &m = t.memory;
    for (std::size_t i = 0; i < m.size(); ++i)
        out << "memory " << m.time[i] << " " << m.track[i].value << " " << m.bytes[i] << " " << m.totalAllocated[i]
            << " " << m.totalReserved[i] << " " << m.address[i] << " " << m.deviceType[i] << " " << m.deviceId[i]
            << "\n";
    for (const auto &f : t.flows)
        out << "flow " << s(f.category) << " " << s(f.name) << " " << f.id << " " << f.from.track.value << ":"
            << f.from.time << ":" << f.from.event.value << " " << f.to.track.value << ":" << f.to.time << ":"
            << f.to.event.value << "\n";
    for (const auto &marker : t.markers)
        out << "marker " << marker.time << " " << s(marker.name) << " " << marker.process.value << "\n";
    return out.str();
}

inline std::string loadDump(const fs::path &path, int threads, std::size_t chunk, bool partial = false)
{
    LoadOptions options;
    options.partial = partial;
    options.parserThreads = threads;
    options.chunkBytes = chunk;
    const auto result = loadTrace(path, options);
    if (!result.ok())
        return "error " + result.error().message;
    return dump(*result.value());
}

// Events of every kind, with B/E pairs that span many chunks and E events without a B.
// events: iterations of the mix (each some 4 events); 12,000 make tracks long enough for the
// loader to reserve their columns ahead (TraceBuilder::expectRest).
inline std::string mixedText(bool minified, int events = 300)
{
    const std::string sp = minified ? "" : " ";
    const std::string nl = minified ? "" : "\n  ";
    std::string text = "{\"traceEvents\":" + sp + "[" + nl;
    auto add = [&](const std::string &event) { text += event + "," + nl; };
    add(R"({"ph":"E","pid":1,"tid":1,"ts":1})"); // no B at all: a warning
    for (int i = 0; i < events; ++i) {
        const auto ts = std::to_string(1000 + i * 100);
        if (i % 50 == 0)
            add(R"({"ph":"B","name":"outer)" + std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" + ts + "}");
        add(R"({"ph":"X","cat":"cpu_op","name":"op)" + std::to_string(i % 7) + R"(","pid":1,"tid":)"
            + std::to_string(1 + i % 3) + R"(,"ts":)" + ts + R"(.5,"dur":40,"args":{"External id":)"
            + std::to_string(i) + R"(,"Input Dims":[[1,)" + std::to_string(i % 5) + R"(],[]],"Input type":["float",""]}})");
        add(R"({"ph":"X","cat":"kernel","name":"k)" + std::to_string(i % 4) + R"(","pid":0,"tid":"stream )"
            + std::to_string(7 + i % 2) + R"(","ts":)" + ts + R"(,"dur":)" + std::to_string(150 + i % 3)
            + R"(,"args":{"correlation":)" + std::to_string(i) + R"(,"device":0,"stream":7}})");
        if (i % 10 == 5) { // flows with text ids, which are interned
            add(R"({"ph":"s","cat":"fwdbwd","name":"fb","id":"x)" + std::to_string(i % 20) + R"(","pid":1,"tid":2,"ts":)" + ts + "}");
            add(R"({"ph":"f","cat":"fwdbwd","name":"fb","id":"x)" + std::to_string(i % 20) + R"(","pid":1,"tid":3,"ts":)" + ts + ".2}");
        }
        if (i % 10 == 0) {
            add(R"({"ph":"s","cat":"ac2g","name":"f","id":)" + std::to_string(i) + R"(,"pid":1,"tid":1,"ts":)" + ts + "}");
            add(R"({"ph":"f","cat":"ac2g","name":"f","id":)" + std::to_string(i) + R"(,"pid":0,"tid":"stream 7","ts":)"
                + ts + R"(,"bp":"e"})");
            add(R"({"ph":"C","name":"load","pid":1,"ts":)" + ts + R"(,"args":{"a":)" + std::to_string(i)
                + R"(,"b":1.5}})");
            add(R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":)" + ts
                + R"(,"args":{"Device Type":0,"Device Id":-1,"Bytes":)" + std::to_string(i * 8)
                + R"(,"Total Allocated":)" + std::to_string(i * 16) + R"(,"Addr":12345}})");
        }
        if (i % 50 == 49)
            add(R"({"ph":"E","pid":1,"tid":1,"ts":)" + std::to_string(1000 + i * 100 + 90) + "}");
        if (i % 100 == 5)
            add(R"({"ph":"X","name":"bad","pid":1,"tid":1,"ts":"not a number","dur":1})"); // skipped: a warning
        if (i == 150)
            add(R"({"ph":"i","s":"g","name":"Record Window End","pid":"","tid":"","ts":9})");
    }
    add(R"({"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU 0"}})");
    add(R"({"ph":"M","name":"process_sort_index","pid":0,"args":{"sort_index":5}})");
    add(R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"worker"}})");
    text += R"({"ph":"M","name":"process_labels","pid":0,"args":{"labels":"GPU 0"}})" + nl + "]," + sp
        + "\"displayTimeUnit\":" + sp + "\"ms\"}";
    return text;
}

// Strings and args that look like event boundaries to the guess: the loader must cut exactly.
inline std::string trickyText()
{
    std::string text = R"({"traceEvents": [)";
    for (int i = 0; i < 200; ++i)
        text += R"({"ph": "X", "name": "op}, {", "pid": 1, "tid": 1, "ts": )" + std::to_string(i)
            + R"(, "dur": 1, "args": {"a": [{"b": 1}, {"c": 2}], "s": "x}]\"}, "}},)" + "\n";
    text += R"({"ph": "X", "name": "last", "ts": 1, "dur": 1}]})";
    return text;
}


} // namespace pyrometer::trace::testing
