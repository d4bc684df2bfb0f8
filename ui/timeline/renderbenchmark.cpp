#include "ui/timeline/renderbenchmark.h"

#include "core/trace/loader.h"
#include "ui/timeline/timelineview.h"

#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <sys/resource.h>

#include <algorithm>
#include <string>
#include <vector>

namespace pyrometer::ui::timeline {

int runRenderBenchmark(const QString &tracePath, std::FILE *out)
{
    QElapsedTimer clock;
    clock.start();
    auto loaded = trace::loadTrace(tracePath.toStdString());
    if (!loaded.ok()) {
        std::fprintf(stderr, "pyrometer: %s\n", loaded.error().message.c_str());
        return 2;
    }
    const auto trace = loaded.value();
    const double loadMs = double(clock.nsecsElapsed()) / 1e6;
    clock.restart();
    const auto index = buildTimelineIndex(trace);
    const double indexMs = double(clock.nsecsElapsed()) / 1e6;

    TimelineView view;
    view.resize(1920, 1080);
    view.setIndex(index);
    QImage frame(view.size(), QImage::Format_ARGB32_Premultiplied);

    std::vector<double> frameMs;
    std::vector<double> buildMs; // of each frame: the change of view, which rebuilds the draw list
    std::vector<long> faults;    // of each frame: page faults, a cost that is no work of the frame's
    const auto pageFaults = [] {
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        return usage.ru_minflt + usage.ru_majflt;
    };
    double warmupMs = 0;
    // A frame repaints what a change of view repaints: all but the scroll bar.
    const auto render = [&](auto &&step) {
        QElapsedTimer timer;
        const auto faultsBefore = pageFaults();
        timer.start();
        step(); // changes the viewport, which rebuilds the draw list
        buildMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        QPainter painter(&frame);
        view.render(&painter, {}, view.frameRegion());
        painter.end();
        frameMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        faults.push_back(pageFaults() - faultsBefore);
    };
    const double middle = view.rowsRect().width() / 2.0;
    // One untimed frame first: the first paint of a process loads fonts and fills glyph
    // caches, a one-off start-up cost, not a cost of the frame.
    {
        QElapsedTimer timer;
        timer.start();
        QPainter painter(&frame);
        view.render(&painter);
        warmupMs = double(timer.nsecsElapsed()) / 1e6;
    }
    render([&] { view.fitAll(); });
    for (int i = 0; i < 10; ++i)
        render([&] { view.zoomBy(0.5, middle); });
    for (int i = 0; i < 10; ++i)
        render([&] { view.panByPixels(view.viewport().width * 0.2); });
    for (int i = 0; i < 10; ++i)
        render([&] { view.zoomBy(2.0, middle); });

    // Where a fit-all frame goes: building its draw list, against painting it (medians of
    // five, to see through a busy machine).
    view.fitAll();
    const auto medianOfFive = [](auto &&work) {
        std::vector<double> times;
        for (int i = 0; i < 5; ++i) {
            QElapsedTimer timer;
            timer.start();
            work();
            times.push_back(double(timer.nsecsElapsed()) / 1e6);
        }
        std::sort(times.begin(), times.end());
        return times[2];
    };
    DrawList list;
    const double fitBuildMs = medianOfFive([&] { list = buildDrawList(*index, view.layout(), view.viewport(), view.colorMode()); });
    const double paintMs = medianOfFive([&] {
        QPainter painter(&frame);
        view.render(&painter, {}, view.frameRegion()); // the draw list is already built: painting only
    });
    std::fprintf(out, "fit-all draw list: %zu boxes (%zu fills) for %zu events, built in %.2f ms, painted in %.2f ms\n",
                 list.boxes.size(), joinedFills(list.boxes).size(), list.eventsDrawn, fitBuildMs, paintMs);
    // Each frame as build+paint, so that a slow frame says which part made it slow.
    std::fprintf(out, "frames (ms, build+paint, page faults):");
    for (std::size_t i = 0; i < frameMs.size(); ++i)
        std::fprintf(out, " %.1f+%.1f/%ld", buildMs[i], frameMs[i] - buildMs[i], faults[i]);
    std::fprintf(out, "\n");

    std::vector<double> sorted = frameMs;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::fprintf(out, "load %.1f ms, timeline index %.1f ms, %zu rows, untimed first paint %.1f ms, fit-all frame %.2f ms\n",
                 loadMs, indexMs, index->rows.size(), warmupMs, frameMs.front());
    // The index's own arrays, per event it holds (slices: what the rows are made of).
    std::size_t slices = 0;
    for (const auto &row : index->rows)
        slices += row.size();
    const double bytesPerEvent = double(index->memoryBytes()) / double(std::max<std::size_t>(slices, 1));
    std::fprintf(out, "timeline index: %.1f MB for %zu slices, %.2f bytes per event\n", double(index->memoryBytes()) / 1e6, slices,
                 bytesPerEvent);
    // Each frame too, in order, so that a script can take each frame's median over runs: one
    // run's slowest frame on a shared machine is often another process's time slice.
    std::string frames;
    for (const double ms : frameMs)
        frames += (frames.empty() ? "" : ", ") + std::to_string(ms);
    std::fprintf(out,
                 "{\"events\": %llu, \"frames\": %zu, \"median_ms\": %.3f, \"max_ms\": %.3f, \"index_bytes_per_event\": %.2f, "
                 "\"frames_ms\": [%s]}\n",
                 static_cast<unsigned long long>(trace->info.eventCount), frameMs.size(), median, sorted.back(), bytesPerEvent,
                 frames.c_str());
    return 0;
}

} // namespace pyrometer::ui::timeline
