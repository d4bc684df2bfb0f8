// The flame graph's pure parts: icicle layout, zoom, merging, search share, sandwich, diff,
// and the time-ordered chart's layout. Trees are written as folded stacks ("a;b;c SELF").
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/flamechart.h"
#include "core/analysis/flamediff.h"
#include "core/analysis/flamegraph.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <map>
#include <numeric>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

// "a;b 10\na;c 5": one line per stack with its self time (ns) and one call per line.
FlameTree treeOf(const std::string &folded)
{
    FlameTree tree;
    tree.nodes.emplace_back();
    std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> byName;
    std::istringstream in(folded);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        const auto space = line.rfind(' ');
        const auto self = std::stoll(line.substr(space + 1));
        std::istringstream frames(line.substr(0, space));
        std::string frame;
        std::uint32_t at = 0;
        while (std::getline(frames, frame, ';')) {
            const auto [it, added] = byName.try_emplace({at, frame}, std::uint32_t(tree.nodes.size()));
            if (added) {
                FlameNode node;
                node.name = frame;
                node.parent = at;
                tree.nodes.push_back(node);
                tree.nodes[at].children.push_back(it->second);
            }
            at = it->second;
        }
        tree.nodes[at].selfNs += self;
        tree.nodes[at].calls += 1;
    }
    for (auto &node : tree.nodes)
        node.totalNs = node.selfNs;
    for (std::size_t n = tree.nodes.size(); n-- > 1;)
        tree.nodes[tree.nodes[n].parent].totalNs += tree.nodes[n].totalNs;
    return tree;
}

// The node at a path of names from the root, in a tree's or a diff's nodes; -1 when absent.
template <typename Nodes> std::uint32_t nodeAt(const Nodes &nodes, const std::string &path)
{
    std::uint32_t at = 0;
    std::istringstream frames(path);
    std::string frame;
    while (std::getline(frames, frame, ';')) {
        const auto &children = nodes[at].children;
        const auto it = std::find_if(children.begin(), children.end(), [&](auto c) { return nodes[c].name == frame; });
        if (it == children.end())
            return std::uint32_t(-1);
        at = *it;
    }
    return at;
}

std::uint32_t nodeAt(const FlameTree &tree, const std::string &path)
{
    return nodeAt(tree.nodes, path);
}

const FlameBox *boxOf(const IcicleLayout &layout, std::uint32_t node)
{
    for (const auto &box : layout.boxes) {
        if (box.node == node && box.merged == 0)
            return &box;
    }
    return nullptr;
}

IcicleViewport viewOf(int width, std::uint32_t zoom = 0)
{
    IcicleViewport v;
    v.width = width;
    v.rowHeight = 20;
    v.zoom = zoom;
    return v;
}

} // namespace

