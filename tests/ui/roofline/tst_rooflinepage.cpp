// The Roofline page over real GPU traces: the plot's points and roofs are the roofline core/analysis
// computed, the table says "unknown" where work or roof cannot be known, a device picked (or the
// Preferences' roof for one the table lacks) moves the roofs, and a point clicked selects its row.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <qcustomplot.h>

#include "../maybegrab.h"
#include "core/analysis/roofline.h"
#include "ui/jobs/jobtracker.h"
#include "ui/plots/rooflineplot.h"
#include "ui/roofline/rooflinepage.h"
#include "ui/shell/pages.h"
#include "ui/shell/preferences.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/workspace/workspace.h"

using namespace pyrometer;
using namespace pyrometer::ui;
using roofline::RooflinePage;

namespace {

const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
const QString kMi250 = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/mi250_minitoy_train_ROCm6_2_kineto.json.gz");

QVariant cell(tables::TablePane *pane, int row, const QString &title)
{
    const auto *model = pane->model();
    return model->index(row, model->tree().columnIndex(title)).data(tables::TableTreeModel::RawValueRole);
}

QString shown(tables::TablePane *pane, int row, const QString &title)
{
    const auto *model = pane->model();
    return model->index(row, model->tree().columnIndex(title)).data(Qt::DisplayRole).toString();
}

} // namespace

