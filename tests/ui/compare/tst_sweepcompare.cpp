// The Sweep tab and the Compare page end to end, on the fixture's small models: points reach
// the plots while the sweep still runs, exports are written, the compare tables fill. Each
// view is grabbed to a PNG in the temporary directory (pyrometer-sweep-tab.png,
// pyrometer-compare-*.png) for a look.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QRegularExpression>

#include <qcustomplot.h>

#include "core/analysis/flamegraph.h"
#include "core/analysis/flametree.h"
#include "core/analysis/traceindex.h"
#include "core/torch/modelfile.h"
#include "core/torch/session.h"
#include "ui/compare/comparepage.h"
#include "ui/shell/preferences.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/model/modelpage.h"
#include "ui/model/sweepview.h"
#include "ui/plots/sweepplots.h"
#include "ui/report/pagesections.h"
#include "ui/workspace/workspace.h"

#include "comparetestutil.h"

#include <algorithm>

using namespace pyrometer;
using namespace pyrometer::ui;
using namespace pyrometer::ui::testing;

namespace {

const QString kSmallCnn = QStringLiteral(PYROMETER_TEST_MODELS_DIR "/small_cnn.pt");

// The cells of a model's column, keyed by the name in nameColumn.
QMap<QString, QString> columnByName(const QAbstractItemModel *model, int nameColumn, int column)
{
    QMap<QString, QString> cells;
    for (int row = 0; row < model->rowCount(); ++row)
        cells.insert(model->index(row, nameColumn).data().toString(), model->index(row, column).data().toString());
    return cells;
}

} // namespace

