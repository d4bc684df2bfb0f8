// The Snapshots page's allocations view (every allocation a band, memory_viz's layout) over the
// snapshot scripts/make-snapshots.py writes ending in an OOM: the column at the peak is as tall as
// the peak, hovering a band names a block live then with its size and stack, its colour is its
// stack's in the other views, the wheel zooms, a drag pans, a double click shows all, and a click
// names the instant.
#include <QApplication>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QWheelEvent>

#include "../maybegrab.h"
#include "core/snapshot/replay.h"
#include "ui/jobs/jobtracker.h"
#include "ui/plots/allocationtimeline.h"
#include "ui/plots/snapshotplot.h"
#include "ui/shell/displaytext.h"
#include "ui/snapshot/snapshotpage.h"

using namespace pyrometer;
using namespace pyrometer::ui;

Q_DECLARE_METATYPE(pyrometer::ui::JobOutcome)

namespace {

const QString kDir = QStringLiteral(PYROMETER_TEST_SNAPSHOTS_DIR);

struct Page {
    JobTracker jobs;
    SnapshotPage page{&jobs};
    plots::AllocationTimeline *plot = nullptr;

    bool open(const char *file)
    {
        page.resize(1400, 900);
        page.show();
        QSignalSpy shown(&page, &SnapshotPage::instantShown);
        page.open(kDir + QLatin1Char('/') + QLatin1String(file));
        plot = page.allocationPlot();
        return QTest::qWaitFor([&] { return shown.count() >= 1; }, 20000);
    }
    // The widget point at x (the plot's unit), `fromBottom` pixels above the axis.
    QPoint pointAt(double x, int fromBottom) const
    {
        const QRect r = plot->plotRect();
        const auto [x0, x1] = plot->visibleRange();
        return {r.left() + int(std::lround((x - x0) / (x1 - x0) * r.width())), r.bottom() - fromBottom};
    }
    double peakX() const
    {
        const auto s = page.currentSnapshot();
        const auto *d = page.currentDevice();
        const auto &t = s->events.timeUs;
        return double(t[d->events[std::size_t(d->peakPosition)]] - t[d->events.front()]) / 1e3;
    }
};

// Rows of the bands image's column that are drawn (not transparent), counted from the bottom.
int drawnHeight(const QImage &image, int column)
{
    int height = 0;
    while (height < image.height() && qAlpha(image.pixel(column, image.height() - 1 - height)) != 0)
        ++height;
    return height;
}

} // namespace

class TestAllocationTimeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<JobOutcome>(); }

    void thePeakColumnAndWhatIsUnderTheMouse()
    {
        Page p;
        QVERIFY(p.open("oom.pickle"));
        QCOMPARE(p.page.plotTabs()->currentWidget(), p.plot);
        p.plot->repaint();
        const auto &image = p.plot->bandsImage();
        QVERIFY(!image.isNull());
        const auto *d = p.page.currentDevice();
        const QPoint peak = p.pointAt(p.peakX(), 0);
        const int column = peak.x() - p.plot->plotRect().left();
        const double want = double(d->peakActive) / p.plot->bytesAtTop() * image.height();
        QVERIFY2(std::abs(drawnHeight(image, column) - want) <= 2.0,
                 qPrintable(QStringLiteral("%1 drawn, %2 wanted").arg(drawnHeight(image, column)).arg(want)));
        maybeGrab(p.page, QStringLiteral("snapshot-allocations.png"));

        // A band a third of the way up at the peak: a block live then, its size and stack in the tooltip.
        const QPoint inside = p.pointAt(p.peakX(), int(want / 3));
        const auto allocation = p.plot->allocationAt(inside);
        QVERIFY(allocation.has_value());
        const auto s = p.page.currentSnapshot();
        const auto live = snapshot::liveAt(*s, *d, d->peakPosition);
        const auto a = snapshot::allocations(*s, *d);
        const auto block = std::find_if(live.begin(), live.end(), [&](const snapshot::LiveBlock &b) {
            return b.address == a.address[*allocation];
        });
        QVERIFY(block != live.end());
        const QString tip = p.plot->toolTipAt(inside);
        QVERIFY2(tip.contains(bytesText(block->size)), qPrintable(tip));
        QVERIFY(tip.contains(QString::fromStdString(snapshot::stackLabel(*s, block->stack)).toHtmlEscaped()));
        QVERIFY(p.plot->toolTipAt(p.pointAt(p.peakX(), int(want) + 20)).isEmpty()); // above the bands

        // Its colour is its stack's band colour (odd allocations a shade lighter), as in the
        // segment map and the bands by stack.
        const auto &bands = p.page.plot()->bands();
        const auto folded = snapshot::foldedStack(*s, block->stack);
        const auto band = std::size_t(std::find(bands.keys.begin(), bands.keys.end() - 1, folded) - bands.keys.begin());
        QColor color = plots::SnapshotPlot::bandColor(band, bands.keys.size());
        if (block->position >= 0) {
            if (*allocation & 1U)
                color = color.lighter(118);
            QCOMPARE(QColor(image.pixel(column, image.height() - 1 - int(want / 3))).name(), color.name());
        }
    }

    void zoomPanAndClick()
    {
        Page p;
        QVERIFY(p.open("oom.pickle"));
        const auto all = p.plot->visibleRange();
        const QPoint middle = p.plot->plotRect().center();
        QWheelEvent in(QPointF(middle), p.plot->mapToGlobal(QPointF(middle)), QPoint(), QPoint(0, 240), Qt::NoButton,
                       Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(p.plot, &in);
        const auto zoomed = p.plot->visibleRange();
        QVERIFY(zoomed.second - zoomed.first < 0.7 * (all.second - all.first));
        QVERIFY(zoomed.first < p.plot->xAtPixel(middle.x()) && p.plot->xAtPixel(middle.x()) < zoomed.second);
        // Dragged right by 100 px: the range moves left by 100 px' worth.
        const double perPixel = (zoomed.second - zoomed.first) / p.plot->plotRect().width();
        QTest::mousePress(p.plot, Qt::LeftButton, {}, middle);
        QMouseEvent move(QEvent::MouseMove, QPointF(middle + QPoint(100, 0)),
                         p.plot->mapToGlobal(QPointF(middle + QPoint(100, 0))), Qt::LeftButton, Qt::LeftButton,
                         Qt::NoModifier);
        QApplication::sendEvent(p.plot, &move);
        QTest::mouseRelease(p.plot, Qt::LeftButton, {}, middle + QPoint(100, 0));
        QVERIFY(std::abs(p.plot->visibleRange().first - (zoomed.first - 100 * perPixel)) < perPixel);
        QTest::mouseDClick(p.plot, Qt::LeftButton, {}, middle);
        QCOMPARE(p.plot->visibleRange(), all);
        // A click names the instant under it.
        QSignalSpy shown(&p.page, &SnapshotPage::instantShown);
        QTest::mouseClick(p.plot, Qt::LeftButton, {}, middle);
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, 10000);
        QVERIFY(p.page.instant().endsWith(QStringLiteral("us")));
        // The last event at or before it: events are tens of microseconds apart here.
        const double clicked = p.plot->xAtPixel(middle.x());
        QVERIFY2(p.plot->instantX() <= clicked + 1e-3 && p.plot->instantX() > clicked - 0.1,
                 qPrintable(QStringLiteral("%1 for %2").arg(p.plot->instantX()).arg(clicked)));
    }
};

QTEST_MAIN(TestAllocationTimeline)
#include "tst_allocationtimeline.moc"
