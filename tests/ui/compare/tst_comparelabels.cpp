// What the Compare page's figures are, on the page and in the report: the variants' latency of
// the timed runs, the per-layer forward time of the profiled runs and the diff flame graph of
// the profiled operators per forward pass (the per-layer table's model row); the two traces
// named base and other with their own diff flame graph; a sweep that did not finish said so.
// And the Compare page takes the Model page's inputs, naming the Inputs field when there are
// none. Each tab is grabbed to a PNG in the temporary directory (pyrometer-labels-*.png).
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "core/model/inputshint.h"
#include "core/report/reportrender.h"
#include "core/torch/session.h"
#include "ui/compare/comparepage.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/model/modelpage.h"
#include "ui/model/sweepview.h"
#include "ui/report/pagesections.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"
#include "ui/workspace/workspace.h"

#include <algorithm>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kSmallCnn = QStringLiteral(PYROMETER_TEST_MODELS_DIR "/small_cnn.pt");
const QString kNoInputs = QStringLiteral(PYROMETER_FIXTURES_DIR "/models/tiny_scripted.pt"); // records no inputs
const QString kBase = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_base.json");
const QString kOther = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_other.json");

bool waitIdle(JobTracker &jobs, int ms = 120'000)
{
    return QTest::qWaitFor([&] { return jobs.isIdle(); }, ms);
}

QString screenshotPath(const QString &name)
{
    static QTemporaryDir scratch;
    const auto kept = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR");
    return QDir(kept.isEmpty() ? scratch.path() : kept).filePath(QStringLiteral("pyrometer-labels-%1.png").arg(name));
}

QImage decodedPng(const report::Image &image)
{
    return QImage::fromData(reinterpret_cast<const uchar *>(image.data.data()), int(image.data.size()), "PNG")
        .convertToFormat(QImage::Format_RGB32);
}

// A diff flame graph drawn as the report draws it: its whole rows, 1000 pixels wide.
QImage drawnRows(const std::shared_ptr<const analysis::FlameGraph> &graph)
{
    flamegraph::FlameGraphView view;
    view.setGraph(graph);
    view.setColorMode(flamegraph::FlameColorMode::ByChange);
    return view.contentImage(1000, 1400).convertToFormat(QImage::Format_RGB32);
}

const report::Section *sectionWithId(const std::vector<report::Section> &sections, const std::string &id)
{
    const auto at = std::find_if(sections.begin(), sections.end(), [&](const auto &s) { return s.id == id; });
    return at == sections.end() ? nullptr : &*at;
}

// Runs the compare of page's model on variants, three timed runs each.
bool runCompare(ComparePage &page, JobTracker &jobs, const QString &variants)
{
    page.variantsEdit()->setText(variants);
    page.iterationsSpin()->setValue(3);
    page.runVariantsButton()->click();
    return waitIdle(jobs);
}

// A Compare page on its own workspace, shown at a size for screenshots.
struct ShownPage {
    JobTracker jobs;
    Workspace workspace{&jobs};
    ComparePage page{&workspace, &jobs};

    ShownPage()
    {
        page.resize(1400, 900);
        page.show();
    }
    // Opens the small CNN and compares those of its variants.
    bool compareSmallCnn(const QString &variants)
    {
        workspace.openModel(kSmallCnn);
        return waitIdle(jobs) && runCompare(page, jobs, variants);
    }
};

} // namespace

