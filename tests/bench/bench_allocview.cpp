// The Snapshots page's allocations view as the user drives it: frames of AllocationTimeline (every
// allocation a band) drawn by the widget itself, colours and pixels included, at a plot of
// 1500 x 400 pixels: the whole run, a wheel zoom from there down to 1% of the run, ten pans by a
// tenth of the view, and a jump elsewhere at 1%.
//   allocview_bench SNAPSHOT [RUNS=3]
// Prints each kind of frame's median and slowest over the runs, in ms.
#include "core/snapshot/allocations.h"
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "ui/plots/allocationtimeline.h"

#include <QApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace pyrometer;

namespace {

struct Frames {
    std::map<std::string, std::vector<double>> ms;
    void add(const std::string &kind, double value) { ms[kind].push_back(value); }
};

double frameMs(ui::plots::AllocationTimeline &view, double x0, double x1)
{
    QElapsedTimer timer;
    timer.start();
    view.setVisibleRange(x0, x1);
    const QPixmap drawn = view.grab();
    const double ms = double(timer.nsecsElapsed()) / 1e6;
    return drawn.isNull() ? -1 : ms;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: allocview_bench SNAPSHOT [RUNS]\n");
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    auto loaded = snapshot::loadSnapshot(argv[1]);
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
        return 2;
    }
    std::shared_ptr<const snapshot::Snapshot> s = std::move(loaded).value();
    auto devices = std::make_shared<const std::vector<snapshot::DeviceReplay>>(snapshot::replay(*s));
    if (devices->empty())
        return 2;
    const auto device =
        std::size_t(std::max_element(devices->begin(), devices->end(),
                                     [](const auto &x, const auto &y) { return x.events.size() < y.events.size(); }) -
                    devices->begin());
    QElapsedTimer timer;
    timer.start();
    auto allocations = std::make_shared<const snapshot::Allocations>(snapshot::allocations(*s, (*devices)[device]));
    std::printf("%zu events, %zu allocations, built in %.3f s\n", (*devices)[device].events.size(),
                allocations->count(), double(timer.nsecsElapsed()) / 1e9);

    ui::plots::AllocationTimeline view;
    view.setData(s, devices, device, allocations);
    // The page gives every stack its band's colour (8 bands and "other"); these stand in.
    std::vector<QRgb> colors;
    for (std::size_t i = 0; i < s->stackCount(); ++i)
        colors.push_back(QColor::fromHsv(int(i % 9) * 40, 160, 220).rgb());
    view.setStackColors(colors);
    const QRect plot = view.plotRect();
    view.resize(view.width() - plot.width() + 1500, view.height() - plot.height() + 400);
    std::printf("plot %dx%d\n", view.plotRect().width(), view.plotRect().height());
    view.showAll();
    const double end = view.visibleRange().second;

    Frames frames;
    for (int run = 0; run < runs; ++run) {
        frames.add("all", frameMs(view, 0, end));
        // The wheel from the whole run to 1% about its middle, a notch (0.8x) at a time.
        double x0 = 0, x1 = end;
        const double at = end / 2;
        while (x1 - x0 > end / 100) {
            x0 = at - (at - x0) * 0.8;
            x1 = at + (x1 - at) * 0.8;
            frames.add("zoom", frameMs(view, x0, x1));
        }
        const double width = x1 - x0;
        for (int i = 1; i <= 10; ++i)
            frames.add("pan", frameMs(view, x0 + width * i / 10, x1 + width * i / 10));
        frames.add("jump", frameMs(view, end / 10, end / 10 + width));
    }
    for (auto &[kind, ms] : frames.ms) {
        std::sort(ms.begin(), ms.end());
        std::printf("%-5s frames: %3zu, median %.1f ms, slowest %.1f ms\n", kind.c_str(), ms.size(), ms[ms.size() / 2],
                    ms.back());
    }
    return 0;
}
