// Reading a CUDA allocator snapshot: wall time, MB/s and peak RSS of loadSnapshot and of the
// replay that finds the peak, for run_snapshot_bench.sh to set against Python's pickle.load; then
// the allocations view: building its bands, and frames of 1500 x 400 pixels at every zoom (what
// AllocationTimeline draws), against liveAt of one instant (what one frame cost before).
//   snapshot_bench SNAPSHOT
#include "core/snapshot/allocations.h"
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "tests/bench/rss.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

using namespace pyrometer;

namespace {

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// One frame of positions [from, to) over `columns` columns: each column's highest position, its
// bands over `rows` rows. Returns the bands drawn, so that nothing is optimised away.
std::size_t frame(snapshot::AllocationStack &stack, const snapshot::DeviceReplay &d, std::int64_t from, std::int64_t to,
                  int columns, int rows, double bytesPerPixel)
{
    std::size_t bands = 0;
    for (int c = 0; c < columns; ++c) {
        const std::int64_t first = from + (to - from) * c / columns;
        const std::int64_t last = std::max(first, from + (to - from) * (c + 1) / columns - 1);
        std::int64_t chosen = first;
        for (std::int64_t p = first; p <= last; ++p)
            chosen = d.active[std::size_t(p)] > d.active[std::size_t(chosen)] ? p : chosen;
        stack.moveTo(chosen);
        stack.forEachBand(rows, bytesPerPixel, [&](int, int, std::uint32_t) { ++bands; });
    }
    return bands;
}

void viewBench(const snapshot::Snapshot &s, const snapshot::DeviceReplay &d)
{
    const auto n = std::int64_t(d.events.size());
    if (n < 100)
        return;
    auto t = std::chrono::steady_clock::now();
    const auto a = snapshot::allocations(s, d);
    const double build = seconds(t);
    std::printf("allocations view: %zu allocations, built in %.3f s, checkpoint every %lld events, peak RSS %.0f MiB\n",
                a.count(), build, static_cast<long long>(a.checkpointStride), bench::peakRssMb());
    snapshot::AllocationStack stack(a);
    constexpr int kColumns = 1500, kRows = 400;
    const double bytesPerPixel = double(d.peakActive) * 1.08 / kRows;
    t = std::chrono::steady_clock::now();
    auto bands = frame(stack, d, 0, n, kColumns, kRows, bytesPerPixel);
    const double all = seconds(t);
    // Zoomed to 1% in the middle, then panned right ten times by a tenth of the view.
    const std::int64_t width = std::max<std::int64_t>(kColumns, n / 100);
    t = std::chrono::steady_clock::now();
    bands += frame(stack, d, n / 2, n / 2 + width, kColumns, kRows, bytesPerPixel);
    const double zoomed = seconds(t);
    t = std::chrono::steady_clock::now();
    for (int i = 1; i <= 10; ++i)
        bands +=
            frame(stack, d, n / 2 + width * i / 10, n / 2 + width + width * i / 10, kColumns, kRows, bytesPerPixel);
    const double pan = seconds(t) / 10;
    // Back to the start at 1%: from a checkpoint, not replayed from the first event.
    t = std::chrono::steady_clock::now();
    bands += frame(stack, d, n / 10, n / 10 + width, kColumns, kRows, bytesPerPixel);
    const double back = seconds(t);
    t = std::chrono::steady_clock::now();
    const auto live = snapshot::liveAt(s, d, n / 2);
    const double one = seconds(t);
    std::printf("frame %dx%d: all %.1f ms, 1%% zoom %.1f ms, pan %.1f ms, jump back %.1f ms (%zu bands drawn)\n",
                kColumns, kRows, all * 1e3, zoomed * 1e3, pan * 1e3, back * 1e3, bands);
    std::printf("liveAt of one instant (%zu blocks): %.1f ms; a panned frame is %.2fx that\n", live.size(), one * 1e3,
                pan / one);
}

} // namespace

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
    if (!devices.empty())
        viewBench(s, *std::max_element(devices.begin(), devices.end(),
                                       [](const auto &x, const auto &y) { return x.events.size() < y.events.size(); }));
    return 0;
}
