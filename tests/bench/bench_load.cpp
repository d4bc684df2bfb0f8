// Times one way of reading a trace, in its own process so peak RSS is its own:
//   trace_bench_load pyrometer FILE [THREADS [CHUNK_KIB]]
//                                       our loader (prints events, time, MB/s, RSS, model size);
//                                       THREADS parser threads besides the caller (default: one
//                                       per core, 0: parse on the calling thread only)
//   trace_bench_load simdjson FILE      a bare simdjson On-Demand pass: read the file, iterate
//                                       traceEvents and touch every event's keys
#include "core/trace/eventreader.h"
#include "core/trace/loader.h"

#include <simdjson.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace {

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double currentRssMb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0)
            return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    }
    return 0;
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
    std::printf("pyrometer(%s, threads=%d) events=%llu tracks=%zu seconds=%.3f MB/s=%.0f peak_rss_MB=%.0f rss_after_MB=%.0f "
                "model_MB=%.0f file_MB=%.0f\n",
                pyrometer::trace::EventReader::variant(), options.parserThreads, static_cast<unsigned long long>(trace.info.eventCount),
                trace.tracks.size(), seconds, static_cast<double>(trace.info.fileBytes) / 1e6 / seconds, peakRssMb(),
                currentRssMb(), static_cast<double>(trace.memoryBytes()) / 1e6,
                static_cast<double>(trace.info.fileBytes) / 1e6);
    return 0;
}
