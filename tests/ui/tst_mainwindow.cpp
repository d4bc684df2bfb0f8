#include "ui/compare/comparepage.h"
#include "ui/flamegraph/flamegraphpage.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/jobs/jobstatuswidget.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/modelpage.h"
#include "ui/model/profileresultsview.h"
#include "ui/overview/overviewpage.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"
#include "ui/shell/recentfiles.h"
#include "ui/shell/screenshot.h"
#include "ui/tables/operatorspage.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/workspace.h"
#include "maybegrab.h"

#include "core/trace/trace.h"

#include <QAction>
#include <QDropEvent>
#include <QDateTime>
#include <QDir>
#include <QTabWidget>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QToolButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QTest>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTreeWidgetItemIterator>
#include <QTimer>
#include <QTreeWidget>

using namespace pyrometer::ui;

namespace {

const QString kFixtures = QStringLiteral(PYROMETER_FIXTURES_DIR);
const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces");

bool waitIdle(MainWindow &window)
{
    return QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 60'000);
}

int countItems(const QTreeWidget *tree)
{
    int count = 0;
    std::function<void(const QTreeWidgetItem *)> visit = [&](const QTreeWidgetItem *item) {
        ++count;
        for (int i = 0; i < item->childCount(); ++i)
            visit(item->child(i));
    };
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        visit(tree->topLevelItem(i));
    return count;
}

QJsonObject demoFacts()
{
    QFile file(QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo_facts.json"));
    return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object() : QJsonObject();
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    }

    void init() { QSettings().clear(); }

    void overviewAndModelStartEmpty()
    {
        MainWindow window;
        auto *overview = qobject_cast<OverviewPage *>(window.pageWidget(Page::Overview));
        auto *model = qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QVERIFY(overview && model && timeline);
        QVERIFY(!timeline->hasContent());
        QVERIFY(timeline->emptyState()->hint().contains("Ctrl+O"));
        auto *operators = qobject_cast<tables::OperatorsPage *>(window.pageWidget(Page::Operators));
        QVERIFY(operators && !operators->hasContent());
        auto *flame = qobject_cast<flamegraph::FlameGraphPage *>(window.pageWidget(Page::FlameGraph));
        QVERIFY(flame && !flame->hasContent());
        QCOMPARE(flame->emptyState()->hint(), QString("Open a trace: Ctrl+O"));
        QCOMPARE(operators->emptyState()->hint(), QString("Open a trace: Ctrl+O"));
        QVERIFY(!overview->hasContent());
        QVERIFY(overview->emptyState()->hint().contains("Ctrl+O"));
        QVERIFY(!model->hasContent());
        QVERIFY(model->emptyState()->hint().contains("Ctrl+M"));
    }

    void pageNamesRoundTrip()
    {
        for (const auto page : kAllPages)
            QCOMPARE(pageFromName(pageName(page)), std::optional<Page>(page));
        QCOMPARE(pageFromName("FlameGraph"), std::optional<Page>(Page::FlameGraph));
        QVERIFY(!pageFromName("flames"));
        MainWindow window;
        window.showPage(Page::Compare);
        QCOMPARE(window.currentPage(), Page::Compare);
    }

    void demoOpensTraceAndModel()
    {
        MainWindow window;
        window.openDemo();
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QCOMPARE(window.workspace()->models().size(), std::size_t(1));

        auto *overview = qobject_cast<OverviewPage *>(window.pageWidget(Page::Overview));
        QVERIFY(overview->hasContent());
        const QString html = overview->summaryHtml();
        QVERIFY(html.contains("demo.pt.trace.json"));
        QVERIFY(html.contains("demo_model.pt"));
        QVERIFY2(html.contains(">285<"), "the demo trace has 285 events"); // counted by Python's json

        auto *model = qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
        QVERIFY(model->hasContent());
        QCOMPARE(countItems(model->moduleTree()), int(demoFacts().value("modules").toInteger()));
        QCOMPARE(model->moduleTree()->topLevelItem(0)->text(2),
                 QLocale().toString(demoFacts().value("parameters").toInteger()));

        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QVERIFY(timeline->hasContent());
        QCOMPARE(timeline->view()->index()->trace.get(), window.workspace()->traces().begin()->second->trace.get());
        auto *operators = qobject_cast<tables::OperatorsPage *>(window.pageWidget(Page::Operators));
        QVERIFY(operators->hasContent());
        auto *flame = qobject_cast<flamegraph::FlameGraphPage *>(window.pageWidget(Page::FlameGraph));
        QVERIFY(flame->hasContent());
        QVERIFY(flame->graphView()->graph()->tree.nodes[0].totalNs > 0);
        // One trace and a model: Compare offers the model's variants, whichever arrived first.
        auto *compare = qobject_cast<ComparePage *>(window.pageWidget(Page::Compare));
        QCOMPARE(compare->tabs()->currentIndex(), 0);
    }

    // A big trace being loaded shows its progress in the status bar; Cancel stops it, says so,
    // and what was open stays open and shown.
    void cancellingALoadKeepsWhatWasOpen()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 800);
        window.show();
        window.openPaths({kTraces + "/debian_legacy_linear.json"});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        const auto open = window.workspace()->traces().begin()->first;