class TestRooflinePage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plotAndTableHoldTheRoofline()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        RooflinePage page(&workspace, &jobs);
        QVERIFY(!page.hasContent());
        page.resize(1400, 900);
        page.show();
        QSignalSpy shownSpy(&page, &RooflinePage::rooflineShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 1, 20000);
        QVERIFY(page.hasContent());
        QAbstractItemModelTester tester(page.table()->model());

        const auto *r = page.roofline();
        QVERIFY(r && r->device);
        QCOMPARE(r->device->name, std::string("NVIDIA H100 SXM5 80GB"));
        QVERIFY(page.summary()->text().contains(QStringLiteral("NVIDIA H100 SXM5 80GB")));
        // Every row of known work with an intensity is a point, where its figures put it.
        std::size_t placed = 0;
        for (const auto &row : r->rows)
            placed += row.known() && row.intensity > 0 ? 1 : 0;
        const auto &points = page.plot()->points();
        QCOMPARE(points.size(), placed);
        QVERIFY(placed >= 4);
        for (const auto &point : points) {
            const auto it = std::find_if(r->rows.begin(), r->rows.end(),
                                         [&](const auto &row) { return QString::fromStdString(row.name) == point.name; });
            QVERIFY(it != r->rows.end());
            QCOMPARE(point.intensity, it->intensity);
            QCOMPARE(point.flops, it->achievedFlops);
            QCOMPARE(point.bound, it->bound);
        }
        // The roofs: BF16 matrix for the products, FP32 vector for the rest, on HBM's bandwidth.
        QVERIFY(page.plot()->roofs().size() >= 2);
        QCOMPARE(page.plot()->roofs().front().peakFlops, 989.4e12);
        QCOMPARE(page.plot()->roofs().front().bandwidth, 3350e9);

        // The table: one row per roofline row; unknown work says so.
        QCOMPARE(page.table()->model()->rowCount(), int(r->rows.size()));
        bool sawUnknown = false;
        for (int row = 0; row < page.table()->model()->rowCount(); ++row) {
            const auto &source = r->rows[std::size_t(row)];
            QCOMPARE(cell(page.table(), row, QStringLiteral("Op")).toString(), QString::fromStdString(source.name));
            if (!source.known()) {
                sawUnknown = true;
                QCOMPARE(shown(page.table(), row, QStringLiteral("GFLOP")), QStringLiteral("unknown"));
                QCOMPARE(shown(page.table(), row, QStringLiteral("Bound")), QStringLiteral("unknown"));
            } else {
                QCOMPARE(shown(page.table(), row, QStringLiteral("Roof")),
                         QString::fromUtf8(analysis::precisionName(source.roof->precision).data()));
                // Rows are apart by dtype, which the table names shortly: bert's products run in bf16.
                const auto dtype = shown(page.table(), row, QStringLiteral("Dtype"));
                QCOMPARE(dtype, source.dtype == "c10::BFloat16" ? QStringLiteral("bf16")
                                : source.dtype == "float"       ? QStringLiteral("fp32")
                                                                : QString::fromStdString(source.dtype));
            }
        }
        QVERIFY(sawUnknown); // bert's embedding lookups and copies have no formula

        // Hovering a point names it; clicking one selects its row.
        QCoreApplication::processEvents();
        const auto at = page.plot()->pointPosition(0);
        QCOMPARE(page.plot()->pointAt(at), 0);
        QVERIFY(page.plot()->tooltip(0).contains(points.front().name));
        QSignalSpy selected(&page, &RooflinePage::rowEventsSelected);
        QTest::mouseClick(page.plot()->plot(), Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().at(1).toString(), points.front().name);
        const auto current = page.table()->view()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.siblingAtColumn(0).data().toString(), points.front().name);
        maybeGrab(page, QStringLiteral("roofline-h100-bert.png"));

        // Another device moves the roofs and the shares of them.
        const double before = r->rows.front().percentOfRoof;
        page.deviceChooser()->setCurrentIndex(page.deviceChooser()->findText(QStringLiteral("NVIDIA A100 SXM4 80GB")));
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 2, 20000);
        QCOMPARE(page.roofline()->device->name, std::string("NVIDIA A100 SXM4 80GB"));
        QCOMPARE(page.plot()->roofs().front().peakFlops, 312e12);
        QVERIFY(page.roofline()->rows.front().percentOfRoof > before);
    }

    // The MI250 trace names its device "AMD Radeon Graphics": no roof, until Preferences give one.
    // The plot's key says what the points' colours mean, drawn in those colours.
    void keyNamesTheColours()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        RooflinePage page(&workspace, &jobs);
        page.resize(1400, 900);
        page.show();
        QSignalSpy shownSpy(&page, &RooflinePage::rooflineShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 1, 20000);
        auto *key = page.plot()->key();
        QVERIFY(key->isVisibleTo(&page));
        for (const auto *word : {"memory-bound", "compute-bound", "bound unknown", "share of the time"})
            QVERIFY2(key->text().contains(QLatin1String(word)), word);
        // Above the plot, one line high.
        QVERIFY(key->geometry().bottom() <= page.plot()->plot()->geometry().top());
        QVERIFY(key->height() < 3 * key->fontMetrics().height());
        const QImage image = key->grab().toImage();
        for (const auto bound : {analysis::Bound::Memory, analysis::Bound::Compute, analysis::Bound::Unknown}) {
            const QColor colour = plots::RooflinePlot::boundColor(bound);
            int pixels = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    pixels += image.pixelColor(x, y) == colour;
            QVERIFY2(pixels >= 4, qPrintable(colour.name()));
        }
        maybeGrab(page, QStringLiteral("roofline-key.png"));
    }

    void unknownDeviceTakesThePreferencesRoof()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        RooflinePage page(&workspace, &jobs);
        page.resize(1200, 800);
        page.show();
        QSignalSpy shownSpy(&page, &RooflinePage::rooflineShown);
        workspace.openTrace(kMi250);
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 1, 20000);
        QVERIFY(!page.roofline()->device);
        QVERIFY(page.summary()->text().contains(QStringLiteral("unknown")));
        QVERIFY(page.plot()->roofs().empty());
        QVERIFY(!page.plot()->points().empty()); // achieved figures need no roof

        Preferences preferences;
        preferences.roofDevice = QStringLiteral("custom");
        preferences.roofPeakTflops = 180;
        preferences.roofBandwidthGbs = 1600;
        page.setFallbackDevice(fallbackRoof(preferences));
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 2, 20000);
        QVERIFY(page.roofline()->device);
        QCOMPARE(page.roofline()->device->bandwidth, 1600e9);
        QCOMPARE(page.plot()->roofs().front().peakFlops, 180e12);
        for (const auto &row : page.roofline()->rows)
            if (row.known() && row.intensity > 0)
                QVERIFY(row.bound != analysis::Bound::Unknown);
        maybeGrab(page, QStringLiteral("roofline-mi250-custom.png"));

        preferences.roofDevice = QStringLiteral("MI250X");
        QCOMPARE(fallbackRoof(preferences)->name, std::string("AMD Instinct MI250X (per GCD)"));
        preferences.roofDevice.clear();
        QVERIFY(!fallbackRoof(preferences));
    }

    // Rows: GPU kernels puts each kernel under the roof with its launching op; by shape adds the
    // input dims; the advice names the memory-bound chains.
    void kernelAndShapeRows()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        RooflinePage page(&workspace, &jobs);
        page.resize(1400, 900);
        page.show();
        QSignalSpy shownSpy(&page, &RooflinePage::rooflineShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 1, 20000);
        const std::size_t opRows = page.roofline()->rows.size();
        for (const auto &chain : page.roofline()->chains)
            if (double(chain.timeNs) >= 0.05 * double(page.roofline()->totalNs))
                QVERIFY2(page.advice()->text().contains(QString::fromStdString(analysis::chainName(chain)).toHtmlEscaped()),
                         qPrintable(page.advice()->text()));

        page.rowChooser()->setCurrentIndex(RooflinePage::KernelRows);
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 2, 20000);
        const auto *r = page.roofline();
        QCOMPARE(page.table()->model()->rowCount(), int(r->rows.size()));
        QVERIFY(page.table()->model()->tree().columnIndex(QStringLiteral("Kernel")) == 0);
        int gemms = 0;
        for (int row = 0; row < page.table()->model()->rowCount(); ++row) {
            const auto &source = r->rows[std::size_t(row)];
            QCOMPARE(cell(page.table(), row, QStringLiteral("Kernel")).toString(), QString::fromStdString(source.name));
            QCOMPARE(cell(page.table(), row, QStringLiteral("Launching op")).toString(), QString::fromStdString(source.launcher));
            if (source.known() && source.launcher == "aten::linear") {
                ++gemms;
                QCOMPARE(source.roof->precision, analysis::Precision::BF16);
            }
        }
        QVERIFY(gemms >= 1);
        QCOMPARE(page.plot()->points().size(),
                 std::size_t(std::count_if(r->rows.begin(), r->rows.end(), [](const auto &row) { return row.known() && row.intensity > 0; })));
        maybeGrab(page, QStringLiteral("roofline-kernels-h100-bert.png"));

        page.rowChooser()->setCurrentIndex(RooflinePage::ShapeRows);
        QTRY_COMPARE_WITH_TIMEOUT(shownSpy.count(), 3, 20000);
        QVERIFY(page.roofline()->rows.size() >= opRows);
        const int shapeColumn = page.table()->model()->tree().columnIndex(QStringLiteral("Input shape"));
        QCOMPARE(shapeColumn, 1);
        QCOMPARE(cell(page.table(), 0, QStringLiteral("Input shape")).toString(),
                 QString::fromStdString(page.roofline()->rows.front().shape));
    }

    void pageIsTheTenth()
    {
        QCOMPARE(kAllPages.at(9), Page::Roofline); // the tenth: Ctrl+0
        QCOMPARE(pageFromName(QStringLiteral("roofline")), std::optional<Page>(Page::Roofline));
        QCOMPARE(pageTitle(Page::Roofline), QStringLiteral("Roofline"));
    }
};

QTEST_MAIN(TestRooflinePage)
#include "tst_rooflinepage.moc"
