// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <sstream>

#include "core/analysis/flamediff.h"
#include "core/analysis/flametree.h"
#include "core/analysis/traceindex.h"
#include "ui/flamegraph/breadcrumbbar.h"
#include "ui/flamegraph/flamechartview.h"
#include "ui/flamegraph/flamecolors.h"
#include "ui/flamegraph/flamegraphpage.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/flamegraph/flametooltip.h"
#include "ui/flamegraph/sandwichview.h"
#include "ui/jobs/jobtracker.h"
#include "ui/workspace/workspace.h"

using namespace pyrometer;
using namespace pyrometer::ui;
using namespace pyrometer::ui::flamegraph;

namespace {

const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
const QString kDemo = QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json");

struct Fixture {
    JobTracker jobs;
    Workspace workspace{&jobs};
    FlameGraphPage page{&workspace, &jobs};

    Fixture()
    {
        page.resize(1200, 700);
        page.show();
    }
    bool waitIdle()
    {
        const bool idle = QTest::qWaitFor([this] { return jobs.isIdle(); }, 30000);
        QCoreApplication::processEvents();
        return idle;
    }
    bool open(const QString &path)
    {
        workspace.openTrace(path);
        return waitIdle() && page.hasContent();
    }
    // Saves the page as PNG under $PYROMETER_SCREENSHOT_DIR, when set (to look at it).
    void screenshot(const char *name)
    {
        const QByteArray dir = qgetenv("PYROMETER_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            page.grab().save(QString::fromUtf8(dir) + QStringLiteral("/flame_%1.png").arg(QLatin1String(name)));
    }
};

// A wide, labelled frame below the zoomed one, away from the root.
const analysis::FlameBox *wideFrame(FlameGraphView *view, int minWidth = 100)
{
    for (const auto &box : view->currentLayout().boxes) {
        if (box.merged == 0 && box.node != view->zoom() && box.width >= minWidth && view->graph()->depth[box.node] >= 2)
            return &box;
    }
    return nullptr;
}

QPoint centre(const analysis::FlameBox &box)
{
    return {box.x + box.width / 2, box.y + box.height / 2};
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

class TestFlameGraphPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void startsEmpty()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        FlameGraphPage page(&workspace, &jobs);
        QVERIFY(!page.hasContent());
        QVERIFY(!page.graphView()->graph());
    }

    void clickZoomsAndTheBreadcrumbGoesBack()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        auto *view = f.page.graphView();
        QCOMPARE(f.page.currentView(), view);
        QVERIFY(view->graph()->tree.nodes[0].totalNs > 0);
        QCOMPARE(f.page.breadcrumb()->crumbs(), QStringList{"all"});
        f.screenshot("icicle");

        const auto *frame = wideFrame(view);
        QVERIFY(frame);
        const auto node = frame->node;
        const auto depth = view->graph()->depth[node];
        QTest::mouseClick(view, Qt::LeftButton, {}, centre(*frame));
        QCOMPARE(view->zoom(), node);
        // The zoomed frame spans the width on the first row; its ancestors are the breadcrumb.
        const auto &boxes = view->currentLayout().boxes;
        QCOMPARE(boxes.front().node, node);
        QCOMPARE(boxes.front().x, 0);
        QCOMPARE(boxes.front().width, view->width());
        QCOMPARE(boxes.front().y, 0);
        const QStringList crumbs = f.page.breadcrumb()->crumbs();
        QCOMPARE(crumbs.size(), int(depth) + 1);
        QCOMPARE(crumbs.front(), QString("all"));
        QCOMPARE(crumbs.back(), QString::fromStdString(view->graph()->tree.nodes[node].name));
        QVERIFY(f.page.sandwichButton()->isEnabled());
        f.screenshot("zoomed");

        // Back one level, then to the root.
        f.page.breadcrumb()->button(int(depth) - 1)->click();
        QCOMPARE(view->zoom(), view->graph()->tree.nodes[node].parent);
        f.page.breadcrumb()->button(0)->click();
        QCOMPARE(view->zoom(), 0u);
        QCOMPARE(f.page.breadcrumb()->crumbs(), QStringList{"all"});
    }