class TestCompareLabels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_comparelabels"));
        QSettings().clear();
        for (const auto &file : {kSmallCnn, kNoInputs, kBase, kOther})
            QVERIFY2(QFile::exists(file), qPrintable(file));
    }

    // Timed runs, profiled runs, profiled operators: each figure says which, and the diff
    // flame graph's totals are the per-layer table's model row.
    void variantFiguresSayWhatTheyMeasure()
    {
        ShownPage shown;
        auto &[jobs, workspace, page] = shown;
        QVERIFY(shown.compareSmallCnn(QStringLiteral("baseline,int8_static")));
        QCOMPARE(page.variantsModel()->rowCount(), 2);
        QVERIFY2(page.variantsModel()->rows()[1].ok(), page.variantsModel()->rows()[1].error.c_str());

        const auto header = [](const QAbstractItemModel *model, int column, int role = Qt::DisplayRole) {
            return model->headerData(column, Qt::Horizontal, role).toString();
        };
        QCOMPARE(header(page.variantsModel(), 1), QStringLiteral("Latency (timed runs, mean ms)"));
        QVERIFY(header(page.variantsModel(), 1, Qt::ToolTipRole).contains(QStringLiteral("without the profiler")));
        QCOMPARE(header(page.variantsModel(), 2), QStringLiteral("p90 (timed runs, ms)"));
        QCOMPARE(header(page.layerModel(), 2), QStringLiteral("Baseline forward (profiled runs, ms)"));
        QCOMPARE(header(page.layerModel(), 3), QStringLiteral("Variant forward (profiled runs, ms)"));
        QVERIFY(header(page.layerModel(), 3, Qt::ToolTipRole).contains(QStringLiteral("overhead")));
        const QString note = page.layerNote()->text();
        QVERIFY2(note.contains(QStringLiteral("mean of 3 profiled runs with the profiler's overhead")), qPrintable(note));

        // int8_static inlines its modules: the model row is its whole forward pass.
        page.layerVariantCombo()->setCurrentText(QStringLiteral("int8_static"));
        const auto *layers = page.layerModel();
        QCOMPARE(layers->index(0, 0).data().toString(), QStringLiteral("(model)"));
        const QString baseForward = layers->index(0, 2).data().toString();
        const QString variantForward = layers->index(0, 3).data().toString();

        QCOMPARE(page.flameSourceCombo()->currentText(), QStringLiteral("baseline → int8_static"));
        const auto flame = page.variantFlame();
        QCOMPARE(flame.title, QStringLiteral("baseline → int8_static"));
        QCOMPARE(flame.graph.get(), page.diffFlameGraph()->graph());
        // Per forward pass: the root is the profiled forward time, as the model row has it.
        QVERIFY(std::abs(double(flame.graph->base[0].totalNs) / 1e6 - layers->rows()[0].baseMs) < 0.002);
        QVERIFY(std::abs(double(flame.graph->tree.nodes[0].totalNs) / 1e6 - layers->rows()[0].otherMs) < 0.002);
        const QString caption = page.flameCaption()->text();
        for (const QString &words : {QStringLiteral("profiled operators per forward pass"), QStringLiteral("mean of 3 profiled runs"),
                                     QStringLiteral("with the profiler's overhead"), QStringLiteral("(model) row of the per-layer table")})
            QVERIFY2(caption.contains(words), qPrintable(caption));
        // The caption's "base → variant ms" are the table's cells (to the last digit shown,
        // whose rounding may differ).
        const auto figures = QRegularExpression(QStringLiteral("overhead: ([0-9.]+) → ([0-9.]+) ms")).match(caption);
        QVERIFY2(figures.hasMatch(), qPrintable(caption));
        QVERIFY2(std::abs(figures.captured(1).toDouble() - baseForward.toDouble()) < 0.0015, qPrintable(baseForward + " | " + caption));
        QVERIFY2(std::abs(figures.captured(2).toDouble() - variantForward.toDouble()) < 0.0015, qPrintable(variantForward + " | " + caption));

        // The report says the same.
        const auto sections = compareSections(page);
        const auto *variants = sectionWithId(sections, "variants");
        QVERIFY(variants);
        QCOMPARE(variants->tables.size(), std::size_t(2));
        QVERIFY(variants->tables[0].caption.find("timed runs") != std::string::npos);
        QCOMPARE(variants->tables[0].header[1], std::string("Latency (timed runs, mean ms)"));
        QVERIFY(variants->tables[1].caption.find("int8_static") != std::string::npos);
        QVERIFY2(variants->tables[1].caption.find("the mean of 3 profiled runs with the profiler's overhead") != std::string::npos,
                 variants->tables[1].caption.c_str());
        QCOMPARE(variants->tables[1].header[3], std::string("Variant forward (profiled runs, ms)"));
        QCOMPARE(variants->images.size(), std::size_t(1));
        const auto &image = variants->images[0];
        QVERIFY2(image.caption.starts_with("Diff flame graph, baseline → int8_static: "), image.caption.c_str());
        QVERIFY(image.caption.find("profiled operators per forward pass") != std::string::npos);
        QVERIFY(image.caption.find("Click") == std::string::npos); // nothing to click in a report
        QCOMPARE(decodedPng(image), drawnRows(flame.graph));
        QVERIFY(!sectionWithId(sections, "trace-diff")); // no traces compared

        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("variants")));
        page.tabs()->setCurrentIndex(2);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("variant-flame")));
    }

    // The report's traces section names base and other and embeds their own diff flame graph,
    // whatever the Diff flame graph tab shows; the variants section has the variant's.
    void reportNamesTheTracesAndTheirFlameGraph()
    {
        ShownPage shown;
        auto &[jobs, workspace, page] = shown;
        QVERIFY(shown.compareSmallCnn(QStringLiteral("baseline,channels_last")));
        workspace.openTrace(kBase);
        QVERIFY(waitIdle(jobs));
        workspace.openTrace(kOther);
        QVERIFY(waitIdle(jobs));
        page.diffTracesButton()->click();
        QVERIFY(waitIdle(jobs));
        QCOMPARE(page.comparedTraces(), std::make_pair(QStringLiteral("diff_base.json"), QStringLiteral("diff_other.json")));

        // The tab names the pair, and its caption says which is the base.
        QCOMPARE(page.flameSourceCombo()->currentText(), QStringLiteral("diff_base.json → diff_other.json"));
        const QString tracesCaption = page.flameCaption()->text();
        QVERIFY2(tracesCaption.contains(QStringLiteral("<b>diff_other.json</b> against the base <b>diff_base.json</b>")),
                 qPrintable(tracesCaption));
        QVERIFY(tracesCaption.contains(QStringLiteral("whole traces")));
        page.tabs()->setCurrentIndex(1);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("traces")));
        page.tabs()->setCurrentIndex(2);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("traces-flame")));

        // The tab shows the variant when the report is made.
        page.flameSourceCombo()->setCurrentIndex(page.flameSourceCombo()->findText(QStringLiteral("baseline → channels_last")));
        QVERIFY(page.diffFlameGraph()->graph() != page.tracesFlame().graph.get());
        const auto sections = compareSections(page);

        const auto *traces = sectionWithId(sections, "trace-diff");
        QVERIFY(traces);
        QCOMPARE(traces->title, std::string("Two traces compared: diff_base.json → diff_other.json"));
        QCOMPARE(traces->facts.size(), std::size_t(3));
        QCOMPARE(traces->facts[0].label + ": " + traces->facts[0].value, std::string("Base: diff_base.json"));
        QCOMPARE(traces->facts[1].label + ": " + traces->facts[1].value, std::string("Other: diff_other.json"));
        QCOMPARE(traces->images.size(), std::size_t(1));
        QVERIFY2(traces->images[0].caption.starts_with("Diff flame graph, diff_base.json → diff_other.json: diff_other.json against "
                                                       "the base diff_base.json"),
                 traces->images[0].caption.c_str());
        const QImage tracesImage = decodedPng(traces->images[0]);
        QCOMPARE(tracesImage, drawnRows(page.tracesFlame().graph));

        const auto *variants = sectionWithId(sections, "variants");
        QVERIFY(variants);
        QCOMPARE(variants->images.size(), std::size_t(1));
        QVERIFY2(variants->images[0].caption.starts_with("Diff flame graph, baseline → channels_last: "), variants->images[0].caption.c_str());
        QCOMPARE(decodedPng(variants->images[0]), drawnRows(page.variantFlame(QStringLiteral("channels_last")).graph));
        QVERIFY(decodedPng(variants->images[0]) != tracesImage);

        // As the HTML report writes it: base and other named before the tables.
        const auto html = report::renderHtml(report::Report{"Compare", {}, sections});
        const auto named = html.find("<dt>Base</dt><dd>diff_base.json</dd>");
        QVERIFY(named != std::string::npos);
        QVERIFY(named < html.find("<dt>Other</dt><dd>diff_other.json</dd>"));
        QVERIFY(html.find("<dt>Other</dt>") < html.find("<table", html.find("id=\"trace-diff\"")));
        if (const QString shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QFile file(QDir(shots).filePath(QStringLiteral("pyrometer-labels-report.html")));
            QVERIFY(file.open(QIODevice::WriteOnly) && file.write(html.data(), qint64(html.size())) == qint64(html.size()));
        }
    }

    // In the window: an empty Compare Inputs field takes the Model page's; with neither (and a
    // model that records none) the message names the Inputs field, where pyrometer-cli names
    // its flag.
    void compareTakesTheModelPagesInputs()
    {
        MainWindow window;
        window.setInteractive(false);
        window.openPaths({kNoInputs});
        QVERIFY(waitIdle(*window.jobs()));
        auto *model = qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
        auto *compare = qobject_cast<ComparePage *>(window.pageWidget(Page::Compare));
        QVERIFY(model && compare);
        QVERIFY(model->inputsEdit()->text().isEmpty());
        QVERIFY(compare->inputsEdit()->text().isEmpty());
        QVERIFY(compare->inputsEdit()->placeholderText().contains(QStringLiteral("Model page")));

        QVERIFY(runCompare(*compare, *window.jobs(), QStringLiteral("baseline")));
        QCOMPARE(compare->variantsModel()->rowCount(), 0);
        const QString status = compare->variantsStatus()->text();
        QVERIFY2(status.contains(QStringLiteral("type them in the Inputs field")), qPrintable(status));
        QVERIFY2(!status.contains(QStringLiteral("--input")), qPrintable(status));
        QCOMPARE(window.failureCount(), 1);
        QVERIFY(!window.banner()->messages().isEmpty());
        QVERIFY(window.banner()->messages().back().contains(QStringLiteral("Inputs field")));
        QVERIFY(!window.banner()->messages().back().contains(QStringLiteral("--input")));
        // pyrometer-cli keeps its flag.
        const auto cli = torch::givenOrRecordedInputs(kNoInputs.toStdString(), {});
        QVERIFY(!cli.ok());
        QVERIFY(cli.error().message.find(model::kGiveInputsHint) != std::string::npos);

        model->inputsEdit()->setText(QStringLiteral("2x4"));
        QVERIFY(runCompare(*compare, *window.jobs(), QStringLiteral("baseline")));
        QCOMPARE(compare->variantsModel()->rowCount(), 1);
        QVERIFY2(compare->variantsModel()->rows()[0].ok(), compare->variantsModel()->rows()[0].error.c_str());
        QVERIFY2(compare->variantsStatus()->text().startsWith(
                     QStringLiteral("Inputs 2x4, from the Model page's Inputs field. Energy")),
                 qPrintable(compare->variantsStatus()->text()));

        // The Compare page's own field comes first.
        compare->inputsEdit()->setText(QStringLiteral("3x4"));
        QVERIFY(runCompare(*compare, *window.jobs(), QStringLiteral("baseline")));
        QVERIFY2(compare->variantsStatus()->text().startsWith(QStringLiteral("Inputs 3x4, as typed. Energy")),
                 qPrintable(compare->variantsStatus()->text()));
        QCOMPARE(window.failureCount(), 1);
    }

    // A sweep cancelled after its first points: the report keeps them and says it did not
    // finish; a finished one has its summary and no such note.
    void reportSaysASweepDidNotFinish()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ModelPage page(&workspace, &jobs);
        workspace.openModel(kSmallCnn);
        QVERIFY(waitIdle(jobs));
        auto *sweep = page.sweepView();
        sweep->batchesEdit()->setText(QStringLiteral("1,2,4,8,16,32,64,128"));
        sweep->variantsEdit()->setText(QStringLiteral("baseline"));
        sweep->iterationsSpin()->setValue(3);
        auto cancelling = connect(sweep, &SweepView::pointAdded, this, [&] { jobs.cancel(sweep->runningJob()); });
        sweep->runButton()->click();
        QVERIFY(waitIdle(jobs));
        disconnect(cancelling);
        QVERIFY(!sweep->report());
        const int points = sweep->pointsModel()->rowCount();
        QVERIFY(points >= 1 && points < 8);
        auto sections = sweepSections(*sweep);
        QCOMPARE(sections.size(), std::size_t(1));
        QCOMPARE(sections[0].title, std::string("Batch-size sweep (did not finish)"));
        const std::string said = "This sweep did not finish; " + std::to_string(points) + (points == 1 ? " point" : " points") + " measured.";
        QCOMPARE(sections[0].paragraphs, std::vector<std::string>{said});
        QCOMPARE(int(sections[0].tables[0].rows.size()), points);

        sweep->batchesEdit()->setText(QStringLiteral("1,2"));
        sweep->runButton()->click();
        QVERIFY(waitIdle(jobs));
        QVERIFY(sweep->report());
        sections = sweepSections(*sweep);
        QCOMPARE(sections[0].title, std::string("Batch-size sweep"));
        QVERIFY(!sections[0].paragraphs.empty());
        for (const auto &paragraph : sections[0].paragraphs)
            QVERIFY2(paragraph.find("did not finish") == std::string::npos, paragraph.c_str());
    }
};

QTEST_MAIN(TestCompareLabels)
#include "tst_comparelabels.moc"