        // Some 200 MB of events: seconds to load, so there is time to cancel.
        QTemporaryDir dir;
        const QString big = dir.filePath("big.json");
        {
            QFile file(big);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("{\"traceEvents\": [\n");
            QByteArray block;
            for (int i = 0; i < 10000; ++i)
                block += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":"
                    + QByteArray::number(i * 10) + ",\"dur\":5,\"args\":{\"External id\":" + QByteArray::number(i) + "}},\n";
            for (int i = 0; i < 180; ++i)
                QCOMPARE(file.write(block), block.size());
            file.write("{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]}\n");
        }
        window.openPaths({big});
        auto *status = window.jobStatus();
        QTRY_VERIFY_WITH_TIMEOUT(!status->isHidden() && status->progressBar()->value() > 0, 20000);
        QVERIFY(status->text().contains("big.json"));
        maybeGrab(window, "loading-progress.png");
        status->cancelButton()->click();
        QVERIFY(waitIdle(window));
        QVERIFY(status->isHidden());
        QVERIFY2(window.statusBar()->currentMessage().contains("cancelled"),
                 qPrintable(window.statusBar()->currentMessage()));
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QCOMPARE(window.workspace()->traces().begin()->first, open);
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QCOMPARE(timeline->currentTrace(), open);
    }

    // Opening an open trace again (by another spelling of its path) loads nothing and shows it.
    void openingAnOpenTraceShowsIt()
    {
        MainWindow window;
        window.setInteractive(false);
        const QString a = kTraces + "/debian_legacy_linear.json";
        const QString b = kTraces + "/diff_base.json";
        window.openPaths({a});
        QVERIFY(waitIdle(window));
        window.openPaths({b});
        QVERIFY(waitIdle(window));
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        const auto ids = window.workspace()->traces();
        QCOMPARE(timeline->currentTrace(), ids.rbegin()->first);
        window.openPaths({kTraces + "/../traces/debian_legacy_linear.json"});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(2));
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(timeline->currentTrace(), ids.begin()->first);
        QVERIFY(QTest::qWaitFor([&] { return timeline->view()->index() &&
                                             timeline->view()->index()->trace.get() == window.workspace()->traces().begin()->second->trace.get(); },
                                10000));
        QVERIFY(window.statusBar()->currentMessage().contains("open already"));

        // A file rewritten since it was read is a new trace.
        QTemporaryDir dir;
        const QString copy = dir.filePath("copy.json");
        QVERIFY(QFile::copy(a, copy));
        window.openPaths({copy});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(3));
        QFile rewritten(copy);
        QVERIFY(rewritten.open(QIODevice::ReadWrite));
        QVERIFY(rewritten.setFileTime(QDateTime::currentDateTime().addSecs(60), QFileDevice::FileModificationTime));
        rewritten.close();
        window.openPaths({copy});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(4));
    }

    // Export report proposes a name: the first trace's (else the model's) and the date, beside
    // it when that folder can be written, else in the home folder.
    void reportHasADefaultName()
    {
        MainWindow window;
        window.setInteractive(false);
        const QDate date(2026, 3, 14);
        QCOMPARE(window.defaultReportPath(date), QDir::home().filePath("pyrometer-report-2026-03-14.html"));
        QTemporaryDir dir;
        const QString model = dir.filePath("resnet18.pt");
        QVERIFY(QFile::copy(kFixtures + "/models/tiny_scripted.pt", model));
        window.openPaths({model});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.defaultReportPath(date), dir.filePath("resnet18-report-2026-03-14.html"));
        const QString trace = dir.filePath("worker0.1623143089861.pt.trace.json");
        QVERIFY(QFile::copy(kTraces + "/debian_legacy_linear.json", trace));
        window.openPaths({trace});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.defaultReportPath(date), dir.filePath("worker0.1623143089861-report-2026-03-14.html"));
    }

    // With traces open and no model, the Compare page opens on its Traces tab.
    void compareOpensOnTracesWithoutAModel()
    {
        MainWindow window;
        window.setInteractive(false);
        window.openPaths({kTraces + "/diff_base.json", kTraces + "/diff_other.json"});
        QVERIFY(waitIdle(window));
        auto *compare = qobject_cast<ComparePage *>(window.pageWidget(Page::Compare));
        QCOMPARE(compare->tabs()->tabText(compare->tabs()->currentIndex()), QStringLiteral("Traces"));
        // --view compare --run with two traces and no model compares them.
        QCOMPARE(startPageRun(&window, Page::Compare, {}), QString());
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentPage(), Page::Compare);
        QCOMPARE(compare->opDiffModel()->rowCount(), 5);
    }

    void pageRunStartsTheModelProfile()
    {
        MainWindow window;
        // Nothing to run before a model is open, and only the Model and Compare pages run.
        QVERIFY(startPageRun(&window, Page::Model, {}).contains("open a model"));
        window.openDemo();
        QVERIFY(waitIdle(window));
        QVERIFY(startPageRun(&window, Page::Timeline, {}).contains("only the Model and Compare pages"));
        auto *model = qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
        // The demo model records the batch its trace was taken at: the page fills it in.
        QCOMPARE(model->inputsEdit()->text(), QStringLiteral("%1").arg(demoFacts().value("input").toString()));
        model->warmupSpin()->setValue(0);
        model->iterationsSpin()->setValue(2);
        QCOMPARE(startPageRun(&window, Page::Model, QStringLiteral("2x3x32x32")), QString());
        QCOMPARE(window.currentPage(), Page::Model);
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        QVERIFY(model->results()->run());
        QCOMPARE(model->inputsEdit()->text(), QStringLiteral("2x3x32x32"));
    }

    void timelineRangeListsItsOperators()
    {
        MainWindow window;
        window.openDemo();
        QVERIFY(waitIdle(window));
        auto *page = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QVERIFY(page->hasContent());
        const auto *index = page->view()->index();
        // The whole trace as a range: the same operators as the CLI's ops table.
        Q_EMIT page->view()->rangeSelected(double(index->spanStart), double(index->spanEnd) + 1);
        QVERIFY(waitIdle(window));
        const QString html = page->details()->toHtml();
        QVERIFY2(html.contains("Range") && html.contains("aten::mkldnn_convolution"), qPrintable(html.left(400)));
        QVERIFY(html.contains("285 events"));

        // Search: the demo's 12 mkldnn convolutions, with next/previous selecting them.
        page->searchBox()->setText("mkldnn");
        QCOMPARE(page->matchLabel()->text(), QString("12 matches"));
        page->nextMatch();
        QVERIFY(page->view()->selectedEvent());
        QCOMPARE(page->matchLabel()->text(), QString("1 of 12"));
        page->previousMatch();
        QCOMPARE(page->matchLabel()->text(), QString("12 of 12"));
        QVERIFY(page->details()->toHtml().contains("mkldnn_convolution"));

        // An operator chosen in the Operators page is highlighted in the timeline, the view on
        // the slowest of its 12 calls.
        auto *operators = qobject_cast<tables::OperatorsPage *>(window.pageWidget(Page::Operators));
        Q_EMIT operators->rowEventsSelected(0, "aten::batch_norm");
        QVERIFY2(page->matchLabel()->text().endsWith(QString(" of 12")), qPrintable(page->matchLabel()->text()));
        QCOMPARE(page->searchBox()->text(), QString("aten::batch_norm"));

        // "Range in Operators" shows the range's tables there.
        Q_EMIT page->openRangeInOperators(double(index->spanStart), double(index->spanStart) + 1e6);
        QCOMPARE(window.currentPage(), Page::Operators);
        QVERIFY(waitIdle(window));
    }

    void badTraceShowsErrorAndKeepsWhatWasOpen()
    {
        MainWindow window;
        window.openDemo();
        QVERIFY(waitIdle(window));
        QTemporaryDir dir;
        const QString broken = dir.filePath("broken.json");
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"traceEvents\": [{\"name\": \"x\", \"ph\": \"X\", ");
        file.close();

        window.openPaths({broken});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 1);
        QVERIFY(window.banner()->isVisibleTo(&window));
        QVERIFY2(window.banner()->messages().value(0).contains(broken), qPrintable(window.banner()->messages().join('|')));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        QVERIFY(qobject_cast<OverviewPage *>(window.pageWidget(Page::Overview))->hasContent());
        // The banner offers to load the valid part, as --partial does.
        const auto buttons = window.banner()->actionButtons();
        QCOMPARE(buttons.size(), 1);
        QVERIFY(buttons.front()->text().contains("broken.json"));
        window.banner()->dismiss();
        QVERIFY(!window.banner()->isVisibleTo(&window));
        QVERIFY(window.banner()->actionButtons().isEmpty());
    }

    void truncatedTraceLoadsItsValidPartOnRequest()
    {
        MainWindow window;
        QTemporaryDir dir;
        const QString truncated = dir.filePath("truncated.json");
        QFile file(truncated);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"traceEvents": [{"name": "a", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1},)"
                   R"({"name": "b", "ph": "X", "ts": 5, "dur": 2, "pid": 1, "tid": 1}, {"name": "c", "ph")");
        file.close();
        window.openPaths({truncated});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 1);
        QVERIFY(window.workspace()->traces().empty());
        const auto buttons = window.banner()->actionButtons();
        QCOMPARE(buttons.size(), 1);
        buttons.front()->click();
        QVERIFY(waitIdle(window));
        QCOMPARE(window.workspace()->traces().size(), std::size_t(1));
        const auto &info = window.workspace()->traces().begin()->second->trace->info;
        QVERIFY(info.partial);
        QCOMPARE(info.phaseCounts.at("X"), std::uint64_t(2));
    }

    // A file that is no JSON at all has no valid part to offer; an error is gone once the user
    // opens something else; quotes in a message read as quotes.
    void bannerOffersOnlyWhatCanWork()
    {
        MainWindow window;
        window.setInteractive(false);
        QTemporaryDir dir;
        const QString text = dir.filePath("notes.json");
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("these are my notes, not a trace\n");
        file.close();
        window.openPaths({text});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 1);
        QVERIFY(window.banner()->isVisibleTo(&window));
        QVERIFY(window.banner()->actionButtons().isEmpty());

        window.openPaths({kTraces + "/diff_base.json"});
        QVERIFY(waitIdle(window));
        QVERIFY(!window.banner()->isVisibleTo(&window));
        QVERIFY(window.banner()->messages().isEmpty());

        window.openPaths({kFixtures + "/models/state_dict.pt"});
        QVERIFY(waitIdle(window));
        auto *label = window.banner()->findChild<QLabel *>();
        QVERIFY(label);
        QCOMPARE(label->textFormat(), Qt::RichText);
        QTextDocument shown;
        shown.setHtml(label->text());
        QVERIFY2(shown.toPlainText().contains(QStringLiteral(".save(\"model.pt\")")), qPrintable(shown.toPlainText()));
    }

    // What was opened decides the page: a trace does not land on the Model page, a model
    // opened from the Timeline goes to the Model page.
    void openingLandsWhereTheFileShows()
    {
        MainWindow window;
        window.setInteractive(false);
        window.showPage(Page::Model);
        window.openPaths({kTraces + "/diff_base.json"});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentPage(), Page::Overview);
        window.showPage(Page::Timeline);
        window.openPaths({kTraces + "/diff_other.json"});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentPage(), Page::Timeline); // it shows traces: stays
        window.openPaths({kFixtures + "/models/tiny_scripted.pt"});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentPage(), Page::Model);
        window.showPage(Page::Timeline);
        window.openPaths({kFixtures + "/models/tiny_scripted.pt"}); // open already: still shown
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentPage(), Page::Model);
        QCOMPARE(window.workspace()->models().size(), std::size_t(1));
    }

    // After a dialog closes the window has the focus again, so Ctrl+1…7 keep working.
    void shortcutsWorkAfterADialog()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTimer::singleShot(300, [] {
            if (auto *dialog = QApplication::activeModalWidget())
                dialog->close();
        });
        window.showPreferences();
        QVERIFY(QTest::qWaitFor([&] { return QApplication::activeWindow() == &window; }, 5000));
        QVERIFY(window.isAncestorOf(QApplication::focusWidget()));
        QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(window.currentPage(), Page::Timeline);
    }

    void refusedInputsNameTheFile_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("says");
        QTest::addRow("state_dict") << kFixtures + "/models/state_dict.pt" << "torch.save checkpoint";
        QTest::addRow("missing") << kFixtures + "/no/such/trace.json" << "no such file";
        QTest::addRow("empty log dir") << kFixtures + "/models" << "no traces here";
    }
    void refusedInputsNameTheFile()
    {
        QFETCH(QString, path);
        QFETCH(QString, says);
        MainWindow window;
        window.setInteractive(false);
        window.openPaths({path});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 1);
        const QString message = window.banner()->messages().value(0);
        QVERIFY2(message.startsWith(path) && message.contains(says), qPrintable(message));
        QVERIFY(window.workspace()->traces().empty() && window.workspace()->models().empty());
    }

    void logDirectoryOpensItsFirstRunWhenNotInteractive()
    {
        QVERIFY2(QFile::exists(kTraces + "/tb_logdir"), qPrintable("missing fixture " + kTraces + "/tb_logdir"));
        MainWindow window;
        window.setInteractive(false);
        window.openPaths({kTraces + "/tb_logdir"});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        // Every span of the first run, as the dialog checks them.
        QCOMPARE(window.workspace()->traces().size(), std::size_t(2));
        QStringList names;
        for (const auto &[id, trace] : window.workspace()->traces())
            names << QFileInfo(trace->path).fileName();
        names.sort();
        QCOMPARE(names, QStringList({"worker0.1623143089861.pt.trace.json.gz", "worker0.1623143566756.pt.trace.json.gz"}));
    }

    // A folder given with a trailing slash (as shells complete it) is named in the status bar.
    void folderJobsNameTheFolder()
    {
        MainWindow window;
        window.setInteractive(false);
        QStringList titles;
        connect(window.jobs(), &JobTracker::started, &window,
                [&](JobTracker::JobId, const QString &title) { titles << title; });
        window.openPaths({kTraces + "/tb_logdir/"});
        QVERIFY(waitIdle(window));
        QVERIFY2(titles.contains(QStringLiteral("Listing the traces in tb_logdir")), qPrintable(titles.join('|')));
    }

    // The timeline takes the keys when its page is shown by Ctrl+2 or a click on the page list,
    // so W zooms at once; arrowing through the list leaves the keys in the list.
    void timelineTakesTheKeysWhenShown()
    {
        MainWindow window;
        window.setInteractive(false);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.openPaths({kTraces + "/diff_base.json"});
        QVERIFY(waitIdle(window));
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QTRY_VERIFY(timeline->hasContent());
        auto *view = timeline->view();
        QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(window.currentPage(), Page::Overview);
        QVERIFY(!view->hasFocus());
        QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(window.currentPage(), Page::Timeline);
        QTRY_VERIFY(view->hasFocus());
        const double before = view->viewport().nsPerPixel;
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
        QVERIFY(view->viewport().nsPerPixel < before);

        QListWidget *pages = nullptr;
        for (auto *list : window.findChildren<QListWidget *>())
            if (list->count() == int(kAllPages.size()) && list->item(1)->text() == pageTitle(Page::Timeline))
                pages = list;
        QVERIFY(pages);
        pages->setFocus();
        QTest::keyClick(pages, Qt::Key_Up);
        QCOMPARE(window.currentPage(), Page::Overview);
        QTest::keyClick(pages, Qt::Key_Down);
        QCOMPARE(window.currentPage(), Page::Timeline);
        QVERIFY(pages->hasFocus());
        QTest::keyClick(pages, Qt::Key_Up);
        const QRect item = pages->visualItemRect(pages->item(1));
        QTest::mouseClick(pages->viewport(), Qt::LeftButton, {}, item.center());
        QCOMPARE(window.currentPage(), Page::Timeline);
        QTRY_VERIFY(view->hasFocus());
    }

    void dropOpensFilesAndFolders()
    {
        MainWindow window;
        auto *mime = new QMimeData;
        mime->setUrls({QUrl::fromLocalFile(kFixtures + "/models/tiny_scripted.pt")});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(window.workspace()->models().size(), std::size_t(1));
        delete mime;

        auto *text = new QMimeData;
        text->setText("not a file");
        QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, text, Qt::LeftButton, Qt::NoModifier);
        refused.setAccepted(false);
        QApplication::sendEvent(&window, &refused);
        QVERIFY(!refused.isAccepted());
        delete text;
    }

    void openedFilesGoToRecentMenu()
    {
        const QString model = QFileInfo(kFixtures + "/models/tiny_scripted.pt").absoluteFilePath();
        MainWindow window;
        window.openPaths({model});
        QVERIFY(waitIdle(window));
        QCOMPARE(RecentFiles::load(QSettings()), QStringList{model});
        QCOMPARE(window.recentMenu()->actions().value(0)->text(), model);

        // Reopening moves it to the front without duplicating it; the list is bounded.
        QSettings settings;
        for (int i = 0; i < RecentFiles::kMaximum + 3; ++i)
            RecentFiles::add(settings, QStringLiteral("/tmp/t%1.json").arg(i));
        RecentFiles::add(settings, model);
        const QStringList files = RecentFiles::load(settings);
        QCOMPARE(files.size(), RecentFiles::kMaximum);
        QCOMPARE(files.front(), model);
        QCOMPARE(files.count(model), 1);
    }

    void windowGeometryAndPageAreRemembered()
    {
        {
            MainWindow window;
            window.show();
            window.resize(1240, 760);
            window.showPage(Page::Model);
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.close();
        }
        MainWindow again;
        // The offscreen screen is 800 px wide. Qt 6.8 fits a restored window wider than its screen
        // to it, 2 px narrower (an exact fit would read as maximised); Qt 6.4 keeps the saved width.
        QSize expected(1240, 760);
#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)
        expected.setWidth(std::min(1240, again.screen()->availableGeometry().width() - 2));
#endif
        QCOMPARE(again.size(), expected);
        QCOMPARE(again.currentPage(), Page::Model);
    }

    void pagesFitASmallLaptop()
    {
        MainWindow window;
        for (const auto page : kAllPages)
            QVERIFY2(window.pageWidget(page)->minimumSizeHint().width() <= 1000,
                     qPrintable(pageName(page) + ": " + QString::number(window.pageWidget(page)->minimumSizeHint().width())));
    }

    // At the default window size the Model page's module tree shows its Parameters column
    // whole: the names give way, elided, with the whole name as tooltip.
    void modelTreeFitsTheDefaultWindow()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 800);
        window.show();
        window.openPaths({kFixtures + "/models/tiny_scripted.pt"});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.currentPage(), Page::Model);
        auto *tree = qobject_cast<ModelPage *>(window.pageWidget(Page::Model))->moduleTree();
        QTest::qWait(50);
        const auto *header = tree->header();
        QVERIFY(header->sectionViewportPosition(2) + header->sectionSize(2) <= tree->viewport()->width());
        QVERIFY(tree->topLevelItem(0)->toolTip(0).endsWith(QStringLiteral("tiny_scripted.pt")));
    }

    // At the default window size every module of the demo model reads whole in the tree: each
    // row names its own part of the path ("conv1" under "0" under "layer1"), the tooltip the
    // whole path, and the column is as wide as the longest of them.
    void modelTreeNamesReadWhole()
    {
        MainWindow window;
        window.setInteractive(false);
        window.resize(1280, 800);
        window.show();
        window.openDemo();
        QVERIFY(waitIdle(window));
        window.showPage(Page::Model);
        auto *tree = qobject_cast<ModelPage *>(window.pageWidget(Page::Model))->moduleTree();
        QTest::qWait(50);
        int deep = 0;
        for (QTreeWidgetItemIterator it(tree); *it; ++it) {
            const auto *item = *it;
            const QString path = item->toolTip(0);
            QVERIFY(!path.isEmpty());
            if (item->parent()) {
                QCOMPARE(item->text(0), path.section(QLatin1Char('.'), -1));
                deep += item->parent()->parent() ? 1 : 0;
            }
            int depth = 0;
            for (auto *p = item->parent(); p; p = p->parent())
                ++depth;
            // The column less the indentation of the item's level and the branch mark.
            const int available = tree->header()->sectionSize(0) - tree->indentation() * (depth + (tree->rootIsDecorated() ? 1 : 0));
            QVERIFY2(available >= tree->fontMetrics().horizontalAdvance(item->text(0)) + 6,
                     qPrintable(QStringLiteral("%1: %2 px for %3 px").arg(path).arg(available).arg(tree->fontMetrics().horizontalAdvance(item->text(0)))));
        }
        QVERIFY(deep > 0); // the demo model nests modules
        // A type cut short reads whole in its tooltip.
        QCOMPARE(tree->topLevelItem(0)->toolTip(1), tree->topLevelItem(0)->text(1));
        // The parameters stay on screen.
        const auto *header = tree->header();
        QVERIFY(header->sectionViewportPosition(2) + header->sectionSize(2) <= tree->viewport()->width());
        maybeGrab(window, QStringLiteral("model-tree.png"));
    }

    void aboutNamesTheVersions()
    {
        const QString text = MainWindow::aboutText();
        QVERIFY(text.contains(QLatin1String(qVersion())));
        QVERIFY(QByteArray(PYROMETER_TORCH_MAJOR_MINOR).size() >= 3);
        QVERIFY2(text.contains(QStringLiteral("libtorch " PYROMETER_TORCH_MAJOR_MINOR)), qPrintable(text));
    }

    void screenshotWaitsForLoadsAndWritesPng()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath("model.png");
        MainWindow window;
        window.resize(1240, 760);
        window.show();
        window.openDemo();
        int code = -1;
        QString message;
        screenshotWhenIdle(&window, Page::Model, png, [&](int c, const QString &m) {
            code = c;
            message = m;
        });
        QTRY_VERIFY_WITH_TIMEOUT(code != -1, 60'000);
        QCOMPARE(code, 0);
        QVERIFY(message.isEmpty());
        QCOMPARE(window.currentPage(), Page::Model);
        QVERIFY(qobject_cast<ModelPage *>(window.pageWidget(Page::Model))->hasContent());
        const QImage image(png);
        QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
    }

    void screenshotExitsNonZeroWhenAnInputFailed()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.setInteractive(false);
        window.show();
        window.openPaths({kFixtures + "/models/text.pt"});
        int code = -1;
        QString message;
        screenshotWhenIdle(&window, Page::Overview, dir.filePath("x.png"), [&](int c, const QString &m) {
            code = c;
            message = m;
        });
        QTRY_VERIFY_WITH_TIMEOUT(code != -1, 60'000);
        QCOMPARE(code, 1);
        QVERIFY2(message.contains("text.pt"), qPrintable(message));
        QVERIFY(QFile::exists(dir.filePath("x.png")));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
