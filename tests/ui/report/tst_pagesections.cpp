// What the Compare page adds to a report: the diff flame graph as an image of its drawn rows,
// not of the widget's empty space below them.
#include "ui/compare/comparepage.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/jobs/jobtracker.h"
#include "ui/report/pagesections.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QImage>
#include <QPushButton>
#include <QSet>
#include <QTabWidget>
#include <QTest>

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
};

QTEST_MAIN(TestPageSections)
#include "tst_pagesections.moc"
