// The timeline's draw-list builds alone, zoom level by zoom level, on a trace once it is
// indexed: where a frame's build time goes as the view widens.
//   [COLD=1] [ONLY=slices|counters] [LEVELS=N] drawlist_bench TRACE [REPEATS]
// For each zoom (fit-all, then halving the span down to a 4096th of it), the view is placed at
// 9 positions across the trace; each build is timed REPEATS times into lists kept from frame
// to frame, as the view keeps them (LEVELS=N: the N widest zooms only, for a profiler).
// Prints, per zoom, the events in view, the boxes, and the median and the slowest build over
// the positions (the best of the repeats for each).
#include "core/trace/loader.h"
#include "ui/timeline/drawlist.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinelayout.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <limits>
#include <vector>

using namespace pyrometer;
using namespace pyrometer::ui::timeline;
using Clock = std::chrono::steady_clock;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: drawlist_bench TRACE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    auto loaded = trace::loadTrace(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "drawlist_bench: %s\n", loaded.error().message.c_str());
        return 2;
    }
    const auto index = buildTimelineIndex(loaded.value());
    auto layout = buildLayout(*index, {});
    // ONLY=slices or ONLY=counters: the rows of that kind alone.
    if (const char *only = std::getenv("ONLY")) {
        const auto kept = std::string(only) == "counters" ? RowKind::Counter : RowKind::Slices;
        std::erase_if(layout.rows, [&](const LayoutRow &row) { return row.kind != kept && row.kind != RowKind::Process; });
    }
    constexpr int kWidth = 1800; // a 1920-pixel window less its gutter
    constexpr int kHeight = 1040;
    const double span = double(index->spanEnd - index->spanStart) * 1.02;
    // COLD=1: the caches are flushed before each build (a 256 MB write), as for a view shown
    // the first time; else the best of the repeats, a view built again.
    const bool cold = std::getenv("COLD") != nullptr;
    std::vector<char> flush(cold ? 256u << 20 : 0);
    DrawList list;
    DrawList scratch;
    double total = 0;
    std::printf("%-10s %12s %8s %10s %10s\n", "span", "events", "boxes", "median ms", "max ms");
    const int levels = std::getenv("LEVELS") ? std::clamp(std::atoi(std::getenv("LEVELS")), 1, 13) : 13;
    for (int level = 0; level < levels; ++level) {
        const double width = span / double(1 << level);
        std::vector<double> times;
        std::size_t events = 0;
        std::size_t boxes = 0;
        for (int position = 0; position < 9; ++position) {
            Viewport viewport;
            viewport.startNs = double(index->spanStart) - span * 0.01 + (span - width) * position / 8.0;
            viewport.nsPerPixel = width / kWidth;
            viewport.width = kWidth;
            viewport.height = kHeight;
            double fastest = std::numeric_limits<double>::max();
            for (int r = 0; r < repeats; ++r) {
                if (cold) // a first view: what the build reads is in no cache
                    std::fill(flush.begin(), flush.end(), char(r));
                const auto start = Clock::now();
                buildDrawList(*index, layout, viewport, ColorMode::ByCategory, list, scratch);
                fastest = std::min(fastest, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
            }
            times.push_back(fastest);
            total += fastest;
            events = std::max(events, list.eventsDrawn);
            boxes = std::max(boxes, list.boxes.size());
        }
        std::sort(times.begin(), times.end());
        std::printf("1/%-8d %12zu %8zu %10.3f %10.3f\n", 1 << level, events, boxes, times[times.size() / 2],
                    times.back());
    }
    std::printf("{\"total_ms\": %.3f}\n", total);
    return 0;
}