class TestSweepCompare : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_sweepcompare"));
        QSettings().clear();
        QVERIFY2(QFile::exists(kSmallCnn), qPrintable(kSmallCnn));
    }

    void sweepTabPlotsPointsAsTheyArrive()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ModelPage page(&workspace, &jobs);
        page.resize(1400, 900);
        page.show();
        workspace.openModel(kSmallCnn);
        QVERIFY(waitIdle(jobs));
        QCOMPARE(page.inputsEdit()->text(), QStringLiteral("1x3x32x32")); // recorded by the model
        auto *sweep = page.sweepView();
        page.resultTabs()->setCurrentWidget(sweep);
        QAbstractItemModelTester tester(sweep->pointsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        sweep->batchesEdit()->setText(QStringLiteral("1,2,4,8,16,32"));
        sweep->variantsEdit()->setText(QStringLiteral("baseline,channels_last"));
        sweep->budgetEdit()->setText(QStringLiteral("5MiB"));
        sweep->iterationsSpin()->setValue(3);
        int points = 0;
        int whileRunning = 0;
        connect(sweep, &SweepView::pointAdded, this, [&] {
            ++points;
            // A point delivered with the job's result would find the tracker idle.
            whileRunning += jobs.isIdle() ? 0 : 1;
        });
        sweep->runButton()->click();
        QVERIFY(sweep->runningJob() != 0);
        QVERIFY(!sweep->runButton()->isEnabled());
        QVERIFY(waitIdle(jobs));
        QCOMPARE(points, 12);
        QCOMPARE(whileRunning, 12);
        QCOMPARE(sweep->pointsModel()->rowCount(), 12);
        QVERIFY(sweep->runButton()->isEnabled());

        auto *plots = sweep->plots();
        QCOMPARE(plots->variantCount(), 2);
        for (const auto chart : {SweepPlots::Latency, SweepPlots::Throughput, SweepPlots::Memory}) {
            QCOMPARE(plots->plot(chart)->graphCount(), 2);
            QCOMPARE(plots->graph(chart, "baseline")->dataCount(), 6);
            QCOMPARE(plots->plot(chart)->xAxis->scaleType(), QCPAxis::stLogarithmic);
        }
        QVERIFY(plots->plot(SweepPlots::Memory)->itemCount() >= 2); // the budget line and its label
        // Hover: the first baseline point of the latency chart.
        auto *latency = plots->plot(SweepPlots::Latency);
        const auto first = plots->graph(SweepPlots::Latency, "baseline")->data()->constBegin();
        const QPoint at(int(latency->xAxis->coordToPixel(first->key)), int(latency->yAxis->coordToPixel(first->value)));
        // (channels_last's batch 1 may lie under the same pixels: the nearest of the two is named.)
        const QString hover = plots->hoverText(SweepPlots::Latency, at);
        QVERIFY2(hover.contains(", batch 1: ") && hover.endsWith(" ms"), qPrintable(hover));
        QVERIFY(plots->hoverText(SweepPlots::Latency, QPoint(2, 2)).isEmpty());
        const QString summary = sweep->summaryLabel()->text();
        QVERIFY2(summary.contains("<b>baseline</b>") && summary.contains("<b>channels_last</b>") && summary.contains("largest batch within 5.00 MiB"),
                 qPrintable(summary));
        // Every line shows (two variants, then a smaller note), once the layout has taken the text.
        QTRY_VERIFY(sweep->summaryLabel()->height() > 2 * sweep->summaryLabel()->fontMetrics().height());

        QTemporaryDir dir;
        QVERIFY(sweep->exportPng(dir.filePath("s.png")));
        QVERIFY(sweep->exportSvg(dir.filePath("s.svg")));
        QVERIFY(sweep->exportCsv(dir.filePath("s.csv")));
        QVERIFY(QImage(dir.filePath("s.png")).width() > 1000);
        QFile svg(dir.filePath("s.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        QFile csv(dir.filePath("s.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const auto lines = QString::fromUtf8(csv.readAll()).trimmed().split('\n');
        QCOMPARE(lines.size(), 13);
        QVERIFY2(lines[0].startsWith("Variant,Batch,Latency (ms)"), qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith("baseline,1,"), qPrintable(lines[1]));

        QVERIFY(page.grab().save(screenshotPath("sweep-tab")));
        QVERIFY(sweep->exportPng(screenshotPath("sweep-export"))); // what Export writes, for a look too

        // What the sweep adds to an exported report: the charts as a PNG and every point.
        const auto sections = sweepSections(*sweep);
        QCOMPARE(sections.size(), std::size_t(1));
        QCOMPARE(sections[0].images.size(), std::size_t(1));
        QCOMPARE(sections[0].images[0].mimeType, std::string("image/png"));
        QVERIFY(sections[0].images[0].data.starts_with("\x89PNG"));
        QCOMPARE(sections[0].tables.size(), std::size_t(1));
        QCOMPARE(int(sections[0].tables[0].rows.size()), sweep->pointsModel()->rowCount());
        QCOMPARE(sections[0].tables[0].header.front(), std::string("Variant"));
        QCOMPARE(sections[0].tables[0].rows[0][0], std::string("baseline"));
    }

    // A sweep whose peak memory nothing measured (the Python engine on the CPU) draws no memory
    // curve at 0 as if measured: the chart says "not measured", and the table says it too.
    void unmeasuredMemoryIsSaidNotDrawn()
    {
        SweepPlots plots;
        model::SweepPoint point;
        point.variant = "baseline";
        point.latency.mean = 2;
        point.throughputPerSecond = 500;
        point.peakMemoryBytes = model::SweepPoint::kNotMeasured;
        for (const std::int64_t batch : {1, 2, 4}) {
            point.batch = batch;
            plots.addPoint(point);
        }
        QVERIFY(plots.memoryUnmeasured());
        QCOMPARE(plots.graph(SweepPlots::Latency, "baseline")->dataCount(), 3);
        QCOMPARE(plots.graph(SweepPlots::Memory, "baseline")->dataCount(), 0);
        bool said = false;
        auto *memory = plots.plot(SweepPlots::Memory);
        for (int i = 0; i < memory->itemCount(); ++i)
            if (auto *text = qobject_cast<QCPItemText *>(memory->item(i)))
                said = said || text->text().contains(QStringLiteral("not measured"));
        QVERIFY(said);
        plots.clear();
        QVERIFY(!plots.memoryUnmeasured());

        const auto columns = sweepPointColumns();
        const auto peak = std::find_if(columns.begin(), columns.end(),
                                       [](const auto &c) { return c.title == QStringLiteral("Peak memory"); });
        const auto fits = std::find_if(columns.begin(), columns.end(),
                                       [](const auto &c) { return c.title == QStringLiteral("Fits budget"); });
        QVERIFY(peak != columns.end() && fits != columns.end());
        QCOMPARE(peak->display(point).toString(), QStringLiteral("not measured"));
        QCOMPARE(fits->display(point).toString(), QStringLiteral("not measured"));
        point.peakMemoryBytes = 3 << 20;
        QCOMPARE(fits->display(point).toString(), QStringLiteral("yes"));
    }

    void comparePageShowsQuantizedRecurrentLayers()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ComparePage page(&workspace, &jobs);
        page.resize(1400, 900);
        page.show();
        workspace.openModel(QStringLiteral(PYROMETER_TEST_MODELS_DIR "/recurrent.pt"));
        QVERIFY(waitIdle(jobs));
        page.variantsEdit()->setText(QStringLiteral("baseline,int8"));
        page.iterationsSpin()->setValue(3);
        page.runVariantsButton()->click();
        QVERIFY(waitIdle(jobs));
        QCOMPARE(page.variantsModel()->rowCount(), 2);
        const auto &int8 = page.variantsModel()->rows()[1];
        QVERIFY2(int8.ok(), int8.error.c_str());
        QVERIFY2(QString::fromStdString(int8.note).contains("1 LSTM and 1 GRU"), int8.note.c_str());
        // In the diff flame graph the float recurrent ops are gone and the int8 ones are new.
        const int flame = page.flameSourceCombo()->findText(QStringLiteral("baseline → int8"));
        QVERIFY(flame >= 0);
        page.flameSourceCombo()->setCurrentIndex(flame);
        const auto *graph = page.diffFlameGraph()->graph();
        QVERIFY(graph && graph->isDiff());
        const auto presenceOf = [&](const std::string &name) {
            for (std::size_t node = 1; node < graph->tree.nodes.size(); ++node)
                if (graph->tree.nodes[node].name == name)
                    return std::optional(graph->presence[node]);
            return std::optional<analysis::Presence>();
        };
        QCOMPARE(presenceOf("aten::quantized_lstm"), std::optional(analysis::Presence::OtherOnly));
        QCOMPARE(presenceOf("aten::quantized_gru"), std::optional(analysis::Presence::OtherOnly));
        // Save variant: only for a variant that ran and is more than a run setting.
        page.tabs()->setCurrentIndex(0);
        QVERIFY(!page.saveVariantButton()->isEnabled());
        auto *proxy = page.variantsView()->model();
        page.variantsView()->setCurrentIndex(proxy->index(0, 0)); // the baseline
        QVERIFY(!page.saveVariantButton()->isEnabled());
        page.variantsView()->setCurrentIndex(proxy->index(1, 0));
        QVERIFY(page.saveVariantButton()->isEnabled());
        QTemporaryDir dir;
        const QString saved = dir.filePath(QStringLiteral("recurrent_int8.pt"));
        page.saveVariant(int8.variant, saved);
        QVERIFY(waitIdle(jobs));
        QVERIFY2(page.variantsStatus()->text().startsWith(QStringLiteral("Saved int8 as")), qPrintable(page.variantsStatus()->text()));
        QVERIFY(page.variantsStatus()->text().contains(QStringLiteral("1 LSTM and 1 GRU")));
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("compare-recurrent-int8")));
        // The saved model opens like any other, with the compare's inputs recorded.
        workspace.openModel(saved);
        QVERIFY(waitIdle(jobs));
        QCOMPARE(workspace.models().size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(torch::recordedInputSpec(saved.toStdString())), QStringLiteral("2x7x32"));
        QVERIFY(page.layerNote()->text().isEmpty()); // nothing said of the previous model's variants
        page.tabs()->setCurrentIndex(2);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("compare-recurrent-int8-flame")));
    }

    // The hand-built pair of traces whose deltas were worked out by hand (tst_diff has the
    // same numbers): the page's cells, the new row's "new", and the total.
    void comparePageDiffsTheHandBuiltPair()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ComparePage page(&workspace, &jobs);
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_base.json"));
        QVERIFY(waitIdle(jobs));
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_other.json"));
        QVERIFY(waitIdle(jobs));
        QCOMPARE(page.baseTraceCombo()->currentText(), QStringLiteral("diff_base.json"));
        QCOMPARE(page.otherTraceCombo()->currentText(), QStringLiteral("diff_other.json"));
        page.diffTracesButton()->click();
        QVERIFY(waitIdle(jobs));
        auto *ops = page.opDiffModel();
        QCOMPARE(ops->rowCount(), 5);
        // Operators: name, base, other, delta, delta %, calls, in; kernels have their kind first.
        const auto base = columnByName(ops, 0, 1), other = columnByName(ops, 0, 2), delta = columnByName(ops, 0, 3),
                   percent = columnByName(ops, 0, 4), calls = columnByName(ops, 0, 5), in = columnByName(ops, 0, 6);
        const auto us = [](std::int64_t micros) { return ui::displayDuration(micros * 1000); };
        QCOMPARE(base["aten::convolution"], us(80));
        QCOMPARE(other["aten::convolution"], us(50));
        QCOMPARE(delta["aten::convolution"], QStringLiteral("\u2212") + us(30));
        QCOMPARE(percent["aten::convolution"], QStringLiteral("-37.5 %"));
        QCOMPARE(percent["aten::conv2d"], QStringLiteral("-50.0 %"));
        QCOMPARE(calls["aten::relu"], QStringLiteral("2 → 1"));
        QCOMPARE(percent["aten::relu"], QStringLiteral("-20.0 %"));
        QCOMPARE(percent["aten::gone"], QStringLiteral("-100.0 %"));
        QCOMPARE(in["aten::gone"], QStringLiteral("base only"));
        QCOMPARE(delta["aten::added"], QStringLiteral("+") + us(25));
        QCOMPARE(percent["aten::added"], QStringLiteral("new"));
        QCOMPARE(in["aten::added"], QStringLiteral("other only"));
        auto *kernels = page.kernelDiffModel();
        QCOMPARE(kernels->rowCount(), 3);
        const auto kernelPercent = columnByName(kernels, 1, 5);
        QCOMPARE(kernelPercent["kernel_a"], QStringLiteral("-40.0 %"));
        QCOMPARE(kernelPercent["kernel_b"], QStringLiteral("0.0 %"));
        QCOMPARE(kernelPercent["kernel_c"], QStringLiteral("new"));
        QCOMPARE(page.traceStatus()->text(), QStringLiteral("diff_base.json → diff_other.json: operators' self time plus device time, %1 → %2 (\u2212%3, -19.6 %)")
                                                 .arg(us(230), us(185), us(45)));
    }

    // Before → after: the trace recorded first is the base whichever finished loading first;
    // choosing another pair clears the deltas on screen; Base = Other is refused.
    void tracePairIsBeforeAfterAndNeverStale()
    {
        QTemporaryDir dir;
        // The same two traces moved to wall-clock times, the later one opened first.
        const auto shifted = [&](const QString &from, const QString &to, qint64 offsetUs) {
            QFile in(from);
            if (!in.open(QIODevice::ReadOnly))
                return false;
            QString text = QString::fromUtf8(in.readAll());
            static const QRegularExpression ts(QStringLiteral("\"ts\": (\\d+)"));
            QString out;
            qsizetype last = 0;
            for (auto it = ts.globalMatch(text); it.hasNext();) {
                const auto m = it.next();
                out += text.mid(last, m.capturedStart(1) - last) + QString::number(m.captured(1).toLongLong() + offsetUs);
                last = m.capturedEnd(1);
            }
            out += text.mid(last);
            QFile file(to);
            return file.open(QIODevice::WriteOnly) && file.write(out.toUtf8()) > 0;
        };
        const qint64 epochUs = 1'700'000'000'000'000;
        QVERIFY(shifted(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_base.json"), dir.filePath("monday.json"), epochUs));
        QVERIFY(shifted(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_other.json"), dir.filePath("tuesday.json"),
                        epochUs + 86'400'000'000));
        JobTracker jobs;
        Workspace workspace(&jobs);
        ComparePage page(&workspace, &jobs);
        workspace.openTrace(dir.filePath("tuesday.json"));
        QVERIFY(waitIdle(jobs));
        workspace.openTrace(dir.filePath("monday.json"));
        QVERIFY(waitIdle(jobs));
        QCOMPARE(page.baseTraceCombo()->currentText(), QStringLiteral("monday.json"));
        QCOMPARE(page.otherTraceCombo()->currentText(), QStringLiteral("tuesday.json"));
        page.diffTracesButton()->click();
        QVERIFY(waitIdle(jobs));
        QCOMPARE(page.opDiffModel()->rowCount(), 5);
        QVERIFY(page.traceStatus()->text().startsWith(QStringLiteral("monday.json → tuesday.json")));
        // Swapping the direction clears the old deltas rather than leaving them under new names.
        page.baseTraceCombo()->setCurrentIndex(page.otherTraceCombo()->currentIndex());
        QCOMPARE(page.opDiffModel()->rowCount(), 0);
        QVERIFY(!page.diffTracesButton()->isEnabled());
        QVERIFY(page.traceStatus()->text().contains(QStringLiteral("same trace")));
        page.otherTraceCombo()->setCurrentIndex(page.otherTraceCombo()->findData(workspace.traceIdOf(dir.filePath("monday.json"))));
        QVERIFY(page.diffTracesButton()->isEnabled());
        page.diffTracesButton()->click();
        QVERIFY(waitIdle(jobs));
        const auto delta = columnByName(page.opDiffModel(), 0, 3);
        QCOMPARE(delta["aten::convolution"], QStringLiteral("+") + ui::displayDuration(30'000)); // after → before
    }

    void comparePageFillsItsTables()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ComparePage page(&workspace, &jobs);
        page.resize(1400, 900);
        page.show();
        QVERIFY(!page.runVariantsButton()->isEnabled());
        QAbstractItemModelTester variantsTester(page.variantsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester layersTester(page.layerModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        workspace.openModel(kSmallCnn);
        QVERIFY(waitIdle(jobs));
        QVERIFY(page.runVariantsButton()->isEnabled());
        page.variantsEdit()->setText(QStringLiteral("baseline,frozen,channels_last,int8,bf16,threads=1,int8_static"));
        page.iterationsSpin()->setValue(3);
        page.runVariantsButton()->click();
        QVERIFY(waitIdle(jobs));
        QVERIFY2(page.variantsStatus()->text().startsWith(
                     QStringLiteral("Inputs 1x3x32x32, as the model records them. Energy")),
                 qPrintable(page.variantsStatus()->text()));
        auto *variants = page.variantsModel();
        QCOMPARE(variants->rowCount(), 7);
        QCOMPARE(variants->rows()[0].name, std::string("baseline"));
        QVERIFY(variants->rows()[1].ok() && *variants->rows()[1].maxAbsDiff < 1e-4);
        QVERIFY2(variants->rows()[6].ok(), variants->rows()[6].error.c_str()); // int8_static, calibrated
        QVERIFY(QString::fromStdString(variants->rows()[6].note).contains("int8 static"));
        QCOMPARE(page.layerVariantCombo()->count(), 6); // every variant that ran
        page.layerVariantCombo()->setCurrentText(QStringLiteral("channels_last"));
        // Each variant's profiled operators against the baseline's, as a diff flame graph; the
        // chooser lists them and shows the one picked.
        QVERIFY(page.flameSourceCombo()->count() >= 1);
        const int channelsLast = page.flameSourceCombo()->findText(QStringLiteral("baseline → channels_last"));
        QVERIFY(channelsLast >= 0);
        page.flameSourceCombo()->setCurrentIndex(channelsLast);
        const auto *variantFlame = page.diffFlameGraph()->graph();
        QVERIFY(variantFlame && variantFlame->isDiff());
        QVERIFY(variantFlame->base[0].totalNs > 0 && variantFlame->tree.nodes[0].totalNs > 0);
        // The same CNN in another memory format runs the same convolutions: matched by path.
        bool convolutionMatched = false;
        for (std::size_t node = 1; node < variantFlame->tree.nodes.size(); ++node)
            convolutionMatched = convolutionMatched || (variantFlame->presence[node] == analysis::Presence::Both &&
                                                        variantFlame->tree.nodes[node].name.find("conv") != std::string::npos);
        QVERIFY(convolutionMatched);
        page.tabs()->setCurrentIndex(2);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("compare-variant-flame")));
        page.tabs()->setCurrentIndex(0);
        QVERIFY(page.layerModel()->rowCount() >= 8); // the model and its seven leaf modules
        QVERIFY(page.layerModel()->rows()[1].inBase && page.layerModel()->rows()[1].inOther);
        // Sorted by delta (column 4), the view's first row has the smallest delta.
        page.layerView()->sortByColumn(4, Qt::AscendingOrder);
        const auto *proxy = page.layerView()->model();
        QVERIFY(proxy->index(0, 4).data(LayerDeltaModel::SortRole).toDouble() <= proxy->index(1, 4).data(LayerDeltaModel::SortRole).toDouble());
        QTest::qWait(50); // the layout takes the new rows
        QVERIFY(page.grab().save(screenshotPath("compare-variants")));

        // Two traces: op and kernel deltas.
        QVERIFY(!page.diffTracesButton()->isEnabled());
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/torch_cpu_cnn.json"));
        QVERIFY(waitIdle(jobs));
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/before_fix_trace.json"));
        QVERIFY(waitIdle(jobs));
        QVERIFY(page.diffTracesButton()->isEnabled());
        QAbstractItemModelTester opsTester(page.opDiffModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.diffTracesButton()->click();
        QVERIFY(waitIdle(jobs));
        QVERIFY(page.opDiffModel()->rowCount() > 5);
        QVERIFY2(page.traceStatus()->text().contains(": operators' self time plus device time, "), qPrintable(page.traceStatus()->text()));
        page.tabs()->setCurrentIndex(1);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("compare-traces")));
        // The diff flame graph: widths from the other trace, the base's values beside them,
        // each root's total that of its own trace's flame tree (steps merged, no thread level).
        QCOMPARE(page.tabs()->tabText(2), QStringLiteral("Diff flame graph"));
        const auto *graph = page.diffFlameGraph()->graph();
        QVERIFY(graph && graph->isDiff());
        QCOMPARE(graph->base.size(), graph->tree.nodes.size());
        const auto rootTotal = [](const TraceDocument &document) {
            const auto index = analysis::buildTraceIndex(*document.trace);
            analysis::FlameOptions options;
            options.threadRoots = false;
            return analysis::mergeProfilerSteps(analysis::buildFlameTree(*index, options)).nodes[0].totalNs;
        };
        QCOMPARE(graph->base[0].totalNs, rootTotal(*workspace.traces().begin()->second));
        QCOMPARE(graph->tree.nodes[0].totalNs, rootTotal(*std::next(workspace.traces().begin())->second));
        QVERIFY(graph->base[0].totalNs != graph->tree.nodes[0].totalNs);
        QVERIFY(std::count(graph->presence.begin(), graph->presence.end(), analysis::Presence::OtherOnly) > 0);
        page.tabs()->setCurrentIndex(2);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("compare-flame")));

        // What the page adds to an exported report: the variants, then the two traces' deltas
        // with the diff flame graph.
        const auto sections = compareSections(page);
        QCOMPARE(sections.size(), std::size_t(2));
        QCOMPARE(sections[0].id, std::string("variants"));
        QCOMPARE(int(sections[0].tables[0].rows.size()), page.variantsModel()->rowCount());
        QCOMPARE(sections[1].id, std::string("trace-diff"));
        QCOMPARE(sections[1].images.size(), std::size_t(1));
        QVERIFY(sections[1].images[0].data.starts_with("\x89PNG"));
        QCOMPARE(int(sections[1].tables[0].rows.size()), std::min(25, page.opDiffModel()->rowCount()));

        // The setup round-trips through a session's "comparison" field: a second page over
        // the same workspace takes the variants, inputs, runs and the two traces, swapped here.
        page.baseTraceCombo()->setCurrentIndex(1);
        page.otherTraceCombo()->setCurrentIndex(0);
        page.inputsEdit()->setText(QStringLiteral("2x3x32x32"));
        const auto state = nlohmann::json::parse(page.saveState().dump());
        ComparePage restored(&workspace, &jobs);
        restored.restoreState(state);
        QCOMPARE(restored.variantsEdit()->text(), page.variantsEdit()->text());
        QCOMPARE(restored.inputsEdit()->text(), QStringLiteral("2x3x32x32"));
        QCOMPARE(restored.iterationsSpin()->value(), page.iterationsSpin()->value());
        QCOMPARE(restored.baseTraceCombo()->currentIndex(), 1);
        QCOMPARE(restored.otherTraceCombo()->currentIndex(), 0);
    }
};

QTEST_MAIN(TestSweepCompare)
#include "tst_sweepcompare.moc"
