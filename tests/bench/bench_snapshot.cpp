// Reading a CUDA allocator snapshot: wall time, MB/s and peak RSS of loadSnapshot and of the
// replay that finds the peak, for run_snapshot_bench.sh to set against Python's pickle.load.
//   snapshot_bench SNAPSHOT
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "tests/bench/rss.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

using namespace pyrometer;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: snapshot_bench SNAPSHOT\n");
        return 2;
    }
    const std::filesystem::path file = argv[1];
    const double mb = double(std::filesystem::file_size(file)) / 1e6;
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = snapshot::loadSnapshot(file);
    const auto t1 = std::chrono::steady_clock::now();
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
        return 2;
    }
    const auto &s = *loaded.value();
    const double loadRss = bench::peakRssMb();
    const auto devices = snapshot::replay(s);
    const auto t2 = std::chrono::steady_clock::now();
    const double load = std::chrono::duration<double>(t1 - t0).count();
    const double peak = std::chrono::duration<double>(t2 - t1).count();
    std::printf("file %.1f MB, %zu events, %zu segments, %zu frames, %zu stacks\n", mb, s.events.count(),
                s.segments.size(), s.frames.size(), s.stackCount());
    std::printf("load %.3f s (%.0f MB/s), peak RSS after load %.0f MiB (%.2f of the file)\n", load, mb / load, loadRss,
                loadRss * 1.048576 / mb);
    std::printf("replay %.3f s, peak active %lld bytes, peak RSS %.0f MiB\n", peak,
                devices.empty() ? 0LL : static_cast<long long>(devices[0].peakActive), bench::peakRssMb());
    return 0;
}
