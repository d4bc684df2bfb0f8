// The flame graph over a large trace once it is loaded: tree builds, the diff, the icicle and
// flame-chart layouts, and layout plus paint of the widgets at 1920x1080 (offscreen).
//   flame_bench TRACE [REPEATS]
// Tree builds print the best of REPEATS; per-frame figures print the mean and the worst of
// the frames of a fixed zoom sequence. A synthetic tree of 200k stacks stresses the icicle,
// since real traces repeat a few hundred stacks.
#include <QApplication>
#include <QImage>
#include <QPainter>

#include "core/analysis/flamechart.h"
#include "core/analysis/flamediff.h"
#include "core/analysis/flamegraph.h"
#include "core/trace/loader.h"
#include "ui/flamegraph/flamechartview.h"
#include "ui/flamegraph/flamegraphview.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

using namespace pyrometer;
using namespace pyrometer::analysis;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

template <typename F> void best(const char *name, int repeats, F work)
{
    double fastest = std::numeric_limits<double>::max();
    std::size_t size = 0;
    for (int r = 0; r < repeats; ++r) {
        const auto start = Clock::now();
        size = work();
        fastest = std::min(fastest, msSince(start));
    }
    std::printf("%-34s %9.1f ms   (%zu)\n", name, fastest, size);
    std::fflush(stdout);
}

void frames(const char *name, const std::vector<double> &ms, std::size_t boxes)
{
    double sum = 0;
    double worst = 0;
    for (const double m : ms) {
        sum += m;
        worst = std::max(worst, m);
    }
    std::printf("%-34s %9.2f ms/frame mean, %.2f worst, %zu frames   (%zu boxes last)\n", name, sum / double(ms.size()),
                worst, ms.size(), boxes);
    std::fflush(stdout);
}

// The zoom sequence: the root, then down the widest child to the leaf, then back.
std::vector<std::uint32_t> widestPath(const FlameGraph &graph)
{
    std::vector<std::uint32_t> path{0};
    while (!graph.tree.nodes[path.back()].children.empty())
        path.push_back(graph.tree.nodes[path.back()].children.front());
    return path;
}

// A call tree far larger than real ones: `count` stacks hung at random under earlier ones,
// at most 40 deep, with random self times (a fixed seed, so every run draws the same tree).
FlameTree syntheticTree(std::size_t count)
{
    FlameTree tree;
    tree.nodes.emplace_back();
    std::vector<std::uint32_t> depth{0};
    std::uint64_t state = 42;
    const auto next = [&state] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return std::uint32_t(state >> 33);
    };
    for (std::uint32_t n = 1; n <= count; ++n) {
        auto parent = std::uint32_t(next() % n);
        while (depth[parent] >= 40)
            parent = tree.nodes[parent].parent;
        FlameNode node;
        node.name = "op" + std::to_string(next() % 5000);
        node.category = "cpu_op";
        node.parent = parent;
        node.calls = 1;
        node.selfNs = 1 + next() % 100000;
        tree.nodes.push_back(std::move(node));
        tree.nodes[parent].children.push_back(n);
        depth.push_back(depth[parent] + 1);
    }
    for (auto &node : tree.nodes)
        node.totalNs = node.selfNs;
    for (std::size_t n = tree.nodes.size(); n-- > 1;)
        tree.nodes[tree.nodes[n].parent].totalNs += tree.nodes[n].totalNs;
    return tree;
}

// The icicle's layout alone through the zoom sequence, five times.
void layoutIcicleFrames(const char *name, const FlameGraph &graph)
{
    std::vector<double> times;
    std::size_t boxes = 0;
    const auto path = widestPath(graph);
    for (int pass = 0; pass < 5; ++pass) {
        for (const auto node : path) {
            IcicleViewport v;
            v.width = 1920;
            v.height = 1080;
            v.zoom = node;
            const auto t = Clock::now();
            boxes = layoutIcicle(graph, v).boxes.size();
            times.push_back(msSince(t));
        }
    }
    frames(name, times, boxes);
}

