// Times one way of reading a trace, in its own process so peak RSS is its own:
//   trace_bench_load pyrometer FILE [THREADS [CHUNK_KIB]]
//                                       our loader (prints events, time, MB/s of JSON, RSS,
//                                       model size, and the offset of the event furthest into
//                                       the file with whether re-reading it from there worked);
//                                       THREADS parser threads besides the caller (default: one
//                                       per core, 0: parse on the calling thread only)
//   trace_bench_load simdjson FILE      a bare simdjson On-Demand pass: read the file, iterate
//                                       traceEvents and touch every event's keys
#include "core/trace/eventjson.h"
#include "core/trace/eventreader.h"
#include "core/trace/loader.h"
#include "rss.h"

#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using pyrometer::bench::currentRssMb;
using pyrometer::bench::peakRssMb;

namespace {

// The event furthest into the file, re-read from its offset: past 4 GiB in a file that big.
std::string rereadLastEvent(const pyrometer::trace::Trace &trace)
{
    using namespace pyrometer::trace;
    TrackId lastTrack;
    EventIndex lastEvent;
    std::uint64_t offset = 0;
    for (const auto &track : trace.tracks) {
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (!lastEvent.isValid() || track.sourceOffset[i] > offset) {
                offset = track.sourceOffset[i];
                lastTrack = track.id;
                lastEvent = EventIndex(i);
            }
        }
    }
    if (!lastEvent.isValid())
        return "none";
    const auto json = readEventJson(trace, lastTrack, lastEvent);
    const bool same = json.ok() && json.value().starts_with('{')
        && json.value().find(trace.string(trace.track(lastTrack).eventName[lastEvent.value])) != std::string::npos;
    return std::to_string(offset) + (same ? ":ok" : ":FAILED");
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        std::fprintf(stderr, "usage: %s pyrometer|simdjson FILE [THREADS [CHUNK_KIB]]\n", argv[0]);
        return 2;
    }
    const std::string mode = argv[1];
    const auto started = std::chrono::steady_clock::now();
    if (mode == "simdjson") {
        simdjson::padded_string json;
        if (simdjson::padded_string::load(argv[2]).get(json)) {
            std::fprintf(stderr, "cannot read %s\n", argv[2]);
            return 2;
        }
        simdjson::ondemand::parser parser;
        simdjson::ondemand::document doc;
        std::uint64_t events = 0, keys = 0;
        if (parser.iterate(json).get(doc))
            return 2;
        simdjson::ondemand::array array;
        if (doc["traceEvents"].get_array().get(array))
            return 2;
        for (auto element : array) {
            simdjson::ondemand::object object;
            if (element.get_object().get(object))
                return 2;
            for (auto field : object) {
                if (field.error())
                    return 2;
                keys += field.key().raw()[0] != 0;
            }
            ++events;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::printf("simdjson(%s) events=%llu keys=%llu seconds=%.3f MB/s=%.0f peak_rss_MB=%.0f\n",
                    SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION), static_cast<unsigned long long>(events),
                    static_cast<unsigned long long>(keys), seconds, static_cast<double>(json.size()) / 1e6 / seconds,
                    peakRssMb());
        return 0;
    }
    pyrometer::ProgressReporter progress;
    const pyrometer::StopToken stop;
    pyrometer::trace::LoadOptions options;
    if (argc >= 4)
        options.parserThreads = std::atoi(argv[3]);
    if (argc >= 5)
        options.chunkBytes = std::strtoull(argv[4], nullptr, 10) << 10;
    const auto result = pyrometer::trace::loadTrace(argv[2], options, progress, stop);
    if (!result) {
        std::fprintf(stderr, "%s\n", result.error().message.c_str());
        return 2;
    }
    const auto &trace = *result.value();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double peak = peakRssMb();
    const double after = currentRssMb();
    std::printf("pyrometer(%s, threads=%d) events=%llu tracks=%zu seconds=%.3f build_seconds=%.3f MB/s=%.0f peak_rss_MB=%.0f rss_after_MB=%.0f "
                "model_MB=%.0f file_MB=%.0f last_event_reread=%s\n",
                pyrometer::trace::EventReader::variant(), options.parserThreads, static_cast<unsigned long long>(trace.info.eventCount),
                trace.tracks.size(), seconds, trace.info.buildSeconds, static_cast<double>(trace.info.jsonBytes) / 1e6 / seconds, peak, after,
                static_cast<double>(trace.memoryBytes()) / 1e6, static_cast<double>(trace.info.fileBytes) / 1e6,
                rereadLastEvent(trace).c_str());
    return 0;
}