    void tooltipsGiveTheFigures()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        auto *view = f.page.graphView();
        const auto *frame = wideFrame(view);
        QVERIFY(frame);
        const auto &node = view->graph()->tree.nodes[frame->node];
        const QString tip = view->toolTipAt(centre(*frame));
        QVERIFY2(tip.contains(QString::fromStdString(node.name).toHtmlEscaped()), qPrintable(tip));
        for (const char *part : {"Total", "Self", "Calls", "Of total", "Of parent"})
            QVERIFY2(tip.contains(QLatin1String(part)), qPrintable(tip));
        QVERIFY2(tip.contains(duration(node.totalNs)), qPrintable(tip));
        QVERIFY(tip.contains(QRegularExpression(QStringLiteral("\\d (ns|µs|ms|s)<"))));
        const double ofTotal = double(node.totalNs) / double(view->graph()->tree.nodes[0].totalNs);
        QVERIFY2(tip.contains(percent(ofTotal)), qPrintable(tip));
        QVERIFY(view->toolTipAt(QPoint(view->width() - 2, view->height() - 2)).isEmpty());
    }

    void searchShowsTheShare()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        QVERIFY(f.page.shareLabel()->text().isEmpty());
        f.page.searchBox()->setText(QStringLiteral("ATEN::LINEAR"));
        const auto expected = analysis::searchFlame(f.page.graphView()->graph()->tree, "aten::linear");
        QVERIFY(expected.frames > 0);
        QVERIFY(expected.share > 0 && expected.share < 1);
        const QString text = f.page.shareLabel()->text();
        QVERIFY2(text.startsWith(QString::number(expected.frames) + " frame"), qPrintable(text));
        QVERIFY2(text.contains(percent(expected.share) + " of total"), qPrintable(text));
        QCOMPARE(f.page.graphView()->search().frames, expected.frames);
        f.screenshot("search");
        f.page.searchBox()->setText(QStringLiteral("no such frame"));
        QVERIFY(f.page.shareLabel()->text().startsWith("0 frame"));
        f.page.searchBox()->clear();
        QVERIFY(f.page.shareLabel()->text().isEmpty());
    }

    void pythonFramesAndThreadsChangeTheTree()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        const auto opsOnly = f.page.graphView()->sharedGraph();
        f.page.pythonToggle()->setChecked(true);
        QVERIFY(f.waitIdle());
        const auto withPython = f.page.graphView()->sharedGraph();
        QVERIFY(withPython != opsOnly);
        QVERIFY(withPython->tree.nodes.size() > opsOnly->tree.nodes.size());
        bool module = false;
        for (const auto &node : withPython->tree.nodes)
            module = module || node.name.rfind("nn.Module: ", 0) == 0;
        QVERIFY(module);

        // Merged threads: no thread level, the same total.
        f.page.perThreadToggle()->setChecked(false);
        QVERIFY(f.waitIdle());
        const auto merged = f.page.graphView()->graph();
        QCOMPARE(merged->tree.nodes[0].totalNs, withPython->tree.nodes[0].totalNs);
        for (const auto child : merged->tree.nodes[0].children)
            QVERIFY(merged->tree.nodes[child].calls > 0);
    }

    void stepsMergeOrNot()
    {
        Fixture f;
        QVERIFY(f.open(kDemo)); // three ProfilerStep#N under one thread
        const auto stepsUnder = [&f] {
            const auto &tree = f.page.graphView()->graph()->tree;
            const auto thread = tree.nodes[0].children.front();
            QStringList names;
            for (const auto child : tree.nodes[thread].children)
                names << QString::fromStdString(tree.nodes[child].name);
            return names.filter("ProfilerStep#");
        };
        QVERIFY(f.page.mergeStepsToggle()->isChecked());
        QCOMPARE(stepsUnder(), QStringList{"ProfilerStep#*"});
        const auto total = f.page.graphView()->graph()->tree.nodes[0].totalNs;
        f.page.mergeStepsToggle()->setChecked(false);
        QVERIFY(f.waitIdle());
        QCOMPARE(stepsUnder().size(), 3);
        QCOMPARE(f.page.graphView()->graph()->tree.nodes[0].totalNs, total);
    }

    void sandwichShowsCallersAndCallees()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        QSignalSpy shown(&f.page, &FlameGraphPage::sandwichShown);
        f.page.showSandwich(QStringLiteral("aten::linear"));
        QVERIFY(f.waitIdle());
        QCOMPARE(shown.count(), 1);
        QCOMPARE(f.page.currentView(), f.page.sandwichView());
        auto *sandwich = f.page.sandwichView();
        const auto expected = analysis::buildSandwich(f.page.graphView()->graph()->tree, "aten::linear");
        QVERIFY(expected.callees.nodes[0].totalNs > 0);
        QCOMPARE(sandwich->calleesView()->graph()->tree.nodes[0].totalNs, expected.callees.nodes[0].totalNs);
        QCOMPARE(sandwich->callersView()->graph()->tree.nodes[0].totalNs, expected.callees.nodes[0].totalNs);
        QVERIFY(sandwich->title()->text().contains("aten::linear"));
        // The callers read upwards: the function's row is at the bottom of its view.
        const auto &callerBoxes = sandwich->callersView()->currentLayout().boxes;
        QCOMPARE(callerBoxes.front().node, 0u);
        QVERIFY(callerBoxes.front().y > callerBoxes.back().y || callerBoxes.size() == 1);
        f.screenshot("sandwich");
        f.page.closeSandwich();
        QCOMPARE(f.page.currentView(), f.page.graphView());

        // Double-clicking a frame asks for its sandwich.
        const auto *frame = wideFrame(f.page.graphView());
        QVERIFY(frame);
        // As a window system sends it: a click (which zooms), then the double-click.
        const auto node = frame->node;
        const QPoint at = centre(*frame);
        QTest::mouseClick(f.page.graphView(), Qt::LeftButton, {}, at);
        QCOMPARE(f.page.graphView()->zoom(), node);
        QTest::mouseDClick(f.page.graphView(), Qt::LeftButton, {}, at);
        QTest::mouseRelease(f.page.graphView(), Qt::LeftButton, {}, at);
        QCOMPARE(f.page.graphView()->zoom(), node); // the release ending a double-click does not zoom
        QVERIFY(f.waitIdle());
        QCOMPARE(shown.count(), 2);
        QCOMPARE(sandwich->function(), QString::fromStdString(f.page.graphView()->graph()->tree.nodes[node].name));
    }

    void timeOrderedChart()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        f.page.setMode(FlameGraphPage::Mode::Chart);
        QVERIFY(f.waitIdle());
        auto *chart = f.page.chartView();
        QCOMPARE(f.page.currentView(), chart);
        QVERIFY(chart->chart());
        QVERIFY(!f.page.mergeStepsToggle()->isEnabled() && !f.page.compareChooser()->isEnabled());
        QCOMPARE(chart->chart()->chart.totalNs, f.page.graphView()->graph()->tree.nodes[0].totalNs);
        f.screenshot("chart");
        // Clicking the widest slice fits it to the width and names it in the breadcrumb.
        const auto &boxes = chart->currentLayout().boxes;
        QVERIFY(!boxes.empty());
        const auto widest = std::max_element(boxes.begin(), boxes.end(),
                                             [](const auto &a, const auto &b) { return a.box.width < b.box.width; });
        const auto lane = widest->lane;
        const auto position = widest->position;
        const QPoint at(widest->box.x + widest->box.width / 2, widest->box.y + widest->box.height / 2);
        QVERIFY(chart->toolTipAt(at).contains("Duration"));
        QVERIFY(chart->zoomAt(at));
        const auto &l = chart->chart()->chart.lanes[lane];
        QCOMPARE(chart->viewport().startNs, double(l.start[position]));
        QVERIFY(std::abs(chart->viewport().endNs() - double(l.end[position])) < chart->viewport().nsPerPixel);
        QVERIFY(f.page.breadcrumb()->crumbs().size() >= 2);
        f.page.breadcrumb()->button(0)->click();
        QVERIFY(!chart->focus());
        QCOMPARE(f.page.breadcrumb()->crumbs(), QStringList{"all"});
    }

    // Export: folded stacks of the shown tree, the view as SVG and as PNG.
    void exportsFoldedStacks()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        QCOMPARE(f.page.defaultExportName(QStringLiteral(".folded")), QStringLiteral("gaunernst_bert-small-uncased__1016001-flame.folded"));
        QVERIFY(f.page.exportButton()->isEnabled());
        QTemporaryDir dir;
        const auto index = analysis::buildTraceIndex(*f.workspace.traces().begin()->second->trace);
        // What writeFolded gives for the tree of the page's options, built here.
        const auto expected = [&](analysis::FlameEvents events, bool threads) {
            analysis::FlameOptions options;
            options.events = events;
            options.threadRoots = threads;
            std::ostringstream out;
            analysis::writeFolded(out, analysis::mergeProfilerSteps(analysis::buildFlameTree(*index, options)));
            return QByteArray::fromStdString(out.str());
        };
        const QString path = dir.filePath(QStringLiteral("a.folded"));
        QString error;
        QVERIFY2(f.page.exportFolded(path, &error), qPrintable(error));
        const auto opsPerThread = expected(analysis::FlameEvents::Ops, true);
        QVERIFY(opsPerThread.count('\n') > 20);
        QCOMPARE(readAll(path), opsPerThread);
        // Python frames, threads merged: the file follows the page.
        f.page.pythonToggle()->setChecked(true);
        f.page.perThreadToggle()->setChecked(false);
        QVERIFY(f.waitIdle());
        QVERIFY(f.page.exportFolded(path));
        const auto pythonMerged = expected(analysis::FlameEvents::OpsPython, false);
        QVERIFY(pythonMerged != opsPerThread);
        QCOMPARE(readAll(path), pythonMerged);
        // A file that cannot be written: false, and the message names it.
        const QString missing = dir.filePath(QStringLiteral("no/such/folder/a.folded"));
        QVERIFY(!f.page.exportFolded(missing, &error));
        QVERIFY2(error.startsWith(missing), qPrintable(error));
    }

    void exportsTheViewAsSvgAndPng()
    {
        Fixture f;
        QVERIFY(f.open(kBert));
        QTemporaryDir dir;
        auto *view = f.page.graphView();
        const QString svgPath = dir.filePath(QStringLiteral("a.svg"));
        QString error;
        QVERIFY2(f.page.exportSvg(svgPath, &error), qPrintable(error));
        QSvgRenderer renderer(svgPath);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.viewBoxF(), QRectF(view->rect()));
        // The top frames wide enough for their whole name carry it as text.
        const QString svg = QString::fromUtf8(readAll(svgPath));
        const QFontMetrics metrics(view->font());
        int named = 0;
        for (const auto &box : view->currentLayout().boxes) {
            const QString name = QString::fromStdString(view->graph()->tree.nodes[box.node].name);
            if (box.merged || view->graph()->depth[box.node] > 2 || name.isEmpty() || box.width < metrics.horizontalAdvance(name) + 20)
                continue;
            QVERIFY2(svg.contains(QLatin1Char('>') + name.toHtmlEscaped()), qPrintable(name));
            ++named;
        }
        QVERIFY(named >= 2);
        QVERIFY(!svg.contains(QStringLiteral("no such frame name")));

        const QString pngPath = dir.filePath(QStringLiteral("a.png"));
        QVERIFY(f.page.exportPng(pngPath));
        const QImage png(pngPath);
        QCOMPARE(png.size(), view->size());
        QVERIFY(distinctColours(png) > 8);
        if (const QByteArray shots = qgetenv("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QFile::copy(svgPath, QString::fromUtf8(shots) + QStringLiteral("/flame_export.svg"));
            QFile::copy(pngPath, QString::fromUtf8(shots) + QStringLiteral("/flame_export.png"));
        }

        // The time-ordered chart is the view exported then.
        f.page.setMode(FlameGraphPage::Mode::Chart);
        QVERIFY(f.waitIdle());
        QCOMPARE(f.page.currentView(), f.page.chartView());
        f.page.chartView()->resize(900, 300);
        QVERIFY(f.page.exportPng(pngPath));
        QCOMPARE(QImage(pngPath).size(), QSize(900, 300));
        QVERIFY(distinctColours(QImage(pngPath)) > 8);
    }

    void exportMenuAndContextMenus()
    {
        Fixture f;
        QVERIFY(!f.page.exportFoldedAction()->isEnabled()); // nothing to export yet
        QVERIFY(f.open(kBert));
        const QList<QAction *> exports{f.page.exportFoldedAction(), f.page.exportSvgAction(), f.page.exportPngAction()};
        for (auto *action : exports)
            QVERIFY(action->isEnabled());
        auto *menu = f.page.exportButton()->menu();
        QVERIFY(menu);
        QCOMPARE(menu->actions(), exports);
        QCOMPARE(f.page.exportButton()->popupMode(), QToolButton::InstantPopup);
        QCOMPARE(f.page.graphView()->actions(), exports);
        QCOMPARE(f.page.chartView()->actions(), exports);
        QCOMPARE(f.page.chartView()->contextMenuPolicy(), Qt::ActionsContextMenu);
        // The page with its menu open, composed from the page and the popup (a window of its own).
        if (const QByteArray dir = qgetenv("PYROMETER_SCREENSHOT_DIR"); !dir.isEmpty()) {
            auto *button = f.page.exportButton();
            menu->popup(button->mapToGlobal(QPoint(0, button->height())));
            QVERIFY(QTest::qWaitForWindowExposed(menu));
            QPixmap page = f.page.grab();
            QPainter painter(&page);
            // Under the button, as on a screen wide enough (the offscreen one is narrower).
            const QPoint below = button->mapTo(&f.page, QPoint(0, button->height()));
            painter.drawPixmap(QPoint(std::min(below.x(), page.width() - menu->width()), below.y()), menu->grab());
            painter.end();
            page.save(QString::fromUtf8(dir) + QStringLiteral("/flame_export_menu.png"));
            menu->hide();
        }
    }

    void diffAgainstAnotherTrace()
    {
        // Two variants of the demo: a base whose convolutions took half the time, and another
        // whose ReLUs did. Only shrinking events keeps every stack as it was.
        QTemporaryDir dir;
        const auto variant = [&dir](const QString &fileName, const QString &halved) {
            QFile in(kDemo);
            if (!in.open(QIODevice::ReadOnly))
                return QString();
            QJsonArray events = QJsonDocument::fromJson(in.readAll()).array();
            for (auto &&value : events) {
                QJsonObject event = value.toObject();
                if (event.value("name").toString() == halved)
                    event.insert("dur", event.value("dur").toDouble() / 2);
                value = event;
            }
            QFile out(dir.filePath(fileName));
            if (events.isEmpty() || !out.open(QIODevice::WriteOnly))
                return QString();
            out.write(QJsonDocument(events).toJson());
            return out.fileName();
        };
        const QString base = variant("base.json", "aten::mkldnn_convolution");
        const QString changed = variant("changed.json", "aten::relu");
        QVERIFY(!base.isEmpty() && !changed.isEmpty());
        Fixture f;
        QVERIFY(f.open(base));
        QVERIFY(f.open(changed));
        // The second trace is shown; the first is offered for comparison.
        QCOMPARE(f.page.compareChooser()->count(), 2);
        QVERIFY(!f.page.graphView()->graph()->isDiff());
        f.page.compareWith(f.workspace.traces().begin()->first);
        QVERIFY(f.waitIdle());
        const auto *graph = f.page.graphView()->graph();
        QVERIFY(graph->isDiff());
        QCOMPARE(f.page.graphView()->colorMode(), FlameColorMode::ByChange);
        QVERIFY(f.page.summaryLabel()->text().contains("slower"));
        // Thread names differ between runs: a comparison merges the threads.
        QVERIFY(!f.page.perThreadToggle()->isEnabled());
        for (const auto child : graph->tree.nodes[0].children)
            QVERIFY(graph->tree.nodes[child].calls > 0 || graph->base[child].calls > 0);
        // Colours follow the change: red for slower, blue for faster, grey when unchanged.
        int slower = 0;
        int faster = 0;
        for (std::uint32_t n = 1; n < graph->tree.nodes.size(); ++n) {
            const auto &node = graph->tree.nodes[n];
            const auto color = frameColor(*graph, n, FlameColorMode::ByChange);
            const int red = int((color >> 16) & 0xff);
            const int blue = int(color & 0xff);
            if (graph->presence[n] != analysis::Presence::Both) {
                QCOMPARE(color, kNeutralColor); // a stack only one run has (a child outside a halved parent)
            } else if (node.name == "aten::mkldnn_convolution") {
                QVERIFY(analysis::diffHeat(graph->base[n].totalNs, node.totalNs) > 0.5);
                QVERIFY(red > blue + 100);
                ++slower;
            } else if (node.name == "aten::relu") {
                QVERIFY(analysis::diffHeat(graph->base[n].totalNs, node.totalNs) < -0.5);
                QVERIFY(blue > red + 100);
                ++faster;
            } else if (node.totalNs == graph->base[n].totalNs) {
                QCOMPARE(color, kNeutralColor);
            }
        }
        QVERIFY(slower > 0 && faster > 0);
        const auto *frame = wideFrame(f.page.graphView(), 60);
        QVERIFY(frame);
        const QString tip = f.page.graphView()->toolTipAt(centre(*frame));
        QVERIFY2(tip.contains("Base total") && tip.contains("Change"), qPrintable(tip));
        f.screenshot("diff");
        f.page.compareWith(-1);
        QVERIFY(f.waitIdle());
        QVERIFY(!f.page.graphView()->graph()->isDiff());
        QCOMPARE(f.page.graphView()->colorMode(), FlameColorMode::ByCategory);
        QVERIFY(f.page.perThreadToggle()->isEnabled());
    }
};

QTEST_MAIN(TestFlameGraphPage)
#include "tst_flamegraphpage.moc"
