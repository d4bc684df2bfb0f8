// What the Compare page adds to a report: the diff flame graph as an image of its drawn rows,
// not of the widget's empty space below them. The step chart's colours in the app and in the
// report.
#include "core/report/svgchart.h"
#include "core/report/tracereport.h"
#include "ui/compare/comparepage.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/jobs/jobtracker.h"
#include "ui/plots/stepbreakdownplot.h"
#include "ui/report/pagesections.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QImage>
#include <QPushButton>
#include <QSet>
#include <QTabWidget>
#include <QTest>

#include <qcustomplot.h>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

bool waitIdle(JobTracker &jobs)
{
    const bool idle = QTest::qWaitFor([&] { return jobs.isIdle(); }, 60'000);
    QCoreApplication::processEvents();
    return idle;
}

// Distinct colours in rows [top, top + height) of an image.
int coloursIn(const QImage &image, int top, int height)
{
    QSet<QRgb> colours;
    for (int y = top; y < std::min(image.height(), top + height); ++y)
        for (int x = 0; x < image.width(); ++x)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

class TestPageSections : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void diffFlameImageIsCroppedToItsRows()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ComparePage page(&workspace, &jobs);
        page.resize(1200, 900);
        page.show();
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_base.json"));
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_other.json"));
        QVERIFY(waitIdle(jobs));
        QVERIFY(page.diffTracesButton()->isEnabled());
        page.diffTraces();
        QVERIFY(waitIdle(jobs));
        page.tabs()->setCurrentIndex(2);
        QTest::qWait(20);
        auto *view = page.diffFlameGraph();
        const auto *graph = view->graph();
        QVERIFY(graph && graph->isDiff());

        const auto sections = compareSections(page);
        const auto diff = std::find_if(sections.begin(), sections.end(), [](const auto &s) { return s.id == "trace-diff"; });
        QVERIFY(diff != sections.end());
        QCOMPARE(diff->images.size(), std::size_t(1));
        const auto &data = diff->images.front().data;
        const QImage image = QImage::fromData(reinterpret_cast<const uchar *>(data.data()), int(data.size()), "PNG");
        QVERIFY(!image.isNull());

        // As tall as the rows drawn: every level of this small graph, each row height high,
        // where the widget showing it is several times taller.
        const int rows = int(graph->height[0]);
        QVERIFY(rows >= 3);
        QCOMPARE(image.height(), rows * view->rowHeight());
        QVERIFY2(view->height() > 2 * image.height(), qPrintable(QStringLiteral("%1 vs %2").arg(view->height()).arg(image.height())));
        QCOMPARE(image.width(), 1000);
        // No empty band: the last row holds frames as well as the first.
        QVERIFY(coloursIn(image, 0, view->rowHeight()) > 2);
        QVERIFY(coloursIn(image, image.height() - view->rowHeight(), view->rowHeight()) > 2);
        // The table names are whole in the document; the renderer elides them.
        QCOMPARE(diff->tables.front().names, std::vector<bool>{true});
        if (const QString shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty())
            image.save(shots + QStringLiteral("/report-diff-flame.png"));
    }

    // Every step category has one colour: the app's chart draws it as the report's charts do
    // (bars and columns), matched by the category's name, and the SVG fills with it.
    void stepChartColoursMatchTheReport()
    {
        analysis::StepRow step;
        step.name = "ProfilerStep#1";
        for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c) {
            step.categoryNs[c] = std::int64_t(c + 1) * 1'000'000;
            step.durationNs += step.categoryNs[c];
        }
        analysis::StepBreakdown breakdown;
        breakdown.steps = {step, step};
        plots::StepBreakdownPlot plot;
        plot.setSteps(breakdown.steps);
        QCOMPARE(plot.layers().size(), analysis::kStepCategoryCount);

        const auto bars = report::stepChart(breakdown, 40);
        const auto columns = report::stepColumnChart(breakdown, 300);
        const auto barsSvg = report::renderSvg(bars);
        QCOMPARE(bars.seriesNames.size(), analysis::kStepCategoryCount);
        QCOMPARE(columns.seriesColors, bars.seriesColors);
        QSet<QString> colours;
        for (const auto *layer : plot.layers()) {
            const auto name = layer->name().toStdString();
            const auto at = std::find(bars.seriesNames.begin(), bars.seriesNames.end(), name);
            QVERIFY2(at != bars.seriesNames.end(), name.c_str());
            const auto &reportColour = bars.seriesColors[std::size_t(at - bars.seriesNames.begin())];
            QCOMPARE(layer->brush().color().name().toStdString(), reportColour);
            QVERIFY2(barsSvg.find("fill=\"" + reportColour + "\"") != std::string::npos, reportColour.c_str());
            colours.insert(layer->brush().color().name());
        }
        QCOMPARE(std::size_t(colours.size()), analysis::kStepCategoryCount); // no two categories alike
    }
};

QTEST_MAIN(TestPageSections)
#include "tst_pagesections.moc"
