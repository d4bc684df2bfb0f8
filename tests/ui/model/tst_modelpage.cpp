#include <QAbstractItemModelTester>
#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>

#include <algorithm>
#include <functional>

#include <qcustomplot.h>

#include "core/model/layerroofline.h"
#include "tests/ui/maybegrab.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/latencyhistogram.h"
#include "ui/model/layertreemodel.h"
#include "ui/model/modelpage.h"
#include "ui/model/profileresultsview.h"
#include "ui/model/profilerun.h"
#include "ui/shell/mainwindow.h"
#include "ui/workspace/workspace.h"

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kDemoModel = QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo_model.pt");
const QString kTinyModel = QStringLiteral(PYROMETER_FIXTURES_DIR "/models/tiny_scripted.pt");
const QString kTestModels = QStringLiteral(PYROMETER_TEST_MODELS_DIR);

struct Finished {
    JobTracker::JobId id = 0;
    JobOutcome outcome = JobOutcome::Succeeded;
    QString message;
};

// A page with its own tracker and workspace, as the window wires them.
struct Fixture {
    JobTracker jobs;
    Workspace workspace{&jobs};
    ModelPage page{&workspace, &jobs};
    std::vector<Finished> finished;

    Fixture()
    {
        QObject::connect(&jobs, &JobTracker::finished, &jobs,
                         [this](JobTracker::JobId id, const QString &, JobOutcome outcome, const QString &message) {
                             finished.push_back({id, outcome, message});
                         });
        page.resize(1400, 900);
    }

    bool waitIdle(int ms = 60'000) { return QTest::qWaitFor([this] { return jobs.isIdle(); }, ms); }

    bool open(const QString &path)
    {
        workspace.openModel(path);
        return waitIdle() && page.hasContent();
    }

    // Sets the form and presses Run; returns the job's id.
    JobTracker::JobId run(const QString &inputs, int warmup, int iterations)
    {
        page.inputsEdit()->setText(inputs);
        page.warmupSpin()->setValue(warmup);
        page.iterationsSpin()->setValue(iterations);
        QSignalSpy started(&jobs, &JobTracker::started);
        page.runButton()->click();
        // The job may already have finished (a bad spec fails at once): take its id from started().
        return started.isEmpty() ? 0 : started.last().at(0).value<JobTracker::JobId>();
    }

    const Finished *outcomeOf(JobTracker::JobId id) const
    {
        for (const auto &f : finished)
            if (f.id == id)
                return &f;
        return nullptr;
    }
};

// The unit (ms, MiB, GMACs...) that begins a line of rich text laid out at width, if any: a
// unit belongs on its figure's line.
QString unitStartingALine(const QString &html, const QFont &font, int width)
{
    static const QStringList units = {QStringLiteral("ms"),  QStringLiteral("B"),   QStringLiteral("KiB"),
                                      QStringLiteral("MiB"), QStringLiteral("GiB"), QStringLiteral("GMACs")};
    QTextDocument document;
    document.setDefaultFont(font);
    document.setHtml(html);
    document.setTextWidth(width);
    (void)document.documentLayout()->documentSize(); // lays the text out
    for (auto block = document.begin(); block.isValid(); block = block.next()) {
        const QString text = block.text();
        const auto *layout = block.layout();
        for (int i = 1; i < layout->lineCount(); ++i) {
            QString word = text.mid(layout->lineAt(i).textStart());
            const auto end = std::find_if(word.begin(), word.end(), [](QChar c) {
                return c.isSpace() || c == QLatin1Char(',') || c == QLatin1Char(';') || c == QLatin1Char(')');
            });
            word.truncate(int(end - word.begin()));
            if (units.contains(word))
                return word;
        }
    }
    return {};
}

} // namespace

class TestModelPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The profile's roof: the engine's; for a GPU the table lacks, Preferences'; else nothing,
    // and the note says why (the measurement's error too), never a silent blank.
    void roofOfAProfileSaysWhyNone()
    {
        const auto h100 = *analysis::findDevice("H100 SXM");
        const auto mine = analysis::customDevice("mine", 100e12, 1e12);
        using Answer = Result<std::optional<analysis::DeviceRoof>>;
        QCOMPARE(chooseRoof(Answer(std::optional(h100)), mine).first, std::optional(h100));
        QCOMPARE(chooseRoof(Answer(std::optional<analysis::DeviceRoof>()), mine).first, std::optional(mine));
        const auto none = chooseRoof(Answer(std::optional<analysis::DeviceRoof>()), std::nullopt);
        QVERIFY(!none.first);
        QVERIFY2(none.second.find("Preferences") != std::string::npos, none.second.c_str());
        const auto failed = chooseRoof(Answer(Error{"python3: cannot start"}), mine);
        QVERIFY(!failed.first);
        QCOMPARE(failed.second, std::string("no roof: python3: cannot start"));
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_modelpage"));
        QSettings().clear();
        QVERIFY(QFileInfo::exists(kDemoModel));
        QVERIFY(QFileInfo::exists(kTinyModel));
    }

    void runsAProfileAndShowsResults()
    {
        Fixture f;
        QVERIFY(f.open(kTinyModel));
        QVERIFY(f.page.moduleTree()->topLevelItemCount() == 1);
        QVERIFY(!f.page.results()->timelineButton()->isEnabled()); // nothing recorded yet
        auto *results = f.page.results();
        QAbstractItemModelTester tester(results->layerProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        const auto id = f.run(QStringLiteral("2x4"), 1, 7);
        QVERIFY(id != 0);
        QVERIFY(!f.page.runButton()->isEnabled()); // one run at a time
        QVERIFY(f.waitIdle());
        QVERIFY(f.outcomeOf(id));
        QCOMPARE(f.outcomeOf(id)->outcome, JobOutcome::Succeeded);
        QVERIFY(f.page.runButton()->isEnabled());
        QCOMPARE(f.page.runningJob(), JobTracker::JobId(0));

        const ProfileRun *run = results->run();
        QVERIFY(run);
        QCOMPARE(int(run->latency.samplesMs.size()), 7);
        QCOMPARE(run->latency.warmup, 1);
        QCOMPARE(run->profile.iterations, 7);

        // The table: the model's row holds every module of the profile as a tree.
        auto *model = results->layerModel();
        QCOMPARE(model->rowCount(), 1);
        QVERIFY(model->rowCount(model->index(0, 0)) > 0);
        QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("tiny_scripted.pt"));
        QCOMPARE(results->layerView()->model(), results->layerProxy());
        const QModelIndex root = model->index(0, LayerTreeModel::PercentColumn);
        QVERIFY(root.data(LayerTreeModel::SortRole).toDouble() > 50.0);

        // The roofline columns: the run measured this CPU's roof (once, cached), and each leaf
        // layer of known work sits under it as layerRooflineRow puts it.
        QVERIFY(run->roof);
        QVERIFY(run->roof->measured);
        QVERIFY(QFileInfo::exists(QString::fromStdString(cpuRoofCacheFile().string())));
        int placed = 0;
        std::function<void(const QModelIndex &)> visit = [&](const QModelIndex &parent) {
            for (int row = 0; row < model->rowCount(parent); ++row) {
                const auto index = model->index(row, 0, parent);
                visit(index);
                const auto *placedRow = model->roofline(index);
                if (!placedRow || !placedRow->known())
                    continue;
                ++placed;
                QVERIFY(*placedRow == model::layerRooflineRow(*model->layer(index), run->roof));
                const auto bound = index.siblingAtColumn(LayerTreeModel::BoundColumn).data().toString();
                QVERIFY2(bound == QStringLiteral("memory") || bound == QStringLiteral("compute"), qPrintable(bound));
            }
        };
        visit({});
        QVERIFY(placed > 0);
        results->layerView()->expandAll();
        maybeGrab(f.page, QStringLiteral("model-layers-roofline.png"));

        // The summary shows the measured numbers.
        const QString mean = results->statLabel(ProfileResultsView::Stat::Mean)->text();
        QVERIFY2(mean.endsWith(QLatin1String(" ms")), qPrintable(mean));
        QVERIFY(results->statLabel(ProfileResultsView::Stat::Throughput)->text().contains(QLatin1String("items/s")));
        QVERIFY(results->headline()->text().contains(QLatin1String("2x4")));
        // However narrow the page, a unit stays on its figure's line.
        for (int width = 120; width <= 1400; width += 3) {
            const QString orphan = unitStartingALine(results->headline()->text(), results->headline()->font(), width);
            QVERIFY2(orphan.isEmpty(), qPrintable(QStringLiteral("%1 starts a line at %2 px").arg(orphan).arg(width)));
        }

        // The histogram holds every timed run.
        double total = 0;
        for (auto it = results->histogram()->bars()->data()->constBegin(); it != results->histogram()->bars()->data()->constEnd(); ++it)
            total += it->value;
        QCOMPARE(total, 7.0);

        // Timeline: the trace is exported into the cache and opened in the workspace.
        QVERIFY(QFileInfo::exists(QString::fromStdString(run->tracePath.string())));
        QVERIFY(QString::fromStdString(run->tracePath.string())
                    .startsWith(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)));
        QVERIFY(results->timelineButton()->isEnabled());
        QSignalSpy timeline(&f.page, &ModelPage::timelineRequested);
        QSignalSpy opened(&f.workspace, &Workspace::traceOpened);
        results->timelineButton()->click();
        QCOMPARE(timeline.count(), 1);
        QVERIFY(f.waitIdle());
        QCOMPARE(opened.count(), 1);
        QCOMPARE(f.workspace.traces().rbegin()->second->path, QString::fromStdString(run->tracePath.string()));

        // Flame graph: the same trace, open already: shown again, not loaded twice.
        QVERIFY(results->flameGraphButton()->isEnabled());
        QSignalSpy flame(&f.page, &ModelPage::flameGraphRequested);
        QSignalSpy again(&f.workspace, &Workspace::traceOpenedAgain);
        const auto traces = f.workspace.traces().size();
        results->flameGraphButton()->click();
        QCOMPARE(flame.count(), 1);
        QVERIFY(f.waitIdle());
        QCOMPARE(opened.count(), 1);
        QCOMPARE(again.count(), 1);
        QCOMPARE(f.workspace.traces().size(), traces);
        QCOMPARE(f.workspace.trace(again.at(0).at(0).toInt())->path, QString::fromStdString(run->tracePath.string()));
    }

    // A model.py:build factory runs in the Python engine, in the interpreter Record remembers:
    // the page says so, prefills the factory's example inputs, offers the interpreter's devices
    // (CUDA greyed out here, saying why) and shows the run as for TorchScript.
    void runsInThePythonEngine()
    {
        QSettings().setValue(QStringLiteral("record/python"), QStringLiteral("/usr/bin/python3"));
        Fixture f;
        QVERIFY(f.open(kTinyModel));
        QVERIFY(f.page.summaryLabel()->text().contains(QLatin1String("Runs in <b>embedded libtorch")));
        QVERIFY(!f.page.deviceCombo()->isEnabled()); // the embedded engine runs on the CPU

        const QString model = QStringLiteral(PYROMETER_FIXTURES_DIR "/engine/factory_cnn.py:build");
        QVERIFY(f.open(model));
        QCOMPARE(f.page.currentModelPath(), model);
        const QString summary = f.page.summaryLabel()->text();
        QVERIFY2(summary.contains(QLatin1String("Runs in <b>Python ")) && summary.contains(QLatin1String("torch ")), qPrintable(summary));
        QCOMPARE(f.page.inputsEdit()->text(), QStringLiteral("2x3x32x32")); // what the factory returned
        QCOMPARE(f.page.moduleTree()->topLevelItem(0)->text(1), QStringLiteral("FactoryCnn"));
        auto *devices = f.page.deviceCombo();
        QVERIFY(devices->isEnabled());
        QCOMPARE(devices->itemData(0).toString(), QStringLiteral("cpu"));
        const int cuda = devices->findData(QStringLiteral("cuda"));
        QVERIFY(cuda > 0);
        auto *items = qobject_cast<QStandardItemModel *>(devices->model());
        QVERIFY(items && !items->item(cuda)->isEnabled());
        QVERIFY2(items->item(cuda)->toolTip().contains(QLatin1String("CUDA")), qPrintable(items->item(cuda)->toolTip()));
        QCOMPARE(f.page.engineFor(model).python, std::string("/usr/bin/python3"));
        QCOMPARE(f.page.engineFor(model).device, std::string("cpu"));

        const auto id = f.run(QStringLiteral("2x3x32x32"), 1, 3);
        QVERIFY(f.waitIdle());
        QVERIFY(f.outcomeOf(id));
        QVERIFY2(f.outcomeOf(id)->outcome == JobOutcome::Succeeded, qPrintable(f.outcomeOf(id)->message));
        const ProfileRun *run = f.page.results()->run();
        QVERIFY(run);
        QVERIFY(QString::fromStdString(run->latency.engine).startsWith(QLatin1String("Python ")));
        QCOMPARE(int(run->latency.samplesMs.size()), 3);
        bool conv = false;
        for (const auto &row : run->profile.rows)
            conv = conv || (row.module == "blocks.0.conv" && row.calls == 1 && row.macs > 0);
        QVERIFY(conv);
        // torch.profiler's own trace, ready for the Timeline.
        QVERIFY(QFileInfo(QString::fromStdString(run->tracePath.string())).size() > 0);
        QVERIFY(f.page.results()->timelineButton()->isEnabled());
        maybeGrab(f.page, QStringLiteral("model-python-engine.png"));
        QSettings().remove(QStringLiteral("record/python"));
    }

    void filtersTheLayerTable()
    {
        Fixture f;
        QVERIFY(f.open(kDemoModel));
        f.run(QStringLiteral("2x3x64x64"), 1, 3);
        QVERIFY(f.waitIdle());
        auto *results = f.page.results();
        QVERIFY(results->run());
        auto *proxy = results->layerProxy();
        QAbstractItemModelTester tester(proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Filtering for a leaf type keeps its ancestors (recursive filtering), and only those.
        results->filterEdit()->setText(QStringLiteral("Linear"));
        QCOMPARE(proxy->rowCount(), 1);
        const QModelIndex top = proxy->index(0, 0);
        QCOMPARE(proxy->rowCount(top), 1);
        QCOMPARE(proxy->index(0, 0, top).data(LayerTreeModel::QualifiedNameRole).toString(), QStringLiteral("head"));
        results->filterEdit()->clear();
        QCOMPARE(proxy->rowCount(top), results->layerModel()->rowCount(results->layerModel()->index(0, 0)));
        // Sorted by total time, slowest first.
        const int children = proxy->rowCount(top);
        QVERIFY(children >= 3);
        for (int row = 1; row < children; ++row)
            QVERIFY(proxy->index(row - 1, LayerTreeModel::TotalMsColumn, top).data(LayerTreeModel::SortRole).toDouble() >=
                    proxy->index(row, LayerTreeModel::TotalMsColumn, top).data(LayerTreeModel::SortRole).toDouble());
    }

    void errorsFailTheJobAndLeaveThePageUsable_data()
    {
        QTest::addColumn<QString>("inputs");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("messagePart");
        QTest::addRow("bad spec") << "2xq" << 0 << "inputs \"2xq\"";
        QTest::addRow("bad dtype") << "2x4:complex" << 0 << "tiny_scripted.pt";
        QTest::addRow("wrong shape") << "2x5" << 0 << "tiny_scripted.pt";
        QTest::addRow("wrong input count") << "2x4,2x4" << 0 << "tiny_scripted.pt";
        QTest::addRow("no inputs recorded") << "" << 0 << "records none";
    }
    void errorsFailTheJobAndLeaveThePageUsable()
    {
        QFETCH(QString, inputs);
        QFETCH(int, mode);
        QFETCH(QString, messagePart);
        Fixture f;
        QVERIFY(f.open(kTinyModel));
        f.page.modeCombo()->setCurrentIndex(mode);
        const auto id = f.run(inputs, 0, 2);
        QVERIFY(f.waitIdle());
        const Finished *outcome = f.outcomeOf(id);
        QVERIFY(outcome);
        QCOMPARE(outcome->outcome, JobOutcome::Failed);
        QVERIFY2(outcome->message.contains(messagePart), qPrintable(outcome->message));
        QVERIFY(!outcome->message.contains(QLatin1Char('\n')));
        QVERIFY(f.page.runButton()->isEnabled());
        QVERIFY(!f.page.results()->run());

        // The same page then runs a good spec.
        const auto good = f.run(QStringLiteral("3x4"), 0, 2);
        QVERIFY(f.waitIdle());
        QCOMPARE(f.outcomeOf(good)->outcome, JobOutcome::Succeeded);
        QVERIFY(f.page.results()->run());
    }

    void trainStepRuns()
    {
        Fixture f;
        QVERIFY(f.open(kTinyModel));
        f.page.modeCombo()->setCurrentIndex(1);
        f.page.threadsSpin()->setValue(1);
        const auto id = f.run(QStringLiteral("4x4"), 1, 3);
        QVERIFY(f.waitIdle());
        QVERIFY2(f.outcomeOf(id)->outcome == JobOutcome::Succeeded, qPrintable(f.outcomeOf(id)->message));
        QCOMPARE(f.page.results()->run()->latency.mode, model::RunMode::Train);
        QCOMPARE(f.page.results()->run()->latency.threads, 1);
        QVERIFY(f.page.results()->headline()->text().contains(QLatin1String("train step")));
    }

    // The run happens on a worker: the GUI thread keeps processing events while it runs. A run
    // on the GUI thread would let no timer fire until it ended.
    void staysResponsiveDuringALongRun()
    {
        Fixture f;
        QVERIFY(f.open(kDemoModel));
        QSignalSpy progress(&f.jobs, &JobTracker::progressChanged);
        int ticksWhileRunning = 0;
        QTimer timer;
        timer.setInterval(0);
        QObject::connect(&timer, &QTimer::timeout, [&] { ticksWhileRunning += f.jobs.activeCount() > 0 ? 1 : 0; });
        timer.start();
        const auto id = f.run(QStringLiteral("1x3x224x224"), 2, 60); // resnet-size input
        QVERIFY(f.jobs.activeCount() > 0);
        QVERIFY(f.waitIdle());
        timer.stop();
        QCOMPARE(f.outcomeOf(id)->outcome, JobOutcome::Succeeded);
        QVERIFY2(ticksWhileRunning >= 10, qPrintable(QString::number(ticksWhileRunning)));
        QVERIFY(progress.count() >= 2);
        QCOMPARE(f.page.results()->run()->latency.inputs.front().shape, (std::vector<std::int64_t>{1, 3, 224, 224}));
    }

    void cancelStopsTheRun()
    {
        Fixture f;
        QVERIFY(f.open(kDemoModel));
        QSignalSpy progress(&f.jobs, &JobTracker::progressChanged);
        const auto id = f.run(QStringLiteral("2x3x64x64"), 0, 100000);
        QVERIFY(id != 0);
        // The timed runs have begun when progress moves: the cancel must reach them. A hundred
        // thousand of them would take minutes; finishing at all is the outcome.
        QVERIFY(QTest::qWaitFor([&] { return progress.count() >= 3; }, 60'000));
        QCOMPARE(f.jobs.activeCount(), 1);
        f.jobs.cancel(id);
        QVERIFY(f.waitIdle(60'000));
        QCOMPARE(f.outcomeOf(id)->outcome, JobOutcome::Cancelled);
        QVERIFY(f.page.runButton()->isEnabled());
        QVERIFY(!f.page.results()->run());
    }

    // In the window: the profile's Timeline button switches the window to the Timeline page.
    // With PYROMETER_SCREENSHOT set to a PNG path, also saves the page after the run.
    void windowShowsTheRecordedTrace()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1500, 950);
        window.show();
        window.openPaths({kDemoModel});
        QVERIFY(QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 60'000));
        window.showPage(Page::Model);
        auto *page = qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
        QVERIFY(page && page->hasContent());
        page->inputsEdit()->setText(QStringLiteral("8x3x64x64"));
        page->iterationsSpin()->setValue(60);
        page->runButton()->click();
        QVERIFY(QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 60'000));
        QCOMPARE(window.failureCount(), 0);
        QVERIFY(page->results()->run());
        if (const QByteArray shot = qgetenv("PYROMETER_SCREENSHOT"); !shot.isEmpty()) {
            QCoreApplication::processEvents();
            QVERIFY(window.grab().save(QString::fromLocal8Bit(shot)));
        }
        const auto tracesBefore = window.workspace()->traces().size();
        page->results()->timelineButton()->click();
        QCOMPARE(window.currentPage(), Page::Timeline);
        QVERIFY(QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 60'000));
        QCOMPARE(window.workspace()->traces().size(), tracesBefore + 1);
        QCOMPARE(window.failureCount(), 0);
    }

    void prefillsRecordedInputs_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("spec");
        QTest::addRow("one input") << "small_cnn.pt" << "1x3x32x32";
        QTest::addRow("two inputs with a dtype") << "two_inputs.pt" << "3x8,3x5:int64";
    }
    void prefillsRecordedInputs()
    {
        QFETCH(QString, model);
        QFETCH(QString, spec);
        const QString path = kTestModels + QLatin1Char('/') + model;
        QVERIFY2(QFileInfo::exists(path), "made by the CTest fixture torch_make_test_models");
        Fixture f;
        QVERIFY(f.open(path));
        QCOMPARE(f.page.inputsEdit()->text(), spec);
        // And a run with them needs nothing typed.
        const auto id = f.run(f.page.inputsEdit()->text(), 0, 2);
        QVERIFY(f.waitIdle());
        QCOMPARE(f.outcomeOf(id)->outcome, JobOutcome::Succeeded);

        // A model that records nothing clears what the previous one filled in.
        QVERIFY(f.open(kTinyModel));
        QVERIFY(f.page.inputsEdit()->text().isEmpty());
        QVERIFY(!f.page.results()->run());
    }
};

QTEST_MAIN(TestModelPage)
#include "tst_modelpage.moc"