class TestFlameGraph : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void widthsFollowTotals()
    {
        const auto graph = prepareFlameGraph(treeOf("A;B 40\nA;C 20\nD 40"));
        const auto layout = layoutIcicle(graph, viewOf(1000));
        const auto &tree = graph.tree;
        const auto check = [&](const std::string &path, int x, int width, int row) {
            const auto *box = boxOf(layout, nodeAt(tree, path));
            QVERIFY2(box, path.c_str());
            QCOMPARE(box->x, x);
            QCOMPARE(box->width, width);
            QCOMPARE(box->y, row * 20);
        };
        check("", 0, 1000, 0);
        check("A", 0, 600, 1);
        check("D", 600, 400, 1);
        check("A;B", 0, 400, 2);
        check("A;C", 400, 200, 2);
        QCOMPARE(layout.boxes.size(), std::size_t(5));
        QCOMPARE(layout.contentHeight, 3 * 20);
        QCOMPARE(graph.height[0], 3u);
        // Widest first: D (40) after A (60), B before C.
        QCOMPARE(tree.nodes[tree.nodes[0].children[0]].name, std::string("A"));
    }

    void zoomSpansTheWidth()
    {
        const auto graph = prepareFlameGraph(treeOf("A;B 40\nA;C 20\nD 40"));
        const auto a = nodeAt(graph.tree, "A");
        const auto layout = layoutIcicle(graph, viewOf(900, a));
        const auto *zoomed = boxOf(layout, a);
        QVERIFY(zoomed);
        QCOMPARE(zoomed->x, 0);
        QCOMPARE(zoomed->width, 900);
        QCOMPARE(zoomed->y, 0);
        QCOMPARE(boxOf(layout, nodeAt(graph.tree, "A;B"))->width, 600);
        QCOMPARE(boxOf(layout, nodeAt(graph.tree, "A;C"))->x, 600);
        QVERIFY(!boxOf(layout, nodeAt(graph.tree, "D")));
        QVERIFY(!boxOf(layout, 0));
        // The breadcrumb: the root, then each ancestor, then the frame.
        const auto path = flamePath(graph.tree, nodeAt(graph.tree, "A;C"));
        QCOMPARE(path, (std::vector<std::uint32_t>{0, a, nodeAt(graph.tree, "A;C")}));
        QCOMPARE(std::string(graph.label(path[0])), std::string("all"));
    }

    void invertedGrowsUpwards()
    {
        const auto graph = prepareFlameGraph(treeOf("A;B 40\nD 40"));
        auto view = viewOf(100);
        view.inverted = true;
        const auto layout = layoutIcicle(graph, view);
        QCOMPARE(boxOf(layout, 0)->y, 2 * 20);
        QCOMPARE(boxOf(layout, nodeAt(graph.tree, "A;B"))->y, 0);
    }

    void subPixelFramesAreMerged()
    {
        // 900 ns in one frame and 200 siblings of 1 ns (each with a child), at 2 ns a pixel.
        std::string folded = "big 900\n";
        for (int i = 0; i < 200; ++i)
            folded += "small" + std::to_string(i) + ";leaf 1\n";
        const auto graph = prepareFlameGraph(treeOf(folded));
        const auto layout = layoutIcicle(graph, viewOf(550));
        QCOMPARE(layout.boxes.size(), std::size_t(3)); // root, big, one box for the rest
        const auto found = std::find_if(layout.boxes.begin(), layout.boxes.end(), [](const auto &b) { return b.merged > 0; });
        QVERIFY(found != layout.boxes.end());
        const auto &merged = *found;
        QCOMPARE(merged.merged, 200u);
        QCOMPARE(merged.x, 450);
        QCOMPARE(merged.width, 100);
        QCOMPARE(merged.y, 20);
        // Zoomed in enough, they are frames again, with their children.
        const auto wide = layoutIcicle(graph, viewOf(2200));
        QCOMPARE(wide.boxes.size(), std::size_t(2 + 200 * 2));

        // Frames that together do not make a pixel are skipped.
        std::string tiny = "big 100000\n";
        for (int i = 0; i < 10; ++i)
            tiny += "t" + std::to_string(i) + " 1\n";
        const auto few = layoutIcicle(prepareFlameGraph(treeOf(tiny)), viewOf(1000));
        QCOMPARE(few.boxes.size(), std::size_t(2));
    }

    void boxesStayFewAtAnyZoom()
    {
        // 100k leaves under one frame: a fixed number of boxes, not one per leaf.
        std::string folded;
        for (int i = 0; i < 100000; ++i)
            folded += "parent;leaf" + std::to_string(i) + " 10\n";
        const auto graph = prepareFlameGraph(treeOf(folded));
        const auto layout = layoutIcicle(graph, viewOf(1920));
        QCOMPARE(layout.boxes.size(), std::size_t(3));
        QCOMPARE(layout.boxes.back().merged, 100000u);
    }

    void hitTestFindsTheDeepestBox()
    {
        const auto graph = prepareFlameGraph(treeOf("A;B 40\nA;C 20\nD 40"));
        const auto layout = layoutIcicle(graph, viewOf(1000));
        const int hit = hitBox(layout.boxes, 450, 45);
        QVERIFY(hit >= 0);
        QCOMPARE(layout.boxes[std::size_t(hit)].node, nodeAt(graph.tree, "A;C"));
        QCOMPARE(hitBox(layout.boxes, 700, 45), -1); // below D, which has no children
    }

    void searchShareCountsNestedMatchesOnce()
    {
        const auto tree = treeOf("a;b;a 10\na;c 5\nd 5\nx;Alpha 4");
        const auto search = searchFlame(tree, "A");
        // a, a;b;a and x;Alpha match; a;b;a lies inside a, so it adds nothing to the share.
        QCOMPARE(search.frames, std::size_t(3));
        QCOMPARE(search.matchedNs, std::int64_t(15 + 4));
        QCOMPARE(search.share, 19.0 / 24.0);
        QVERIFY(search.matched[nodeAt(tree, "a;b;a")]);
        QVERIFY(!search.matched[nodeAt(tree, "a;b")]);
        QVERIFY(search.matched[nodeAt(tree, "x;Alpha")]);
        QCOMPARE(searchFlame(tree, "zzz").frames, std::size_t(0));
        QCOMPARE(searchFlame(tree, "").share, 0.0);
    }

    void sandwichMergesCallersAndCallees()
    {
        const auto tree = treeOf("main;f;g 10\nmain;h;f;g 5\nmain;h;f 3\nmain;f;f;k 2\nmain;z 7");
        const auto s = buildSandwich(tree, "f");
        QCOMPARE(s.stacks, std::size_t(2)); // main;f and main;h;f; the recursive f is inside
        // Callees: the function's inclusive time, once.
        const auto &callees = s.callees;
        QCOMPARE(callees.nodes[0].name, std::string("f"));
        QCOMPARE(callees.nodes[0].totalNs, std::int64_t(20));
        QCOMPARE(callees.nodes[0].selfNs, std::int64_t(3));
        QCOMPARE(callees.nodes[nodeAt(callees, "g")].totalNs, std::int64_t(15));
        QCOMPARE(callees.nodes[nodeAt(callees, "f;k")].totalNs, std::int64_t(2));
        // Callers: through main directly (12) and through h (8), which main calls.
        const auto &callers = s.callers;
        QCOMPARE(callers.nodes[0].totalNs, std::int64_t(20));
        QCOMPARE(callers.nodes[nodeAt(callers, "main")].totalNs, std::int64_t(12));
        QCOMPARE(callers.nodes[nodeAt(callers, "h")].totalNs, std::int64_t(8));
        QCOMPARE(callers.nodes[nodeAt(callers, "h;main")].totalNs, std::int64_t(8));
        QCOMPARE(callers.nodes[0].selfNs, std::int64_t(0));
        // Each side is a consistent tree: totals are self plus the children's.
        for (const auto *side : {&callers, &callees}) {
            for (const auto &node : side->nodes) {
                std::int64_t children = 0;
                for (const auto c : node.children)
                    children += side->nodes[c].totalNs;
                QCOMPARE(node.totalNs, node.selfNs + children);
            }
        }
        QCOMPARE(buildSandwich(tree, "nothing").callees.nodes[0].totalNs, std::int64_t(0));
    }

    void stepsMergeIntoOne()
    {
        const auto tree = treeOf("ProfilerStep#1;a 10\nProfilerStep#2;a 5\nProfilerStep#2;b 3\nx 1");
        const auto merged = mergeProfilerSteps(tree);
        QCOMPARE(merged.nodes.size(), std::size_t(5));
        QCOMPARE(merged.nodes[0].totalNs, tree.nodes[0].totalNs);
        const auto step = nodeAt(merged, "ProfilerStep#*");
        QVERIFY(step != std::uint32_t(-1));
        QCOMPARE(merged.nodes[step].totalNs, std::int64_t(18));
        QCOMPARE(merged.nodes[nodeAt(merged, "ProfilerStep#*;a")].totalNs, std::int64_t(15));
        QCOMPARE(merged.nodes[nodeAt(merged, "ProfilerStep#*;a")].calls, std::uint64_t(2));
        QCOMPARE(merged.nodes[nodeAt(merged, "ProfilerStep#*;b")].totalNs, std::int64_t(3));
        QCOMPARE(merged.nodes[nodeAt(merged, "x")].totalNs, std::int64_t(1));
        QCOMPARE(std::string(stepMatchName("ProfilerStep#12")), std::string("ProfilerStep#*"));
        QCOMPARE(std::string(stepMatchName("aten::mm")), std::string("aten::mm"));
    }

    void diffMergesByPath()
    {
        const auto base = treeOf("a;b 10\na;c 10\ne 4");
        const auto other = treeOf("a;b 20\na;d 5\ne 4");
        const auto diff = diffFlameTrees(base, other);
        const auto find = [&](const std::string &path) { return &diff.nodes.at(nodeAt(diff.nodes, path)); };
        QCOMPARE(diff.nodes[0].base.totalNs, std::int64_t(24));
        QCOMPARE(diff.nodes[0].other.totalNs, std::int64_t(29));
        QCOMPARE(find("a")->base.totalNs, std::int64_t(20));
        QCOMPARE(find("a")->other.totalNs, std::int64_t(25));
        QCOMPARE(find("a;b")->deltaNs(), std::int64_t(10));
        QCOMPARE(find("a;c")->presence, Presence::BaseOnly);
        QCOMPARE(find("a;c")->other.totalNs, std::int64_t(0));
        QCOMPARE(find("a;d")->presence, Presence::OtherOnly);
        QCOMPARE(find("a;d")->base.totalNs, std::int64_t(0));
        QCOMPARE(find("e")->presence, Presence::Both);
        QCOMPARE(diff.nodes.size(), std::size_t(6));

        // Steps match whatever their number, and the steps of one run add up.
        const auto steps = diffFlameTrees(treeOf("ProfilerStep#3;a 10"), treeOf("ProfilerStep#8;a 15\nProfilerStep#9;a 5"));
        QCOMPARE(steps.nodes.size(), std::size_t(3));
        QCOMPARE(steps.nodes[1].name, std::string("ProfilerStep#*"));
        QCOMPARE(steps.nodes[2].base.totalNs, std::int64_t(10));
        QCOMPARE(steps.nodes[2].other.totalNs, std::int64_t(20));
        QCOMPARE(steps.nodes[2].other.calls, std::uint64_t(2));
        QCOMPARE(steps.nodes[2].presence, Presence::Both);

        // Colour direction and size: slower is positive, faster negative, unchanged and
        // one-sided are neutral; a larger relative change is deeper.
        QCOMPARE(diffHeat(10, 20), 1.0);
        QCOMPARE(diffHeat(20, 10), -1.0);
        QCOMPARE(diffHeat(4, 4), 0.0);
        QCOMPARE(diffHeat(0, 5), 0.0);
        QCOMPARE(diffHeat(5, 0), 0.0);
        QVERIFY(diffHeat(100, 110) > 0 && diffHeat(100, 110) < diffHeat(100, 150));
        QVERIFY(diffHeat(100, 90) < 0 && diffHeat(100, 90) > diffHeat(100, 60));

        // The graph to draw: the other run's widths, the base run's values alongside.
        const auto graph = prepareDiffGraph(diff);
        QVERIFY(graph.isDiff());
        const auto b = nodeAt(graph.tree, "a;b");
        QCOMPARE(graph.tree.nodes[b].totalNs, std::int64_t(20));
        QCOMPARE(graph.base[b].totalNs, std::int64_t(10));
        const auto layout = layoutIcicle(graph, viewOf(2900));
        QCOMPARE(boxOf(layout, b)->width, 2000);
        QVERIFY(!boxOf(layout, nodeAt(graph.tree, "a;c"))); // no time in the other run
    }

    void realTracesAgree()
    {
        // The chart and the tree count the same operator time; Python frames add nodes.
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto tree = buildFlameTree(*loaded.index);
        const auto chart = buildFlameChart(*loaded.index, FlameEvents::Ops);
        QCOMPARE(chart.totalNs, tree.nodes[0].totalNs);
        QVERIFY(!chart.threads.empty());
        FlameOptions python;
        python.events = FlameEvents::OpsPython;
        const auto withPython = buildFlameTree(*loaded.index, python);
        QVERIFY(withPython.nodes.size() > tree.nodes.size());
        QCOMPARE(buildFlameChart(*loaded.index, FlameEvents::OpsPython).totalNs, withPython.nodes[0].totalNs);
        // Every node of a real tree has a category, except the root and the thread frames.
        for (std::size_t n = 1; n < tree.nodes.size(); ++n)
            QCOMPARE(tree.nodes[n].category.empty(), tree.nodes[n].calls == 0);
    }

    void chartLayout()
    {
        // outer 0..900 µs holding inner 100..300 µs; then 1000 slices of 10 ns every 100 ns.
        QTemporaryDir dir;
        const auto path = (dir.path() + "/t.json").toStdString();
        {
            std::ofstream out(path);
            out << R"({"traceEvents":[)";
            out << R"({"ph":"X","name":"outer","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":900},)";
            out << R"({"ph":"X","name":"inner","cat":"cpu_op","pid":1,"tid":1,"ts":100,"dur":200})";
            for (int i = 0; i < 1000; ++i)
                out << R"(,{"ph":"X","name":"tiny","cat":"cpu_op","pid":1,"tid":1,"ts":)" << 2000 + i * 0.1 << R"(,"dur":0.01})";
            out << "]}";
        }
        const auto loaded = trace::loadTrace(path);
        QVERIFY(loaded.ok());
        const auto index = buildTraceIndex(*loaded.value());
        const auto chart = buildFlameChart(*index, FlameEvents::Ops);
        QCOMPARE(chart.threads.size(), std::size_t(1));
        QCOMPARE(chart.threads[0].laneCount, 2u);
        QCOMPARE(chart.lanes[0].events.size(), std::size_t(1001));
        QCOMPARE(chart.lanes[1].events.size(), std::size_t(1));
        QCOMPARE(chart.lanes[0].selfNs[0], std::int64_t(700'000));
        QCOMPARE(chart.totalNs, std::int64_t(900'000 + 1000 * 10));

        const auto origin = double(loaded.value()->info.spanStart);
        ChartViewport view;
        view.startNs = origin;
        view.nsPerPixel = 1000; // 1 µs per pixel
        view.width = 1000;
        view.height = 400;
        view.rowHeight = 20;
        const auto layout = layoutFlameChart(chart, view);
        QCOMPARE(layout.headers.size(), std::size_t(1));
        QCOMPARE(layout.boxes.size(), std::size_t(2)); // the tiny ones start after the window
        QCOMPARE(layout.boxes[0].box.x, 0);
        QCOMPARE(layout.boxes[0].box.width, 900);
        QCOMPARE(layout.boxes[0].box.y, 20); // under the thread's name row
        QCOMPARE(layout.boxes[1].box.x, 100);
        QCOMPARE(layout.boxes[1].box.width, 200);
        QCOMPARE(layout.boxes[1].box.y, 40);
        QCOMPARE(layout.contentHeight, 60);

        // Zoomed out: the 1000 tiny slices over 100 µs at 2.1 µs a pixel become one box per
        // pixel column, and together stand for every slice.
        view.nsPerPixel = 2100;
        const auto out = layoutFlameChart(chart, view);
        std::size_t merged = 0;
        std::size_t tinyBoxes = 0;
        for (const auto &b : out.boxes) {
            if (b.box.x < 950)
                continue;
            ++tinyBoxes;
            merged += std::max<std::uint32_t>(1, b.box.merged);
            QCOMPARE(b.box.width, 1);
        }
        QCOMPARE(merged, std::size_t(1000));
        QVERIFY2(tinyBoxes <= 50, std::to_string(tinyBoxes).c_str());
        // The parent of inner is outer, in the chart's nesting.
        const auto innerEvent = chart.lanes[1].events[0];
        QCOMPARE(chart.parentOf(chart.lanes[1].track, innerEvent).value, chart.lanes[0].events[0]);
    }

    // vLLM's front-end process holds 18,155 Python frames and no operator: with Python frames
    // the tree and the chart hold every one of them; with operators alone, nothing.
    void pythonFramesWithoutOps()
    {
        const auto loaded = loadTracePath(fixture2026("vllm_async_llm_cpu.pt.trace.json.gz"));
        QVERIFY(loaded.index);
        FlameOptions options;
        options.events = FlameEvents::OpsPython;
        const auto tree = buildFlameTree(*loaded.index, options);
        std::uint64_t calls = 0;
        for (const auto &node : tree.nodes)
            calls += node.calls;
        QCOMPARE(calls, std::uint64_t(18155));
        const auto chart = buildFlameChart(*loaded.index, FlameEvents::OpsPython);
        std::size_t events = 0;
        for (const auto &lane : chart.lanes)
            events += lane.events.size();
        QCOMPARE(events, std::size_t(18155));
        options.events = FlameEvents::Ops;
        std::uint64_t opCalls = 0;
        for (const auto &node : buildFlameTree(*loaded.index, options).nodes)
            opCalls += node.calls;
        QCOMPARE(opCalls, std::uint64_t(0));
        QVERIFY(buildFlameChart(*loaded.index, FlameEvents::Ops).threads.empty());
    }
};

QTEST_GUILESS_MAIN(TestFlameGraph)
#include "tst_flamegraph.moc"
