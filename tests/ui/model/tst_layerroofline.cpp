// The Model page's Roofline tab: small_cnn's layers through batch 1, 8 and 64 under this machine's
// measured roof (cached where the test says): trajectories of the heaviest layers, the table of
// every layer at every batch, FLOPs that grow with the batch; bad batch sizes said, not run.
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "../maybegrab.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/layerrooflineview.h"
#include "ui/model/modelpage.h"
#include "ui/plots/rooflineplot.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/workspace/workspace.h"

#include <map>
#include <set>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kSmallCnn = QStringLiteral(PYROMETER_TEST_MODELS_DIR "/small_cnn.pt");

const analysis::RooflineRow *layer(const model::BatchRoofline &batch, const std::string &name)
{
    for (const auto &row : batch.roofline.rows)
        if (row.name == name)
            return &row;
    return nullptr;
}

} // namespace

class TestLayerRoofline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void layersAcrossBatchSizes()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ModelPage page(&workspace, &jobs);
        page.resize(1400, 900);
        page.show();
        // Before a model, and before a run, the tab says what to do rather than stay empty.
        QVERIFY(page.rooflineView()->summaryLabel()->text().contains(QStringLiteral("Open a model")));
        workspace.openModel(kSmallCnn);
        QVERIFY(QTest::qWaitFor([&] { return jobs.isIdle() && page.hasContent(); }, 60'000));
        auto *view = page.rooflineView();
        QVERIFY(view->runButton()->isEnabled());
        QVERIFY2(view->summaryLabel()->text().contains(QStringLiteral("Run roofline")),
                 qPrintable(view->summaryLabel()->text()));
        page.findChild<QTabWidget *>()->setCurrentWidget(view);
        maybeGrab(page, QStringLiteral("model-roofline-before-run.png"));
        QTemporaryDir cache;
        view->setCpuRoofCache(cache.filePath("cpu-roof.json").toStdString());

        // Bad batch sizes are said, and nothing runs.
        view->batchesEdit()->setText(QStringLiteral("1,0"));
        view->runButton()->click();
        QVERIFY(view->statusLabel()->text().contains(QStringLiteral("Batch sizes")));
        QVERIFY(jobs.isIdle());

        page.inputsEdit()->setText(QStringLiteral("Bx3x32x32"));
        view->batchesEdit()->setText(QStringLiteral("1,8,64"));
        QSignalSpy shown(view, &LayerRooflineView::rooflineShown);
        view->runButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 120'000);
        QTRY_VERIFY(view->runButton()->isEnabled());
        const auto *result = view->result();
        QVERIFY(result && result->device);
        QVERIFY(result->device->measured);
        QVERIFY(QFile::exists(cache.filePath("cpu-roof.json")));
        QCOMPARE(result->batches.size(), std::size_t(3));
        QCOMPARE(result->batches[1].batch, 8);

        // conv1: 16 x 3 x 3 x 3 MACs per output element of 16 x 32 x 32, plus the bias.
        const double perSample = 2.0 * 16 * 32 * 32 * 3 * 9 + 16 * 32 * 32;
        for (const auto &batch : result->batches) {
            const auto *conv = layer(batch, "conv1");
            QVERIFY(conv);
            QCOMPARE(conv->shape, std::string("Conv2d"));
            QCOMPARE(conv->flops, double(batch.batch) * perSample);
            QVERIFY(conv->roof);
            QVERIFY(conv->percentOfRoof > 0);
        }

        // The plot: the measured roof, the cache's above it (where the cache copy beat main memory),
        // and each heavy layer's points joined across the batches.
        const bool cacheRoof = result->device->cacheBandwidth > 0;
        QCOMPARE(view->plot()->roofs().size(), std::size_t(cacheRoof ? 2 : 1));
        QCOMPARE(view->plot()->roofs().front().peakFlops, result->device->vectorFlops);
        QCOMPARE(view->plot()->roofs().front().bandwidth, result->device->bandwidth);
        if (cacheRoof) {
            QVERIFY(result->device->cacheBandwidth > result->device->bandwidth);
            QCOMPARE(view->plot()->roofs().back().bandwidth, result->device->cacheBandwidth);
            QVERIFY(view->plot()->roofs().back().label.contains(QStringLiteral("cache")));
        }
        std::map<int, std::set<QString>> series;
        for (const auto &point : view->plot()->points()) {
            QVERIFY(point.series >= 0 && point.series < int(LayerRooflineView::kTrajectories));
            series[point.series].insert(point.name.section(QLatin1Char(' '), 0, 0));
            QVERIFY(point.name.contains(QStringLiteral("(batch ")));
        }
        QVERIFY(series.size() >= 3);
        for (const auto &[index, names] : series)
            QCOMPARE(names.size(), std::size_t(1)); // one layer per series

        // The table: every leaf layer at every batch.
        std::size_t rows = 0;
        for (const auto &batch : result->batches)
            rows += batch.roofline.rows.size();
        QCOMPARE(std::size_t(view->table()->model()->rowCount()), rows);
        QVERIFY(view->summaryLabel()->text().contains(QStringLiteral("Compute-bound")));
        QTest::qWait(50); // the plot's queued replot at its new size
        maybeGrab(page, QStringLiteral("model-roofline-small-cnn.png"));
    }
};

QTEST_MAIN(TestLayerRoofline)
#include "tst_layerroofline.moc"