// Layout + paint of the icicle through the zoom sequence (after one untimed paint, which
// fills font caches).
void paintIcicle(const char *name, const FlameGraph &graph, QImage &image)
{
    ui::flamegraph::FlameGraphView view;
    view.resize(image.size());
    view.setGraph(std::make_shared<const FlameGraph>(graph));
    view.render(&image);
    std::vector<double> times;
    const auto path = widestPath(graph);
    for (int pass = 0; pass < 5; ++pass) {
        for (const auto node : path) {
            view.zoomTo(node);
            const auto t = Clock::now();
            view.render(&image);
            times.push_back(msSince(t));
        }
    }
    view.zoomTo(0);
    frames(name, times, view.currentLayout().boxes.size());
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: flame_bench TRACE [REPEATS]\n");
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;

    auto start = Clock::now();
    auto loaded = trace::loadTrace(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
        return 2;
    }
    const auto trace = loaded.value();
    std::printf("loaded %s: %llu slices in %.1f s\n", argv[1], static_cast<unsigned long long>(trace->sliceCount()),
                msSince(start) / 1000);
    start = Clock::now();
    const auto index = buildTraceIndex(*trace);
    std::printf("%-34s %9.1f ms\n", "trace index (once per trace)", msSince(start));

    FlameTree tree;
    best("tree: ops, per thread", repeats, [&] {
        tree = buildFlameTree(*index);
        return tree.nodes.size();
    });
    FlameOptions merged;
    merged.threadRoots = false;
    best("tree: ops, merged", repeats, [&] { return buildFlameTree(*index, merged).nodes.size(); });
    FlameOptions python;
    python.events = FlameEvents::OpsPython;
    best("tree: ops + python", repeats, [&] { return buildFlameTree(*index, python).nodes.size(); });
    FlameGraph graph;
    best("prepare graph", repeats, [&] {
        graph = prepareFlameGraph(tree);
        return graph.tree.nodes.size();
    });
    best("diff with itself + prepare", repeats, [&] { return prepareDiffGraph(diffFlameTrees(tree, tree)).tree.nodes.size(); });
    best("sandwich of the widest frame", repeats, [&] {
        const auto &name = graph.tree.nodes[widestPath(graph).back()].name;
        return buildSandwich(graph.tree, name).callers.nodes.size();
    });
    std::unique_ptr<FlameChart> chart;
    best("flame chart: ops", repeats, [&] {
        chart = std::make_unique<FlameChart>(buildFlameChart(*index, FlameEvents::Ops));
        return chart->lanes.size();
    });

    layoutIcicleFrames("icicle layout 1920x1080", graph);
    std::vector<double> times;
    std::size_t boxes = 0;
    times.clear();
    const double span = double(chart->endNs - chart->startNs);
    for (double fraction = 1; fraction > 1e-6; fraction /= 2) {
        ChartViewport v;
        v.width = 1920;
        v.height = 1080;
        v.nsPerPixel = span * fraction / 1920;
        v.startNs = double(chart->startNs) + span * (1 - fraction) / 2;
        const auto t = Clock::now();
        boxes = layoutFlameChart(*chart, v).boxes.size();
        times.push_back(msSince(t));
    }
    frames("flame chart layout 1920x1080", times, boxes);

    // Layout and paint together: each frame changes the zoom, so nothing is cached.
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    paintIcicle("icicle layout + paint 1920x1080", graph, image);

    const auto synthetic = prepareFlameGraph(syntheticTree(200000));
    layoutIcicleFrames("200k-stack tree: icicle layout", synthetic);
    paintIcicle("200k-stack tree: layout + paint", synthetic, image);

    auto source = std::make_shared<const ui::flamegraph::TraceSource>(ui::flamegraph::TraceSource{trace, index});
    ui::flamegraph::FlameChartView chartView;
    chartView.resize(1920, 1080);
    chartView.setChart(std::make_shared<const ui::flamegraph::ChartData>(
        ui::flamegraph::ChartData{source, buildFlameChart(*index, FlameEvents::Ops)}));
    chartView.render(&image);
    times.clear();
    for (double fraction = 1; fraction > 1e-6; fraction /= 2) {
        chartView.showRange(double(chart->startNs) + span * (1 - fraction) / 2,
                            double(chart->startNs) + span * (1 + fraction) / 2);
        const auto t = Clock::now();
        chartView.render(&image);
        times.push_back(msSince(t));
    }
    frames("flame chart layout + paint", times, chartView.currentLayout().boxes.size());
    return 0;
}
