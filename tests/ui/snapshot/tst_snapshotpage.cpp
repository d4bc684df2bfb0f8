// The Snapshots page over snapshots scripts/make-snapshots.py makes: the live memory it lists at
// the peak and at an OOM is core's (the same groups and bytes as pyrometer-cli snapshot), the
// bands add up to the replayed curve, a second snapshot gives what grew, a bad file leaves what
// was open, and the main window opens a .pickle on this page.
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include <qcustomplot.h>

#include "../maybegrab.h"
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "core/util/format.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/jobs/jobtracker.h"
#include "ui/plots/segmentmap.h"
#include "ui/plots/snapshotplot.h"
#include "ui/shell/displaytext.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/mainwindow.h"
#include "ui/snapshot/snapshotpage.h"

using namespace pyrometer;
using namespace pyrometer::ui;

Q_DECLARE_METATYPE(pyrometer::ui::JobOutcome)

namespace {

const QString kDir = QStringLiteral(PYROMETER_TEST_SNAPSHOTS_DIR);

// What core says is live on the busiest device at `at`, grouped by stack.
std::vector<snapshot::LiveGroup> coreGroups(const QString &file, const std::string &at, snapshot::GroupBy by)
{
    const auto s = snapshot::loadSnapshot((kDir + QLatin1Char('/') + file).toStdString()).value();
    const auto devices = snapshot::replay(*s);
    const auto &d = *std::max_element(devices.begin(), devices.end(),
                                      [](const auto &a, const auto &b) { return a.events.size() < b.events.size(); });
    std::string error;
    const auto position = snapshot::resolveInstant(*s, d, at, error);
    return snapshot::groupLive(*s, d, snapshot::liveAt(*s, d, *position), by);
}

void openAndWait(SnapshotPage &page, const QString &file)
{
    QSignalSpy opened(&page, &SnapshotPage::snapshotOpened);
    QSignalSpy shown(&page, &SnapshotPage::instantShown);
    page.open(kDir + QLatin1Char('/') + file);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, 10000);
}

} // namespace

class TestSnapshotPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<JobOutcome>(); }

    void showsWhatWasLiveAtThePeak()
    {
        JobTracker jobs;
        SnapshotPage page(&jobs);
        QVERIFY(!page.hasContent());
        QVERIFY(page.emptyState()->hint().contains(QStringLiteral("_dump_snapshot")));
        page.resize(1400, 900);
        page.show();
        openAndWait(page, QStringLiteral("basic_p4.pickle"));
        QVERIFY(page.hasContent());
        QCOMPARE(page.instant(), QStringLiteral("peak"));
        // The headline: allocated against what the tensors asked for (the weights' sizes round up,
        // by less than 1%: not worth naming); rounding of 1% or more is named.
        const auto totals = snapshot::segmentTotals(*page.currentSnapshot(), 0);
        QVERIFY(totals.requestedBytes > 0 && totals.requestedBytes < totals.allocatedBytes);
        QVERIFY2(page.headline()->text().contains(
                     QStringLiteral("allocated %1 (%2 requested) ·")
                         .arg(bytesText(totals.allocatedBytes), bytesText(totals.requestedBytes))),
                 qPrintable(page.headline()->text()));
        QCOMPARE(SnapshotPage::allocatedText(1000 << 20, 900 << 20),
                 QStringLiteral("%1 (%2 requested: rounding took %3)")
                     .arg(bytesText(1000 << 20), bytesText(900 << 20), bytesText(100 << 20)));
        QCOMPARE(SnapshotPage::allocatedText(1000 << 20, 0), bytesText(1000 << 20)); // an older snapshot

        // The table lists core's groups, largest first, with their bytes.
        const auto expected = coreGroups(QStringLiteral("basic_p4.pickle"), "peak", snapshot::GroupBy::Stack);
        QCOMPARE(page.groups(), expected);
        auto *table = page.groupsTable();
        QCOMPARE(table->topLevelItemCount(), int(expected.size()));
        QCOMPARE(table->topLevelItem(0)->text(0), QString::fromStdString(expected[0].label));
        QCOMPARE(table->topLevelItem(0)->data(1, Qt::UserRole).toLongLong(), expected[0].bytes);
        QVERIFY(table->topLevelItem(0)->toolTip(0).contains(QStringLiteral("train.py")));

        // The flame graph's root holds every live byte, and the bands sum to the replayed peak.
        const auto *device = page.currentDevice();
        std::int64_t live = 0;
        for (const auto &g : expected)
            live += g.bytes;
        QCOMPARE(live, device->peakActive);
        const auto &bands = page.plot()->bands();
        QVERIFY(bands.bytes.size() >= 2);
        std::int64_t highest = 0;
        for (std::size_t s = 0; s < bands.x.size(); ++s) {
            std::int64_t total = 0;
            for (const auto &band : bands.bytes)
                total += band[s];
            QCOMPARE(total,
                     bands.position[s] < 0 ? device->activeAtStart : device->active[std::size_t(bands.position[s])]);
            highest = std::max(highest, total);
        }
        QCOMPARE(highest, device->peakActive); // no peak lost to sampling
        QVERIFY(page.instantLabel()->text().contains(QStringLiteral("the peak")));
        // Hovering the bottom band at the peak names its stack and its bytes then.
        std::size_t peakSample = 0;
        for (std::size_t s = 0; s < bands.x.size(); ++s)
            if (bands.position[s] == device->peakPosition)
                peakSample = s;
        const double bytesPerUnit = device->peakActive >= (std::int64_t(4) << 30) ? double(1 << 30) : double(1 << 20);
        const QString tip =
            page.plot()->toolTipAt(bands.x[peakSample], double(bands.bytes[0][peakSample]) / 2 / bytesPerUnit);
        QVERIFY2(tip.contains(QString::fromStdString(bands.labels[0]).toHtmlEscaped()), qPrintable(tip));
        QVERIFY(tip.contains(QString::fromStdString(formatBytes(std::uint64_t(bands.bytes[0][peakSample])))));
        QVERIFY(page.plot()->toolTipAt(bands.x[peakSample], double(device->peakActive) * 2 / bytesPerUnit).isEmpty());
        QVERIFY(!page.oomLabel()->isVisible());
        QTest::qWait(50); // the segment map's height settles in the next layout pass
        maybeGrab(page, QStringLiteral("snapshot-peak.png"));

        // Grouped by compile context: the compiled region's blocks are one row.
        QSignalSpy shown(&page, &SnapshotPage::instantShown);
        page.setGroupBy(snapshot::GroupBy::Context);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QCOMPARE(page.groups(), coreGroups(QStringLiteral("basic_p4.pickle"), "peak", snapshot::GroupBy::Context));
        QCOMPARE(table->headerItem()->text(0), QStringLiteral("Compile context"));

        // A click on the plot asks for the instant under it.
        page.setGroupBy(snapshot::GroupBy::Stack);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 2, 10000);
        const double x = bands.x[bands.x.size() / 3];
        Q_EMIT page.plot()->instantClicked(x);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 3, 10000);
        QVERIFY(page.instant().endsWith(QStringLiteral("us")));
        QCOMPARE(page.plot()->instantX() <= x + 1e-9, true);
    }

    void anOomShowsItsVerdictAndWhatWasLive()
    {
        JobTracker jobs;
        SnapshotPage page(&jobs);
        page.resize(1400, 900);
        page.show();
        openAndWait(page, QStringLiteral("oom.pickle"));
        QVERIFY(page.oomLabel()->isVisible());
        QVERIFY2(page.oomLabel()->text().contains(QStringLiteral("fragmentation")),
                 qPrintable(page.oomLabel()->text()));
        QSignalSpy shown(&page, &SnapshotPage::instantShown);
        QVERIFY(page.showInstant(QStringLiteral("oom")));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QCOMPARE(page.groups(), coreGroups(QStringLiteral("oom.pickle"), "oom", snapshot::GroupBy::Stack));
        QVERIFY(page.instantLabel()->text().contains(QStringLiteral("the OOM")));
        // The segment map holds the allocator then: the snapshot, taken at the OOM, says how much
        // was free and in what pieces.
        const auto &then = page.segmentMap()->state();
        const auto totals = snapshot::segmentTotals(*page.currentSnapshot());
        QCOMPARE(then.freeBytes, totals.freeBytes);
        QCOMPARE(then.largestFree, totals.largestFreeBlock);
        QVERIFY(then.freeBytes > std::int64_t(24) << 20); // enough for the 24 MiB asked, in no one piece
        QVERIFY(
            page.instantLabel()->text().contains(QString::fromStdString(formatBytes(std::uint64_t(then.largestFree)))));
        const int first = page.segmentMap()->segmentAt(QPoint(4, 4));
        QCOMPARE(first, 0);
        QTest::qWait(50);
        maybeGrab(page, QStringLiteral("snapshot-oom.png"));
        // An instant the snapshot does not have changes nothing and says why.
        QVERIFY(!page.showInstant(QStringLiteral("oom:3")));
        QCOMPARE(page.instant(), QStringLiteral("oom"));
    }

    // An OOM on one stream with memory cached on another: the verdict says so, and the map names
    // each segment's stream.
    void anOomWithMemoryCachedForAnotherStream()
    {
        JobTracker jobs;
        SnapshotPage page(&jobs);
        page.resize(1400, 900);
        page.show();
        openAndWait(page, QStringLiteral("stream_oom.pickle"));
        QVERIFY2(page.oomLabel()->text().contains(QStringLiteral("cached for others")),
                 qPrintable(page.oomLabel()->text()));
        QSignalSpy shown(&page, &SnapshotPage::instantShown);
        QVERIFY(page.showInstant(QStringLiteral("oom")));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        const auto *map = page.segmentMap();
        int side = -1;
        for (std::size_t i = 0; i < map->state().segments.size(); ++i)
            if (map->state().segments[i].stream == 7)
                side = int(i);
        QVERIFY(side >= 0);
        QVERIFY2(map->toolTipOf(side).contains(QStringLiteral("stream 7 · large-block pool")),
                 qPrintable(map->toolTipOf(side)));
        QVERIFY(map->toolTipOf(side == 0 ? 1 : 0).contains(QStringLiteral("stream 0")));
    }

    void comparedWithAnotherShowsWhatGrew()
    {
        JobTracker jobs;
        SnapshotPage page(&jobs);
        page.resize(1400, 900);
        page.show();
        openAndWait(page, QStringLiteral("basic_p4.pickle"));
        openAndWait(page, QStringLiteral("oom.pickle"));
        QCOMPARE(page.count(), 2);
        QVERIFY(page.compareChooser()->isEnabled());
        QSignalSpy shown(&page, &SnapshotPage::instantShown);
        page.compareWith(0);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QVERIFY(page.comparing());
        const auto expected =
            snapshot::diffGroups(coreGroups(QStringLiteral("basic_p4.pickle"), "peak", snapshot::GroupBy::Stack),
                                 coreGroups(QStringLiteral("oom.pickle"), "peak", snapshot::GroupBy::Stack));
        QCOMPARE(page.deltas().size(), expected.size());
        auto *table = page.groupsTable();
        QCOMPARE(table->headerItem()->text(3), QStringLiteral("Change"));
        QCOMPARE(table->topLevelItem(0)->data(3, Qt::UserRole).toLongLong(), expected.front().delta());
        QVERIFY(page.flame()->graph() && page.flame()->graph()->isDiff());
        QTest::qWait(50);
        maybeGrab(page, QStringLiteral("snapshot-diff.png"));
    }

    void aBadFileLeavesWhatWasOpen()
    {
        JobTracker jobs;
        SnapshotPage page(&jobs);
        openAndWait(page, QStringLiteral("basic_p4.pickle"));
        QSignalSpy finished(&jobs, &JobTracker::finished);
        page.open(kDir + QStringLiteral("/class_ref.pickle"));
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() && finished.last().at(2).value<JobOutcome>() == JobOutcome::Failed,
                                 10000);
        QVERIFY(finished.last().at(3).toString().contains(QStringLiteral("class_ref.pickle")));
        QVERIFY(finished.last().at(3).toString().contains(QStringLiteral("never runs")));
        QCOMPARE(page.count(), 1);
        QVERIFY(page.currentPath().endsWith(QStringLiteral("basic_p4.pickle")));
        page.closeCurrent();
        QVERIFY(!page.hasContent());
    }

    void theWindowOpensAPickleOnThisPage()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1400, 900);
        window.show();
        auto *page = qobject_cast<SnapshotPage *>(window.pageWidget(Page::Snapshots));
        QVERIFY(page);
        QSignalSpy opened(page, &SnapshotPage::snapshotOpened);
        window.openPaths({kDir + QStringLiteral("/basic_p4.pickle.gz")});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        QCOMPARE(window.currentPage(), Page::Snapshots);
        window.closeCurrent();
        QVERIFY(!page->hasContent());
    }
};

QTEST_MAIN(TestSnapshotPage)
#include "tst_snapshotpage.moc"
