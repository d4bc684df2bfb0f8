// The Memory page: curves per device with the peak marked at the golden value, the allocating
// ops table, and the empty state of a trace without memory events.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QTreeView>

#include <qcustomplot.h>

#include "../core/analysis/analysistestutil.h"
#include "ui/jobs/jobtracker.h"
#include "ui/memory/memorypage.h"
#include "ui/plots/memorycurveplot.h"
#include "ui/shell/emptystate.h"
#include "ui/tables/moduletree.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletreemodel.h"
#include "ui/workspace/workspace.h"

using namespace pyrometer;
using namespace pyrometer::ui;
using pyrometer::analysis::testing::goldenPath;
using pyrometer::analysis::testing::readCsv;

namespace {

const QString kBert = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
const QString kAlexnet =
    QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/benchmark_result_2869224_1695835535_trace.json.gz");

} // namespace

class TestMemoryPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsCurvesWithThePeakMarked()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        MemoryPage page(&workspace, &jobs);
        QVERIFY(!page.hasContent());
        QVERIFY(page.emptyState()->hint().contains(QStringLiteral("Ctrl+O")));
        page.resize(1200, 900);
        page.show();
        QSignalSpy shown(&page, &MemoryPage::memoryShown);
        workspace.openTrace(kBert);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QVERIFY(page.hasContent() && !page.showsNoMemory());

        // Allocated and reserved curves of cpu and cuda:0 (this trace gives Total Reserved).
        const auto expected = readCsv(goldenPath("h100_bert", ".memory.csv"));
        QCOMPARE(page.report().devices.size(), expected.size() - 1);
        auto *plot = page.curves()->plot();
        QCOMPARE(plot->graphCount(), 4);
        QCOMPARE(plot->graph(3)->name(), QStringLiteral("cuda:0 reserved"));
        QVERIFY(plot->graph(0)->data()->size() > 1);
        const auto &peaks = page.curves()->peaks();
        QCOMPARE(peaks.size(), expected.size() - 1);
        const double origin = double(workspace.traces().begin()->second->trace->info.spanStart);
        for (std::size_t d = 0; d < peaks.size(); ++d) {
            QCOMPARE(peaks[d].device.toStdString(), expected[d + 1][0]);
            QCOMPARE(peaks[d].bytes, double(std::stoll(expected[d + 1][1])));
            QVERIFY(peaks[d].label.contains(QStringLiteral("peak")));
            QCOMPARE(peaks[d].timeMs, (double(page.report().devices[d].peakTimeNs) - origin) / 1e6);
        }
        // The markers sit on the curves at the peak: a tracer per device, at the peak's level.
        int tracers = 0;
        for (int i = 0; i < plot->itemCount(); ++i) {
            auto *tracer = qobject_cast<QCPItemTracer *>(plot->item(i));
            if (!tracer)
                continue;
            const auto &peak = peaks[std::size_t(tracers)];
            QCOMPARE(tracer->position->key(), peak.timeMs);
            QVERIFY(std::abs(tracer->position->value() * page.curves()->bytesPerUnit() - peak.bytes) < 1.0);
            ++tracers;
        }
        QCOMPARE(tracers, int(peaks.size()));

        // The allocating ops, with what they held at the peak (this trace has addresses).
        auto *model = page.opsPane()->model();
        QVERIFY(model->rowCount() > 5);
        QVERIFY(model->tree().columnIndex(tables::column::kHeldAtPeak) >= 0);
        QSignalSpy selected(&page, &MemoryPage::rowEventsSelected);
        auto *view = page.opsPane()->view();
        view->setCurrentIndex(view->model()->index(0, 0));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(1).toString(), view->model()->index(0, 0).data().toString());
    }

    void traceWithoutMemoryEventsSaysHowToRecordThem()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        MemoryPage page(&workspace, &jobs);
        QSignalSpy shown(&page, &MemoryPage::memoryShown);
        workspace.openTrace(kAlexnet);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        QVERIFY(page.hasContent());
        QVERIFY(page.showsNoMemory());
        QVERIFY(page.noMemoryState()->hint().contains(QStringLiteral("profile_memory=True")));
        QVERIFY(page.noMemoryState()->description().contains(QStringLiteral("profile_memory=True")));
    }
};

QTEST_MAIN(TestMemoryPage)
#include "tst_memorypage.moc"
